#include "common/cublas.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <mutex>

#include "common/runtime.hpp"

#define GPUSVD_XSTR(x) #x
#define GPUSVD_STR(x) GPUSVD_XSTR(x)

namespace gpusvd {
namespace gpu {
namespace {

struct Functions {
    bool ok = false;
    char why[200] = "";
    decltype(&cublasCreate_v2) create = nullptr;
    decltype(&cublasDestroy_v2) destroy = nullptr;
    decltype(&cublasSetStream_v2) set_stream = nullptr;
    decltype(&cublasGetStatusName) status_name = nullptr;
    decltype(&cublasSsyrk_v2_64) ssyrk = nullptr;
    decltype(&cublasDsyrk_v2_64) dsyrk = nullptr;
    decltype(&cublasSgemm_v2_64) sgemm = nullptr;
    decltype(&cublasDgemm_v2_64) dgemm = nullptr;
    decltype(&cublasSgemmStridedBatched_64) sgemm_sb = nullptr;
    decltype(&cublasDgemmStridedBatched_64) dgemm_sb = nullptr;
    decltype(&cublasStrsm_v2_64) strsm = nullptr;
    decltype(&cublasDtrsm_v2_64) dtrsm = nullptr;
    decltype(&cublasStrmm_v2_64) strmm = nullptr;
    decltype(&cublasDtrmm_v2_64) dtrmm = nullptr;
};

template <class F>
void bind(void *lib, const char *name, F &f, Functions &fn) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (!f && fn.ok) {
        fn.ok = false;
        snprintf(fn.why, sizeof fn.why, "cuBLAS has no symbol %s", name);
    }
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
        bind(lib, "cublasGetStatusName", fn.status_name, fn);
        bind(lib, "cublasSsyrk_v2_64", fn.ssyrk, fn);
        bind(lib, "cublasDsyrk_v2_64", fn.dsyrk, fn);
        bind(lib, "cublasSgemm_v2_64", fn.sgemm, fn);
        bind(lib, "cublasDgemm_v2_64", fn.dgemm, fn);
        bind(lib, "cublasSgemmStridedBatched_64", fn.sgemm_sb, fn);
        bind(lib, "cublasDgemmStridedBatched_64", fn.dgemm_sb, fn);
        bind(lib, "cublasStrsm_v2_64", fn.strsm, fn);
        bind(lib, "cublasDtrsm_v2_64", fn.dtrsm, fn);
        bind(lib, "cublasStrmm_v2_64", fn.strmm, fn);
        bind(lib, "cublasDtrmm_v2_64", fn.dtrmm, fn);
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

template <>
cublasStatus_t syrk<float>(cublasHandle_t b, cublasFillMode_t u, cublasOperation_t t, int64_t n,
                           int64_t k, float alpha, const float *A, int64_t lda, float beta,
                           float *C, int64_t ldc) {
    return functions().ssyrk(b, u, t, n, k, &alpha, A, lda, &beta, C, ldc);
}
template <>
cublasStatus_t syrk<double>(cublasHandle_t b, cublasFillMode_t u, cublasOperation_t t, int64_t n,
                            int64_t k, double alpha, const double *A, int64_t lda, double beta,
                            double *C, int64_t ldc) {
    return functions().dsyrk(b, u, t, n, k, &alpha, A, lda, &beta, C, ldc);
}
template <>
cublasStatus_t gemm<float>(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                           int64_t n, int64_t k, float alpha, const float *A, int64_t lda,
                           const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    return functions().sgemm(b, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
template <>
cublasStatus_t gemm<double>(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                            int64_t n, int64_t k, double alpha, const double *A, int64_t lda,
                            const double *B, int64_t ldb, double beta, double *C, int64_t ldc) {
    return functions().dgemm(b, ta, tb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
template <>
cublasStatus_t gemm_strided<float>(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb,
                                   int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                                   int64_t sA, const float *B, int64_t ldb, int64_t sB, float *C,
                                   int64_t ldc, int64_t sC, int64_t batch) {
    const float one = 1, zero = 0;
    return functions().sgemm_sb(b, ta, tb, m, n, k, &one, A, lda, sA, B, ldb, sB, &zero, C, ldc, sC,
                                batch);
}
template <>
cublasStatus_t gemm_strided<double>(cublasHandle_t b, cublasOperation_t ta, cublasOperation_t tb,
                                    int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                                    int64_t sA, const double *B, int64_t ldb, int64_t sB, double *C,
                                    int64_t ldc, int64_t sC, int64_t batch) {
    const double one = 1, zero = 0;
    return functions().dgemm_sb(b, ta, tb, m, n, k, &one, A, lda, sA, B, ldb, sB, &zero, C, ldc, sC,
                                batch);
}
template <>
cublasStatus_t trsm_right_upper<float>(cublasHandle_t b, int64_t m, int64_t n, const float *R,
                                       int64_t ldr, float *B, int64_t ldb) {
    const float one = 1;
    return functions().strsm(b, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                             CUBLAS_DIAG_NON_UNIT, m, n, &one, R, ldr, B, ldb);
}
template <>
cublasStatus_t trsm_right_upper<double>(cublasHandle_t b, int64_t m, int64_t n, const double *R,
                                        int64_t ldr, double *B, int64_t ldb) {
    const double one = 1;
    return functions().dtrsm(b, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                             CUBLAS_DIAG_NON_UNIT, m, n, &one, R, ldr, B, ldb);
}
template <>
cublasStatus_t trmm_right_upper_inplace<float>(cublasHandle_t b, int64_t m, int64_t n,
                                               const float *R, int64_t ldr, float *B, int64_t ldb) {
    const float one = 1;
    return functions().strmm(b, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                             CUBLAS_DIAG_NON_UNIT, m, n, &one, R, ldr, B, ldb, B, ldb);
}
template <>
cublasStatus_t trmm_right_upper_inplace<double>(cublasHandle_t b, int64_t m, int64_t n,
                                                const double *R, int64_t ldr, double *B,
                                                int64_t ldb) {
    const double one = 1;
    return functions().dtrmm(b, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                             CUBLAS_DIAG_NON_UNIT, m, n, &one, R, ldr, B, ldb, B, ldb);
}
template <>
cublasStatus_t trmm_left_upper<float>(cublasHandle_t b, int64_t m, int64_t n, const float *R,
                                      int64_t ldr, const float *B, int64_t ldb, float *C,
                                      int64_t ldc) {
    const float one = 1;
    return functions().strmm(b, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                             CUBLAS_DIAG_NON_UNIT, m, n, &one, R, ldr, B, ldb, C, ldc);
}
template <>
cublasStatus_t trmm_left_upper<double>(cublasHandle_t b, int64_t m, int64_t n, const double *R,
                                       int64_t ldr, const double *B, int64_t ldb, double *C,
                                       int64_t ldc) {
    const double one = 1;
    return functions().dtrmm(b, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                             CUBLAS_DIAG_NON_UNIT, m, n, &one, R, ldr, B, ldb, C, ldc);
}

}  // namespace blas
}  // namespace gpu
}  // namespace gpusvd
