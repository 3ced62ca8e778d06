/**
 * @file gpusvd.h
 * @brief gpusvd: SVD, QR and eigenvalue factorizations on NVIDIA GPUs with a LAPACK (CPU)
 *        reference and fallback. The one public header of the library.
 *
 * Conventions (the same for every routine):
 * - Matrices are column-major (Fortran order), as in LAPACK. Dimensions, leading dimensions,
 *   strides and batch counts are int64_t; workspace sizes are bytes (size_t).
 * - Every function returns a gpusvdStatus_t describing the *call* (bad argument, no memory, no
 *   device). The numerical outcome of each matrix is reported in `info`, LAPACK style.
 * - Arguments are checked before any work; an invalid one gives GPUSVD_STATUS_INVALID_VALUE,
 *   changes no output, and gpusvdGetErrorMessage() names the routine, the argument and its value.
 * - A matrix containing NaN or Inf is not factorized: its info is GPUSVD_INFO_NONFINITE and its
 *   outputs are set to NaN; the other matrices of a batch are unaffected.
 * - Zero-size problems (m, n, k or batchCount equal to 0) succeed without reading or writing any
 *   matrix, whatever the other dimensions; pointers to arrays of size zero may be NULL. info
 *   entries are set to 0.
 * - Results are right over the whole floating-point range: data near the overflow threshold or
 *   made of subnormal numbers is factored as X * 2^e and the outputs scaled back exactly, so an
 *   output is +-Inf only where its exact value exceeds the largest finite number.
 * - A call that is refused (INVALID_VALUE, ALLOC_FAILED, NO_DEVICE, NOT_SUPPORTED before any
 *   work) changes no output, no info and no handle state (Jacobi statistics included).
 * - The CPU backend uses the threads the system gives it: a thread that cannot be created is not
 *   used. OpenBLAS needs a 128 MiB work buffer per thread that runs it and cannot fail
 *   gracefully when it cannot map one, so the CPU backend checks first: it runs fewer threads
 *   when only some buffers can be had and returns ALLOC_FAILED when none can (or when OpenBLAS
 *   would have to restart its threads after a fork and the system refuses them).
 * - Host forms take host pointers and run on the backend chosen with gpusvdSetBackend();
 *   `_gpu` forms take device pointers (info too), run asynchronously on the handle's stream and
 *   return GPUSVD_STATUS_NO_DEVICE where there is no usable GPU.
 * - CUDA graphs: every `_gpu` form may be called while the handle's stream is capturing a graph
 *   (cudaStreamBeginCapture, torch.cuda.graph, CuPy's stream capture), except bdsvd with vectors
 *   (below), and the replayed graph gives the right answer for new data in the same buffers:
 *   loops whose trip count depends on the data (CholeskyQR steps of the tall QR and of PCA's QR
 *   method, sweeps of the blocked Jacobi) become conditional nodes decided on the device (CUDA
 *   12.4 driver or newer). Outside a capture those forms read a few flags back per step or sweep
 *   (listed in each routine's notes), which is faster there; the batched forms, column-major
 *   geqrf_mgs of square or small matrices, PCA's covariance method and bdsvd values never wait
 *   on the host. A call that cannot be captured answers
 *   GPUSVD_STATUS_NOT_SUPPORTED before enqueueing anything, leaving the capture intact: bdsvd
 *   with vectors, and a handle's first use of a resource it must allocate (its device
 *   workspace growing, cuBLAS, the Jacobi statistics, PCA's total variance), so make the same
 *   call once before capturing, or set a workspace with gpusvdSetWorkspace. A captured graph
 *   uses the handle's workspace (or the one set): while the graph may still be replayed, keep
 *   the handle alive and make no call on it that needs a larger workspace, and do not run it
 *   concurrently with other calls on the same handle.
 * - Nothing prints, aborts or exits. A handle must not be used by two threads at once; distinct
 *   handles may be used concurrently from any number of threads.
 */
#ifndef GPUSVD_H
#define GPUSVD_H

#include <stddef.h>
#include <stdint.h>

#define GPUSVD_VERSION_MAJOR 0
#define GPUSVD_VERSION_MINOR 2
#define GPUSVD_VERSION_PATCH 0
/** Encoded version: MAJOR * 10000 + MINOR * 100 + PATCH (compare with gpusvdGetVersion()). */
#define GPUSVD_VERSION (GPUSVD_VERSION_MAJOR * 10000 + GPUSVD_VERSION_MINOR * 100 + GPUSVD_VERSION_PATCH)

#if defined(GPUSVD_BUILDING_LIBRARY)
#define GPUSVD_API __attribute__((visibility("default")))
#else
#define GPUSVD_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque library context: backend, stream, workspace, Jacobi settings, last error. */
typedef struct gpusvdContext *gpusvdHandle_t;

/* In C++ the enums below have the fixed underlying type int: a C or Fortran caller may pass any
 * int, and in C++ a value outside the enumerators of an enum without a fixed type is undefined
 * behaviour. Same size and calling convention as the C enums; the library rejects such values
 * with GPUSVD_STATUS_INVALID_VALUE. */
#ifdef __cplusplus
#define GPUSVD_ENUM_BASE : int
#else
#define GPUSVD_ENUM_BASE
#endif

/** Outcome of a call. */
typedef enum GPUSVD_ENUM_BASE {
    GPUSVD_STATUS_SUCCESS = 0,         /**< the call completed (check info per matrix) */
    GPUSVD_STATUS_INVALID_VALUE = 1,   /**< an argument is invalid; nothing was changed */
    GPUSVD_STATUS_ALLOC_FAILED = 2,    /**< host or device memory could not be allocated */
    GPUSVD_STATUS_NO_DEVICE = 3,       /**< a GPU was required and none is usable */
    GPUSVD_STATUS_NOT_SUPPORTED = 4,   /**< this routine/size is not available on this backend */
    GPUSVD_STATUS_EXECUTION_FAILED = 5,/**< a kernel or library call failed at run time */
    GPUSVD_STATUS_INTERNAL_ERROR = 6   /**< a bug in gpusvd: please report it */
} gpusvdStatus_t;

/** Where work runs. AUTO: the GPU when a usable one is present and the routine has GPU
 *  kernels, else the CPU. */
typedef enum GPUSVD_ENUM_BASE {
    GPUSVD_BACKEND_AUTO = 0,
    GPUSVD_BACKEND_CPU = 1,
    GPUSVD_BACKEND_GPU = 2
} gpusvdBackend_t;

/** Whether singular/eigen vectors are computed. */
typedef enum GPUSVD_ENUM_BASE { GPUSVD_JOB_NOVEC = 0, GPUSVD_JOB_VEC = 1 } gpusvdJob_t;

/** Upper or lower bidiagonal. */
typedef enum GPUSVD_ENUM_BASE { GPUSVD_UPPER = 0, GPUSVD_LOWER = 1 } gpusvdUplo_t;

/** Gram-Schmidt flavour. MGS: loss of orthogonality ~ eps * cond(A).
 *  MGS2: reorthogonalised, ||I - Q^T Q|| = O(eps) for numerically full-rank A. */
typedef enum GPUSVD_ENUM_BASE { GPUSVD_ORTH_MGS = 0, GPUSVD_ORTH_MGS2 = 1 } gpusvdOrth_t;

/** How pca computes the components (see gpusvdSetPcaMethod). */
typedef enum GPUSVD_ENUM_BASE {
    GPUSVD_PCA_AUTO = 0,       /**< chosen per call by the rule of gpusvdSetPcaMethod */
    GPUSVD_PCA_QR = 1,         /**< QR of the centred data, SVD of R: accurate */
    GPUSVD_PCA_COVARIANCE = 2  /**< eigendecomposition of the covariance matrix: faster */
} gpusvdPcaMethod_t;

/** How the matrix arguments of the routines that honour it are stored (see
 *  gpusvdSetMatrixLayout). */
typedef enum GPUSVD_ENUM_BASE {
    GPUSVD_LAYOUT_COL_MAJOR = 0, /**< column-major (Fortran order): element (i,j) at i + j*ld */
    GPUSVD_LAYOUT_ROW_MAJOR = 1  /**< row-major (C order): element (i,j) at i*ld + j */
} gpusvdLayout_t;

/** info value of a matrix holding NaN or Inf: it is not factorized and its outputs are NaN.
 *  (Positive info values keep LAPACK's per-routine meaning; 0 is success. No other negative
 *  value is ever returned: LAPACK rejecting an argument would be a gpusvd bug, reported as
 *  GPUSVD_STATUS_INTERNAL_ERROR.) */
#define GPUSVD_INFO_NONFINITE (-1)

/* ------------------------------------------------------------------------------------------ */
/* Handle                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/** Create a handle (backend AUTO, default stream, library-managed workspace, default Jacobi
 *  settings). The handle belongs to the CUDA device current in the calling thread (as cuBLAS
 *  and cuSOLVER handles do): its GPU work runs there whatever device is current at a later
 *  call, and each call leaves the caller's current device as it found it. A `_gpu` form checks
 *  that every pointer it is given can be reached from that device (device memory of that
 *  device, managed or page-locked host memory, a peer device's memory with peer access
 *  enabled) and answers INVALID_VALUE naming the argument and both devices otherwise. Use one
 *  handle per device; a handle may be used from any thread, one thread at a time.
 *  @param[out] handle receives the new handle; NULL on failure.
 *  @return SUCCESS, INVALID_VALUE (handle is NULL) or ALLOC_FAILED. */
GPUSVD_API gpusvdStatus_t gpusvdCreate(gpusvdHandle_t *handle);

/** @param[out] device the CUDA device the handle belongs to (current when it was created).
 *  @return SUCCESS, or NO_DEVICE (nothing written) when no GPU was usable at its creation. */
GPUSVD_API gpusvdStatus_t gpusvdGetDevice(gpusvdHandle_t handle, int *device);

/** Spread the host-pointer forms of the batched routines (gesvj_batched, geqrf_mgs_batched,
 *  geev_batched) on the GPU over `count` devices: the batch is cut into equal contiguous parts,
 *  one per device, run at once, each with its own streams, page-locked pipeline and workspace
 *  (the handle keeps a context per device, created here and freed with the handle). Every
 *  matrix is computed as on one device: results and info do not depend on the split; a failure
 *  on one device is the call's status, its message naming the device. The `_gpu` forms and the
 *  single-matrix routines still run on the handle's own device; the handle's settings (Jacobi
 *  tolerance and sweeps) apply on every device. count = 0 (ids may be NULL), or the handle's
 *  own device alone, goes back to that device. The list need not hold the handle's own device.
 *  @param ids   `count` distinct devices (0 .. cudaGetDeviceCount() - 1) this build can run on.
 *  @return SUCCESS; INVALID_VALUE (count outside [0, 64], ids NULL, an id out of range, not
 *          usable or repeated: nothing changed); NO_DEVICE without a usable GPU; ALLOC_FAILED. */
