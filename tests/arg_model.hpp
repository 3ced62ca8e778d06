// A model of gpusvd's argument contract (gpusvd.h), shared by test_arg_model.cpp (fixed-seed
// random and boundary cases) and tests/fuzz/fuzz_args.cpp (libFuzzer), so both hold the library
// to exactly the same rules.
//
// A Case is one call: routine, form (host, _gpu, _bufferSize), element type (s, d, and c, z for
// the routines that have them: one model, the element type a dimension of it), handle set-up
// (backend, workspace, matrix layout) and every argument, for the distributed routines a
// one-rank communicator of gpusvdCommCreate or NULL, drawn from a Source (a seeded PRNG or the
// fuzzer's bytes). predict() says what the
// header promises for it: INVALID_VALUE naming an offending argument (and its value, printed as
// the signed number the caller passed), NOT_SUPPORTED where the CPU backend's 32-bit LAPACK cannot
// take the sizes (the dimensions, leading dimensions and the LAPACK workspace lengths derived
// from them), NO_DEVICE for `_gpu` forms without a GPU, or SUCCESS (zero-size problems always
// succeed, whatever the other dimensions). check() runs the call and compares: status, message,
// every array byte for byte (pre-filled with sentinels; a rejected call changes nothing, a
// successful one writes only inside the arrays it was given, never in leading-dimension gaps,
// stride gaps or past the end, and writes every element of its outputs), info, the handle's
// state (Jacobi statistics, stream, backend) and that nothing was printed on fds 1 and 2.
//
// Calls are run only where that is safe: a call the model says does real work runs only when
// every array it describes fits in memory allocated here. A call the model says is rejected (or
// is zero-size, or `_gpu` without a device) runs even with absurd sizes, on small buffers; a
// library that wrongly accepts it would touch memory it was never given, so check_all() runs such
// calls in forked children (a crash becomes the failure of that call) and the fuzzer relies on
// AddressSanitizer.
#pragma once

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "api.hpp"
#include "gpusvd.h"

