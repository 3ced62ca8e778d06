// gpusvd bdsvd FILE: SVD of a square bidiagonal matrix (gpusvd_?bdsvd). Upper or lower is
// detected from the entries; any other nonzero entry is an error.
#include <cstdio>

#include "cli.hpp"
#include "factor_common.hpp"

namespace gpusvd_cli {

namespace {

std::string position(int64_t i, int64_t j) {
    return "(" + std::to_string(i + 1) + "," + std::to_string(j + 1) + ")";
}

std::string value_text(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

struct Bidiagonal {
    gpusvdUplo_t uplo = GPUSVD_UPPER;
    std::vector<double> d, e;
};

/// Splits the n x n matrix into d and e; throws naming the first entry that does not fit.
Bidiagonal split_bidiagonal(const Matrix &a) {
    const int64_t n = a.rows;
    int64_t up_i = -1, up_j = -1, lo_i = -1, lo_j = -1;  // first nonzero above / below
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
            const double v = a(i, j);
            if (v == 0.0 || i == j) continue;  // NaN counts as nonzero
            if (i + 1 == j) {
                if (up_i < 0) up_i = i, up_j = j;
            } else if (i == j + 1) {
                if (lo_i < 0) lo_i = i, lo_j = j;
            } else {
                input_error(a.source, a.line(i, j),
                            "entry " + position(i, j) + " = " + value_text(v) +
                                " is nonzero but outside the bidiagonal (only the diagonal and "
                                "one off-diagonal may be nonzero)");
            }
        }
    if (up_i >= 0 && lo_i >= 0) {
        // Blame the entry read later in the file.
        const bool blame_lower = a.line(lo_i, lo_j) >= a.line(up_i, up_j);
        const int64_t bi = blame_lower ? lo_i : up_i, bj = blame_lower ? lo_j : up_j;
        const int64_t oi = blame_lower ? up_i : lo_i, oj = blame_lower ? up_j : lo_j;
        input_error(a.source, a.line(bi, bj),
                    "entry " + position(bi, bj) + " = " + value_text(a(bi, bj)) + " is nonzero " +
                        (blame_lower ? "below" : "above") + " the diagonal, but entry " +
                        position(oi, oj) + " " + (blame_lower ? "above" : "below") +
                        " it is nonzero too: the matrix must be upper or lower bidiagonal");
    }
    Bidiagonal b;
    b.uplo = lo_i >= 0 ? GPUSVD_LOWER : GPUSVD_UPPER;
    b.d.resize(size_t(n));
    b.e.resize(size_t(n > 0 ? n - 1 : 0));
    for (int64_t i = 0; i < n; ++i) b.d[size_t(i)] = a(i, i);
    for (int64_t i = 0; i + 1 < n; ++i)
        b.e[size_t(i)] = b.uplo == GPUSVD_UPPER ? a(i, i + 1) : a(i + 1, i);
    return b;
}

template <class T>
int run(Session &s, const Bidiagonal &b) {
    const int64_t n = int64_t(b.d.size()), ld = ld_of(n);
    std::vector<ResultSpec> specs = {{"S", 1, true}};
    if (!s.o.values_only) {
        specs.push_back({"U", 2, true});
        specs.push_back({"VT", 2, true});
    }
    const Selection sel = s.select(specs, "S");
    // The routine computes U and VT together.
    const bool vec = sel.has("U") || sel.has("VT");
    std::vector<T> d(b.d.begin(), b.d.end()), e(b.e.begin(), b.e.end());
    std::vector<T> U(vec ? static_cast<size_t>(n * n) : 0);
    std::vector<T> VT(vec ? static_cast<size_t>(n * n) : 0);
    int info = 0;
    const std::string routine = routine_name<T>("bdsvd");
    s.compute([&] {
        check(s.handle,
              Api<T>::bdsvd(s.handle, b.uplo, vec ? GPUSVD_JOB_VEC : GPUSVD_JOB_NOVEC, n, d.data(),
                            e.empty() ? nullptr : e.data(), vec ? U.data() : nullptr, ld,
                            vec ? VT.data() : nullptr, ld, &info),
              routine);
    });
    s.write(sel, {vector_result("S", d.data(), n), matrix_result("U", U.data(), n, n, ld),
                  matrix_result("VT", VT.data(), n, n, ld)});
    s.head(static_cast<size_t>(n * n) * sizeof(T),
           std::to_string(n) + " x " + std::to_string(n) +
               (b.uplo == GPUSVD_UPPER ? " upper" : " lower") + " bidiagonal");
    summarize_singular_values(s, gather(d.data(), n), 1, n, n, n);
    s.finish(sel);
    return report_info(routine, info, "a singular value failed to converge (LAPACK ?bdsdc)");
}

}  // namespace

int cmd_bdsvd(const ArgList &args) {
    Session s("bdsvd", args, kAcceptValuesOnly, /*track_lines=*/true);
    require_single_matrix(s.a, "bdsvd");
    require_square(s.a, "bdsvd");
    const Bidiagonal b = split_bidiagonal(s.a);
    return s.single ? run<float>(s, b) : run<double>(s, b);
}

}  // namespace gpusvd_cli