GPUSVD_API gpusvdStatus_t gpusvdSetDevices(gpusvdHandle_t handle, int count, const int *ids);

/** The devices the batched host forms use: the list set with gpusvdSetDevices, or the handle's
 *  own device. @param ids the first min(maxCount, *count) of them (may be NULL when maxCount is
 *  0). @param[out] count how many there are. @return SUCCESS, INVALID_VALUE, NO_DEVICE. */
GPUSVD_API gpusvdStatus_t gpusvdGetDevices(gpusvdHandle_t handle, int maxCount, int *ids,
                                           int *count);

/** Destroy a handle and release its cached workspace. NULL is accepted and ignored. */
GPUSVD_API gpusvdStatus_t gpusvdDestroy(gpusvdHandle_t handle);

/** Choose the backend. GPU without a usable device gives NO_DEVICE and leaves the setting
 *  unchanged. A routine without GPU kernels returns NOT_SUPPORTED on backend GPU (never a silent
 *  fallback); AUTO uses the CPU for it. AUTO also keeps host-pointer calls whose input matrices
 *  total less than 64 KiB on the CPU (transfer and launch latency would dominate). Every
 *  real (s, d) routine has GPU kernels; pca only for m >= n (wider data runs on the CPU under
 *  AUTO). Of the complex (c, z) routines, geqrf_mgs(_batched) (column-major data),
 *  geev_batched and gesvj(_batched) (the sizes gpusvd_cgesvj names) have GPU kernels; the
 *  others run on the CPU only in this version. */
GPUSVD_API gpusvdStatus_t gpusvdSetBackend(gpusvdHandle_t handle, gpusvdBackend_t backend);

/** The backend set explicitly, or for AUTO the one it resolves to on this machine: GPU when a
 *  usable device is present, else CPU. (Under AUTO a routine without GPU kernels still runs on
 *  the CPU.) @param[out] resolved never AUTO. */
GPUSVD_API gpusvdStatus_t gpusvdGetBackend(gpusvdHandle_t handle, gpusvdBackend_t *resolved);

/** Set the CUDA stream (a cudaStream_t passed as void*; NULL = legacy default stream) used by
 *  GPU work on this handle. Accepted without a GPU (it is then never used). A `_gpu` call whose
 *  stream belongs to another device than the handle's answers INVALID_VALUE. */
GPUSVD_API gpusvdStatus_t gpusvdSetStream(gpusvdHandle_t handle, void *cudaStream);
/** @param[out] cudaStream the stream set with gpusvdSetStream (NULL by default). */
GPUSVD_API gpusvdStatus_t gpusvdGetStream(gpusvdHandle_t handle, void **cudaStream);

/** Give the handle user-owned workspace (both may be NULL with size 0: library-managed, the
 *  default). A routine whose `_bufferSize` exceeds what was given returns INVALID_VALUE.
 *  The device buffer serves the `_gpu` forms; host-pointer calls on the GPU stage their data
 *  through the handle's own device and page-locked buffers (allocated on first use, kept until
 *  gpusvdDestroy). A host array that is itself page-locked (cudaHostAlloc, cudaHostRegister,
 *  CuPy's or PyTorch's pinned memory) and laid out with stride = ld * cols is copied straight to
 *  and from the device instead, skipping the copy on the cores that otherwise bounds a call's
 *  speed-up over several GPUs (gpusvdSetDevices). The buffers must stay valid until replaced or the handle is destroyed. */
GPUSVD_API gpusvdStatus_t gpusvdSetWorkspace(gpusvdHandle_t handle, void *deviceBuffer,
                                             size_t deviceBytes, void *hostBuffer,
                                             size_t hostBytes);

/** Jacobi convergence tolerance: columns i, j count as orthogonal when
 *  |a_i^T a_j| <= tol * ||a_i|| * ||a_j||. 0 restores the default, sqrt(max(m,n)) * eps (eps =
 *  unit roundoff of the precision). Must be 0 or in (0, 1). The CPU backend (LAPACK ?gesvj)
 *  cannot go below 2 eps and uses max(tol, 2 eps) with LAPACK's own stopping test, which can end
 *  with the largest |cos| of the last sweep up to about sqrt(n) * tol (see offNorm). */
GPUSVD_API gpusvdStatus_t gpusvdSetJacobiTolerance(gpusvdHandle_t handle, double tol);

/** Maximum number of Jacobi sweeps, in [1, 2^20] (default 100, as cuSOLVER gesvdj). The GPU
 *  backend's parallel (round-robin) ordering needs about 10-15 sweeps on well-conditioned
 *  matrices and up to about 45 at cond 1e12 (n = 300). The CPU backend (LAPACK ?gesvj, whose
 *  pivoting converges in fewer sweeps) always uses LAPACK's fixed limit of 30. */
GPUSVD_API gpusvdStatus_t gpusvdSetJacobiMaxSweeps(gpusvdHandle_t handle, int maxSweeps);

/** Statistics of the last gesvj / gesvj_batched call on this handle (batched: the maximum over
 *  the batch). @param[out] sweeps sweeps used (may be NULL); @param[out] offNorm largest
 *  |cos(a_i, a_j)| over column pairs in the last sweep, or in the test of all column pairs that
 *  the GPU's blocked Jacobi runs instead of a last sweep that would rotate nothing (may be NULL).
 *  Both 0 before any call.
 *  After a `_gpu` call this waits for it to finish on the handle's stream. */
GPUSVD_API gpusvdStatus_t gpusvdGetJacobiStats(gpusvdHandle_t handle, int *sweeps,
                                               double *offNorm);

/** The method of later pca calls on this handle (default GPUSVD_PCA_AUTO); a value outside the
 *  enumerators gives INVALID_VALUE and leaves the setting unchanged. Both methods centre the
 *  data explicitly and give the same outputs with the same conventions; they differ in speed and
 *  in the accuracy of small variances (sigma_j: singular values of the centred data, eps: unit
 *  roundoff of the precision):
 *  - GPUSVD_PCA_QR: QR of the centred data, then the SVD of R. The explained variances carry a
 *    relative error of about max(m,n) eps sigma_1 / sigma_j, component j an angle error of
 *    about max(m,n) eps sigma_1 / (gap between sigma_j and its neighbours).
 *  - GPUSVD_PCA_COVARIANCE: the Gram matrix Xc^T Xc of the centred data (read in blocks of rows,
 *    not copied), and its symmetric eigendecomposition. Reads the data two times (three with
 *    scores) with no m*n workspace; the CPU backend's 32-bit limits then do not involve m or
 *    ldx. Forming Xc^T Xc squares the condition number: the explained variances carry an
 *    absolute error of about max(m,n) eps sigma_1^2 / (m - 1), so a variance below about
 *    eps times the largest is lost (relative error eps (sigma_1 / sigma_j)^2), and component j an
 *    angle error of about max(m,n) eps sigma_1^2 / (gap between sigma_j^2 and its neighbours).
 *  - GPUSVD_PCA_AUTO: COVARIANCE for double-precision data with m >= 10 n and n <= 1000, where
 *    it is several times faster (docs/benchmarks.md) and its error (n eps, at most about 1e-13,
 *    of the largest variance) is far below what an analysis of principal components resolves;
 *    QR otherwise,
 *    and always in single precision, where the same error (about 1e-5 of the largest variance
 *    at n = 100) would leave a component with a hundredth of the largest standard deviation
 *    one or two correct digits. The rule depends on m, n and the precision only, so it is the
 *    same on both backends and _bufferSize can apply it. */
GPUSVD_API gpusvdStatus_t gpusvdSetPcaMethod(gpusvdHandle_t handle, gpusvdPcaMethod_t method);
/** @param[out] method the setting (AUTO is returned as AUTO: it resolves per call). */
GPUSVD_API gpusvdStatus_t gpusvdGetPcaMethod(gpusvdHandle_t handle, gpusvdPcaMethod_t *method);

/** The total variance of the data of the last pca call on this handle: the sum of the n
 *  features' sample variances, ||Xc||_F^2 / (m - 1) (Xc the centred data), the denominator of
 *  explained-variance ratios. The call has it without another pass over the data: the sum of all
 *  squared singular values of the centred data (QR method) or the trace of its Gram matrix
 *  (covariance method), scaled back exactly as the explained variances are (+Inf where it
 *  exceeds the largest number of the data's precision). NaN before any pca call, after one with
 *  nothing to compute (m, n or k zero) and for data holding NaN/Inf; a refused call leaves it as
 *  it was. After a `_gpu` call this waits for it to finish on the handle's stream (as
 *  gpusvdGetJacobiStats); after the replay of a captured call it is that replay's. The handle's
 *  first `_gpu` pca call allocates the device word that holds it, so it cannot be the first
 *  call captured into a CUDA graph.
 *  @param[out] totalVariance the value (double whatever the data's precision). */
GPUSVD_API gpusvdStatus_t gpusvdGetPcaTotalVariance(gpusvdHandle_t handle, double *totalVariance);
/** gpusvdGetPcaTotalVariance without the wait, for callers who keep their results on the
 *  device: queues on the handle's stream the writing of the same value into *totalVariance, a
 *  double in memory reachable from the handle's device (device, managed or mapped page-locked
 *  memory), and returns. It is there once the stream reaches that point; nothing is waited for,
 *  so it may be captured into a CUDA graph with the pca call before it (a replay writes that
 *  replay's value). Without a usable device: GPUSVD_STATUS_NO_DEVICE; a null or unreachable
 *  pointer: GPUSVD_STATUS_INVALID_VALUE, with nothing queued.
 *  @param[out] totalVariance device pointer to one double. */
GPUSVD_API gpusvdStatus_t gpusvdGetPcaTotalVariance_gpu(gpusvdHandle_t handle,
                                                        double *totalVariance);