namespace arg_model {

using i128 = __int128;
constexpr int64_t kI32 = INT32_MAX;  // LAPACK's integers on the CPU backend
constexpr int64_t kI64 = INT64_MAX;

// ------------------------------------------------------------------------------------------------
// Cases
// ------------------------------------------------------------------------------------------------

enum class Routine : uint8_t {
    Gesvj,
    GesvjBatched,
    Geqrf,
    GeqrfBatched,
    Geev,
    Bdsvd,
    Pca,
    GeqrfDist,  // one-rank communicator of gpusvdCommCreate
    PcaDist,
};
constexpr int kRoutines = 9;
enum class Form : uint8_t { Host, Gpu, BufferSize };
/// Host workspace of the handle: library-managed, or user-owned of exactly the _bufferSize
/// answer, or one byte short of it.
enum class Workspace : uint8_t { Managed, Exact, Short };

constexpr int kSlots = 6;  // array arguments of a routine; the last used slot is info

struct Case {
    Routine routine = Routine::Gesvj;
    Form form = Form::Host;
    bool dbl = false;
    bool cplx = false;  // element type gpusvdComplex_t / gpusvdDoubleComplex_t
    bool null_handle = false;
    bool null_comm = false;  // distributed routines
    bool row_major = false;  // handle layout GPUSVD_LAYOUT_ROW_MAJOR (never for pca)
    bool backend_cpu = false;  // else AUTO
    Workspace ws = Workspace::Managed;
    // Enum arguments as the int a C caller passes (any value).
    int e0 = 0, e1 = 0;
    int64_t m = 0, n = 0, k = 0, batch = 1;
    int64_t ld[3] = {1, 1, 1};
    int64_t stride[4] = {0, 0, 0, 0};
    bool null_ptr[kSlots] = {};
    bool null_size_out[2] = {};  // _bufferSize: deviceBytes, hostBytes
};

struct RoutineInfo {
    const char *base;
    bool batched;  // has batchCount
    bool has_m;
    bool complex;  // has c and z forms
    bool dist;     // takes a communicator; m is this rank's mLocal
    int enums;
    const char *enum_names[2];
    int slots;  // arrays + info
    const char *slot_names[kSlots];
    int lds;
    const char *ld_names[3];
    int strides;
    const char *stride_names[4];
};

inline const RoutineInfo &info_of(Routine r) {
    // clang-format off
    static const RoutineInfo table[kRoutines] = {
        {"gesvj", false, true, true, false, 2, {"jobu", "jobv"}, 5, {"A", "S", "U", "V", "info"},
         3, {"lda", "ldu", "ldv"}, 0, {}},
        {"gesvj_batched", true, true, true, false, 2, {"jobu", "jobv"}, 5, {"A", "S", "U", "V", "info"},
         3, {"lda", "ldu", "ldv"}, 4, {"strideA", "strideS", "strideU", "strideV"}},
        {"geqrf_mgs", false, true, true, false, 1, {"orth"}, 3, {"A", "R", "info"},
         2, {"lda", "ldr"}, 0, {}},
        {"geqrf_mgs_batched", true, true, true, false, 1, {"orth"}, 3, {"A", "R", "info"},
         2, {"lda", "ldr"}, 2, {"strideA", "strideR"}},
        {"geev_batched", true, false, true, false, 1, {"jobvr"}, 5, {"A", "wr", "wi", "VR", "info"},
         2, {"lda", "ldvr"}, 3, {"strideA", "strideW", "strideVR"}},
        {"bdsvd", false, false, false, false, 2, {"uplo", "jobz"}, 5, {"d", "e", "U", "VT", "info"},
         2, {"ldu", "ldvt"}, 0, {}},
        {"pca", false, true, true, false, 0, {}, 6,
         {"X", "components", "explainedVariance", "scores", "mean", "info"},
         3, {"ldx", "ldc", "lds"}, 0, {}},
        {"geqrf_mgs_dist", false, true, false, true, 1, {"orth"}, 3, {"A", "R", "info"},
         2, {"lda", "ldr"}, 0, {}},
        {"pca_dist", false, true, false, true, 0, {}, 6,
         {"X", "components", "explainedVariance", "scores", "mean", "info"},
         3, {"ldx", "ldc", "lds"}, 0, {}},
    };
    // clang-format on
    return table[static_cast<int>(r)];
}

inline std::string routine_name(const Case &c) {
    static const char *suffix[] = {"", "_gpu", "_bufferSize"};
    return std::string("gpusvd_") + (c.cplx ? (c.dbl ? "z" : "c") : (c.dbl ? "d" : "s")) +
           info_of(c.routine).base +
           suffix[static_cast<int>(c.form)];
}

inline std::string i128_str(i128 v) {
    if (v == 0) return "0";
    const bool neg = v < 0;
    unsigned __int128 u =
        neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
    std::string s;
    while (u) s.insert(s.begin(), char('0' + int(u % 10))), u /= 10;
    return neg ? "-" + s : s;
}

// ------------------------------------------------------------------------------------------------
// The arrays a call describes
// ------------------------------------------------------------------------------------------------

/// One array argument: `count` matrices of rows x cols, leading dimension ld, `stride` apart.
/// Vectors have cols = 1 and ld = rows. Values are exact (no int64 arithmetic can overflow here).
struct Array {
    i128 rows = 0, cols = 0, ld = 0, stride = 0, count = 1;
    bool used = false;      // referenced when the problem is not zero-size
    bool input = false;     // holds input data (filled with finite values before the call)
    bool readonly = false;  // never written (pca X)
    bool optional = false;  // NULL means "skip this output"
    const char *ld_name = nullptr;
    const char *stride_name = nullptr;
    const char *name = nullptr;
    bool unchecked_extent = false;  // a vector whose size another array's rule already bounds
    int comps = 1;  // real scalars per element: 2 for complex data (S and variances stay real)
};

inline bool is_pca(Routine r) {
    return r == Routine::Pca || r == Routine::PcaDist;
}
inline bool is_dist(Routine r) {
    return info_of(r).dist;
}
/// Routines that refuse a row-major handle (NOT_SUPPORTED). geqrf_mgs and pca take either
/// layout (with other leading-dimension rules), which this model does not cover.
inline bool column_major_only(Routine r) {
    return r != Routine::Geqrf && !is_pca(r);
}
/// Whether a complex call has GPU kernels: geqrf_mgs(_batched) on column-major data,
/// geev_batched, and gesvj(_batched) and pca (for the sizes the Jacobi team kernels take, which
/// depend on the device's shared memory: the `_gpu` form's outcome on a device is not
/// modelled).
inline bool complex_gpu_kernel(const Case &c) {
    return ((c.routine == Routine::Geqrf || c.routine == Routine::GeqrfBatched) && !c.row_major) ||
           c.routine == Routine::Geev || c.routine == Routine::Gesvj ||
           c.routine == Routine::GesvjBatched || c.routine == Routine::Pca;
}
/// The name of m in messages.
inline const char *m_name(const Case &c) {
    return is_dist(c.routine) ? "mLocal" : "m";
}

inline bool vec_job(int e) {
    return e == GPUSVD_JOB_VEC;
}

/// Whether the problem is zero-size in the header's sense (m, n, k or batchCount equal to 0).
inline bool zero_size(const Case &c) {
    switch (c.routine) {
        case Routine::Gesvj:
        case Routine::Geqrf:
            return c.m == 0 || c.n == 0;
        case Routine::GesvjBatched:
        case Routine::GeqrfBatched:
            return c.m == 0 || c.n == 0 || c.batch == 0;
        case Routine::Geev:
            return c.n == 0 || c.batch == 0;
        case Routine::Bdsvd:
            return c.n == 0;
        case Routine::Pca:
            return c.m == 0 || c.n == 0 || c.k == 0;
        case Routine::GeqrfDist:  // mLocal = 0 is this rank's share, not a zero-size problem
            return c.n == 0;
        case Routine::PcaDist:
            return c.n == 0 || c.k == 0;
    }
    return false;
}

inline std::vector<Array> arrays_of(const Case &c) {
    const RoutineInfo &ri = info_of(c.routine);
    std::vector<Array> a(ri.slots);
    const i128 m = c.m, n = c.n, k = std::min(c.m, c.n), batch = ri.batched ? c.batch : 1;
    auto mat = [&](int slot, i128 rows, i128 cols, int ld_index, int stride_index, bool used) {
        Array &x = a[slot];
        x.rows = rows, x.cols = cols, x.used = used, x.count = batch;
        x.ld = ld_index >= 0 ? c.ld[ld_index] : rows;
        x.ld_name = ld_index >= 0 ? ri.ld_names[ld_index] : nullptr;
        x.stride = stride_index >= 0 && ri.strides ? c.stride[stride_index] : 0;
        x.stride_name = stride_index >= 0 && ri.strides ? ri.stride_names[stride_index] : nullptr;
        x.name = ri.slot_names[slot];
        x.comps = c.cplx ? 2 : 1;
    };
    auto info = [&](int slot) {
        Array &x = a[slot];
        x.rows = 1, x.cols = 1, x.ld = 1, x.stride = 1, x.count = batch, x.used = true;
        x.name = ri.slot_names[slot];
    };
    switch (c.routine) {
        case Routine::Gesvj:
        case Routine::GesvjBatched:
            mat(0, m, n, 0, 0, true), a[0].input = true;
            mat(1, k, 1, -1, 1, true), a[1].comps = 1;
            mat(2, m, k, 1, 2, vec_job(c.e0));
            mat(3, n, k, 2, 3, vec_job(c.e1));
            info(4);
            break;
        case Routine::Geqrf:
        case Routine::GeqrfBatched:
            mat(0, m, n, 0, 0, true), a[0].input = true;
            mat(1, k, n, 1, 1, true);
            info(2);
            break;
        case Routine::GeqrfDist:
            mat(0, m, n, 0, -1, true), a[0].input = true;
            mat(1, n, n, 1, -1, true);
            info(2);
            break;
        case Routine::Geev:
            mat(0, n, n, 0, 0, true), a[0].input = true;
            mat(1, n, 1, -1, 1, true);
            mat(2, n, 1, -1, 1, !c.cplx);
            if (c.cplx) a[1].name = "W", a[2].rows = 0;  // one complex W; no wi argument
            mat(3, n, n, 1, 2, vec_job(c.e0));
            info(4);
            break;
        case Routine::Bdsvd:
            mat(0, n, 1, -1, -1, true), a[0].input = true;
            mat(1, n > 0 ? n - 1 : 0, 1, -1, -1, true), a[1].input = true;
            mat(2, n, n, 0, -1, vec_job(c.e1));
            mat(3, n, n, 1, -1, vec_job(c.e1));
            info(4);
            break;
        case Routine::Pca:
        case Routine::PcaDist: {
            const i128 kk = c.k;
            mat(0, m, n, 0, -1, true), a[0].input = a[0].readonly = true;
            mat(1, n, kk, 1, -1, true);
            mat(2, kk, 1, -1, -1, true), a[2].comps = 1;
            mat(3, m, kk, 2, -1, !c.null_ptr[3]), a[3].optional = true;
            mat(4, n, 1, -1, -1, !c.null_ptr[4]), a[4].optional = true;
            // pca_dist bounds these by X and components (k <= n; n > rows is refused).
            a[2].unchecked_extent = a[4].unchecked_extent = c.routine == Routine::PcaDist;
            info(5);
            break;
        }
    }
    return a;
}

/// Elements spanned by an array whose description is sane (non-negative sizes, ld >= rows,
/// stride >= 0 between several matrices); -1 when it is not.
inline i128 span_of(const Array &x) {
    if (x.rows < 0 || x.cols < 0 || x.count < 0) return -1;
    if (x.rows == 0 || x.cols == 0 || x.count == 0) return 0;
    if (x.ld < x.rows || (x.count > 1 && x.stride < 0)) return -1;
    return (x.count - 1) * x.stride + (x.cols - 1) * x.ld + x.rows;
}

// ------------------------------------------------------------------------------------------------
// The model
// ------------------------------------------------------------------------------------------------

/// A broken rule. The message must name one of `names` (as a word); with a value, the first name
/// followed later by the value exactly as the caller passed it (signed decimal, or NULL).
struct Violation {
    std::vector<std::string> names;
    std::string value;
    std::string rule;
};

struct Prediction {
    gpusvdStatus_t status = GPUSVD_STATUS_SUCCESS;
    // INVALID_VALUE is also right: an array whose byte size fits size_t but not ptrdiff_t, or an
    // absurd array that a zero-size problem would not touch.
    bool or_invalid = false;
    // ALLOC_FAILED is also right: a distributed call takes its workspace before the ranks agree
    // on the arguments (so that a failure is agreed too), and it may be too large to have.
    bool or_alloc = false;
    std::vector<Violation> why;   // INVALID_VALUE / NOT_SUPPORTED
    std::vector<Violation> also;  // what an INVALID_VALUE message may name instead (or_invalid)
    bool zero = false;            // a zero-size success: writes nothing but info
    bool work = false;            // a success that factorizes
    bool unknown = false;         // the model does not say (a `_gpu` form on a machine with a GPU)
};

class Rules {
public:
    explicit Rules(Prediction &p) : p_(p) {}
    void invalid(std::vector<std::string> names, std::string value, std::string rule) {
        p_.status = GPUSVD_STATUS_INVALID_VALUE;
        p_.why.push_back({std::move(names), std::move(value), std::move(rule)});
    }
    void unsupported(std::vector<std::string> names, std::string rule) {
        unsupported_.push_back({std::move(names), "", std::move(rule)});
    }
    bool any_invalid() const { return p_.status == GPUSVD_STATUS_INVALID_VALUE; }
    bool any_unsupported() const { return !unsupported_.empty(); }
    void finish_unsupported() {
        p_.status = GPUSVD_STATUS_NOT_SUPPORTED;
        p_.why = unsupported_;
    }

private:
    Prediction &p_;
    std::vector<Violation> unsupported_;
};

inline std::string num(int64_t v) {
    return std::to_string(v);
}

inline void enum_rules(const Case &c, Rules &r) {
    const RoutineInfo &ri = info_of(c.routine);
    const int e[2] = {c.e0, c.e1};
    for (int i = 0; i < ri.enums; ++i)
        if (e[i] != 0 && e[i] != 1) r.invalid({ri.enum_names[i]}, num(e[i]), "enum out of range");
}

inline void dim_rules(const Case &c, Rules &r) {
    const RoutineInfo &ri = info_of(c.routine);
    if (c.null_handle) r.invalid({"handle"}, "NULL", "handle is NULL");
    if (ri.dist && c.null_comm && c.form != Form::BufferSize)
        r.invalid({"comm"}, "NULL", "comm is NULL");
    enum_rules(c, r);
    if (ri.has_m && c.m < 0) r.invalid({m_name(c)}, num(c.m), "m < 0");
    if (c.n < 0) r.invalid({"n"}, num(c.n), "n < 0");
    if (ri.batched && c.batch < 0) r.invalid({"batchCount"}, num(c.batch), "batchCount < 0");
    if (c.routine == Routine::Pca) {
        const int64_t p = std::min(c.m, c.n);
        if (c.k < 0 || c.k > p) r.invalid({"k"}, num(c.k), "k outside [0, min(m, n)]");
        // The sample variance divides by m - 1; the workspace query is for the same problem.
        if (c.m == 1 && c.n > 0 && c.k > 0) r.invalid({"m"}, num(c.m), "one sample");
    }
    if (c.routine == Routine::PcaDist && (c.k < 0 || c.k > c.n))
        r.invalid({"k"}, num(c.k), "k outside [0, n]");
}

/// The CPU backend's limits as documented (gpusvd.h): LAPACK takes 32-bit integers, for the sizes
/// and for the workspace lengths and indices it computes from them (bounds of what its workspace
/// queries return). Only for problems that are not zero-size.
inline void cpu_limits(const Case &c, Rules &r, bool with_lds) {
    // Clamped: beyond 2^40 every limit below is exceeded anyway, and the products stay in range.
    const i128 big = i128(1) << 40;
    const i128 m = std::min<i128>(c.m, big), n = std::min<i128>(c.n, big), I = kI32;
    auto lim = [&](i128 v, std::vector<std::string> names, const char *rule) {
        if (v > I) r.unsupported(std::move(names), rule);
    };
    auto ldlim = [&](int i) {
        if (with_lds) lim(c.ld[i], {info_of(c.routine).ld_names[i]}, "leading dimension >= 2^31");
    };
    switch (c.routine) {
        case Routine::Gesvj:
        case Routine::GesvjBatched:
            lim(m, {"m"}, "m >= 2^31");
            lim(n, {"n"}, "n >= 2^31");
            lim(m * n, {"m", "n"}, "m * n >= 2^31");
            lim(m + n, {"m", "n"}, "?gesvj workspace m + n >= 2^31");
            ldlim(0);
            if (vec_job(c.e0)) ldlim(1);
            if (vec_job(c.e1)) ldlim(2);
            break;
        case Routine::Geqrf:
        case Routine::GeqrfBatched:
            lim(m, {"m"}, "m >= 2^31");
            lim(n, {"n"}, "n >= 2^31");
            lim(64 * n, {"n"}, "?geqrf workspace 64 n >= 2^31");
            ldlim(0), ldlim(1);
            break;
        case Routine::Geev:
            lim(n, {"n"}, "n >= 2^31");
            lim(n * n + 300 * n, {"n"}, "?geev workspace n^2 + 300 n >= 2^31");
            ldlim(0);
            if (vec_job(c.e0)) ldlim(1);
            break;
        case Routine::Bdsvd:
            lim(n, {"n"}, "n >= 2^31");
            if (vec_job(c.e1)) {
                lim(3 * n * n + 4 * n, {"n"}, "?bdsdc workspace 3 n^2 + 4 n >= 2^31");
                ldlim(0), ldlim(1);
            } else {
                lim(4 * n, {"n"}, "dqds workspace 4 n >= 2^31");
            }
            break;
        case Routine::Pca: {
            // The handle's method is AUTO: covariance for double with m >= 10 n and n <= 1000
            // (gpusvd.h, gpusvdSetPcaMethod), whose BLAS calls see neither m nor ldx.
            if (c.dbl && !c.cplx && n <= 1000 && m >= 10 * n) {
                lim(n, {"n"}, "n >= 2^31");
                lim(1 + 6 * n + 2 * n * n, {"n"}, "?syevd workspace 1 + 6 n + 2 n^2 >= 2^31");
                ldlim(1);
                if (!c.null_ptr[3]) ldlim(2);
                break;
            }
            const i128 p = std::min(m, n);
            lim(m, {"m"}, "m >= 2^31");
            lim(n, {"n"}, "n >= 2^31");
            lim(5 * p * p + 64 * (p + n), {"m", "n"},
                "?gesdd workspace 5 p^2 + 64 (p + n) >= 2^31");
            ldlim(0), ldlim(1);
            if (!c.null_ptr[3]) ldlim(2);
            break;
        }
        // The distributed routines factor n x n Gram matrices and R with LAPACK, and give
        // BLAS this rank's rows.
        case Routine::GeqrfDist:
            lim(m, {"mLocal"}, "mLocal >= 2^31");
            lim(n * n, {"n"}, "n * n >= 2^31");
            ldlim(0), ldlim(1);
            break;
        case Routine::PcaDist:
            lim(m, {"mLocal"}, "mLocal >= 2^31");
            lim(n * n, {"n"}, "n * n >= 2^31");
            lim(m * n, {"mLocal", "n"}, "mLocal * n >= 2^31");
            ldlim(0), ldlim(1);
            if (!c.null_ptr[3]) ldlim(2);
            break;
    }
}

inline bool has_work(const Case &c) {
    return !zero_size(c);
}

/// The argument rules of a host or `_gpu` call (everything the header requires of the caller).
inline void call_rules(const Case &c, Rules &r, Prediction &p, size_t elem) {
    dim_rules(c, r);
    const RoutineInfo &ri = info_of(c.routine);
    const std::vector<Array> arr = arrays_of(c);
    const bool batched = ri.batched;
    const i128 batch = batched ? c.batch : 1;
    const bool work = has_work(c) && (!ri.has_m || c.m >= 0) && c.n >= 0 && batch >= 0 &&
                      (!is_pca(c.routine) || c.k >= 0);
    // Leading dimensions: ld >= max(1, rows) for every matrix that is referenced (an optional
    // output only when given).
    for (int s = 0; s < ri.slots; ++s) {
        const Array &x = arr[s];
        if (!x.ld_name || !x.used) continue;
        if (x.ld < std::max<i128>(1, x.rows))
            r.invalid({x.ld_name}, i128_str(x.ld), std::string(x.ld_name) + " < max(1, rows)");
    }
    // Strides keep the matrices of a batch apart: stride >= ld * cols, saturated at INT64_MAX (a
    // larger product describes matrices that the addressability rule below rejects, unless they
    // are empty).
    if (batched && c.batch > 1)
        for (int s = 0; s < ri.slots; ++s) {
            const Array &x = arr[s];
            if (!x.stride_name || !x.used) continue;
            const i128 min_stride = std::min<i128>(x.ld * x.cols, kI64);
            if (x.stride < min_stride)
                r.invalid({x.stride_name}, i128_str(x.stride),
                          std::string(x.stride_name) + " < " + i128_str(min_stride));
        }
    // Every referenced array must be addressable. A zero-size problem references none, but
    // rejecting an array of absurd size that it would not read is also fair (pca with k = 0 still
    // describes an m x n X).
    for (int s = 0; s < ri.slots; ++s) {
        const Array &x = arr[s];
        if (!x.used || x.rows <= 0 || x.cols <= 0 || x.count <= 0 || x.ld < x.rows) continue;
        if (x.count > 1 && x.stride < 0) continue;
        if (x.unchecked_extent) continue;
        const i128 elems = (x.count - 1) * x.stride + (x.cols - 1) * x.ld + x.rows;
        const i128 bytes = elems > kI64 ? elems : elems * i128(elem) * x.comps;
        std::vector<std::string> names = {x.name};
        if (x.ld_name) names.push_back(x.ld_name);
        if (x.stride_name) names.push_back(x.stride_name);
        if (batched) names.push_back("batchCount");
        const std::string rule = std::string(x.name) + " not addressable";
        if ((elems > kI64 || bytes > i128(SIZE_MAX)) && work) {
            r.invalid(names, "", rule);
        } else if (bytes > kI64) {
            p.or_invalid = true;
            p.also.push_back({names, "", rule});
        }
    }
    // Pointers the call dereferences.
    for (int s = 0; s < ri.slots; ++s) {
        if (!c.null_ptr[s]) continue;
        const bool is_info = s == ri.slots - 1;
        bool needed;
        if (is_info)
            needed = batch > 0;
        else if (arr[s].optional)
            needed = false;
        else if (c.routine == Routine::Bdsvd)
            needed = c.n > (s == 1 ? 1 : 0) && arr[s].used;
        else if (c.routine == Routine::GeqrfDist)  // A: this rank's rows, if any
            needed = c.n > 0 && (s != 0 || c.m > 0);
        else if (c.routine == Routine::PcaDist)
            needed = work && (s != 0 || c.m > 0);
        else
            needed = work && arr[s].used;
        if (needed) r.invalid({arr[s].name}, "NULL", std::string(arr[s].name) + " NULL");
    }
}

/// What the header promises for case c. `device`: a usable GPU is present. `ws_short`: the
/// handle's user workspace is smaller than the routine's _bufferSize answer.
inline Prediction predict(const Case &c, bool device, bool ws_short) {
    Prediction p;
    Rules r(p);
    const size_t elem = c.dbl ? sizeof(double) : sizeof(float);  // of a real scalar
    const bool dist = is_dist(c.routine);
    // Column-major only (every routine here but pca, which takes either layout): refused before
    // any other argument is looked at, after the handle (and a distributed call's comm). The
    // distributed routines' _bufferSize does not look at the layout.
    if (c.row_major && !c.null_handle && column_major_only(c.routine) &&
        !(dist && (c.null_comm || c.form == Form::BufferSize))) {
        p.status = GPUSVD_STATUS_NOT_SUPPORTED;
        p.why = {{{"GPUSVD_LAYOUT_ROW_MAJOR"}, "", "row-major handle layout"}};
        return p;
    }
    if (dist && c.form == Form::BufferSize) {  // not collective: no agreement
        dim_rules(c, r);
        if (r.any_invalid()) return p;
        if (zero_size(c)) return p.zero = true, p;
        // With a usable device (whatever the handle's backend: the communicator decides where
        // a call runs) the GPU path's sizes, which have no 32-bit limits, and host bytes only
        // where the CPU path's limits hold.
        if (device) {
            Prediction cpu;
            Rules cr(cpu);
            cpu_limits(c, cr, false);
            return p.work = !cr.any_unsupported(), p;
        }
        cpu_limits(c, r, false);
        if (r.any_unsupported()) return r.finish_unsupported(), p;
        return p.work = true, p;
    }
    if (dist) {
        call_rules(c, r, p, elem);
        if (r.any_invalid()) return p;
        if (c.form == Form::Gpu) {
            p.status = GPUSVD_STATUS_NO_DEVICE;
            p.why = {{{}, "", "no usable GPU"}};
            if (device) p.unknown = true;
            return p;
        }
        const bool work = !zero_size(c);
        if (work) {
            cpu_limits(c, r, true);
            if (r.any_unsupported()) return r.finish_unsupported(), p;
            p.or_alloc = c.n > 1024 || c.m > (int64_t(1) << 24);
            if (ws_short) {
                p.status = GPUSVD_STATUS_INVALID_VALUE;
                p.why = {{{"workspace"}, "", "user workspace one byte short"}};
                return p;
            }
        }
        // The ranks' agreement: with one rank, the rows in all are mLocal.
        if (c.m < c.n) r.invalid({"n"}, num(c.n), "n > the rows of all ranks");
        if (c.routine == Routine::PcaDist && work && c.m < 2)
            r.invalid({"mLocal"}, num(c.m), "fewer than 2 samples in all");
        if (r.any_invalid()) return p;
        if (!work) return p.zero = true, p;
        return p.work = true, p;
    }
    if (c.form == Form::BufferSize) {
        dim_rules(c, r);
        if (r.any_invalid()) return p;
        if (zero_size(c)) return p.zero = true, p;
        cpu_limits(c, r, false);
        if (r.any_unsupported()) return r.finish_unsupported(), p;
        p.work = true;
        return p;
    }
    call_rules(c, r, p, elem);
    if (r.any_invalid()) return p;
    if (c.form == Form::Gpu) {
        p.status = GPUSVD_STATUS_NO_DEVICE;
        p.why = {{{}, "", "no usable GPU"}};
        if (device && c.cplx && !complex_gpu_kernel(c)) {
            p.status = GPUSVD_STATUS_NOT_SUPPORTED;
            p.why = {{{"complex"}, "", "no GPU kernel for complex data"}};
        } else if (device) {
            p.unknown = true;
        }
        return p;
    }
    if (zero_size(c)) return p.zero = true, p;
    cpu_limits(c, r, true);
    if (r.any_unsupported()) return r.finish_unsupported(), p;
    if (ws_short) {
        p.status = GPUSVD_STATUS_INVALID_VALUE;
        p.why = {{{"workspace"}, "", "user workspace one byte short"}};
        return p;
    }
    p.work = true;
    return p;
}

// ------------------------------------------------------------------------------------------------
// Sources of cases: a seeded PRNG (the test) or the fuzzer's bytes
// ------------------------------------------------------------------------------------------------

/// splitmix64.
class Rng {
public:
    explicit Rng(uint64_t seed) : s_(seed) {}
    uint64_t next() {
        uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint64_t take(int bytes) {
        return bytes >= 8 ? next() : next() & ((uint64_t(1) << (8 * bytes)) - 1);
    }

private:
    uint64_t s_;
};

/// The fuzzer's input; reads past the end give zeros, which the generator maps to a plain
/// valid call.
class Bytes {
public:
    Bytes(const uint8_t *data, size_t size) : p_(data), n_(size) {}
    uint64_t take(int bytes) {
        uint64_t v = 0;
        for (int i = 0; i < bytes && n_; ++i, ++p_, --n_) v |= uint64_t(*p_) << (8 * i);
        return v;
    }

private:
    const uint8_t *p_;
    size_t n_;
};

template <class Src>
uint64_t below(Src &s, uint64_t n) {
    if (n <= 1) return 0;
    const int bytes = n <= 256 ? 1 : n <= 65536 ? 2 : 8;
    return s.take(bytes) % n;
}
/// num in den; a zero draw is "no".
template <class Src>
bool chance(Src &s, uint64_t num, uint64_t den) {
    return below(s, den) >= den - num;
}

/// Values at and around every limit: 32-bit LAPACK integers, the workspace lengths derived from
/// them (m + n, 4n, 64n, n^2 + 300n, 3n^2 + 4n, 5p^2 + 64(p + n)), int64 and size_t byte counts.
constexpr int64_t kBoundary[] = {
    -1,
    -2,
    INT64_MIN,
    INT64_MIN + 1,
    -(int64_t(1) << 31),
    0,
    1,
    2,
    3,
    7,
    20711,  // 5p^2 + 128p < 2^31 up to 20711
    20712,
    26754,  // 3n^2 + 4n < 2^31 up to 26754
    26755,
    46191,  // n^2 + 300n < 2^31 up to 46191
    46192,
    int64_t(1) << 16,
    int64_t(1) << 15,
    33554429,  // 5 * 2^2 + 64 (2 + n) < 2^31 up to 33554429
    33554430,
    33554431,  // 64 n < 2^31 up to 33554431
    33554432,
    536870911,  // 4 n < 2^31 up to 536870911
    536870912,
    kI32 - 6,
    kI32 - 1,
    kI32,
    kI32 + 1,
    int64_t(1) << 32,
    (int64_t(1) << 32) + 1,
    3037000499,  // n^2 < 2^63 up to 3037000499
    3037000500,
    int64_t(1) << 40,
    (int64_t(1) << 60) + 1,  // 8 bytes each: beyond 2^63 bytes
    (int64_t(1) << 61) + 1,  // 8 bytes each: beyond 2^64 bytes
    int64_t(1) << 62,
    kI64 / 2,
    kI64 - 1,
    kI64,
};
constexpr int kBoundaryCount = sizeof(kBoundary) / sizeof(kBoundary[0]);

constexpr int kEnumValues[] = {0, 1, 2, 3, 7, -1, -2, 256, INT32_MIN, INT32_MAX};
constexpr int kEnumCount = sizeof(kEnumValues) / sizeof(kEnumValues[0]);

inline int64_t sat(i128 v) {
    return v > kI64 ? kI64 : v < INT64_MIN ? INT64_MIN : int64_t(v);
}

/// Leading dimensions and strides that are exactly valid for the dimensions of c (ld = max(1,
/// rows), stride = ld * cols, saturated where that does not fit int64).
inline void make_consistent(Case &c) {
    Case t = c;
    t.ld[0] = t.ld[1] = t.ld[2] = 0;
    std::vector<Array> a = arrays_of(t);
    const RoutineInfo &ri = info_of(c.routine);
    for (int s = 0; s < ri.slots; ++s) {
        const Array &x = a[s];
        if (!x.ld_name) continue;
        for (int i = 0; i < ri.lds; ++i)
            if (ri.ld_names[i] == x.ld_name) c.ld[i] = sat(std::max<i128>(1, x.rows));
    }
    a = arrays_of(c);
    for (int s = 0; s < ri.slots; ++s) {
        const Array &x = a[s];
        if (!x.stride_name) continue;
        for (int i = 0; i < ri.strides; ++i)
            if (ri.stride_names[i] == x.stride_name) c.stride[i] = sat(x.ld * x.cols);
    }
}

template <class Src>
int64_t boundary(Src &s) {
    return kBoundary[below(s, kBoundaryCount)];
}

/// A case: a consistent call of small or boundary sizes, then up to three arguments replaced by
/// boundary or off-by-one values, NULL pointers or a NULL handle.
template <class Src>
Case generate(Src &s, int only_routine = -1) {
    Case c;
    c.routine = static_cast<Routine>(below(s, kRoutines));
    if (only_routine >= 0) c.routine = static_cast<Routine>(only_routine);
    const uint64_t f = below(s, 8);
    c.form = f < 4 ? Form::Host : f < 6 ? Form::Gpu : Form::BufferSize;
    c.dbl = below(s, 2);
    c.backend_cpu = below(s, 2);
    const uint64_t w = below(s, 8);
    c.ws = w < 6 ? Workspace::Managed : w == 6 ? Workspace::Exact : Workspace::Short;
    c.e0 = int(below(s, 2));
    c.e1 = int(below(s, 2));
    const RoutineInfo &ri = info_of(c.routine);
    const uint64_t size_class = below(s, 4);
    c.m = int64_t(below(s, 7));
    c.n = int64_t(below(s, 7));
    if (size_class == 3) {  // one or both dimensions at a boundary
        if (chance(s, 1, 2)) c.m = boundary(s);
        if (chance(s, 1, 2) || !ri.has_m) c.n = boundary(s);
    }
    // Mostly as many rows as columns in all (the distributed routines' agreement).
    if (ri.dist && c.m < c.n && chance(s, 3, 4)) std::swap(c.m, c.n);
    const int64_t p = std::min(c.m, c.n);
    c.k = p > 0 ? int64_t(below(s, uint64_t(std::min<int64_t>(p, 64)) + 1)) : 0;
    c.batch = ri.batched ? int64_t(below(s, 4)) : 1;
    if (ri.batched && size_class == 3 && chance(s, 1, 4)) c.batch = boundary(s);
    c.null_ptr[3] = is_pca(c.routine) && chance(s, 1, 4);  // scores
    c.null_ptr[4] = is_pca(c.routine) && chance(s, 1, 4);  // mean
    make_consistent(c);
    // Some slack in leading dimensions and strides (still valid).
    for (int i = 0; i < ri.lds; ++i)
        if (chance(s, 1, 4)) c.ld[i] = sat(i128(c.ld[i]) + i128(below(s, 3)));
    const std::vector<Array> a = arrays_of(c);
    for (int sl = 0; sl < ri.slots; ++sl)
        for (int i = 0; i < ri.strides; ++i)
            if (a[sl].stride_name == ri.stride_names[i])
                c.stride[i] = sat(a[sl].ld * a[sl].cols + (chance(s, 1, 4) ? below(s, 3) : 0));
    const uint64_t mutations = below(s, 4);
    for (uint64_t i = 0; i < mutations; ++i) {
        const uint64_t field = below(s, 16);
        const uint64_t how = below(s, 4);
        auto value = [&](int64_t current) -> int64_t {
            if (how == 1) return sat(i128(current) - 1);
            if (how == 2) return sat(i128(current) + 1);
            if (how == 3) return int64_t(below(s, 2)) - 1;  // -1 or 0
            return boundary(s);
        };
        switch (field) {
            case 0:
                c.null_handle = true;
                break;
            case 1:
                c.e0 = kEnumValues[below(s, kEnumCount)];
                break;
            case 2:
                c.e1 = kEnumValues[below(s, kEnumCount)];
                break;
            case 3:
                c.m = value(c.m);
                break;
            case 4:
                c.n = value(c.n);
                break;
            case 5:
                c.k = value(c.k);
                break;
            case 6:
                c.batch = value(c.batch);
                break;
            case 7:
            case 8:
            case 9:
                c.ld[field - 7] = value(c.ld[field - 7]);
                break;
            case 10:
            case 11:
            case 12: {
                const int i = int(field - 10) + int(below(s, 2));
                c.stride[i] = value(c.stride[i]);
                break;
            }
            case 13:
                c.null_ptr[below(s, kSlots)] = true;
                break;
            case 14:
                c.null_size_out[below(s, 2)] = true;
                break;
            case 15: {  // new dimensions, everything else kept: lds and strides go stale
                c.m = boundary(s), c.n = boundary(s);
                break;
            }
        }
    }
    // Drawn last, so that inputs written for the routines without these settings keep their
    // meaning (reads past the end give the real, column-major call with a communicator).
    if (ri.complex) c.cplx = below(s, 2);
    if (column_major_only(c.routine)) c.row_major = chance(s, 1, 16);
    if (ri.dist) c.null_comm = chance(s, 1, 16);
    return c;
}

// ------------------------------------------------------------------------------------------------
// Printing a case as the C call that reproduces it
// ------------------------------------------------------------------------------------------------

inline std::string describe(const Case &c) {
    const RoutineInfo &ri = info_of(c.routine);
    std::string s = "handle: backend ";
    s += c.backend_cpu ? "CPU" : "AUTO";
    s += c.ws == Workspace::Managed ? ", library-managed workspace"
         : c.ws == Workspace::Exact
             ? ", user host workspace of exactly the _bufferSize answer"
             : ", user host workspace one byte short of the _bufferSize answer";
    if (c.row_major) s += ", gpusvdSetMatrixLayout(h, GPUSVD_LAYOUT_ROW_MAJOR)";
    s += ", Jacobi statistics from an earlier gesvj\n  ";
    s += routine_name(c) + "(" + (c.null_handle ? "NULL" : "h");
    if (ri.dist && c.form != Form::BufferSize)
        s += std::string(", comm=") + (c.null_comm ? "NULL" : "(gpusvdCommCreate, 1 rank)");
    const int e[2] = {c.e0, c.e1};
    for (int i = 0; i < ri.enums; ++i) s += ", " + std::string(ri.enum_names[i]) + "=" + num(e[i]);
    if (ri.has_m) s += ", " + std::string(m_name(c)) + "=" + num(c.m);
    s += ", n=" + num(c.n);
    if (is_pca(c.routine)) s += ", k=" + num(c.k);
    if (c.form == Form::BufferSize) {
        if (ri.batched) s += ", batchCount=" + num(c.batch);
        s += std::string(", deviceBytes=") + (c.null_size_out[0] ? "NULL" : "&d");
        s += std::string(", hostBytes=") + (c.null_size_out[1] ? "NULL" : "&h") + ")";
        return s;
    }
    const std::vector<Array> a = arrays_of(c);
    for (int sl = 0; sl < ri.slots - 1; ++sl) {
        if (c.cplx && c.routine == Routine::Geev && sl == 2) continue;  // no wi
        s += ", " + std::string(a[sl].name) + "=" + (c.null_ptr[sl] ? "NULL" : "buf");
        if (a[sl].ld_name)
            for (int i = 0; i < ri.lds; ++i)
                if (ri.ld_names[i] == a[sl].ld_name)
                    s += ", " + std::string(ri.ld_names[i]) + "=" + num(c.ld[i]);
        if (a[sl].stride_name && !(c.routine == Routine::Geev && sl == 1 && !c.cplx))
            for (int i = 0; i < ri.strides; ++i)
                if (ri.stride_names[i] == a[sl].stride_name)
                    s += ", " + std::string(ri.stride_names[i]) + "=" + num(c.stride[i]);
    }
    if (ri.batched) s += ", batchCount=" + num(c.batch);
    s += std::string(", info=") + (c.null_ptr[ri.slots - 1] ? "NULL" : "buf") + ")";
    return s;
}

inline std::string status_name(gpusvdStatus_t s) {
    return gpusvdGetStatusName(s);
}

inline std::string describe(const Prediction &p) {
    if (p.unknown) return "not modelled here (a GPU is present)";
    std::string s = status_name(p.status);
    if (p.or_invalid) s += " or GPUSVD_STATUS_INVALID_VALUE";
    if (p.or_alloc) s += " or GPUSVD_STATUS_ALLOC_FAILED";
    if (p.zero) s += " (zero-size: nothing written but info = 0)";
    if (!p.why.empty()) {
        s += " because";
        for (size_t i = 0; i < p.why.size(); ++i) s += (i ? "; " : " ") + p.why[i].rule;
    }
    return s;
}

// ------------------------------------------------------------------------------------------------
// Running a case
// ------------------------------------------------------------------------------------------------

namespace detail {

/// The capture window open now, if any (for the death callback below).
struct Window {
    int file = -1, out = -1, err = -1;
    std::string call;
};
inline Window &window() {
    static Window w;
    return w;
}

inline void dump_window() {
    Window &w = window();
    if (w.err < 0) return;
    dup2(w.out, 1), dup2(w.err, 2);
    const std::string head = "\narg_model: the process is stopping inside the call\n  " + w.call +
                             "\nwhich printed (a sanitizer report included):\n";
    ssize_t ignored = write(2, head.data(), head.size());
    char buf[16384];
    const ssize_t got = pread(w.file, buf, sizeof buf, 0);
    if (got > 0) ignored = write(2, buf, size_t(got));
    (void)ignored;
}

}  // namespace detail

/// A sanitizer that stops the process inside a call reports into the capture file; this makes it
/// copy that report to the real stderr first, with the call. For the test only: libFuzzer has its
/// own death callback (the fuzzer keeps its reports apart with -close_fd_mask instead). GCC links
/// ASan and UBSan as two runtimes, each with its own callback; clang's live in the executable.
inline void report_sanitizer_deaths() {
    using SetCallback = void (*)(void (*)());
    static void (*const callback)() = [] { detail::dump_window(); };
    if (auto f =
            reinterpret_cast<SetCallback>(dlsym(RTLD_DEFAULT, "__sanitizer_set_death_callback")))
        f(callback);
    dl_iterate_phdr(
        [](dl_phdr_info *info, size_t, void *) -> int {
            if (!info->dlpi_name || !std::strstr(info->dlpi_name, "san")) return 0;
            if (void *lib = dlopen(info->dlpi_name, RTLD_NOLOAD | RTLD_LAZY)) {
                if (auto f =
                        reinterpret_cast<SetCallback>(dlsym(lib, "__sanitizer_set_death_callback")))
                    f(callback);
                dlclose(lib);
            }
            return 0;
        },
        nullptr);
}

/// Redirects fds 1 and 2 into a temporary file around a call; anything written there is a
/// failure ("nothing prints").
class Capture {
public:
    Capture() {
        file_ = std::tmpfile();
        fd_ = file_ ? fileno(file_) : -1;
    }
    ~Capture() {
        if (file_) std::fclose(file_);
    }
    Capture(const Capture &) = delete;
    Capture &operator=(const Capture &) = delete;
    bool ok() const { return fd_ >= 0; }
    /// call: what is being run, for a report if the process stops inside it.
    void begin(const std::string &call = "") {
        std::fflush(stdout), std::fflush(stderr);
        if (ftruncate(fd_, 0) != 0 || lseek(fd_, 0, SEEK_SET) != 0) return;
        detail::Window &w = detail::window();
        w.file = fd_, w.call = call;
        w.out = dup(1), w.err = dup(2);
        dup2(fd_, 1), dup2(fd_, 2);
    }
    std::string end() {
        std::fflush(stdout), std::fflush(stderr);
        detail::Window &w = detail::window();
        if (w.out >= 0) dup2(w.out, 1), close(w.out), w.out = -1;
        if (w.err >= 0) dup2(w.err, 2), close(w.err), w.err = -1;
        std::string text(512, '\0');
        const ssize_t got = pread(fd_, &text[0], text.size(), 0);
        text.resize(got > 0 ? size_t(got) : 0);
        return text;
    }

private:
    std::FILE *file_ = nullptr;
    int fd_ = -1;
};

struct Env {
    bool device = false;     // a usable GPU (then `_gpu` calls with valid arguments are not run)
    bool allow_fork = true;  // run calls that could touch unallocated memory in a child process
    Capture capture;
};

/// Whether this machine has a usable GPU, as the library sees it.
inline bool device_present() {
    gpusvdHandle_t h = nullptr;
    if (gpusvdCreate(&h) != GPUSVD_STATUS_SUCCESS) return false;
    const bool yes = gpusvdSetBackend(h, GPUSVD_BACKEND_GPU) == GPUSVD_STATUS_SUCCESS;
    gpusvdDestroy(h);
    return yes;
}

struct Outcome {
    bool ran = false;       // false: the model predicts real work on arrays too large to allocate
    bool forked = false;    // ran in a child process
    bool deferred = false;  // to be run in a child process (check_all does)
    Prediction predicted;
    std::vector<std::string> failures;
};

constexpr int64_t kMaxElems = 1 << 14;  // arrays up to this are allocated as described
constexpr int64_t kPad = 9;             // elements past the described end (must stay untouched)
constexpr int64_t kTiny = 16;           // elements given where the described array is too large
constexpr int kInfoSentinel = -777;
constexpr size_t kSizeSentinel = 0xA5A5A5A5A5A5A5A5ull;
inline void *stream_sentinel() {
    return reinterpret_cast<void *>(uintptr_t(0x5eed0));
}

template <class T>
T sentinel_value() {
    return T(-12345.6875);
}

/// Whether a name occurs in a message as a whole word (numbers: not part of a longer number,
/// and a positive one not preceded by a minus sign).
inline size_t find_word(const std::string &msg, const std::string &word, size_t from = 0) {
    auto ident = [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
               ch == '_';
    };
    if (word.empty()) return std::string::npos;
    for (size_t p = msg.find(word, from); p != std::string::npos; p = msg.find(word, p + 1)) {
        const bool left = p == 0 || (!ident(msg[p - 1]) && msg[p - 1] != '-');
        const size_t e = p + word.size();
        const bool right = e == msg.size() || !ident(msg[e]);
        if (left && right) return p;
    }
    return std::string::npos;
}

/// The message names the routine and one of the broken rules' arguments (with its value).
inline std::string check_message(const std::string &msg, const std::string &routine,
                                 const Prediction &p) {
    if (find_word(msg, routine) == std::string::npos)
        return "message does not name the routine " + routine + ": \"" + msg + "\"";
    if (p.status == GPUSVD_STATUS_NO_DEVICE || p.why.empty()) return "";
    std::vector<Violation> any = p.why;
    any.insert(any.end(), p.also.begin(), p.also.end());
    for (const Violation &v : any) {
        if (!v.value.empty()) {
            const size_t at = find_word(msg, v.names[0]);
            if (at != std::string::npos &&
                find_word(msg, v.value, at + v.names[0].size()) != std::string::npos)
                return "";
            continue;
        }
        for (const std::string &name : v.names)
            if (find_word(msg, name) != std::string::npos) return "";
    }
    std::string want;
    for (const Violation &v : any) {
        want += want.empty() ? "" : " or ";
        want += v.names.empty() ? "?" : v.names[0];
        if (!v.value.empty()) want += " = " + v.value;
    }
    return "message names none of the offending arguments (" + want + "): \"" + msg + "\"";
}

struct HandleState {
    int sweeps = -1;
    double off = -1;
    void *stream = nullptr;
    gpusvdBackend_t backend = GPUSVD_BACKEND_AUTO;
    bool operator==(const HandleState &o) const {
        return sweeps == o.sweeps && std::memcmp(&off, &o.off, sizeof off) == 0 &&
               stream == o.stream && backend == o.backend;
    }
};

inline HandleState state_of(gpusvdHandle_t h) {
    HandleState s;
    gpusvdGetJacobiStats(h, &s.sweeps, &s.off);
    gpusvdGetStream(h, &s.stream);
    gpusvdGetBackend(h, &s.backend);
    return s;
}

inline std::string state_str(const HandleState &s) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "sweeps %d, offNorm %.17g, stream %p, backend %d", s.sweeps,
                  s.off, s.stream, int(s.backend));
    return buf;
}

