#include "common/cublas.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <mutex>

#include "common/dlsym.hpp"
#include "common/graph.hpp"
#include "common/runtime.hpp"
#include "kernels/complex.hpp"

#define GPUSVD_XSTR(x) #x
#define GPUSVD_STR(x) GPUSVD_XSTR(x)

namespace gpusvd {
namespace gpu {
namespace {

/// cuBLAS's element type of T: cuComplex / cuDoubleComplex for kernels::Complex (the same
/// layout), T itself for real T.
template <class T>
struct BlasElem {
    using type = T;
};
template <>
struct BlasElem<kernels::Complex<float>> {
    using type = cuComplex;
};
template <>
struct BlasElem<kernels::Complex<double>> {
    using type = cuDoubleComplex;
};
static_assert(sizeof(cuComplex) == sizeof(kernels::Complex<float>) &&
                  sizeof(cuDoubleComplex) == sizeof(kernels::Complex<double>),
              "cuBLAS reads kernels::Complex arrays in place");
template <class T>
auto *blas_ptr(T *p) {
    return reinterpret_cast<typename BlasElem<T>::type *>(p);
}
template <class T>
auto *blas_ptr(const T *p) {
    return reinterpret_cast<const typename BlasElem<T>::type *>(p);
}
template <class T>
auto *blas_ptr(const T *const *p) {
    return reinterpret_cast<const typename BlasElem<T>::type *const *>(p);
}
template <class T>
auto *blas_ptr(T *const *p) {
    return reinterpret_cast<typename BlasElem<T>::type *const *>(p);
}

/// The entry points of one element type (cuBLAS's S, D, C and Z names; same signatures but for
/// T). syrk is the Hermitian rank-k update (?herk, real alpha and beta) for complex T.
template <class T>
struct Typed;
template <>
struct Typed<float> {
    decltype(&cublasSsyrk_v2_64) syrk = nullptr;
    decltype(&cublasSgemm_v2_64) gemm = nullptr;
    decltype(&cublasSgemmStridedBatched_64) gemm_sb = nullptr;
    decltype(&cublasSgemmBatched_64) gemm_b = nullptr;
    decltype(&cublasStrsm_v2_64) trsm = nullptr;
    decltype(&cublasStrmm_v2_64) trmm = nullptr;
    static constexpr char letter = 'S';
};
template <>
struct Typed<double> {
    decltype(&cublasDsyrk_v2_64) syrk = nullptr;
    decltype(&cublasDgemm_v2_64) gemm = nullptr;
    decltype(&cublasDgemmStridedBatched_64) gemm_sb = nullptr;
    decltype(&cublasDgemmBatched_64) gemm_b = nullptr;
    decltype(&cublasDtrsm_v2_64) trsm = nullptr;
    decltype(&cublasDtrmm_v2_64) trmm = nullptr;
    static constexpr char letter = 'D';
};
template <>
struct Typed<kernels::Complex<float>> {
    decltype(&cublasCherk_v2_64) syrk = nullptr;
    decltype(&cublasCgemm_v2_64) gemm = nullptr;
    decltype(&cublasCgemmStridedBatched_64) gemm_sb = nullptr;
    decltype(&cublasCgemmBatched_64) gemm_b = nullptr;
    decltype(&cublasCtrsm_v2_64) trsm = nullptr;
    decltype(&cublasCtrmm_v2_64) trmm = nullptr;
    static constexpr char letter = 'C';
};
template <>
struct Typed<kernels::Complex<double>> {
    decltype(&cublasZherk_v2_64) syrk = nullptr;
    decltype(&cublasZgemm_v2_64) gemm = nullptr;
    decltype(&cublasZgemmStridedBatched_64) gemm_sb = nullptr;
    decltype(&cublasZgemmBatched_64) gemm_b = nullptr;
    decltype(&cublasZtrsm_v2_64) trsm = nullptr;
    decltype(&cublasZtrmm_v2_64) trmm = nullptr;
    static constexpr char letter = 'Z';
};

struct Functions {
    bool ok = false;
    char why[200] = "";
    decltype(&cublasCreate_v2) create = nullptr;
    decltype(&cublasDestroy_v2) destroy = nullptr;
    decltype(&cublasSetStream_v2) set_stream = nullptr;
    decltype(&cublasSetWorkspace_v2) set_workspace = nullptr;
    decltype(&cublasGetStatusName) status_name = nullptr;
    Typed<float> s;
    Typed<double> d;
    Typed<kernels::Complex<float>> c;
    Typed<kernels::Complex<double>> z;
};

template <class F>
void bind(void *lib, const char *name, F &f, Functions &fn) {
    bind_symbol(lib, name, f, fn, "cuBLAS");
}

/// cublas<X>name for X = the precision's letter ("cublasDgemm_v2_64").
template <class T, class F>
void bind_named(void *lib, const char *pattern, F &f, Functions &fn) {
    char name[64];
    snprintf(name, sizeof name, pattern, Typed<T>::letter);
    bind(lib, name, f, fn);
}

template <class T>
void bind_typed(void *lib, Typed<T> &t, Functions &fn) {
    bind_named<T>(lib, kernels::kIsComplex<T> ? "cublas%cherk_v2_64" : "cublas%csyrk_v2_64",
                  t.syrk, fn);
    bind_named<T>(lib, "cublas%cgemm_v2_64", t.gemm, fn);
    bind_named<T>(lib, "cublas%cgemmStridedBatched_64", t.gemm_sb, fn);
    bind_named<T>(lib, "cublas%cgemmBatched_64", t.gemm_b, fn);
    bind_named<T>(lib, "cublas%ctrsm_v2_64", t.trsm, fn);
    bind_named<T>(lib, "cublas%ctrmm_v2_64", t.trmm, fn);
}

const Functions &functions();

template <class T>
const Typed<T> &typed();
template <>
const Typed<float> &typed<float>() {
    return functions().s;
}
template <>
const Typed<double> &typed<double>() {
    return functions().d;
}
template <>
const Typed<kernels::Complex<float>> &typed<kernels::Complex<float>>() {
    return functions().c;
}
template <>
const Typed<kernels::Complex<double>> &typed<kernels::Complex<double>>() {
    return functions().z;
}

const Functions &functions() {
    static Functions fn;
    static std::once_flag once;
    std::call_once(once, [] {
        // The major version the library was built against first; the unversioned name last
        // (development installs only).
        const char *names[] = {"libcublas.so." GPUSVD_STR(CUBLAS_VER_MAJOR), "libcublas.so"};
        void *lib = nullptr;
        for (const char *n : names)
            if ((lib = dlopen(n, RTLD_NOW | RTLD_LOCAL))) break;
        if (!lib) {
            snprintf(fn.why, sizeof fn.why, "cannot load libcublas.so.%d (%s)", CUBLAS_VER_MAJOR,
                     dlerror());
            return;
        }
        fn.ok = true;
        bind(lib, "cublasCreate_v2", fn.create, fn);
        bind(lib, "cublasDestroy_v2", fn.destroy, fn);
        bind(lib, "cublasSetStream_v2", fn.set_stream, fn);
        bind(lib, "cublasSetWorkspace_v2", fn.set_workspace, fn);
        bind(lib, "cublasGetStatusName", fn.status_name, fn);
        bind_typed(lib, fn.s, fn);
        bind_typed(lib, fn.d, fn);
        bind_typed(lib, fn.c, fn);
        bind_typed(lib, fn.z, fn);
    });
    return fn;
}

}  // namespace

cublasHandle_t blas_handle(gpusvdHandle_t h, const char *routine, cudaStream_t stream,
                           gpusvdStatus_t *st) {
    *st = GPUSVD_STATUS_SUCCESS;
    const Functions &fn = functions();
    if (!fn.ok) {
        *st = fail(h, GPUSVD_STATUS_NOT_SUPPORTED, "%s: needs cuBLAS on this path: %s", routine,
                   fn.why);
        return nullptr;
    }
    cudaError_t e;
    Resources *r = resources(h, &e);
    if (!r) {
        *st = cuda_fail(h, routine, "creating the handle's GPU resources", e);
        return nullptr;
    }
    if (!r->blas) {
        // cublasCreate allocates device memory, which would break the caller's capture.
        bool cap = false;
        stream_capturing(stream, &cap);
        if (cap) {
            *st = fail(h, GPUSVD_STATUS_NOT_SUPPORTED,
                       "%s: this path loads cuBLAS, which cannot start inside a CUDA graph "
                       "capture: make one call on this handle before capturing",
                       routine);
            return nullptr;
        }
        cublasHandle_t b = nullptr;
        const cublasStatus_t s = fn.create(&b);
        if (s != CUBLAS_STATUS_SUCCESS) {
            *st = blas_fail(h, routine, "cublasCreate", s);
            return nullptr;
        }
        r->blas = b;
    }
    auto *b = static_cast<cublasHandle_t>(r->blas);
    const cublasStatus_t s = fn.set_stream(b, stream);
    if (s != CUBLAS_STATUS_SUCCESS) {
        *st = blas_fail(h, routine, "cublasSetStream", s);
        return nullptr;
    }
    return b;
}

gpusvdStatus_t blas_set_workspace(gpusvdHandle_t h, const char *routine, cublasHandle_t b,
                                  void *ws, size_t bytes) {
    const cublasStatus_t s = functions().set_workspace(b, ws, bytes);
    return s == CUBLAS_STATUS_SUCCESS ? GPUSVD_STATUS_SUCCESS
                                      : blas_fail(h, routine, "cublasSetWorkspace", s);
}

bool blas_available() {
    return functions().ok;
}

void blas_release(void *handle) {
    if (handle && functions().ok) functions().destroy(static_cast<cublasHandle_t>(handle));
}

gpusvdStatus_t blas_fail(gpusvdHandle_t h, const char *routine, const char *step,
                         cublasStatus_t s) {
    cudaGetLastError();
    const gpusvdStatus_t st = s == CUBLAS_STATUS_ALLOC_FAILED ? GPUSVD_STATUS_ALLOC_FAILED
                                                              : GPUSVD_STATUS_EXECUTION_FAILED;
    const char *name = functions().status_name ? functions().status_name(s) : "?";
    return fail(h, st, "%s: %s failed: %s (%d)", routine, step, name, static_cast<int>(s));
}

namespace blas {

template <class T>
cublasStatus_t syrk(cublasHandle_t b, cublasFillMode_t u, cublasOperation_t t, int64_t n, int64_t k,
                    T alpha, const T *A, int64_t lda, T beta, T *C, int64_t ldc) {
    const auto a = kernels::real(alpha), be = kernels::real(beta);  // ?herk's are real
    return typed<T>().syrk(b, u, t, n, k, &a, blas_ptr(A), lda, &be, blas_ptr(C), ldc);
}
template <class T>
cublasStatus_t gemm(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                    int64_t n, int64_t k, T alpha, const T *A, int64_t lda, const T *B, int64_t ldb,
                    T beta, T *C, int64_t ldc) {
    return typed<T>().gemm(b, ta, tb, m, n, k, blas_ptr(&alpha), blas_ptr(A), lda, blas_ptr(B),
                           ldb, blas_ptr(&beta), blas_ptr(C), ldc);
}
template <class T>
cublasStatus_t gemm_strided(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                            int64_t n, int64_t k, const T *A, int64_t lda, int64_t sA, const T *B,
                            int64_t ldb, int64_t sB, T *C, int64_t ldc, int64_t sC, int64_t batch) {
    const T one = T(1), zero = T(0);
    return typed<T>().gemm_sb(b, ta, tb, m, n, k, blas_ptr(&one), blas_ptr(A), lda, sA,
                              blas_ptr(B), ldb, sB, blas_ptr(&zero), blas_ptr(C), ldc, sC, batch);
}
template <class T>
cublasStatus_t gemm_batched(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                            int64_t n, int64_t k, const T *const *A, int64_t lda,
                            const T *const *B, int64_t ldb, T *const *C, int64_t ldc,
                            int64_t batch) {
    const T one = T(1), zero = T(0);
    return typed<T>().gemm_b(b, ta, tb, m, n, k, blas_ptr(&one), blas_ptr(A), lda, blas_ptr(B),
                             ldb, blas_ptr(&zero), blas_ptr(C), ldc, batch);
}
template <class T>
cublasStatus_t trsm_upper(cublasHandle_t b, cublasSideMode_t side, int64_t m, int64_t n, const T *R,
                          int64_t ldr, T *B, int64_t ldb, cublasOperation_t op) {
    const T one = T(1);
    return typed<T>().trsm(b, side, CUBLAS_FILL_MODE_UPPER, op, CUBLAS_DIAG_NON_UNIT, m, n,
                           blas_ptr(&one), blas_ptr(R), ldr, blas_ptr(B), ldb);
}
template <class T>
cublasStatus_t trmm_right_upper_inplace(cublasHandle_t b, int64_t m, int64_t n, const T *R,
                                        int64_t ldr, T *B, int64_t ldb) {
    const T one = T(1);
    return typed<T>().trmm(b, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                           CUBLAS_DIAG_NON_UNIT, m, n, blas_ptr(&one), blas_ptr(R), ldr,
                           blas_ptr(B), ldb, blas_ptr(B), ldb);
}
template <class T>
cublasStatus_t trmm_left_upper(cublasHandle_t b, int64_t m, int64_t n, const T *R, int64_t ldr,
                               const T *B, int64_t ldb, T *C, int64_t ldc) {
    const T one = T(1);
    return typed<T>().trmm(b, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                           CUBLAS_DIAG_NON_UNIT, m, n, blas_ptr(&one), blas_ptr(R), ldr,
                           blas_ptr(B), ldb, blas_ptr(C), ldc);
}

#define GPUSVD_INSTANTIATE(T)                                                                      \
    template cublasStatus_t syrk<T>(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int64_t,  \
                                    int64_t, T, const T *, int64_t, T, T *, int64_t);              \
    template cublasStatus_t gemm<T>(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, \
                                    int64_t, int64_t, T, const T *, int64_t, const T *, int64_t,   \
                                    T, T *, int64_t);                                              \
    template cublasStatus_t gemm_strided<T>(                                                       \
        cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t, int64_t,           \
        const T *, int64_t, int64_t, const T *, int64_t, int64_t, T *, int64_t, int64_t, int64_t); \
    template cublasStatus_t gemm_batched<T>(                                                       \
        cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t, int64_t,           \
        const T *const *, int64_t, const T *const *, int64_t, T *const *, int64_t, int64_t);       \
    template cublasStatus_t trsm_upper<T>(cublasHandle_t, cublasSideMode_t, int64_t, int64_t,      \
                                          const T *, int64_t, T *, int64_t, cublasOperation_t);    \
    template cublasStatus_t trmm_right_upper_inplace<T>(cublasHandle_t, int64_t, int64_t,          \
                                                        const T *, int64_t, T *, int64_t);         \
    template cublasStatus_t trmm_left_upper<T>(cublasHandle_t, int64_t, int64_t, const T *,        \
                                               int64_t, const T *, int64_t, T *, int64_t);
GPUSVD_INSTANTIATE(float)
GPUSVD_INSTANTIATE(double)
GPUSVD_INSTANTIATE(kernels::Complex<float>)
GPUSVD_INSTANTIATE(kernels::Complex<double>)
#undef GPUSVD_INSTANTIATE

}  // namespace blas
}  // namespace gpu
}  // namespace gpusvd