/** How later calls on this handle read and write their matrix arguments (default
 *  GPUSVD_LAYOUT_COL_MAJOR); a value outside the enumerators gives INVALID_VALUE and leaves the
 *  setting unchanged. With GPUSVD_LAYOUT_ROW_MAJOR, as LAPACKE's LAPACK_ROW_MAJOR, every matrix
 *  argument of a routine that honours it is row-major (C order): element (i,j) of an r x c
 *  matrix with leading dimension ld is at i*ld + j, and ld >= max(1, c) (the number of
 *  columns) instead of max(1, r). Vectors, strides of batches and info are unaffected.
 *  - Honoured by geqrf_mgs (host, `_gpu` and `_bufferSize`; A/Q (m x n, lda >= max(1, n)) and
 *    R (min(m,n) x n, ldr >= max(1, n))) and pca (host, `_gpu` and `_bufferSize`; X (m x n,
 *    ldx >= max(1, n)), components (n x k, ldc >= max(1, k)) and scores (m x k,
 *    lds >= max(1, k))). Results are the same factorizations as of the column-major matrix with
 *    the same elements. Row-major data runs without a transposing copy of X or A: the tall QR
 *    reads and writes A row by row in place (its Gram matrices and triangular solves work on
 *    rows anyway), pca's centring pass reads X and writes its centred column-major copy.
 *    geqrf_mgs's workspace grows by m*n + k*n elements under ROW_MAJOR (its _bufferSize says
 *    so): R is formed column-major there, and the rare rank-deficient path of the GPU backend
 *    (the batched Gram-Schmidt kernel) and the CPU backend's Householder QR work on a
 *    column-major copy of A.
 *  - Every other routine (gesvj, gesvj_batched, geqrf_mgs_batched, geev_batched, bdsvd) answers
 *    GPUSVD_STATUS_NOT_SUPPORTED under ROW_MAJOR, naming the layout, and changes nothing: it
 *    never reads row-major data as column-major. Set GPUSVD_LAYOUT_COL_MAJOR again for them. */
GPUSVD_API gpusvdStatus_t gpusvdSetMatrixLayout(gpusvdHandle_t handle, gpusvdLayout_t layout);
/** @param[out] layout the setting. */
GPUSVD_API gpusvdStatus_t gpusvdGetMatrixLayout(gpusvdHandle_t handle, gpusvdLayout_t *layout);

/** Human-readable detail of the last failed call on `handle` ("" after a success). With
 *  handle == NULL: the last failure of a call made with a NULL handle on this thread. The
 *  string stays valid until the next call on the same handle (or thread, for NULL). */
GPUSVD_API const char *gpusvdGetErrorMessage(gpusvdHandle_t handle);

/** Name of a status, e.g. "GPUSVD_STATUS_INVALID_VALUE"; "GPUSVD_STATUS_UNKNOWN" otherwise. */
GPUSVD_API const char *gpusvdGetStatusName(gpusvdStatus_t status);

/** Version of the loaded library, encoded like GPUSVD_VERSION. */
GPUSVD_API int gpusvdGetVersion(void);
/** Version of the loaded library as "MAJOR.MINOR.PATCH". */
GPUSVD_API const char *gpusvdGetVersionString(void);
/** One line describing the build and this machine: version, CUDA compiled in or not, CUDA
 *  architectures, BLAS/LAPACK vendor, the GPU found (or why none is usable). */
GPUSVD_API const char *gpusvdGetBuildInfo(void);

/* ------------------------------------------------------------------------------------------ */
/* One-sided Jacobi SVD                                                                        */
/* ------------------------------------------------------------------------------------------ */

/**
 * Economy SVD by one-sided Jacobi: A (m x n) = U (m x k) diag(S) V^T (V is n x k), k = min(m,n).
 *
 * @param jobu   GPUSVD_JOB_VEC: compute U; NOVEC: U is not referenced (may be NULL).
 * @param jobv   GPUSVD_JOB_VEC: compute V; NOVEC: V is not referenced (may be NULL).
 * @param m,n    rows and columns, >= 0.
 * @param A      m x n, leading dimension lda >= max(1,m). Destroyed on exit.
 * @param S      k singular values, non-negative and descending.
 * @param U      m x k orthonormal columns, ldu >= max(1,m) when jobu = VEC. Columns belonging to
 *               zero singular values are an orthonormal completion (U^T U = I always).
 * @param V      n x k orthonormal columns, ldv >= max(1,n) when jobv = VEC.
 * @param info   0: converged. >0: not converged within the sweep limit (outputs hold the best
 *               result so far). GPUSVD_INFO_NONFINITE: A holds NaN/Inf, outputs are NaN.
 * The CPU backend uses LAPACK ?gesvj (m < n through the transpose); it needs m, n, m*n, m+n and
 * the leading dimensions below 2^31 (NOT_SUPPORTED otherwise). The GPU backend has no size limit
 * (beyond device memory): one-sided Jacobi with a round-robin ordering, the tolerance and sweep
 * limit of gpusvdSetJacobiTolerance / gpusvdSetJacobiMaxSweeps, info = the sweep limit when a
 * matrix did not converge; it works on A^T when m < n. A single tall matrix (m >= 2n,
 * m*n > 128^2) is first reduced to R by the tall QR (see gpusvd_sgeqrf_mgs), as LAPACK's
 * ?gejsv preconditions; the Jacobi sweeps run on the n x n R and U = Q U_R. One matrix too
 * large for one thread block's shared memory (about min(m,n) > 110 in double) runs the blocked
 * Jacobi: column blocks of 16 or 32, the block pairs' Gram matrices by batched GEMM, each
 * diagonalised by a two-sided Jacobi in shared memory, the rotations applied by batched GEMM.
 * It reads one word back to the host per sweep, so the device form waits on the stream once per
 * sweep there; inside a CUDA graph capture the sweeps are a device-decided loop instead.
 */
GPUSVD_API gpusvdStatus_t gpusvd_sgesvj(gpusvdHandle_t handle, gpusvdJob_t jobu, gpusvdJob_t jobv,
                                        int64_t m, int64_t n, float *A, int64_t lda, float *S,
                                        float *U, int64_t ldu, float *V, int64_t ldv, int *info);
/** @copydoc gpusvd_sgesvj */
GPUSVD_API gpusvdStatus_t gpusvd_dgesvj(gpusvdHandle_t handle, gpusvdJob_t jobu, gpusvdJob_t jobv,
                                        int64_t m, int64_t n, double *A, int64_t lda, double *S,
                                        double *U, int64_t ldu, double *V, int64_t ldv, int *info);
/** Device-memory form of gpusvd_sgesvj (all arrays and info on the device; asynchronous). */
GPUSVD_API gpusvdStatus_t gpusvd_sgesvj_gpu(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                            gpusvdJob_t jobv, int64_t m, int64_t n, float *A,
                                            int64_t lda, float *S, float *U, int64_t ldu, float *V,
                                            int64_t ldv, int *info);
/** Device-memory form of gpusvd_dgesvj (all arrays and info on the device; asynchronous). */
GPUSVD_API gpusvdStatus_t gpusvd_dgesvj_gpu(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                            gpusvdJob_t jobv, int64_t m, int64_t n, double *A,
                                            int64_t lda, double *S, double *U, int64_t ldu,
                                            double *V, int64_t ldv, int *info);
/** Workspace that gesvj needs: @param[out] deviceBytes for the GPU path, @param[out] hostBytes
 *  for the CPU path (either may be NULL). Batched CPU workspace grows with the CPU backend's
 *  thread count (one per-matrix layout per thread: the process's CPU affinity, or
 *  OMP_NUM_THREADS when set, capped by the batch size). Sizes beyond the CPU backend's limits
 *  give NOT_SUPPORTED, as the call itself would. */
GPUSVD_API gpusvdStatus_t gpusvd_sgesvj_bufferSize(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                   gpusvdJob_t jobv, int64_t m, int64_t n,
                                                   size_t *deviceBytes, size_t *hostBytes);
/** @copydoc gpusvd_sgesvj_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_dgesvj_bufferSize(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                   gpusvdJob_t jobv, int64_t m, int64_t n,
                                                   size_t *deviceBytes, size_t *hostBytes);

/**
 * Batched gesvj: for b = 0..batchCount-1, matrix b is A + b*strideA (m x n, lda) with outputs
 * S + b*strideS (k values), U + b*strideU (m x k, ldu), V + b*strideV (n x k, ldv), info[b].
 * Strides must keep matrices apart: strideA >= lda*n, strideS >= k, strideU >= ldu*k,
 * strideV >= ldv*k. info is an array of batchCount entries with gesvj's meanings.
 * The CPU backend runs matrices in parallel over all cores (its own threads); while it does, a
 * pthread OpenBLAS is held single-threaded process-wide (restored when the last batched call
 * ends), so other threads' large LAPACK calls run single-threaded meanwhile.
 */
GPUSVD_API gpusvdStatus_t gpusvd_sgesvj_batched(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                gpusvdJob_t jobv, int64_t m, int64_t n, float *A,
                                                int64_t lda, int64_t strideA, float *S,
                                                int64_t strideS, float *U, int64_t ldu,
                                                int64_t strideU, float *V, int64_t ldv,
                                                int64_t strideV, int64_t batchCount, int *info);
/** @copydoc gpusvd_sgesvj_batched */
GPUSVD_API gpusvdStatus_t gpusvd_dgesvj_batched(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                gpusvdJob_t jobv, int64_t m, int64_t n, double *A,
                                                int64_t lda, int64_t strideA, double *S,
                                                int64_t strideS, double *U, int64_t ldu,
                                                int64_t strideU, double *V, int64_t ldv,
                                                int64_t strideV, int64_t batchCount, int *info);
/** Device-memory form of gpusvd_sgesvj_batched. */
GPUSVD_API gpusvdStatus_t gpusvd_sgesvj_batched_gpu(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                    gpusvdJob_t jobv, int64_t m, int64_t n,
                                                    float *A, int64_t lda, int64_t strideA,
                                                    float *S, int64_t strideS, float *U,
                                                    int64_t ldu, int64_t strideU, float *V,
                                                    int64_t ldv, int64_t strideV,
                                                    int64_t batchCount, int *info);
/** Device-memory form of gpusvd_dgesvj_batched. */
GPUSVD_API gpusvdStatus_t gpusvd_dgesvj_batched_gpu(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                    gpusvdJob_t jobv, int64_t m, int64_t n,
                                                    double *A, int64_t lda, int64_t strideA,
                                                    double *S, int64_t strideS, double *U,
                                                    int64_t ldu, int64_t strideU, double *V,
                                                    int64_t ldv, int64_t strideV,
                                                    int64_t batchCount, int *info);
/** Workspace of gesvj_batched (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_sgesvj_batched_bufferSize(gpusvdHandle_t handle,
                                                           gpusvdJob_t jobu, gpusvdJob_t jobv,
                                                           int64_t m, int64_t n,
                                                           int64_t batchCount,
                                                           size_t *deviceBytes,
                                                           size_t *hostBytes);
/** @copydoc gpusvd_sgesvj_batched_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_dgesvj_batched_bufferSize(gpusvdHandle_t handle,
                                                           gpusvdJob_t jobu, gpusvdJob_t jobv,
                                                           int64_t m, int64_t n,
                                                           int64_t batchCount,
                                                           size_t *deviceBytes,
                                                           size_t *hostBytes);

/* ------------------------------------------------------------------------------------------ */
/* QR by Gram-Schmidt, explicit Q                                                              */
/* ------------------------------------------------------------------------------------------ */

