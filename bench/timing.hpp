// Host-side timing: warm-up, then repeated timed runs with the input restored before each run
// (outside the timed region); the median is reported. A time budget bounds slow cases: timed runs
// stop once the budget is spent (at least one is always taken), and a warm-up that alone exceeds
// half the budget is kept as the only sample.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace bench {

/// One measured quantity: median over `runs` timed runs, or a note saying why there is none.
struct Stat {
    double ms = std::numeric_limits<double>::quiet_NaN();  // median, milliseconds
    double min_ms = std::numeric_limits<double>::quiet_NaN();
    int runs = 0;
    std::string note;  // "n/a (...)" or an error; empty when measured
    std::string tag;   // printed after the time, e.g. "(extrap. from 100)"
    bool ok() const { return runs > 0 && std::isfinite(ms); }
};

/// s with its times multiplied by f (a sample's time extrapolated to the whole batch, or a
/// batch's time per matrix); a non-empty tag replaces s's.
inline Stat scaled(Stat s, double f, const std::string &tag = "") {
    s.ms *= f;
    s.min_ms *= f;
    if (!tag.empty()) s.tag = tag;
    return s;
}

/// The tag of a time extrapolated from `timed` matrices.
inline std::string extrap_tag(long long timed) {
    return "(extrap. from " + std::to_string(timed) + ")";
}

/// How many times to repeat and how long a single measurement may take.
struct Budget {
    int reps = 5;
    double seconds = 20.0;
};

inline double median_of(std::vector<double> v) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline Stat stat_from(const std::vector<double> &samples) {
    Stat s;
    s.runs = static_cast<int>(samples.size());
    s.ms = median_of(samples);
    s.min_ms = samples.empty() ? s.ms : *std::min_element(samples.begin(), samples.end());
    return s;
}

inline double now_ms() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

/// Times run() on the host. prep() restores the inputs before every run (untimed); run()
/// returns false on failure, which ends the measurement with `error` (set by the caller's run)
/// as the note.
template <class Prep, class Run>
Stat time_host(const Budget &b, Prep &&prep, Run &&run, const std::string *error = nullptr) {
    auto failed = [&] {
        Stat s;
        s.note = error && !error->empty() ? *error : std::string("error");
        return s;
    };
    prep();
    const double w0 = now_ms();
    if (!run()) return failed();
    const double warm = now_ms() - w0;
    if (warm > 0.5e3 * b.seconds) return stat_from({warm});  // too slow to repeat
    std::vector<double> samples;
    const double start = now_ms();
    for (int r = 0; r < std::max(1, b.reps); ++r) {
        prep();
        const double t0 = now_ms();
        if (!run()) return failed();
        samples.push_back(now_ms() - t0);
        if (now_ms() - start > 1e3 * b.seconds) break;
    }
    return stat_from(samples);
}

/// Times two ways of doing the same work, interleaved (a b, b a, a b, ...) so that drift of a
/// shared machine affects both alike: one warm-up each, then up to b.reps timed runs each within
/// the budget. A side whose run() fails gets its error as the note and is not repeated.
template <class PA, class RA, class PB, class RB>
std::pair<Stat, Stat> time_pair(const Budget &b, PA &&prep_a, RA &&run_a, PB &&prep_b, RB &&run_b,
                                const std::string *err_a, const std::string *err_b) {
    Stat sa, sb;
    auto note = [](const std::string *e) { return e && !e->empty() ? *e : std::string("error"); };
    auto timed = [](auto &prep, auto &run, double *ms) {
        prep();
        const double t0 = now_ms();
        const bool ok = run();
        *ms = now_ms() - t0;
        return ok;
    };
    double wa = 0, wb = 0;
    bool ok_a = timed(prep_a, run_a, &wa), ok_b = timed(prep_b, run_b, &wb);
    if (!ok_a) sa.note = note(err_a);
    if (!ok_b) sb.note = note(err_b);
    if ((ok_a ? wa : 0) + (ok_b ? wb : 0) > 0.5e3 * b.seconds) {  // too slow to repeat
        if (ok_a) sa = stat_from({wa});
        if (ok_b) sb = stat_from({wb});
        return {sa, sb};
    }
    std::vector<double> xa, xb;
    const double start = now_ms();
    for (int r = 0; r < std::max(1, b.reps) && (ok_a || ok_b); ++r) {
        for (int side = 0; side < 2; ++side) {
            const bool a_side = (side == 0) == (r % 2 == 0);
            double ms = 0;
            if (a_side && ok_a) {
                if (timed(prep_a, run_a, &ms))
                    xa.push_back(ms);
                else
                    ok_a = false, sa.note = note(err_a);
            } else if (!a_side && ok_b) {
                if (timed(prep_b, run_b, &ms))
                    xb.push_back(ms);
                else
                    ok_b = false, sb.note = note(err_b);
            }
        }
        if (now_ms() - start > 1e3 * b.seconds) break;
    }
    if (ok_a) sa = stat_from(xa);
    if (ok_b) sb = stat_from(xb);
    return {sa, sb};
}

}  // namespace bench