/// The public complex element type whose real parts are R.
template <class R>
using ComplexOf =
    typename std::conditional<sizeof(R) == 4, gpusvdComplex_t, gpusvdDoubleComplex_t>::type;

/// One call of the one-process routines through API table A over element type T (R: the real
/// type of S and explainedVariance). Array pointers come untyped, one per slot.
template <class A, class T, class R>
gpusvdStatus_t call_as(const Case &c, gpusvdHandle_t h, void *const *pv, int *info, size_t *dev,
                       size_t *host) {
    // Enum values go straight from the int into the call: a C caller may pass any int, but an
    // enum object holding an out-of-range value is undefined in C++ (UBSan's enum check).
    const auto job = [](int v) { return static_cast<gpusvdJob_t>(v); };
    const auto orth = [&] { return static_cast<gpusvdOrth_t>(c.e0); };
    const auto uplo = [&] { return static_cast<gpusvdUplo_t>(c.e0); };
    const auto p = [&](int s) { return static_cast<T *>(pv[s]); };
    const auto r = [&](int s) { return static_cast<R *>(pv[s]); };
    const int64_t m = c.m, n = c.n, b = c.batch, *ld = c.ld, *st = c.stride;
    switch (c.routine) {
        case Routine::Gesvj:
            if (c.form == Form::BufferSize)
                return A::gesvj_bufferSize(h, job(c.e0), job(c.e1), m, n, dev, host);
            return (c.form == Form::Host ? A::gesvj : A::gesvj_gpu)(
                h, job(c.e0), job(c.e1), m, n, p(0), ld[0], r(1), p(2), ld[1], p(3), ld[2], info);
        case Routine::GesvjBatched:
            if (c.form == Form::BufferSize)
                return A::gesvj_batched_bufferSize(h, job(c.e0), job(c.e1), m, n, b, dev, host);
            return (c.form == Form::Host ? A::gesvj_batched : A::gesvj_batched_gpu)(
                h, job(c.e0), job(c.e1), m, n, p(0), ld[0], st[0], r(1), st[1], p(2), ld[1], st[2],
                p(3), ld[2], st[3], b, info);
        case Routine::Geqrf:
            if (c.form == Form::BufferSize)
                return A::geqrf_mgs_bufferSize(h, orth(), m, n, dev, host);
            return (c.form == Form::Host ? A::geqrf_mgs : A::geqrf_mgs_gpu)(
                h, orth(), m, n, p(0), ld[0], p(1), ld[1], info);
        case Routine::GeqrfBatched:
            if (c.form == Form::BufferSize)
                return A::geqrf_mgs_batched_bufferSize(h, orth(), m, n, b, dev, host);
            return (c.form == Form::Host ? A::geqrf_mgs_batched : A::geqrf_mgs_batched_gpu)(
                h, orth(), m, n, p(0), ld[0], st[0], p(1), ld[1], st[1], b, info);
        case Routine::Geev:
            if (c.form == Form::BufferSize)
                return A::geev_batched_bufferSize(h, job(c.e0), n, b, dev, host);
            if constexpr (std::is_same_v<T, R>)
                return (c.form == Form::Host ? A::geev_batched : A::geev_batched_gpu)(
                    h, job(c.e0), n, p(0), ld[0], st[0], p(1), p(2), st[1], p(3), ld[1], st[2], b,
                    info);
            else  // one complex eigenvalue array W
                return (c.form == Form::Host ? A::geev_batched : A::geev_batched_gpu)(
                    h, job(c.e0), n, p(0), ld[0], st[0], p(1), st[1], p(3), ld[1], st[2], b, info);
        case Routine::Bdsvd:
            if constexpr (std::is_same_v<T, R>) {
                if (c.form == Form::BufferSize)
                    return A::bdsvd_bufferSize(h, uplo(), job(c.e1), n, dev, host);
                return (c.form == Form::Host ? A::bdsvd : A::bdsvd_gpu)(
                    h, uplo(), job(c.e1), n, p(0), p(1), p(2), ld[0], p(3), ld[1], info);
            }
            break;
        case Routine::Pca:
            if (c.form == Form::BufferSize) return A::pca_bufferSize(h, m, n, c.k, dev, host);
            return (c.form == Form::Host ? A::pca : A::pca_gpu)(h, m, n, p(0), ld[0], c.k, p(1),
                                                                ld[1], r(2), p(3), ld[2], p(4),
                                                                info);
        case Routine::GeqrfDist:
        case Routine::PcaDist:
            break;
    }
    return GPUSVD_STATUS_INTERNAL_ERROR;
}