/**
 * QR with explicit Q: A (m x n) = Q R, k = min(m,n).
 *
 * @param orth  GPUSVD_ORTH_MGS or GPUSVD_ORTH_MGS2 (see gpusvdOrth_t).
 * @param A     m x n, lda >= max(1,m) (row-major: lda >= max(1,n), see gpusvdSetMatrixLayout).
 *              On exit its first k columns hold Q (orthonormal); for m < n columns k..n-1 are
 *              overwritten with unspecified values.
 * @param R     k x n upper trapezoidal, ldr >= max(1,k) (row-major: ldr >= max(1,n)),
 *              R(j,j) >= 0; entries below the diagonal are set to zero.
 * @param info  0; or j > 0: column j (1-based) is the first found dependent, meaning its part
 *              orthogonal to columns 1..j-1 is at most m * eps * ||A(:,j)||. Such a column
 *              gets R(j,j) = 0 and a Q column that completes Q orthonormally.
 *              GPUSVD_INFO_NONFINITE: A holds NaN/Inf; Q and R are NaN.
 * The CPU backend uses Householder QR in both orth modes (LAPACK ?geqrf with the signs fixed
 * afterwards, or ?geqrfp above 256 KiB, then ?orgqr): its Q is orthonormal to O(eps), which
 * meets both modes' bounds.
 * The GPU backend: small matrices (m*n <= 128^2 alone, <= 256^2 in a batch) run modified
 * Gram-Schmidt in shared or global memory, one warp or block per matrix (MGS: one pass,
 * ||I - Q^T Q|| ~ eps cond(A); MGS2: two passes, O(eps)). Larger ones run CholeskyQR repeated
 * until Q is orthonormal to O(eps) (shifted when cond(A) is beyond ~1e7 in double), in panels of
 * 256 columns joined by block Gram-Schmidt with reorthogonalisation, with cuBLAS (loaded on first
 * use) for the Gram matrices and triangular solves; both orth modes get the O(eps) result
 * there. That path waits on the host for a few bytes once per CholeskyQR step (1 to 4 per
 * panel), so the `_gpu` form returns once the last step is enqueued; inside a CUDA graph capture
 * it screens and scales the columns first and runs the steps as a device-decided loop.
 * Row-major A and R (gpusvdSetMatrixLayout) are factored in place on both backends: the CPU
 * backend through a column-major copy in its workspace (m*n + k*n more host workspace), the GPU
 * backend by the same CholeskyQR steps reading A's rows (small matrices too, instead of the
 * team kernels; R is formed in m*n + k*n more device workspace, which also serves the
 * rank-deficient rebuild). The batched forms take column-major matrices only.
 */
GPUSVD_API gpusvdStatus_t gpusvd_sgeqrf_mgs(gpusvdHandle_t handle, gpusvdOrth_t orth, int64_t m,
                                            int64_t n, float *A, int64_t lda, float *R,
                                            int64_t ldr, int *info);
/** @copydoc gpusvd_sgeqrf_mgs */
GPUSVD_API gpusvdStatus_t gpusvd_dgeqrf_mgs(gpusvdHandle_t handle, gpusvdOrth_t orth, int64_t m,
                                            int64_t n, double *A, int64_t lda, double *R,
                                            int64_t ldr, int *info);
/** Device-memory form of gpusvd_sgeqrf_mgs. */
GPUSVD_API gpusvdStatus_t gpusvd_sgeqrf_mgs_gpu(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                int64_t m, int64_t n, float *A, int64_t lda,
                                                float *R, int64_t ldr, int *info);
/** Device-memory form of gpusvd_dgeqrf_mgs. */
GPUSVD_API gpusvdStatus_t gpusvd_dgeqrf_mgs_gpu(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                int64_t m, int64_t n, double *A, int64_t lda,
                                                double *R, int64_t ldr, int *info);
/** Workspace of geqrf_mgs (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_sgeqrf_mgs_bufferSize(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                       int64_t m, int64_t n, size_t *deviceBytes,
                                                       size_t *hostBytes);
/** @copydoc gpusvd_sgeqrf_mgs_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_dgeqrf_mgs_bufferSize(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                       int64_t m, int64_t n, size_t *deviceBytes,
                                                       size_t *hostBytes);

/** Batched geqrf_mgs: matrix b is A + b*strideA (strideA >= lda*n), R + b*strideR
 *  (strideR >= ldr*n), info[b]. */
GPUSVD_API gpusvdStatus_t gpusvd_sgeqrf_mgs_batched(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                    int64_t m, int64_t n, float *A, int64_t lda,
                                                    int64_t strideA, float *R, int64_t ldr,
                                                    int64_t strideR, int64_t batchCount,
                                                    int *info);
/** @copydoc gpusvd_sgeqrf_mgs_batched */
GPUSVD_API gpusvdStatus_t gpusvd_dgeqrf_mgs_batched(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                    int64_t m, int64_t n, double *A, int64_t lda,
                                                    int64_t strideA, double *R, int64_t ldr,
                                                    int64_t strideR, int64_t batchCount,
                                                    int *info);
/** Device-memory form of gpusvd_sgeqrf_mgs_batched. */
GPUSVD_API gpusvdStatus_t gpusvd_sgeqrf_mgs_batched_gpu(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                        int64_t m, int64_t n, float *A,
                                                        int64_t lda, int64_t strideA, float *R,
                                                        int64_t ldr, int64_t strideR,
                                                        int64_t batchCount, int *info);
/** Device-memory form of gpusvd_dgeqrf_mgs_batched. */
GPUSVD_API gpusvdStatus_t gpusvd_dgeqrf_mgs_batched_gpu(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                        int64_t m, int64_t n, double *A,
                                                        int64_t lda, int64_t strideA, double *R,
                                                        int64_t ldr, int64_t strideR,
                                                        int64_t batchCount, int *info);
/** Workspace of geqrf_mgs_batched (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_sgeqrf_mgs_batched_bufferSize(gpusvdHandle_t handle,
                                                               gpusvdOrth_t orth, int64_t m,
                                                               int64_t n, int64_t batchCount,
                                                               size_t *deviceBytes,
                                                               size_t *hostBytes);
/** @copydoc gpusvd_sgeqrf_mgs_batched_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_dgeqrf_mgs_batched_bufferSize(gpusvdHandle_t handle,
                                                               gpusvdOrth_t orth, int64_t m,
                                                               int64_t n, int64_t batchCount,
                                                               size_t *deviceBytes,
                                                               size_t *hostBytes);

/* ------------------------------------------------------------------------------------------ */
/* Eigenvalues of many small general matrices                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * Eigenvalues and optionally right eigenvectors of batchCount general n x n matrices, with the
 * conventions of LAPACK dgeev (balancing on).
 *
 * @param jobvr   GPUSVD_JOB_VEC: right eigenvectors in VR; NOVEC: VR not referenced.
 * @param A       matrix b at A + b*strideA, lda >= max(1,n), strideA >= lda*n. Destroyed.
 * @param wr,wi   real and imaginary parts, matrix b at wr/wi + b*strideW (strideW >= n).
 *                Complex conjugate pairs are adjacent, positive imaginary part first.
 * @param VR      matrix b at VR + b*strideVR, ldvr >= max(1,n), strideVR >= ldvr*n. For a real
 *                eigenvalue j, column j is its vector; for a pair (j, j+1), columns j and j+1
 *                are the real and imaginary parts of the vector of wr[j] + i wi[j]. Each vector
 *                has unit 2-norm with its largest component real.
 * @param info    batchCount entries: 0; >0: the QR algorithm failed; eigenvalues info+1..n
 *                (1-based) converged (LAPACK's meaning; the GPU backend sets the others and VR
 *                to NaN, the CPU backend leaves LAPACK's partial output); GPUSVD_INFO_NONFINITE:
 *                NaN/Inf input, outputs NaN.
 */
GPUSVD_API gpusvdStatus_t gpusvd_sgeev_batched(gpusvdHandle_t handle, gpusvdJob_t jobvr,
                                               int64_t n, float *A, int64_t lda, int64_t strideA,
                                               float *wr, float *wi, int64_t strideW, float *VR,
                                               int64_t ldvr, int64_t strideVR,
                                               int64_t batchCount, int *info);
/** @copydoc gpusvd_sgeev_batched */
GPUSVD_API gpusvdStatus_t gpusvd_dgeev_batched(gpusvdHandle_t handle, gpusvdJob_t jobvr,
                                               int64_t n, double *A, int64_t lda,
                                               int64_t strideA, double *wr, double *wi,
                                               int64_t strideW, double *VR, int64_t ldvr,
                                               int64_t strideVR, int64_t batchCount, int *info);
/** Device-memory form of gpusvd_sgeev_batched. */
GPUSVD_API gpusvdStatus_t gpusvd_sgeev_batched_gpu(gpusvdHandle_t handle, gpusvdJob_t jobvr,
                                                   int64_t n, float *A, int64_t lda,
                                                   int64_t strideA, float *wr, float *wi,
                                                   int64_t strideW, float *VR, int64_t ldvr,
                                                   int64_t strideVR, int64_t batchCount,
                                                   int *info);
/** Device-memory form of gpusvd_dgeev_batched. */
GPUSVD_API gpusvdStatus_t gpusvd_dgeev_batched_gpu(gpusvdHandle_t handle, gpusvdJob_t jobvr,
                                                   int64_t n, double *A, int64_t lda,
                                                   int64_t strideA, double *wr, double *wi,
                                                   int64_t strideW, double *VR, int64_t ldvr,
                                                   int64_t strideVR, int64_t batchCount,
                                                   int *info);
/** Workspace of geev_batched (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_sgeev_batched_bufferSize(gpusvdHandle_t handle,
                                                          gpusvdJob_t jobvr, int64_t n,
                                                          int64_t batchCount,
                                                          size_t *deviceBytes,
                                                          size_t *hostBytes);
/** @copydoc gpusvd_sgeev_batched_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_dgeev_batched_bufferSize(gpusvdHandle_t handle,
                                                          gpusvdJob_t jobvr, int64_t n,
                                                          int64_t batchCount,
                                                          size_t *deviceBytes,
                                                          size_t *hostBytes);

/* ------------------------------------------------------------------------------------------ */
/* SVD of a bidiagonal matrix                                                                  */
/* ------------------------------------------------------------------------------------------ */

