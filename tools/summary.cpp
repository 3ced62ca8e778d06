// Summary lines that say what the numbers mean: conditioning and rank, stability, explained
// variance. Batches get the extremes and where they are (0-based index, as in numpy).
#include "summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpusvd_cli {

namespace {

/// Largest (or smallest) finite-or-infinite value of v and its index; NaN entries are skipped.
struct Extreme {
    double value = std::nan("");
    int64_t at = -1;
    void max(double v, int64_t i) {
        if (!std::isnan(v) && (at < 0 || v > value)) value = v, at = i;
    }
    void min(double v, int64_t i) {
        if (!std::isnan(v) && (at < 0 || v < value)) value = v, at = i;
    }
};

double median(std::vector<double> v) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
    if (v.empty()) return std::nan("");
    auto mid = v.begin() + std::ptrdiff_t(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

std::string at_index(const Extreme &e) {
    return e.at < 0 ? "" : " at index " + std::to_string(e.at);
}

}  // namespace

void summarize_singular_values(const Session &s, const std::vector<double> &S, int64_t batch,
                               int64_t k, int64_t m, int64_t n) {
    if (!s.summary() || k == 0 || batch == 0) return;
    const double eps =
        s.single ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
    std::vector<double> cond(static_cast<size_t>(batch));
    std::vector<int64_t> rank(static_cast<size_t>(batch));
    Extreme cmax, cmin, rlow, smax, smin;
    int64_t full = 0;
    for (int64_t b = 0; b < batch; ++b) {
        const double *v = &S[size_t(b * k)];
        const double tol = double(std::max(m, n)) * eps * v[0];
        int64_t r = 0;
        for (int64_t i = 0; i < k; ++i) r += v[i] > tol;
        rank[size_t(b)] = r;
        full += r == k;
        cond[size_t(b)] = v[k - 1] > 0 ? v[0] / v[k - 1] : (v[0] > 0 ? INFINITY : std::nan(""));
        cmax.max(cond[size_t(b)], b);
        cmin.min(cond[size_t(b)], b);
        rlow.min(double(r), b);
        smax.max(v[0], b);
        smin.min(v[k - 1], b);
    }
    if (!s.a.batched) {
        s.say(
            "  singular values: largest %s, smallest %s; condition number %s; numerical rank "
            "%lld of %lld",
            num(S[0]).c_str(), num(S[size_t(k - 1)]).c_str(), num(cond[0]).c_str(),
            static_cast<long long>(rank[0]), static_cast<long long>(k));
        return;
    }
    s.say("  condition number: min %s, median %s, max %s%s", num(cmin.value).c_str(),
          num(median(cond)).c_str(), num(cmax.value).c_str(), at_index(cmax).c_str());
    s.say("  numerical rank: full (%lld) in %lld of %lld matrices; lowest %s%s",
          static_cast<long long>(k), static_cast<long long>(full), static_cast<long long>(batch),
          num(rlow.value).c_str(), at_index(rlow).c_str());
    s.say("  singular values: largest %s%s, smallest %s%s", num(smax.value).c_str(),
          at_index(smax).c_str(), num(smin.value).c_str(), at_index(smin).c_str());
}

void summarize_eigenvalues(const Session &s, const std::vector<double> &wr,
                           const std::vector<double> &wi, int64_t batch, int64_t n) {
    if (!s.summary() || n == 0 || batch == 0) return;
    Extreme amax, amin;
    int64_t unstable = 0, positive = 0, first_unstable = -1;
    double radius = 0;
    for (int64_t b = 0; b < batch; ++b) {
        Extreme a;
        int64_t pos = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double re = wr[size_t(b * n + i)], im = wi[size_t(b * n + i)];
            a.max(re, i);
            pos += re > 0;
            radius = std::max(radius, std::hypot(re, im));
        }
        amax.max(a.value, b);
        amin.min(a.value, b);
        positive += pos;
        if (pos && first_unstable < 0) first_unstable = b;
        unstable += pos > 0;
    }
    if (!s.a.batched) {
        s.say(
            "  spectral abscissa (largest real part) %s; %lld of %lld eigenvalues have a "
            "positive real part; spectral radius %s",
            num(amax.value).c_str(), static_cast<long long>(positive), static_cast<long long>(n),
            num(radius).c_str());
        return;
    }
    s.say("  spectral abscissa: max %s%s, min %s%s", num(amax.value).c_str(),
          at_index(amax).c_str(), num(amin.value).c_str(), at_index(amin).c_str());
    std::string first;
    if (first_unstable >= 0) first = " (first at index " + std::to_string(first_unstable) + ")";
    s.say(
        "  %lld of %lld matrices have an eigenvalue with positive real part%s; %lld such "
        "eigenvalues in all",
        static_cast<long long>(unstable), static_cast<long long>(batch), first.c_str(),
        static_cast<long long>(positive));
}

void summarize_r_diagonal(const Session &s, const std::vector<double> &diag, int64_t batch,
                          int64_t k, bool full_rank_bound, const int *info) {
    if (!s.summary() || k == 0 || batch == 0) return;
    Extreme ratio;
    int64_t dependent = 0, first = -1;
    double dmax = 0, dmin = INFINITY;
    for (int64_t b = 0; b < batch; ++b) {
        double hi = 0, lo = INFINITY;
        for (int64_t j = 0; j < k; ++j) {
            const double d = std::fabs(diag[size_t(b * k + j)]);
            hi = std::max(hi, d);
            lo = std::min(lo, d);
        }
        dmax = std::max(dmax, hi);
        dmin = std::min(dmin, lo);
        ratio.max(lo > 0 ? hi / lo : INFINITY, b);
        if (info[b] > 0 && first < 0) first = b;
        dependent += info[b] > 0;
    }
    const char *bound = full_rank_bound ? " (a lower bound on the condition number)" : "";
    if (!s.a.batched) {
        s.say("  R diagonal: largest %s, smallest %s, ratio %s%s", num(dmax).c_str(),
              num(dmin).c_str(), num(ratio.value).c_str(), bound);
        s.say("  dependent columns: %s",
              info[0] > 0 ? ("first at column " + std::to_string(info[0]) + " (1-based)").c_str()
                          : "none");
        return;
    }
    s.say("  R diagonal ratio largest/smallest: max %s%s%s", num(ratio.value).c_str(),
          at_index(ratio).c_str(), bound);
    s.say("  matrices with a dependent column: %lld of %lld%s", static_cast<long long>(dependent),
          static_cast<long long>(batch),
          first >= 0 ? (" (first at index " + std::to_string(first) + ")").c_str() : "");
}

void summarize_pca(const Session &s, const std::vector<double> &variance, double total,
                   int64_t features) {
    if (!s.summary()) return;
    s.say("  total variance %s (%lld features%s)", num(total).c_str(),
          static_cast<long long>(features), s.o.standardize ? ", standardized" : "");
    if (variance.empty()) return;
    constexpr size_t kShown = 20;
    s.say("  %9s  %14s  %8s  %10s", "component", "variance", "ratio", "cumulative");
    double cumulative = 0;
    for (size_t j = 0; j < variance.size(); ++j) {
        const double ratio = variance[j] / total;
        cumulative += ratio;
        if (j < kShown || j + 1 == variance.size())
            s.say("  %9zu  %14s  %8.4f  %10.4f", j + 1, num(variance[j]).c_str(), ratio,
                  cumulative);
        else if (j == kShown)
            s.say("  %9s", "...");
    }
}

}  // namespace gpusvd_cli
