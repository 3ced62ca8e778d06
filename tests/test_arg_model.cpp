// Argument handling of every routine, form and precision against the model in arg_model.hpp.
// Boundary: a few valid calls, each argument replaced in turn by every boundary value, zero-size
// problems next to huge dimensions, and consistent problems at every size limit. Random: calls
// from a fixed seed (GPUSVD_ARG_MODEL_SEED=<n> replays another seed, GPUSVD_ARG_MODEL_CASES=<n>
// changes how many per routine). A failure prints the C call that reproduces it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "arg_model.hpp"

namespace arg_model {
// gtest prints the parameter with the test's name.
void PrintTo(Routine r, std::ostream *os) {
    *os << info_of(r).base;
}
}  // namespace arg_model

using namespace arg_model;

namespace {

constexpr uint64_t kDefaultSeed = 20240611;
constexpr int kDefaultRandomCases = 1000;
constexpr int kShownFailures = 24;

uint64_t env_u64(const char *name, uint64_t fallback) {
    const char *v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

/// The kind of a failure: the form and the first difference, numbers and quoted text left out,
/// so that one bug hit by many cases is reported once.
std::string signature(const Case &c, const std::string &failure) {
    std::string s = routine_name(c) + ": ";
    bool digits = false;
    for (char ch : failure.substr(0, failure.find('"'))) {
        const bool d = ch >= '0' && ch <= '9';
        if (d && !digits) s += 'N';
        if (!d) s += ch;
        digits = d;
    }
    return s;
}

/// What a routine's cases did, for the failure report and the coverage checks.
struct Tally {
    int ran = 0, forked = 0, not_run = 0, failed = 0;
    std::map<std::string, int> predicted;  // outcome kind -> calls run
    std::map<std::string, int> kinds;      // failure signature -> calls
    int work_by_type[4] = {};              // host calls that factorize, by s, d, c, z
    std::string report;

    void add(const Case &c, const Outcome &o, const std::string &label) {
        if (!o.ran) {
            ++not_run;
            return;
        }
        ++ran;
        forked += o.forked;
        const Prediction &p = o.predicted;
        std::string kind = status_name(p.status);
        if (p.zero) kind += " (zero-size)";
        if (p.work) kind += " (work)";
        kind += c.form == Form::Host ? " host" : c.form == Form::Gpu ? " _gpu" : " _bufferSize";
        ++predicted[kind];
        if (p.work && c.form == Form::Host) ++work_by_type[c.dbl + 2 * c.cplx];
        if (o.failures.empty()) return;
        ++failed;
        const std::string sig = signature(c, o.failures[0]);
        if (kinds[sig]++ > 0 || kinds.size() > size_t(kShownFailures)) return;
        report += "\n[" + label + "] " + describe(c) + "\n  model: " + describe(p) + "\n";
        for (const std::string &f : o.failures) report += "  - " + f + "\n";
    }
    std::string summary() const {
        std::string s;
        for (const auto &k : kinds) s += "\n  " + std::to_string(k.second) + " x " + k.first;
        return s;
    }
};

std::string routine_label(Routine r) {
    return info_of(r).base;
}

/// Element types: s, d, and c, z where the routine has them.
struct Precision {
    bool dbl, cplx;
};
std::vector<Precision> precisions(Routine r) {
    std::vector<Precision> p = {{false, false}, {true, false}};
    if (info_of(r).complex) p.push_back({false, true}), p.push_back({true, true});
    return p;
}

/// A valid call of small sizes; jobs from `variant`.
Case base_case(Routine r, Form f, Precision pr, int variant) {
    Case c;
    c.routine = r, c.form = f, c.dbl = pr.dbl, c.cplx = pr.cplx;
    c.e0 = variant & 1, c.e1 = (variant >> 1) & 1;
    c.m = 5, c.n = 3, c.k = 2;
    c.batch = info_of(r).batched ? 2 : 1;
    if (r == Routine::Geev || r == Routine::Bdsvd) c.n = 4;
    if (variant & 4) std::swap(c.m, c.n);  // wide
    make_consistent(c);
    return c;
}

void add_consistent(std::vector<Case> &out, Case c) {
    make_consistent(c);
    out.push_back(c);
}

std::vector<Case> boundary_cases(Routine r) {
    const RoutineInfo &ri = info_of(r);
    std::vector<Case> out;
    const bool pca = r == Routine::Pca || r == Routine::PcaDist;
    for (Form f : {Form::Host, Form::Gpu, Form::BufferSize})
        for (Precision dbl : precisions(r)) {
            const int variants = pca ? 1 : ri.dist ? 2 : 8;
            for (int v = 0; v < variants; ++v) {
                Case c = base_case(r, f, dbl, v);
                out.push_back(c);
                if (v != (pca ? 0 : ri.dist ? 1 : 3))
                    continue;  // the rest from the all-vectors call
                Case x = c;
                x.null_handle = true, out.push_back(x);
                if (ri.dist) {
                    x = c, x.null_comm = true, out.push_back(x);
                    x.null_handle = true, out.push_back(x);
                    x = c, x.null_comm = true, x.row_major = true, x.n = -1, out.push_back(x);
                }
                if (column_major_only(r)) {  // refused first, whatever else is wrong
                    x = c, x.row_major = true, out.push_back(x);
                    x.n = -1, out.push_back(x);
                    x.null_handle = true, out.push_back(x);
                }
                for (Workspace w : {Workspace::Exact, Workspace::Short})
                    x = c, x.ws = w, out.push_back(x);
                x = c, x.backend_cpu = true, out.push_back(x);
                const int e[2] = {c.e0, c.e1};
                for (int i = 0; i < ri.enums; ++i)
                    for (int val : kEnumValues) {
                        if (val == e[i]) continue;
                        x = c;
                        (i ? x.e1 : x.e0) = val;
                        out.push_back(x);
                    }
                std::vector<int64_t *> fields = {&c.n};
                if (ri.has_m) fields.push_back(&c.m);
                if (pca) fields.push_back(&c.k);
                if (ri.batched) fields.push_back(&c.batch);
                if (f != Form::BufferSize) {
                    for (int i = 0; i < ri.lds; ++i) fields.push_back(&c.ld[i]);
                    for (int i = 0; i < ri.strides; ++i) fields.push_back(&c.stride[i]);
                }
                for (int64_t *field : fields) {
                    const int64_t keep = *field;
                    for (int64_t val : {keep - 1, keep + 1}) *field = val, out.push_back(c);
                    for (int64_t val : kBoundary) *field = val, out.push_back(c);
                    *field = keep;
                }
                for (int s = 0; s < ri.slots && f != Form::BufferSize; ++s)
                    x = c, x.null_ptr[s] = true, out.push_back(x);
                for (int s = 0; s < 2 && f == Form::BufferSize; ++s)
                    x = c, x.null_size_out[s] = true, out.push_back(x);
                // Zero-size problems next to every size, arrays given or NULL.
                for (int64_t big : kBoundary) {
                    if (big < 0) continue;
                    for (int which = 0; which < 3; ++which) {
                        x = c;
                        if (which == 0 && !ri.has_m) continue;
                        if (which == 0) x.m = 0, x.n = big;
                        if (which == 1) x.n = 0, x.m = ri.has_m ? big : 0;
                        if (which == 2 && pca) x.k = 0, x.m = big, x.n = big;
                        if (which == 2 && ri.batched) x.batch = 0, x.m = big, x.n = big;
                        if (which == 2 && !pca && !ri.batched) continue;
                        if (which != 2 && pca) x.k = 0;
                        add_consistent(out, x);
                        for (int s = 0; s < ri.slots - 1; ++s) x.null_ptr[s] = true;
                        out.push_back(x);
                    }
                }
            }
            // Consistent problems at every size limit, with and without vectors.
            for (int64_t big : kBoundary) {
                if (big <= 0) continue;
                for (int v : {0, 3}) {
                    Case c = base_case(r, f, dbl, v);
                    if (pca) c.k = 1;
                    if (ri.has_m) {
                        for (int shape = 0; shape < 3; ++shape) {
                            Case x = c;
                            x.m = shape == 1 ? 1 + pca : big;
                            x.n = shape == 0 ? 1 : big;
                            add_consistent(out, x);
                        }
                    } else {
                        Case x = c;
                        x.n = big;
                        add_consistent(out, x);
                    }
                }
            }
        }
    return out;
}

class ArgModel : public ::testing::TestWithParam<Routine> {
protected:
    void SetUp() override {
        env_.device = device_present();
        report_sanitizer_deaths();
        ASSERT_TRUE(env_.capture.ok()) << "cannot create a temporary file for stdout/stderr";
    }
    void finish(const Tally &t, const std::string &what) {
        if (t.failed)
            ADD_FAILURE() << t.failed << " of " << t.ran << " " << what
                          << " calls disagree with the model (" << t.forked
                          << " ran in a child process). Kinds of failure:" << t.summary()
                          << "\nOne call of each kind:" << t.report;
    }
    Env env_;
};

TEST_P(ArgModel, BoundaryCases) {
    const Routine r = GetParam();
    Tally t;
    const std::vector<Case> cases = boundary_cases(r);
    const std::vector<Outcome> outcomes = check_all(cases, env_);
    for (size_t i = 0; i < cases.size(); ++i)
        t.add(cases[i], outcomes[i], "boundary case " + std::to_string(i));
    finish(t, routine_label(r) + " boundary");
    // Every kind of outcome is exercised (the model and the enumeration are not vacuous).
    if (!env_.device) {
        for (const char *kind :
             {"GPUSVD_STATUS_INVALID_VALUE host", "GPUSVD_STATUS_INVALID_VALUE _gpu",
              "GPUSVD_STATUS_INVALID_VALUE _bufferSize", "GPUSVD_STATUS_NOT_SUPPORTED host",
              "GPUSVD_STATUS_NOT_SUPPORTED _bufferSize", "GPUSVD_STATUS_NO_DEVICE _gpu",
              "GPUSVD_STATUS_SUCCESS (zero-size) host", "GPUSVD_STATUS_SUCCESS (work) host",
              "GPUSVD_STATUS_SUCCESS (zero-size) _bufferSize",
              "GPUSVD_STATUS_SUCCESS (work) _bufferSize"}) {
            EXPECT_GT(t.predicted[kind], 0) << "no boundary case of kind " << kind;
        }
        // Each element type's host calls run real work.
        for (Precision pr : precisions(r))
            EXPECT_GT(t.work_by_type[pr.dbl + 2 * pr.cplx], 0)
                << "no successful host call of element type " << "sdcz"[pr.dbl + 2 * pr.cplx];
    }
}

TEST_P(ArgModel, RandomCases) {
    const Routine r = GetParam();
    const uint64_t seed = env_u64("GPUSVD_ARG_MODEL_SEED", kDefaultSeed) + uint64_t(r);
    const int count = int(env_u64("GPUSVD_ARG_MODEL_CASES", kDefaultRandomCases));
    Rng rng(seed);
    Tally t;
    std::vector<Case> cases;
    for (int i = 0; i < count; ++i) cases.push_back(generate(rng, int(r)));
    const std::vector<Outcome> outcomes = check_all(cases, env_);
    for (int i = 0; i < count; ++i)
        t.add(cases[i], outcomes[i],
              "seed " + std::to_string(seed) + ", case " + std::to_string(i));
    finish(t, routine_label(r) + " random (seed " + std::to_string(seed) + ")");
    EXPECT_GT(t.ran, count / 2) << "most random cases should be runnable";
}

// The checker itself: output on either stream is seen, and a message must carry the routine, the
// argument and the value as the caller passed it.
TEST(ArgModelHarness, CaptureSeesBothStreams) {
    Capture cap;
    ASSERT_TRUE(cap.ok());
    cap.begin();
    std::printf("to stdout ");  // left in stdio's buffer: end() must flush it
    EXPECT_EQ(write(2, "to stderr", 9), 9);
    const std::string got = cap.end();
    EXPECT_NE(got.find("to stdout"), std::string::npos) << got;
    EXPECT_NE(got.find("to stderr"), std::string::npos) << got;
    cap.begin();
    EXPECT_EQ(cap.end(), "");
}

TEST(ArgModelHarness, MessageCheck) {
    Prediction p;
    p.status = GPUSVD_STATUS_INVALID_VALUE;
    p.why = {{{"jobu"}, "-1", "enum out of range"}};
    const std::string r = "gpusvd_sgesvj";
    EXPECT_EQ(check_message("gpusvd_sgesvj: argument jobu = -1 is invalid: ...", r, p), "");
    EXPECT_NE(check_message("gpusvd_sgesvj: argument jobu = 4294967295 is invalid", r, p), "");
    EXPECT_NE(check_message("gpusvd_sgesvj: argument jobv = -1 is invalid", r, p), "");
    EXPECT_NE(check_message("gpusvd_sgesvj_batched: argument jobu = -1 is invalid", r, p), "");
    p.why = {{{"lda"}, "4", "lda < max(1, rows)"}, {{"A"}, "NULL", "A NULL"}};
    EXPECT_NE(check_message("gpusvd_sgesvj: argument lda = -4 is invalid", r, p), "");
    EXPECT_NE(check_message("gpusvd_sgesvj: argument lda = 42 is invalid", r, p), "");
    EXPECT_EQ(check_message("gpusvd_sgesvj: argument A = NULL is invalid", r, p), "");
}

// The model's reading of the limits documented in gpusvd.h, at those that matter most.
TEST(ArgModelHarness, PredictionsAtTheLimits) {
    auto call = [](Routine r, int64_t m, int64_t n, int jobs) {
        Case c;
        c.routine = r, c.e0 = c.e1 = jobs, c.m = m, c.n = n, c.k = 1;
        c.batch = info_of(r).batched ? 2 : 1;
        make_consistent(c);
        return predict(c, false, false);
    };
    const gpusvdStatus_t unsupported = GPUSVD_STATUS_NOT_SUPPORTED;
    // ?gesvj's workspace m + n: m * n fits 32 bits, m + n does not.
    EXPECT_EQ(call(Routine::Gesvj, kI32, 1, 0).status, unsupported);
    EXPECT_TRUE(call(Routine::Gesvj, kI32 - 1, 1, 0).work);
    // Zero-size problems succeed next to any other dimension.
    EXPECT_TRUE(call(Routine::Gesvj, 0, int64_t(1) << 31, 1).zero);
    EXPECT_TRUE(call(Routine::GeqrfBatched, kI64, 0, 1).zero);
    // dqds indexes 4n entries; with vectors ?bdsdc needs 3n^2 + 4n.
    EXPECT_TRUE(call(Routine::Bdsvd, 0, 536870911, 0).work);
    EXPECT_EQ(call(Routine::Bdsvd, 0, 536870912, 0).status, unsupported);
    EXPECT_TRUE(call(Routine::Bdsvd, 0, 26754, 1).work);
    EXPECT_EQ(call(Routine::Bdsvd, 0, 26755, 1).status, unsupported);
    EXPECT_TRUE(call(Routine::Geev, 0, 46191, 1).work);
    EXPECT_EQ(call(Routine::Geev, 0, 46192, 1).status, unsupported);
    EXPECT_TRUE(call(Routine::Pca, 20711, 20711, 0).work);
    EXPECT_EQ(call(Routine::Pca, 20712, 20712, 0).status, unsupported);
    // One sample has no variance; rows past int64 are not addressable.
    EXPECT_EQ(call(Routine::Pca, 1, 3, 0).status, GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_EQ(call(Routine::Gesvj, kI64, 2, 0).status, GPUSVD_STATUS_INVALID_VALUE);
    // Complex pca always takes the QR method, whose LAPACK sees m: double data that the
    // covariance method takes with 2^31 samples is too tall in complex.
    Case c;
    c.routine = Routine::Pca, c.dbl = true, c.m = int64_t(1) << 31, c.n = 1, c.k = 1;
    c.null_ptr[3] = true;
    make_consistent(c);
    EXPECT_TRUE(predict(c, false, false).work);
    c.cplx = true;
    EXPECT_EQ(predict(c, false, false).status, unsupported);
    // A distributed call with one rank: fewer rows than columns is refused by the agreement,
    // n = 0 succeeds next to any mLocal, and _bufferSize has the call's 32-bit limits.
    EXPECT_EQ(call(Routine::GeqrfDist, 2, 3, 0).status, GPUSVD_STATUS_INVALID_VALUE);
    EXPECT_TRUE(call(Routine::GeqrfDist, int64_t(1) << 40, 0, 0).zero);
    EXPECT_EQ(call(Routine::GeqrfDist, int64_t(1) << 31, 3, 0).status, unsupported);
    EXPECT_EQ(call(Routine::PcaDist, 1, 1, 0).status, GPUSVD_STATUS_INVALID_VALUE);
    c = Case{};
    c.routine = Routine::PcaDist, c.form = Form::BufferSize, c.m = int64_t(1) << 40, c.n = 4;
    c.k = 4;
    EXPECT_EQ(predict(c, false, false).status, unsupported);
    c.m = 4;
    EXPECT_TRUE(predict(c, false, false).work);
}

INSTANTIATE_TEST_SUITE_P(Routines, ArgModel,
                         ::testing::Values(Routine::Gesvj, Routine::GesvjBatched, Routine::Geqrf,
                                           Routine::GeqrfBatched, Routine::Geev, Routine::Bdsvd,
                                           Routine::Pca, Routine::GeqrfDist, Routine::PcaDist),
                         [](const ::testing::TestParamInfo<Routine> &i) {
                             return routine_label(i.param);
                         });

}  // namespace