/**
 * SVD of the n x n bidiagonal B with diagonal d and off-diagonal e: B = U diag(d) VT.
 *
 * @param uplo  GPUSVD_UPPER: e is the superdiagonal; GPUSVD_LOWER: the subdiagonal.
 * @param jobz  GPUSVD_JOB_VEC: compute U and VT; NOVEC: they are not referenced.
 * @param d     n entries; on exit the singular values, non-negative and descending.
 * @param e     n-1 entries (may be NULL when n <= 1); destroyed on exit.
 * @param U     n x n, ldu >= max(1,n) when jobz = VEC.
 * @param VT    n x n, ldvt >= max(1,n) when jobz = VEC.
 * @param info  0; >0: LAPACK ?bdsdc's meaning (a singular value failed to converge);
 *              GPUSVD_INFO_NONFINITE: d or e holds NaN/Inf, outputs NaN.
 * The CPU backend uses LAPACK ?bdsdc (values only: dqds through ?bdsqr; vectors: divide and
 * conquer, which needs 3n^2 + 4n workspace elements). The GPU backend computes every value by
 * bisection on the Golub-Kahan tridiagonal (high relative accuracy, like dqds; info is always
 * 0 or GPUSVD_INFO_NONFINITE) and the vectors by twisted factorizations, close values refined
 * together; its `_gpu` form is asynchronous for values only, and with vectors waits on the host
 * twice (it reads the n scaled entries and then the n values back to plan the vector passes)
 * and returns once the vector passes are enqueued. With vectors it cannot be captured into a
 * CUDA graph (NOT_SUPPORTED inside a capture); values only can.
 */
GPUSVD_API gpusvdStatus_t gpusvd_sbdsvd(gpusvdHandle_t handle, gpusvdUplo_t uplo,
                                        gpusvdJob_t jobz, int64_t n, float *d, float *e, float *U,
                                        int64_t ldu, float *VT, int64_t ldvt, int *info);
/** @copydoc gpusvd_sbdsvd */
GPUSVD_API gpusvdStatus_t gpusvd_dbdsvd(gpusvdHandle_t handle, gpusvdUplo_t uplo,
                                        gpusvdJob_t jobz, int64_t n, double *d, double *e,
                                        double *U, int64_t ldu, double *VT, int64_t ldvt,
                                        int *info);
/** Device-memory form of gpusvd_sbdsvd. */
GPUSVD_API gpusvdStatus_t gpusvd_sbdsvd_gpu(gpusvdHandle_t handle, gpusvdUplo_t uplo,
                                            gpusvdJob_t jobz, int64_t n, float *d, float *e,
                                            float *U, int64_t ldu, float *VT, int64_t ldvt,
                                            int *info);
/** Device-memory form of gpusvd_dbdsvd. */
GPUSVD_API gpusvdStatus_t gpusvd_dbdsvd_gpu(gpusvdHandle_t handle, gpusvdUplo_t uplo,
                                            gpusvdJob_t jobz, int64_t n, double *d, double *e,
                                            double *U, int64_t ldu, double *VT, int64_t ldvt,
                                            int *info);
/** Workspace of bdsvd (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_sbdsvd_bufferSize(gpusvdHandle_t handle, gpusvdUplo_t uplo,
                                                   gpusvdJob_t jobz, int64_t n,
                                                   size_t *deviceBytes, size_t *hostBytes);
/** @copydoc gpusvd_sbdsvd_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_dbdsvd_bufferSize(gpusvdHandle_t handle, gpusvdUplo_t uplo,
                                                   gpusvdJob_t jobz, int64_t n,
                                                   size_t *deviceBytes, size_t *hostBytes);

/* ------------------------------------------------------------------------------------------ */
/* Principal component analysis                                                                */
/* ------------------------------------------------------------------------------------------ */

/**
 * PCA of X (m samples x n features), mean-centred; the top k principal components.
 *
 * @param m,n          samples (m >= 2 unless m, n or k is 0) and features.
 * @param X            m x n, ldx >= max(1,m) (row-major: ldx >= max(1,n), see
 *                     gpusvdSetMatrixLayout, which makes components and scores row-major too,
 *                     ldc >= max(1,k), lds >= max(1,k)). Not modified.
 * @param k            number of components, 0 <= k <= min(m,n).
 * @param components   n x k, ldc >= max(1,n): the principal axes (right singular vectors of the
 *                     centred X), orthonormal columns. Sign convention: in each column the entry
 *                     of largest magnitude (the first one on ties) is positive.
 * @param explainedVariance  k values sigma_j^2 / (m - 1), descending; each its exact value
 *                     rounded: +Inf where that exceeds the largest finite number (data beyond
 *                     about 1e154 in double, 1e19 in float).
 * @param scores       optional (NULL: skipped) m x k, lds >= max(1,m): centred X times
 *                     components.
 * @param mean         optional (NULL: skipped) n column means of X.
 * @param info         0; >0: the SVD (QR method) or the eigensolver (covariance method) did not
 *                     converge; GPUSVD_INFO_NONFINITE: X holds NaN/Inf, outputs NaN.
 * The method is the handle's (gpusvdSetPcaMethod: QR, covariance, or AUTO's choice).
 * The CPU backend, QR method: centres a copy of X (m*n workspace), takes its QR when m > n, and
 * the SVD of R (or of the centred copy when m <= n) with LAPACK ?gesdd. Covariance method:
 * centres X in blocks of rows, each summed into the Gram matrix by ?syrk (the blocks shared
 * among the threads, the sum independent of their number), the top k eigenpairs by ?syevr when
 * 8k <= n, else all of them by ?syevd; scores by ?gemm of the centred blocks; workspace: up to
 * 16 partial n x n Gram matrices and a block of rows per thread, independent of m. The sizes
 * that must stay below 2^31 on the CPU (NOT_SUPPORTED otherwise): QR method m, n, ldx, ldc, lds
 * and ?gesdd's workspace 5 p^2 + 64 (p + n), p = min(m,n); covariance method n, ldc, lds (with
 * scores) and ?syevd's workspace 1 + 6 n + 2 n^2.
 * The GPU backend (m >= n only; wider data is NOT_SUPPORTED there and runs on the CPU under
 * AUTO) centres a copy of X on the device (m*n device workspace). QR method: its tall QR (see
 * gpusvd_sgeqrf_mgs) and the one-sided Jacobi SVD of R (see gpusvd_sgesvj; info > 0: Jacobi
 * did not converge within the handle's max sweeps), scores = Q (U_R diag(s)). Covariance method:
 * the Gram matrix of the centred copy by cuBLAS (row chunks, one batched GEMM), its
 * eigendecomposition as its one-sided Jacobi SVD (info > 0 as above), scores = Xc C by one
 * GEMM; the `_gpu` form never waits on the host, so it can be captured into a CUDA graph.
 */
GPUSVD_API gpusvdStatus_t gpusvd_spca(gpusvdHandle_t handle, int64_t m, int64_t n, const float *X,
                                      int64_t ldx, int64_t k, float *components, int64_t ldc,
                                      float *explainedVariance, float *scores, int64_t lds,
                                      float *mean, int *info);
/** @copydoc gpusvd_spca */
GPUSVD_API gpusvdStatus_t gpusvd_dpca(gpusvdHandle_t handle, int64_t m, int64_t n,
                                      const double *X, int64_t ldx, int64_t k,
                                      double *components, int64_t ldc, double *explainedVariance,
                                      double *scores, int64_t lds, double *mean, int *info);
/** Device-memory form of gpusvd_spca. */
GPUSVD_API gpusvdStatus_t gpusvd_spca_gpu(gpusvdHandle_t handle, int64_t m, int64_t n,
                                          const float *X, int64_t ldx, int64_t k,
                                          float *components, int64_t ldc,
                                          float *explainedVariance, float *scores, int64_t lds,
                                          float *mean, int *info);
/** Device-memory form of gpusvd_dpca. */
GPUSVD_API gpusvdStatus_t gpusvd_dpca_gpu(gpusvdHandle_t handle, int64_t m, int64_t n,
                                          const double *X, int64_t ldx, int64_t k,
                                          double *components, int64_t ldc,
                                          double *explainedVariance, double *scores, int64_t lds,
                                          double *mean, int *info);
/** Workspace of pca (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_spca_bufferSize(gpusvdHandle_t handle, int64_t m, int64_t n,
                                                 int64_t k, size_t *deviceBytes,
                                                 size_t *hostBytes);
/** @copydoc gpusvd_spca_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_dpca_bufferSize(gpusvdHandle_t handle, int64_t m, int64_t n,
                                                 int64_t k, size_t *deviceBytes,
                                                 size_t *hostBytes);

/* ------------------------------------------------------------------------------------------ */
/* Complex precisions (c: single, z: double)                                                   */
/* ------------------------------------------------------------------------------------------ */

/* Complex elements: two reals, real part first, aligned like cuComplex / cuDoubleComplex (the
 * size of the pair: 8 and 16 bytes). No CUDA or C99 <complex.h> header is needed. The layout is
 * that of C99 `float _Complex` / `double _Complex`, C++ std::complex<float> / <double>, Fortran
 * complex(c_float_complex) / complex(c_double_complex), numpy complex64 / complex128 and CUDA's
 * cuComplex / cuDoubleComplex, so arrays of any of those are passed by casting the pointer.
 * Their alignment may be smaller than these types' (8 for double _Complex and complex(8) on
 * x86-64): the library reads complex arrays with the alignment of their real parts only, so
 * such arrays are accepted as they are. */
#if defined(_MSC_VER)
typedef struct __declspec(align(8)) gpusvdComplex { float re, im; } gpusvdComplex_t;
typedef struct __declspec(align(16)) gpusvdDoubleComplex { double re, im; } gpusvdDoubleComplex_t;
#else
typedef struct __attribute__((aligned(8))) gpusvdComplex { float re, im; } gpusvdComplex_t;
typedef struct __attribute__((aligned(16))) gpusvdDoubleComplex {
    double re, im;
} gpusvdDoubleComplex_t;
#endif

/* The c and z routines below take the same arguments, validation rules, info codes, NaN/Inf
 * rules (a NaN or Inf real or imaginary part makes the matrix non-finite; its outputs are NaN in
 * both parts), workspace rules and layouts as the s and d routines of the same name, with the
 * conventions of LAPACK's complex routines; each declaration notes what differs. Singular
 * values and explained variances are real (float for c, double for z); every other array is
 * complex; strides and leading dimensions count complex elements.
 *
 * Complex calls without GPU kernels in this version (the declarations of geqrf_mgs(_batched),
 * geev_batched, gesvj(_batched) and pca say what runs on the GPU): the host
 * forms run on the CPU backend (LAPACK's complex routines, batches in parallel over the cores
 * as for real data) under GPUSVD_BACKEND_AUTO and CPU, and answer GPUSVD_STATUS_NOT_SUPPORTED
 * under GPUSVD_BACKEND_GPU;
 * the `_gpu` forms answer GPUSVD_STATUS_NOT_SUPPORTED (GPUSVD_STATUS_NO_DEVICE where no GPU is
 * usable) and change nothing; `_bufferSize` reports no device workspace. */