/// One call of case c (R: the real scalar type of its precision); comm for the distributed
/// routines.
template <class R>
gpusvdStatus_t call(const Case &c, gpusvdHandle_t h, gpusvdComm_t comm, void *const *pv,
                    int *info, size_t *dev, size_t *host) {
    if (c.cplx)
        return call_as<gpusvd_util::Api<ComplexOf<R>>, ComplexOf<R>, R>(c, h, pv, info, dev, host);
    if (!is_dist(c.routine)) return call_as<gpusvd_util::Api<R>, R, R>(c, h, pv, info, dev, host);
    using D = gpusvd_util::Api<R>;
    const auto p = [&](int s) { return static_cast<R *>(pv[s]); };
    const int64_t m = c.m, n = c.n, *ld = c.ld;
    if (c.routine == Routine::GeqrfDist) {
        const auto orth = static_cast<gpusvdOrth_t>(c.e0);
        if (c.form == Form::BufferSize)
            return D::geqrf_mgs_dist_bufferSize(h, orth, m, n, dev, host);
        return (c.form == Form::Host ? D::geqrf_mgs_dist : D::geqrf_mgs_dist_gpu)(
            h, comm, orth, m, n, p(0), ld[0], p(1), ld[1], info);
    }
    if (c.form == Form::BufferSize) return D::pca_dist_bufferSize(h, m, n, c.k, dev, host);
    return (c.form == Form::Host ? D::pca_dist : D::pca_dist_gpu)(
        h, comm, m, n, p(0), ld[0], c.k, p(1), ld[1], p(2), p(3), ld[2], p(4), info);
}

