// The worst ratios a test file meets, kept per precision and printed when the run ends, so CI
// logs show how far below the thresholds the results stay.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>

namespace gpusvd_test {

/// The worst ratios of kind W met so far for precision T (the real type for complex data).
template <class W, typename T>
W &worst() {
    static W w;
    return w;
}

/// Prints worst<W, float>() and worst<W, double>() at the end of the run through
/// W::print(const W &, const char *precision_name).
template <class W>
class PrintWorst : public ::testing::Environment {
public:
    PrintWorst(const char *float_name, const char *double_name)
        : float_name_(float_name), double_name_(double_name) {}
    void TearDown() override {
        W::print(worst<W, float>(), float_name_);
        W::print(worst<W, double>(), double_name_);
    }

private:
    const char *float_name_, *double_name_;
};

/// Registers the end-of-run print of W's worst ratios; call once per test file, at namespace
/// scope (const auto *const x = print_worst_at_end<W>(...)).
template <class W>
const ::testing::Environment *print_worst_at_end(const char *float_name = "float",
                                                 const char *double_name = "double") {
    return ::testing::AddGlobalTestEnvironment(new PrintWorst<W>(float_name, double_name));
}

/// The one-sided Jacobi SVD's ratios (DESIGN.md's SVD ratios and the graded relative accuracy).
struct SvdWorst {
    double resid = 0, orth_u = 0, orth_v = 0, sv = 0, rel = 0;
    int checked = 0;
    static void print(const SvdWorst &w, const char *name) {
        std::printf(
            "[team jacobi %s] %d SVDs checked; worst ratios: resid %.3g orthU %.3g "
            "orthV %.3g |S - S_lapack| %.3g graded relative %.3g\n",
            name, w.checked, w.resid, w.orth_u, w.orth_v, w.sv, w.rel);
    }
};

}  // namespace gpusvd_test