/** gesvj of complex A (see gpusvd_sgesvj): A = U diag(S) V^H, S real (k values, descending),
 *  U (m x k) and V (n x k) with orthonormal columns (U^H U = V^H V = I); V itself is returned,
 *  not V^H, as the real routines return V. CPU: LAPACK cgesvj / zgesvj.
 *  GPU: one-sided Jacobi with unitary rotations on the team kernels of the real routines (the
 *  blocked and tall QR-first paths are real only), for one matrix whose working copy (A, or
 *  A^H when m < n, with the accumulated rotations below it: V, or U when m < n) fits in one
 *  block's shared memory: square up to 119 x 119 (c) or 84 x 84 (z) on H100/H200, 168 x 168
 *  and 119 x 119 without the rotations (the refusal's message names the device's limit), and
 *  for batches (gesvj_batched, batchCount > 1) with min(m, n) < 128. Other complex sizes run
 *  on the CPU under AUTO; the `_gpu` forms and GPUSVD_BACKEND_GPU answer NOT_SUPPORTED for
 *  them, changing nothing, and `_bufferSize` reports no device workspace for them. */
GPUSVD_API gpusvdStatus_t gpusvd_cgesvj(gpusvdHandle_t handle, gpusvdJob_t jobu, gpusvdJob_t jobv,
                                        int64_t m, int64_t n, gpusvdComplex_t *A, int64_t lda,
                                        float *S, gpusvdComplex_t *U, int64_t ldu,
                                        gpusvdComplex_t *V, int64_t ldv, int *info);
/** @copydoc gpusvd_cgesvj */
GPUSVD_API gpusvdStatus_t gpusvd_zgesvj(gpusvdHandle_t handle, gpusvdJob_t jobu, gpusvdJob_t jobv,
                                        int64_t m, int64_t n, gpusvdDoubleComplex_t *A,
                                        int64_t lda, double *S, gpusvdDoubleComplex_t *U,
                                        int64_t ldu, gpusvdDoubleComplex_t *V, int64_t ldv,
                                        int *info);
/** Device-memory form of gpusvd_cgesvj (the sizes gpusvd_cgesvj names, else NOT_SUPPORTED). */
GPUSVD_API gpusvdStatus_t gpusvd_cgesvj_gpu(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                            gpusvdJob_t jobv, int64_t m, int64_t n,
                                            gpusvdComplex_t *A, int64_t lda, float *S,
                                            gpusvdComplex_t *U, int64_t ldu, gpusvdComplex_t *V,
                                            int64_t ldv, int *info);
/** Device-memory form of gpusvd_zgesvj (the sizes gpusvd_cgesvj names, else NOT_SUPPORTED). */
GPUSVD_API gpusvdStatus_t gpusvd_zgesvj_gpu(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                            gpusvdJob_t jobv, int64_t m, int64_t n,
                                            gpusvdDoubleComplex_t *A, int64_t lda, double *S,
                                            gpusvdDoubleComplex_t *U, int64_t ldu,
                                            gpusvdDoubleComplex_t *V, int64_t ldv, int *info);
/** Workspace of cgesvj (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_cgesvj_bufferSize(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                   gpusvdJob_t jobv, int64_t m, int64_t n,
                                                   size_t *deviceBytes, size_t *hostBytes);
/** @copydoc gpusvd_cgesvj_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_zgesvj_bufferSize(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                   gpusvdJob_t jobv, int64_t m, int64_t n,
                                                   size_t *deviceBytes, size_t *hostBytes);

/** Batched cgesvj (see gpusvd_sgesvj_batched and gpusvd_cgesvj). */
GPUSVD_API gpusvdStatus_t gpusvd_cgesvj_batched(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                gpusvdJob_t jobv, int64_t m, int64_t n,
                                                gpusvdComplex_t *A, int64_t lda, int64_t strideA,
                                                float *S, int64_t strideS, gpusvdComplex_t *U,
                                                int64_t ldu, int64_t strideU, gpusvdComplex_t *V,
                                                int64_t ldv, int64_t strideV, int64_t batchCount,
                                                int *info);
/** @copydoc gpusvd_cgesvj_batched */
GPUSVD_API gpusvdStatus_t gpusvd_zgesvj_batched(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                gpusvdJob_t jobv, int64_t m, int64_t n,
                                                gpusvdDoubleComplex_t *A, int64_t lda,
                                                int64_t strideA, double *S, int64_t strideS,
                                                gpusvdDoubleComplex_t *U, int64_t ldu,
                                                int64_t strideU, gpusvdDoubleComplex_t *V,
                                                int64_t ldv, int64_t strideV, int64_t batchCount,
                                                int *info);
/** Device-memory form of gpusvd_cgesvj_batched (the sizes gpusvd_cgesvj names). */
GPUSVD_API gpusvdStatus_t gpusvd_cgesvj_batched_gpu(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                    gpusvdJob_t jobv, int64_t m, int64_t n,
                                                    gpusvdComplex_t *A, int64_t lda,
                                                    int64_t strideA, float *S, int64_t strideS,
                                                    gpusvdComplex_t *U, int64_t ldu,
                                                    int64_t strideU, gpusvdComplex_t *V,
                                                    int64_t ldv, int64_t strideV,
                                                    int64_t batchCount, int *info);
/** Device-memory form of gpusvd_zgesvj_batched (the sizes gpusvd_cgesvj names). */
GPUSVD_API gpusvdStatus_t gpusvd_zgesvj_batched_gpu(gpusvdHandle_t handle, gpusvdJob_t jobu,
                                                    gpusvdJob_t jobv, int64_t m, int64_t n,
                                                    gpusvdDoubleComplex_t *A, int64_t lda,
                                                    int64_t strideA, double *S, int64_t strideS,
                                                    gpusvdDoubleComplex_t *U, int64_t ldu,
                                                    int64_t strideU, gpusvdDoubleComplex_t *V,
                                                    int64_t ldv, int64_t strideV,
                                                    int64_t batchCount, int *info);
/** Workspace of cgesvj_batched (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_cgesvj_batched_bufferSize(gpusvdHandle_t handle,
                                                           gpusvdJob_t jobu, gpusvdJob_t jobv,
                                                           int64_t m, int64_t n,
                                                           int64_t batchCount,
                                                           size_t *deviceBytes,
                                                           size_t *hostBytes);
/** @copydoc gpusvd_cgesvj_batched_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_zgesvj_batched_bufferSize(gpusvdHandle_t handle,
                                                           gpusvdJob_t jobu, gpusvdJob_t jobv,
                                                           int64_t m, int64_t n,
                                                           int64_t batchCount,
                                                           size_t *deviceBytes,
                                                           size_t *hostBytes);

/** geqrf_mgs of complex A (see gpusvd_sgeqrf_mgs): A = Q R, Q^H Q = I, R upper trapezoidal
 *  with a real non-negative diagonal (imaginary parts of R(j,j) exactly 0), as LAPACK's
 *  cgeqrfp / zgeqrfp give it. CPU: cgeqrf / zgeqrf with each column's phase moved into Q (or
 *  cgeqrfp / zgeqrfp for large matrices), then cungqr / zungqr. GPU: the real routine's
 *  kernels (Gram-Schmidt, CholeskyQR with the Hermitian Gram matrix A^H A), every size, host
 *  and `_gpu` forms, batched too. Row-major A and R (gpusvdSetMatrixLayout) are honoured on the
 *  CPU only: there the `_gpu` form and backend GPU answer GPUSVD_STATUS_NOT_SUPPORTED, AUTO
 *  runs the call on the CPU and `_bufferSize` reports no device workspace. */
GPUSVD_API gpusvdStatus_t gpusvd_cgeqrf_mgs(gpusvdHandle_t handle, gpusvdOrth_t orth, int64_t m,
                                            int64_t n, gpusvdComplex_t *A, int64_t lda,
                                            gpusvdComplex_t *R, int64_t ldr, int *info);
/** @copydoc gpusvd_cgeqrf_mgs */
GPUSVD_API gpusvdStatus_t gpusvd_zgeqrf_mgs(gpusvdHandle_t handle, gpusvdOrth_t orth, int64_t m,
                                            int64_t n, gpusvdDoubleComplex_t *A, int64_t lda,
                                            gpusvdDoubleComplex_t *R, int64_t ldr, int *info);
/** Device-memory form of gpusvd_cgeqrf_mgs (column-major; see gpusvd_cgeqrf_mgs). */
GPUSVD_API gpusvdStatus_t gpusvd_cgeqrf_mgs_gpu(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                int64_t m, int64_t n, gpusvdComplex_t *A,
                                                int64_t lda, gpusvdComplex_t *R, int64_t ldr,
                                                int *info);
/** Device-memory form of gpusvd_zgeqrf_mgs (column-major; see gpusvd_cgeqrf_mgs). */
GPUSVD_API gpusvdStatus_t gpusvd_zgeqrf_mgs_gpu(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                int64_t m, int64_t n, gpusvdDoubleComplex_t *A,
                                                int64_t lda, gpusvdDoubleComplex_t *R,
                                                int64_t ldr, int *info);
/** Workspace of cgeqrf_mgs (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_cgeqrf_mgs_bufferSize(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                       int64_t m, int64_t n, size_t *deviceBytes,
                                                       size_t *hostBytes);
/** @copydoc gpusvd_cgeqrf_mgs_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_zgeqrf_mgs_bufferSize(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                       int64_t m, int64_t n, size_t *deviceBytes,
                                                       size_t *hostBytes);

/** Batched cgeqrf_mgs (see gpusvd_sgeqrf_mgs_batched and gpusvd_cgeqrf_mgs). */
GPUSVD_API gpusvdStatus_t gpusvd_cgeqrf_mgs_batched(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                    int64_t m, int64_t n, gpusvdComplex_t *A,
                                                    int64_t lda, int64_t strideA,
                                                    gpusvdComplex_t *R, int64_t ldr,
                                                    int64_t strideR, int64_t batchCount,
                                                    int *info);
/** @copydoc gpusvd_cgeqrf_mgs_batched */
GPUSVD_API gpusvdStatus_t gpusvd_zgeqrf_mgs_batched(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                    int64_t m, int64_t n,
                                                    gpusvdDoubleComplex_t *A, int64_t lda,
                                                    int64_t strideA, gpusvdDoubleComplex_t *R,
                                                    int64_t ldr, int64_t strideR,
                                                    int64_t batchCount, int *info);