/// The all-reduce of a one-rank communicator: the buffer already holds the reduction.
inline int one_rank_allreduce(void *, int64_t, gpusvdDataType_t, gpusvdReduceOp_t, void *) {
    return 0;
}

/// A handle in a known, non-default state: the given backend, a non-NULL stream, and Jacobi
/// statistics of a real gesvj (so that clearing them is visible).
template <class T>
gpusvdHandle_t primed_handle(const Case &c, const Env &env, std::vector<std::string> &fail) {
    gpusvdHandle_t h = nullptr;
    if (gpusvdCreate(&h) != GPUSVD_STATUS_SUCCESS) {
        fail.push_back("set-up: gpusvdCreate failed");
        return nullptr;
    }
    if (c.backend_cpu || env.device) gpusvdSetBackend(h, GPUSVD_BACKEND_CPU);
    gpusvdSetStream(h, stream_sentinel());
    T A[12] = {T(1),    T(0.5), T(-0.25), T(2),   T(0.125), T(-1),
               T(0.75), T(0.3), T(-0.6),  T(1.5), T(0.2),   T(-0.9)};
    T S[3], U[12], V[9];
    int info = -1;
    const gpusvdStatus_t st = gpusvd_util::Api<T>::gesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 4, 3, A,
                                                         4, S, U, 4, V, 3, &info);
    int sweeps = 0;
    gpusvdGetJacobiStats(h, &sweeps, nullptr);
    if (st != GPUSVD_STATUS_SUCCESS || info != 0 || sweeps <= 0)
        fail.push_back("set-up: a 4 x 3 gesvj to prime the statistics gave " + status_name(st) +
                       ", info " + std::to_string(info) + ", sweeps " + std::to_string(sweeps));
    if (c.row_major && gpusvdSetMatrixLayout(h, GPUSVD_LAYOUT_ROW_MAJOR) != GPUSVD_STATUS_SUCCESS)
        fail.push_back("set-up: gpusvdSetMatrixLayout(ROW_MAJOR) failed");
    return h;
}