/** Device-memory form of gpusvd_cgeqrf_mgs_batched. */
GPUSVD_API gpusvdStatus_t gpusvd_cgeqrf_mgs_batched_gpu(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                        int64_t m, int64_t n, gpusvdComplex_t *A,
                                                        int64_t lda, int64_t strideA,
                                                        gpusvdComplex_t *R, int64_t ldr,
                                                        int64_t strideR, int64_t batchCount,
                                                        int *info);
/** Device-memory form of gpusvd_zgeqrf_mgs_batched. */
GPUSVD_API gpusvdStatus_t gpusvd_zgeqrf_mgs_batched_gpu(gpusvdHandle_t handle, gpusvdOrth_t orth,
                                                        int64_t m, int64_t n,
                                                        gpusvdDoubleComplex_t *A, int64_t lda,
                                                        int64_t strideA, gpusvdDoubleComplex_t *R,
                                                        int64_t ldr, int64_t strideR,
                                                        int64_t batchCount, int *info);
/** Workspace of cgeqrf_mgs_batched (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_cgeqrf_mgs_batched_bufferSize(gpusvdHandle_t handle,
                                                               gpusvdOrth_t orth, int64_t m,
                                                               int64_t n, int64_t batchCount,
                                                               size_t *deviceBytes,
                                                               size_t *hostBytes);
/** @copydoc gpusvd_cgeqrf_mgs_batched_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_zgeqrf_mgs_batched_bufferSize(gpusvdHandle_t handle,
                                                               gpusvdOrth_t orth, int64_t m,
                                                               int64_t n, int64_t batchCount,
                                                               size_t *deviceBytes,
                                                               size_t *hostBytes);

/** geev_batched of complex matrices (see gpusvd_sgeev_batched), with LAPACK cgeev / zgeev's
 *  conventions (balancing on): the n eigenvalues of matrix b in one complex array W + b*strideW
 *  (strideW >= n; no real/imaginary split and no pairing), column j of VR the right eigenvector
 *  of W[j], of unit 2-norm with its component of largest modulus real (imaginary part 0).
 *  info: 0; >0: the QR algorithm failed, eigenvalues info+1..n (1-based) converged (the GPU
 *  backend sets the others and VR to NaN, the CPU backend leaves LAPACK's partial output);
 *  GPUSVD_INFO_NONFINITE: NaN/Inf input, outputs NaN. GPU kernels for every n. */
GPUSVD_API gpusvdStatus_t gpusvd_cgeev_batched(gpusvdHandle_t handle, gpusvdJob_t jobvr,
                                               int64_t n, gpusvdComplex_t *A, int64_t lda,
                                               int64_t strideA, gpusvdComplex_t *W,
                                               int64_t strideW, gpusvdComplex_t *VR, int64_t ldvr,
                                               int64_t strideVR, int64_t batchCount, int *info);
/** @copydoc gpusvd_cgeev_batched */
GPUSVD_API gpusvdStatus_t gpusvd_zgeev_batched(gpusvdHandle_t handle, gpusvdJob_t jobvr,
                                               int64_t n, gpusvdDoubleComplex_t *A, int64_t lda,
                                               int64_t strideA, gpusvdDoubleComplex_t *W,
                                               int64_t strideW, gpusvdDoubleComplex_t *VR,
                                               int64_t ldvr, int64_t strideVR,
                                               int64_t batchCount, int *info);
/** Device-memory form of gpusvd_cgeev_batched. */
GPUSVD_API gpusvdStatus_t gpusvd_cgeev_batched_gpu(gpusvdHandle_t handle, gpusvdJob_t jobvr,
                                                   int64_t n, gpusvdComplex_t *A, int64_t lda,
                                                   int64_t strideA, gpusvdComplex_t *W,
                                                   int64_t strideW, gpusvdComplex_t *VR,
                                                   int64_t ldvr, int64_t strideVR,
                                                   int64_t batchCount, int *info);
/** Device-memory form of gpusvd_zgeev_batched. */
GPUSVD_API gpusvdStatus_t gpusvd_zgeev_batched_gpu(gpusvdHandle_t handle, gpusvdJob_t jobvr,
                                                   int64_t n, gpusvdDoubleComplex_t *A,
                                                   int64_t lda, int64_t strideA,
                                                   gpusvdDoubleComplex_t *W, int64_t strideW,
                                                   gpusvdDoubleComplex_t *VR, int64_t ldvr,
                                                   int64_t strideVR, int64_t batchCount,
                                                   int *info);
/** Workspace of cgeev_batched (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_cgeev_batched_bufferSize(gpusvdHandle_t handle,
                                                          gpusvdJob_t jobvr, int64_t n,
                                                          int64_t batchCount,
                                                          size_t *deviceBytes,
                                                          size_t *hostBytes);
/** @copydoc gpusvd_cgeev_batched_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_zgeev_batched_bufferSize(gpusvdHandle_t handle,
                                                          gpusvdJob_t jobvr, int64_t n,
                                                          int64_t batchCount,
                                                          size_t *deviceBytes,
                                                          size_t *hostBytes);

/** pca of complex data (see gpusvd_spca): Xc = X - 1 mean^T = U diag(sigma) V^H;
 *  components = the first k columns of V (orthonormal, V^H V = I), each multiplied by the
 *  phase that makes its entry of largest modulus (the first on ties) real and positive;
 *  explainedVariance real, sigma_j^2 / (m - 1); scores = Xc components (m x k, complex); mean
 *  complex. The QR method only (the handle's PCA method is not used): LAPACK cgeqrf / zgeqrf
 *  of the centred copy when m > n and cgesdd / zgesdd of R (or of the centred copy); the same
 *  32-bit limits as the real QR method. gpusvdGetPcaTotalVariance gives ||Xc||_F^2 / (m - 1)
 *  after it. Row-major X, components and scores are honoured as for the real routine.
 *  GPU: column-major data with m >= n whose n x n R fits the complex Jacobi kernels' one-matrix
 *  path (a thread block's shared memory; gpusvd_zgesvj's rule for n x n), the same steps as the
 *  real QR method (centring, tall QR with Hermitian Gram matrices, Jacobi SVD of R); row-major
 *  or wider data, or more features, runs on the CPU (NOT_SUPPORTED in the `_gpu` form and
 *  under GPUSVD_BACKEND_GPU). */
GPUSVD_API gpusvdStatus_t gpusvd_cpca(gpusvdHandle_t handle, int64_t m, int64_t n,
                                      const gpusvdComplex_t *X, int64_t ldx, int64_t k,
                                      gpusvdComplex_t *components, int64_t ldc,
                                      float *explainedVariance, gpusvdComplex_t *scores,
                                      int64_t lds, gpusvdComplex_t *mean, int *info);
/** @copydoc gpusvd_cpca */
GPUSVD_API gpusvdStatus_t gpusvd_zpca(gpusvdHandle_t handle, int64_t m, int64_t n,
                                      const gpusvdDoubleComplex_t *X, int64_t ldx, int64_t k,
                                      gpusvdDoubleComplex_t *components, int64_t ldc,
                                      double *explainedVariance, gpusvdDoubleComplex_t *scores,
                                      int64_t lds, gpusvdDoubleComplex_t *mean, int *info);
/** Device-memory form of gpusvd_cpca: NOT_SUPPORTED in this version. */
GPUSVD_API gpusvdStatus_t gpusvd_cpca_gpu(gpusvdHandle_t handle, int64_t m, int64_t n,
                                          const gpusvdComplex_t *X, int64_t ldx, int64_t k,
                                          gpusvdComplex_t *components, int64_t ldc,
                                          float *explainedVariance, gpusvdComplex_t *scores,
                                          int64_t lds, gpusvdComplex_t *mean, int *info);
/** Device-memory form of gpusvd_zpca: NOT_SUPPORTED in this version. */
GPUSVD_API gpusvdStatus_t gpusvd_zpca_gpu(gpusvdHandle_t handle, int64_t m, int64_t n,
                                          const gpusvdDoubleComplex_t *X, int64_t ldx, int64_t k,
                                          gpusvdDoubleComplex_t *components, int64_t ldc,
                                          double *explainedVariance,
                                          gpusvdDoubleComplex_t *scores, int64_t lds,
                                          gpusvdDoubleComplex_t *mean, int *info);
/** Workspace of cpca (see gpusvd_sgesvj_bufferSize). */
GPUSVD_API gpusvdStatus_t gpusvd_cpca_bufferSize(gpusvdHandle_t handle, int64_t m, int64_t n,
                                                 int64_t k, size_t *deviceBytes,
                                                 size_t *hostBytes);
/** @copydoc gpusvd_cpca_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_zpca_bufferSize(gpusvdHandle_t handle, int64_t m, int64_t n,
                                                 int64_t k, size_t *deviceBytes,
                                                 size_t *hostBytes);

/* ------------------------------------------------------------------------------------------ */
/* Distributed tall QR and PCA (one block of rows per process or GPU)                          */
/* ------------------------------------------------------------------------------------------ */

/** A communicator over the ranks (processes or threads) that call a distributed routine
 *  together: made from a caller's NCCL communicator or from a caller's all-reduce function (an
 *  MPI_Allreduce wrapper, say). gpusvd only borrows the caller's communicator: it never creates,
 *  splits or destroys it, and the caller keeps it alive while the gpusvdComm_t is used. */
typedef struct gpusvdComm_st *gpusvdComm_t;

/** Element types of an all-reduce (int32_t, int64_t, float, double). */
typedef enum GPUSVD_ENUM_BASE {
    GPUSVD_DATA_INT32 = 0,
    GPUSVD_DATA_INT64 = 1,
    GPUSVD_DATA_FLOAT = 2,
    GPUSVD_DATA_DOUBLE = 3
} gpusvdDataType_t;

/** Reductions of an all-reduce. */
typedef enum GPUSVD_ENUM_BASE { GPUSVD_REDUCE_SUM = 0, GPUSVD_REDUCE_MAX = 1 } gpusvdReduceOp_t;

/** An in-place all-reduce over host memory: on return every rank's `buffer` (count elements of
 *  `type`) holds the reduction over all ranks. Called by every rank in the same order with the
 *  same count, type and op. Returns 0 on success; anything else fails the gpusvd call with
 *  GPUSVD_STATUS_EXECUTION_FAILED (the other ranks may then be left waiting in their own
 *  all-reduce, as after any failed collective). */
typedef int (*gpusvdAllreduceFn_t)(void *buffer, int64_t count, gpusvdDataType_t type,
                                   gpusvdReduceOp_t op, void *user);