/// The library's own _bufferSize answer (host bytes) for the problem of c; false if it rejects.
template <class T>
bool host_bytes_for(const Case &c, gpusvdHandle_t h, size_t *bytes) {
    Case q = c;
    q.form = Form::BufferSize;
    q.null_handle = false;
    q.row_major = false;  // the handle's layout (if row-major) refuses it: managed workspace
    size_t dev = 0;
    *bytes = 0;
    return call<T>(q, h, nullptr, nullptr, nullptr, &dev, bytes) == GPUSVD_STATUS_SUCCESS;
}

namespace detail {

template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T> &v) {
    const auto *p = reinterpret_cast<const unsigned char *>(v.data());
    return std::vector<unsigned char>(p, p + v.size() * sizeof(T));
}

/// Element offsets of the described region of x (x sane and small).
inline std::vector<bool> region(const Array &x, size_t cap) {
    std::vector<bool> in(cap, false);
    const i128 span = span_of(x);
    if (span <= 0 || span > i128(cap)) return in;
    // Matrices may coincide (stride 0) or columns overlap (ld 0 with one row): each distinct
    // offset is visited once, so a huge count or column count costs nothing.
    for (i128 b = 0; b < x.count && (b == 0 || x.stride > 0) && b * x.stride < span; ++b)
        for (i128 j = 0; j < x.cols && (j == 0 || x.ld > 0) && j * x.ld < span; ++j)
            for (i128 i = 0; i < x.rows; ++i) in[size_t(b * x.stride + j * x.ld + i)] = true;
    return in;
}

}  // namespace detail

/// Sets up and makes one call in this process and compares it with the model; a call that needs
/// isolation (and may have it) is only marked deferred.
template <class T>
void run_here(const Case &c, Env &env, Outcome &out, bool isolated) {
    std::vector<std::string> &fail = out.failures;
    const std::string name = routine_name(c);
    gpusvdHandle_t h = primed_handle<T>(c, env, fail);
    if (!h) return;
    struct Destroy {
        gpusvdHandle_t h;
        ~Destroy() { gpusvdDestroy(h); }
    } destroy{h};

    // User workspace: exactly the _bufferSize answer, or one byte short.
    bool ws_short = false;
    std::vector<unsigned char> ws;
    if (c.form == Form::Host && c.ws != Workspace::Managed) {
        size_t need = 0;
        // A problem _bufferSize rejects runs with library-managed workspace.
        if (host_bytes_for<T>(c, h, &need) && need <= (size_t(1) << 24)) {
            const size_t give = c.ws == Workspace::Short && need > 0 ? need - 1 : need;
            ws.assign(give + 1, 0x5A);
            gpusvdSetWorkspace(h, nullptr, 0, ws.data(), give);
            ws_short = give < need;
        }
    }
    const Prediction p = predict(c, env.device, ws_short);
    out.predicted = p;
    if (p.unknown) return;
    // A distributed call takes its workspace before the ranks agree (n > rows is refused after
    // that): a call whose workspace exceeds 256 MiB is not made (libFuzzer's malloc limit stops
    // the process; under AddressSanitizer each costs seconds). Small n covers the same rules.
    if (p.or_alloc && c.form == Form::Host) {
        size_t need = 0;
        if (host_bytes_for<T>(c, h, &need) && need > (size_t(1) << 28)) return;
    }
    gpusvdComm_t comm = nullptr;
    if (is_dist(c.routine) && !c.null_comm &&
        gpusvdCommCreate(&comm, 1, 0, one_rank_allreduce, nullptr) != GPUSVD_STATUS_SUCCESS) {
        fail.push_back("set-up: gpusvdCommCreate(&c, 1, 0, fn, NULL) failed");
        return;
    }
    struct DestroyComm {
        gpusvdComm_t c;
        ~DestroyComm() { gpusvdCommDestroy(c); }
    } destroy_comm{comm};

    const RoutineInfo &ri = info_of(c.routine);
    const std::vector<Array> arr = arrays_of(c);
    const bool bs = c.form == Form::BufferSize;
    // Buffers: as described where that is small, else a few elements. A success writes its
    // arrays (zero-size: info only), so it runs only if they are allocated in full; a rejection
    // must not touch anything, so it runs on small buffers too, isolated where possible.
    const int info_slot = ri.slots - 1;
    bool fits_written = true, fits_used = true;
    std::vector<size_t> cap(ri.slots, 0);
    for (int s = 0; s < ri.slots && !bs; ++s) {
        if (c.null_ptr[s]) continue;
        const i128 sp = span_of(arr[s]);
        const bool ok = sp >= 0 && sp <= kMaxElems;
        cap[s] = ok ? size_t(sp + kPad) : size_t(kTiny);
        const bool written = p.work ? arr[s].used : p.zero && s == info_slot;
        if (!ok && arr[s].used) fits_used = false;
        if (!ok && written) fits_written = false;
    }
    if ((p.work || p.zero) && !fits_written) return;
    if (!fits_used && !isolated && env.allow_fork) {
        out.deferred = true;
        return;
    }
    out.ran = true;

    // Each slot holds cap elements of arr[s].comps real scalars (complex: real part first).
    Rng data(0x1234567);
    std::vector<std::vector<T>> buf(ri.slots);
    std::vector<int> info;
    for (int s = 0; s < ri.slots && !bs; ++s) {
        if (c.null_ptr[s]) continue;
        if (s == info_slot) {
            info.assign(cap[s], kInfoSentinel);
            continue;
        }
        const size_t w = size_t(arr[s].comps);
        buf[s].assign(cap[s] * w, sentinel_value<T>());
        if (arr[s].input) {
            const std::vector<bool> in = detail::region(arr[s], cap[s]);
            const i128 span = span_of(arr[s]);
            for (size_t i = 0; i < cap[s] * w; ++i)
                if (in[i / w] || span < 0 || span > i128(cap[s]))
                    buf[s][i] = T(double(int64_t(data.next() >> 11) - (int64_t(1) << 52)) /
                                  double(int64_t(1) << 52));
        }
    }
    std::vector<void *> ptr(kSlots, nullptr);
    for (int s = 0; s < info_slot; ++s) ptr[s] = c.null_ptr[s] ? nullptr : buf[s].data();
    int *info_ptr = c.null_ptr[info_slot] ? nullptr : info.data();
    size_t sizes[2] = {kSizeSentinel, kSizeSentinel};
    std::vector<std::vector<unsigned char>> before(ri.slots);
    for (int s = 0; s < info_slot; ++s) before[s] = detail::bytes_of(buf[s]);
    const std::vector<int> info_before = info;
    const HandleState state_before = state_of(h);

    env.capture.begin(describe(c));
    const gpusvdStatus_t st =
        call<T>(c, c.null_handle ? nullptr : h, comm, ptr.data(), info_ptr,
                c.null_size_out[0] ? nullptr : &sizes[0], c.null_size_out[1] ? nullptr : &sizes[1]);
    const std::string msg = gpusvdGetErrorMessage(c.null_handle ? nullptr : h);
    const std::string printed = env.capture.end();

    if (!printed.empty()) fail.push_back("printed on stdout/stderr: \"" + printed + "\"");
    const bool status_ok = st == p.status ||
                           (p.or_invalid && st == GPUSVD_STATUS_INVALID_VALUE) ||
                           (p.or_alloc && st == GPUSVD_STATUS_ALLOC_FAILED);
    if (!status_ok) {
        fail.push_back("status " + status_name(st) + ", expected " + describe(p) + "; message \"" +
                       msg + "\"");
        if (st == GPUSVD_STATUS_SUCCESS) return;  // nothing below compares meaningfully
    }
    const bool rejected = st != GPUSVD_STATUS_SUCCESS;
    if (rejected && status_ok) {
        Prediction said = p;
        if (st != p.status) said.why = p.also;  // the alternative INVALID_VALUE
        if (st != p.status && st == GPUSVD_STATUS_ALLOC_FAILED) said.why.clear();
        const std::string m = check_message(msg, name, said);
        if (!m.empty()) fail.push_back(m);
    } else if (!rejected && !msg.empty()) {
        fail.push_back("message after a success is \"" + msg + "\", expected \"\"");
    }

    // Handle state: only a successful host gesvj may change the statistics.
    const HandleState state_after = state_of(h);
    const bool gesvj = c.routine == Routine::Gesvj || c.routine == Routine::GesvjBatched;
    HandleState expect = state_before;
    if (gesvj && !rejected && c.form == Form::Host)
        expect.sweeps = state_after.sweeps, expect.off = state_after.off;
    if (!(state_after == expect))
        fail.push_back("handle state changed: before " + state_str(state_before) + ", after " +
                       state_str(state_after));

    if (bs) {
        for (int i = 0; i < 2; ++i) {
            if (c.null_size_out[i]) continue;
            const char *what = i ? "hostBytes" : "deviceBytes";
            if (rejected && sizes[i] != kSizeSentinel)
                fail.push_back(std::string(what) + " written by a rejected call");
            if (!rejected && sizes[i] == kSizeSentinel)
                fail.push_back(std::string(what) + " not written by a successful call");
        }
        if (!rejected && p.work && !c.null_size_out[1] && sizes[1] == 0)
            fail.push_back("hostBytes = 0 for a problem the CPU backend factorizes");
        return;
    }

    // Arrays.
    for (int s = 0; s < info_slot; ++s) {
        if (c.null_ptr[s]) continue;
        const std::vector<unsigned char> now = detail::bytes_of(buf[s]);
        if (rejected || p.zero || arr[s].readonly || !arr[s].used) {
            if (now != before[s])
                fail.push_back(std::string("array ") + arr[s].name + " changed" +
                               (rejected ? " by a rejected call"
                                : p.zero ? " by a zero-size call"
                                         : ""));
            continue;
        }
        // A success writes every element of its outputs and nothing around them.
        const std::vector<bool> in = detail::region(arr[s], cap[s]);
        const T mark = sentinel_value<T>();
        const size_t w = size_t(arr[s].comps), eb = w * sizeof(T);
        for (size_t i = 0; i < cap[s]; ++i) {
            const bool same = std::memcmp(&now[i * eb], &before[s][i * eb], eb) == 0;
            if (!in[i] && !same) {
                fail.push_back(std::string("array ") + arr[s].name + " written outside the " +
                               "described elements (element " + std::to_string(i) + ")");
                break;
            }
            bool unwritten = false;  // any part (real or imaginary) still the sentinel
            for (size_t j = 0; j < w; ++j)
                unwritten = unwritten || std::memcmp(&buf[s][i * w + j], &mark, sizeof(T)) == 0;
            if (in[i] && !arr[s].input && unwritten) {
                fail.push_back(std::string("output ") + arr[s].name + " element " +
                               std::to_string(i) + " not written by a successful call");
                break;
            }
        }
    }
    if (!c.null_ptr[info_slot]) {
        const int64_t entries = ri.batched ? c.batch : 1;
        for (size_t i = 0; i < info.size(); ++i) {
            const bool entry = !rejected && int64_t(i) < entries;
            if (!entry && info[i] != info_before[i]) {
                fail.push_back("info[" + std::to_string(i) + "] changed to " +
                               std::to_string(info[i]) +
                               (rejected ? " by a rejected call" : " (not an entry of this call)"));
                break;
            }
            if (entry && info[i] != 0) {
                fail.push_back("info[" + std::to_string(i) + "] = " + std::to_string(info[i]) +
                               ", expected 0 (finite data)");
                break;
            }
        }
    }
}