/** A communicator from a caller's NCCL communicator (an ncclComm_t passed as void*). NCCL is
 *  loaded at run time (libnccl.so.2, the one the caller's process already uses): libgpusvd.so
 *  has no link-time dependency on it. The distributed routines then run on the GPU that the
 *  NCCL communicator belongs to, which must be the handle's device; reductions are enqueued on
 *  the handle's stream with no host wait. @param[out] comm the new communicator.
 *  @return SUCCESS; INVALID_VALUE (NULL arguments); NOT_SUPPORTED (a build without the CUDA
 *  backend, or NCCL cannot be loaded: the message says why). */
GPUSVD_API gpusvdStatus_t gpusvdCommCreateNccl(gpusvdComm_t *comm, void *ncclComm);

/** A communicator from an all-reduce function over host memory (MPI, a thread team, ...).
 *  The distributed routines then run on the handle's backend (host forms: CPU under AUTO or
 *  CPU, the GPU under GPU; `_gpu` forms: the GPU, each reduction staged through host memory).
 *  @param size number of ranks (>= 1); @param rank this caller's rank, 0 <= rank < size; rows
 *  are stacked in rank order. @return SUCCESS; INVALID_VALUE (comm or allreduce NULL, size or
 *  rank out of range). */
GPUSVD_API gpusvdStatus_t gpusvdCommCreate(gpusvdComm_t *comm, int size, int rank,
                                           gpusvdAllreduceFn_t allreduce, void *user);

/** Number of ranks and this caller's rank. Either output may be NULL. */
GPUSVD_API gpusvdStatus_t gpusvdCommGetRank(gpusvdComm_t comm, int *size, int *rank);

/** Release a communicator (not the caller's NCCL communicator). NULL is accepted. */
GPUSVD_API gpusvdStatus_t gpusvdCommDestroy(gpusvdComm_t comm);

/**
 * QR of a tall matrix whose rows are spread over the ranks of `comm`: A = [A_0; A_1; ...]
 * (rank r holds A_r, mLocal_r x n, the blocks stacked in rank order, M = the sum of mLocal_r
 * >= n rows in all). On return each rank's A_r holds its rows of Q (M x n, orthonormal
 * columns) and every rank holds the same R (n x n upper triangular, R(j,j) >= 0), A = Q R.
 * A collective call: every rank calls it with the same orth and n, the same kind of memory
 * (all host forms or all `_gpu` forms) and the same handle settings; mLocal may differ and may
 * be 0.
 *
 * The algorithm is the tall QR of gpusvd_sgeqrf_mgs: CholeskyQR steps (shifted where the Gram
 * matrix is too ill-conditioned to factor) repeated until the columns are orthonormal, with the
 * n x n Gram matrices (and in wide panels the block Gram-Schmidt projections, and the column
 * screen's maxima) all-reduced, so every rank takes the same steps and gets the same R. Each
 * step moves n^2 numbers per rank through the communicator; the data never moves. Same bounds
 * as the one-GPU QR: |A - QR| = O(eps |A|) and |Q^T Q - I| = O(eps) up to cond(A) ~ 1e15 in
 * double, 1e7 in float. Numerically dependent columns (R(j,j) <= M eps ||A(:,j)||) get
 * R(j,j) = 0 and info = the first of them (1-based), with Q's column j completed to an
 * orthonormal Q. Data holding NaN/Inf on any rank: info = GPUSVD_INFO_NONFINITE on every rank,
 * Q and R NaN. Arguments are checked on each rank and then agreed: an argument that one rank
 * rejects (a NULL pointer, lda < mLocal, a different n) makes every rank return INVALID_VALUE
 * without changing anything, the message of the other ranks naming the rejecting rank. (A NULL
 * handle or comm cannot take part: the other ranks then wait, as in any collective.)
 *
 * Host form: an NCCL communicator runs it on the GPU (the data staged through the handle's
 * device), a host communicator on the handle's backend. `_gpu` form: device pointers (info
 * too), the handle's stream; waits on the host once per CholeskyQR step, so it cannot be
 * captured into a CUDA graph (NOT_SUPPORTED). The CPU backend factors the whole width at once
 * (Cholesky by LAPACK ?potrf).
 *
 * @param orth   MGS or MGS2 (accepted for symmetry with gpusvd_sgeqrf_mgs; both give O(eps)
 *               orthogonality here).
 * @param mLocal rows on this rank (>= 0); lda >= max(1, mLocal).
 * @param R      n x n, ldr >= max(1, n).
 * @param info   as above, the same on every rank.
 */
GPUSVD_API gpusvdStatus_t gpusvd_sgeqrf_mgs_dist(gpusvdHandle_t handle, gpusvdComm_t comm,
                                                 gpusvdOrth_t orth, int64_t mLocal, int64_t n,
                                                 float *A, int64_t lda, float *R, int64_t ldr,
                                                 int *info);
/** @copydoc gpusvd_sgeqrf_mgs_dist */
GPUSVD_API gpusvdStatus_t gpusvd_dgeqrf_mgs_dist(gpusvdHandle_t handle, gpusvdComm_t comm,
                                                 gpusvdOrth_t orth, int64_t mLocal, int64_t n,
                                                 double *A, int64_t lda, double *R, int64_t ldr,
                                                 int *info);
/** Device-memory form of gpusvd_sgeqrf_mgs_dist. */
GPUSVD_API gpusvdStatus_t gpusvd_sgeqrf_mgs_dist_gpu(gpusvdHandle_t handle, gpusvdComm_t comm,
                                                     gpusvdOrth_t orth, int64_t mLocal, int64_t n,
                                                     float *A, int64_t lda, float *R, int64_t ldr,
                                                     int *info);
/** Device-memory form of gpusvd_dgeqrf_mgs_dist. */
GPUSVD_API gpusvdStatus_t gpusvd_dgeqrf_mgs_dist_gpu(gpusvdHandle_t handle, gpusvdComm_t comm,
                                                     gpusvdOrth_t orth, int64_t mLocal, int64_t n,
                                                     double *A, int64_t lda, double *R,
                                                     int64_t ldr, int *info);
/** Workspace of geqrf_mgs_dist on this rank (see gpusvd_sgesvj_bufferSize); not collective. */
GPUSVD_API gpusvdStatus_t gpusvd_sgeqrf_mgs_dist_bufferSize(gpusvdHandle_t handle,
                                                            gpusvdOrth_t orth, int64_t mLocal,
                                                            int64_t n, size_t *deviceBytes,
                                                            size_t *hostBytes);
/** @copydoc gpusvd_sgeqrf_mgs_dist_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_dgeqrf_mgs_dist_bufferSize(gpusvdHandle_t handle,
                                                            gpusvdOrth_t orth, int64_t mLocal,
                                                            int64_t n, size_t *deviceBytes,
                                                            size_t *hostBytes);

/**
 * PCA of data whose samples (rows) are spread over the ranks of `comm`, as gpusvd_spca computes
 * it for the stacked X (M = the sum of mLocal samples in all, M >= max(2, n)): the column means
 * over all ranks, the centred data's distributed tall QR (see gpusvd_sgeqrf_mgs_dist), the SVD
 * of R (LAPACK ?gesdd on the host of every rank, as the CPU backend's pca: R is n x n), and the
 * components, variances and scores from it. Every rank gets the same components,
 * explainedVariance and mean, and the scores of its own samples. Same conventions as
 * gpusvd_spca (component signs, variances sigma_j^2 / (M - 1) exact but for rounding, +Inf only
 * where the exact value overflows: the data is centred and factored scaled by one power of two).
 * Always the QR method (the handle's PCA method is not used). A collective call, with the same
 * agreement rules as gpusvd_sgeqrf_mgs_dist (n and k must agree). Host form: an NCCL
 * communicator runs it on the GPU, a host communicator on the handle's backend; `_gpu` form:
 * device pointers (info too), cannot be captured into a CUDA graph. Workspace: a centred copy of
 * this rank's rows (mLocal * n) plus O(n^2).
 *
 * @param mLocal,n   samples on this rank (>= 0), features; ldx >= max(1, mLocal).
 * @param k          0 <= k <= n.
 * @param components n x k, ldc >= max(1, n); @param explainedVariance k values;
 * @param scores     optional (NULL: skipped) mLocal x k, lds >= max(1, mLocal);
 * @param mean       optional (NULL: skipped) n column means over all ranks;
 * @param info       0; >0: ?gesdd did not converge; GPUSVD_INFO_NONFINITE: X holds NaN/Inf on
 *                   some rank (outputs NaN on every rank). The same on every rank.
 */
GPUSVD_API gpusvdStatus_t gpusvd_spca_dist(gpusvdHandle_t handle, gpusvdComm_t comm,
                                           int64_t mLocal, int64_t n, const float *X, int64_t ldx,
                                           int64_t k, float *components, int64_t ldc,
                                           float *explainedVariance, float *scores, int64_t lds,
                                           float *mean, int *info);
/** @copydoc gpusvd_spca_dist */
GPUSVD_API gpusvdStatus_t gpusvd_dpca_dist(gpusvdHandle_t handle, gpusvdComm_t comm,
                                           int64_t mLocal, int64_t n, const double *X,
                                           int64_t ldx, int64_t k, double *components,
                                           int64_t ldc, double *explainedVariance, double *scores,
                                           int64_t lds, double *mean, int *info);
/** Device-memory form of gpusvd_spca_dist. */
GPUSVD_API gpusvdStatus_t gpusvd_spca_dist_gpu(gpusvdHandle_t handle, gpusvdComm_t comm,
                                               int64_t mLocal, int64_t n, const float *X,
                                               int64_t ldx, int64_t k, float *components,
                                               int64_t ldc, float *explainedVariance,
                                               float *scores, int64_t lds, float *mean, int *info);
/** Device-memory form of gpusvd_dpca_dist. */
GPUSVD_API gpusvdStatus_t gpusvd_dpca_dist_gpu(gpusvdHandle_t handle, gpusvdComm_t comm,
                                               int64_t mLocal, int64_t n, const double *X,
                                               int64_t ldx, int64_t k, double *components,
                                               int64_t ldc, double *explainedVariance,
                                               double *scores, int64_t lds, double *mean,
                                               int *info);
/** Workspace of pca_dist on this rank (see gpusvd_sgesvj_bufferSize); not collective. */
GPUSVD_API gpusvdStatus_t gpusvd_spca_dist_bufferSize(gpusvdHandle_t handle, int64_t mLocal,
                                                      int64_t n, int64_t k, size_t *deviceBytes,
                                                      size_t *hostBytes);
/** @copydoc gpusvd_spca_dist_bufferSize */
GPUSVD_API gpusvdStatus_t gpusvd_dpca_dist_bufferSize(gpusvdHandle_t handle, int64_t mLocal,
                                                      int64_t n, int64_t k, size_t *deviceBytes,
                                                      size_t *hostBytes);

#ifdef __cplusplus
}
#endif

#endif /* GPUSVD_H */