namespace detail {

inline void write_all(int fd, const std::string &s) {
    size_t done = 0;
    while (done < s.size()) {
        const ssize_t w = write(fd, s.data() + done, s.size() - done);
        if (w <= 0) return;
        done += size_t(w);
    }
}

}  // namespace detail

/// Runs cases in child processes, as many per child as finish: calls that would touch memory they
/// were never given if the library accepted them by mistake. A crash, a sanitizer abort or a hang
/// is the failure of the case that was running; the next child resumes after it.
inline std::vector<Outcome> run_isolated(const std::vector<Case> &cases, Env &env) {
    std::vector<Outcome> out(cases.size());
    for (Outcome &o : out) o.forked = o.ran = true;
    size_t next = 0;
    while (next < cases.size()) {
        int fds[2];
        if (pipe(fds) != 0) {
            out[next++].failures.push_back("set-up: pipe failed");
            continue;
        }
        std::fflush(stdout), std::fflush(stderr);
        const pid_t pid = fork();
        if (pid < 0) {
            close(fds[0]), close(fds[1]);
            out[next++].failures.push_back("set-up: fork failed");
            continue;
        }
        if (pid == 0) {
            close(fds[0]);
            for (size_t i = next; i < cases.size(); ++i) {
                detail::write_all(fds[1], "S" + std::to_string(i) + "\n");
                alarm(20);
                Outcome o;
                if (cases[i].dbl)
                    run_here<double>(cases[i], env, o, true);
                else
                    run_here<float>(cases[i], env, o, true);
                std::string text;
                for (const std::string &f : o.failures) text += f + '\x1e';
                detail::write_all(fds[1], "E" + std::to_string(i) + " " +
                                              std::to_string(text.size()) + "\n" + text);
            }
            close(fds[1]);
            _exit(0);
        }
        close(fds[1]);
        std::string text;
        char chunk[4096];
        for (ssize_t got; (got = read(fds[0], chunk, sizeof chunk)) != 0;) {
            if (got < 0) {
                if (errno == EINTR) continue;
                break;
            }
            text.append(chunk, size_t(got));
        }
        close(fds[0]);
        int wstatus = 0;
        while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
        }
        size_t running = cases.size(), pos = 0;  // the case started and not finished, if any
        bool any = false;
        while (pos < text.size()) {
            const size_t eol = text.find('\n', pos);
            if (eol == std::string::npos) break;
            const std::string head = text.substr(pos + 1, eol - pos - 1);
            if (text[pos] == 'S') {
                running = std::stoul(head), any = true;
                pos = eol + 1;
                continue;
            }
            const size_t space = head.find(' ');
            const size_t i = std::stoul(head.substr(0, space));
            const size_t len = std::stoul(head.substr(space + 1));
            const std::string payload = text.substr(eol + 1, len);
            for (size_t b = 0, e; (e = payload.find('\x1e', b)) != std::string::npos; b = e + 1)
                out[i].failures.push_back(payload.substr(b, e - b));
            running = cases.size();
            pos = eol + 1 + len;
        }
        if (!any) running = next;  // died before starting a case
        if (running == cases.size()) {
            if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
                out[cases.size() - 1].failures.push_back("child process ended abnormally");
            break;
        }
        if (WIFSIGNALED(wstatus))
            out[running].failures.push_back(
                std::string("crashed (") + strsignal(WTERMSIG(wstatus)) +
                (WTERMSIG(wstatus) == SIGALRM ? ": hung for 20 s" : "") +
                "): the call touched memory it was not given, or a sanitizer stopped it");
        else
            out[running].failures.push_back("child process exited with status " +
                                            std::to_string(WEXITSTATUS(wstatus)) +
                                            " during the call (a sanitizer report?)");
        next = running + 1;
    }
    return out;
}

/// Runs the cases (those that could touch memory they were not given in child processes, if env
/// allows) and returns what differed from the model for each.
inline std::vector<Outcome> check_all(const std::vector<Case> &cases, Env &env) {
    std::vector<Outcome> out(cases.size());
    std::vector<Case> deferred;
    std::vector<size_t> where;
    for (size_t i = 0; i < cases.size(); ++i) {
        if (cases[i].dbl)
            run_here<double>(cases[i], env, out[i], false);
        else
            run_here<float>(cases[i], env, out[i], false);
        if (out[i].deferred) deferred.push_back(cases[i]), where.push_back(i);
    }
    const std::vector<Outcome> isolated = run_isolated(deferred, env);
    for (size_t j = 0; j < where.size(); ++j) {
        Outcome &o = out[where[j]];
        const Prediction p = o.predicted;
        o = isolated[j];
        o.predicted = p;
    }
    return out;
}

inline Outcome check(const Case &c, Env &env) {
    return check_all(std::vector<Case>{c}, env)[0];
}

}  // namespace arg_model
