! gpusvd: Fortran interface to the C ABI of libgpusvd (include/gpusvd.h), via ISO_C_BINDING.
!
!   use gpusvd
!   type(c_ptr) :: h
!   st = gpusvdCreate(h)
!   st = gpusvd_dgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A, lda, S, U, ldu, V, ldv, info)
!   if (st /= GPUSVD_STATUS_SUCCESS) print *, gpusvd_error_message(h)
!   st = gpusvdDestroy(h)
!
! Conventions (one to one with gpusvd.h; see its comments for each routine's contract):
! - Every function returns an integer(c_int) status (GPUSVD_STATUS_*); per-matrix numerical
!   outcomes are in info (0, >0 LAPACK-style, GPUSVD_INFO_NONFINITE for NaN/Inf input).
! - Sizes, leading dimensions, strides, batch counts: integer(c_int64_t), by value. Write
!   literals with the kind, e.g. 5_c_int64_t, or declare integer(c_int64_t) variables.
! - Enums: integer(c_int) by value, the GPUSVD_* constants below. Byte sizes: integer(c_size_t).
! - The handle, CUDA streams and workspace buffers are type(c_ptr).
! - Complex routines (c, z) take complex(c_float_complex) / complex(c_double_complex) arrays
!   (the layout of gpusvdComplex_t / gpusvdDoubleComplex_t); their singular values and explained
!   variances are real(c_float) / real(c_double).
! - Host forms take ordinary Fortran arrays (column-major, as LAPACK). Matrices are declared
!   A(lda, *) etc.; batched arrays are assumed-size (*), so A(lda, n, batch) can be passed.
! - Everything the library writes (arrays, info, byte sizes, ...) is intent(inout), not
!   intent(out): a rejected call leaves every output unchanged, and intent(out) would let the
!   compiler drop what the caller stored there before the call (gfortran -O3 does).
!   Inputs that C declares const are intent(in).
! - Arrays that C allows to be NULL are OPTIONAL (omit them, then pass the later arguments by
!   keyword): U, V of gesvj (jobu/jobv = NOVEC), VR of geev (NOVEC), U, VT and e of bdsvd,
!   scores and mean of pca, deviceBytes/hostBytes of *_bufferSize, sweeps/offNorm of
!   gpusvdGetJacobiStats. Keyword names are the header's argument names.
! - _gpu forms take device addresses as type(c_ptr), by value (info too), e.g. c_devloc(A)
!   in CUDA Fortran or a pointer from cudaMalloc; they are asynchronous on the handle's stream.
! - The ISO_C_BINDING names used here (c_int, c_int64_t, c_size_t, c_float, c_double, c_char,
!   c_ptr, c_null_ptr, c_associated, c_f_pointer, c_funptr, c_funloc) come with `use gpusvd`.
! - Strings: gpusvdGetErrorMessage etc. return the C pointer; the helpers gpusvd_error_message,
!   gpusvd_status_name, gpusvd_version_string and gpusvd_build_info return a Fortran
!   character(len=:), allocatable copy.
module gpusvd
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_size_t, c_float, c_double, &
      c_float_complex, c_double_complex, &
      c_char, c_ptr, c_null_ptr, c_associated, c_f_pointer, c_funptr, c_funloc
  implicit none
  private :: c_to_f_string

  ! Version of the header this module was written against (compare with gpusvdGetVersion()).
  integer(c_int), parameter :: GPUSVD_VERSION_MAJOR = 0
  integer(c_int), parameter :: GPUSVD_VERSION_MINOR = 2
  integer(c_int), parameter :: GPUSVD_VERSION_PATCH = 0
  integer(c_int), parameter :: GPUSVD_VERSION = &
      GPUSVD_VERSION_MAJOR * 10000 + GPUSVD_VERSION_MINOR * 100 + GPUSVD_VERSION_PATCH

  ! gpusvdStatus_t
  integer(c_int), parameter :: GPUSVD_STATUS_SUCCESS = 0
  integer(c_int), parameter :: GPUSVD_STATUS_INVALID_VALUE = 1
  integer(c_int), parameter :: GPUSVD_STATUS_ALLOC_FAILED = 2
  integer(c_int), parameter :: GPUSVD_STATUS_NO_DEVICE = 3
  integer(c_int), parameter :: GPUSVD_STATUS_NOT_SUPPORTED = 4
  integer(c_int), parameter :: GPUSVD_STATUS_EXECUTION_FAILED = 5
  integer(c_int), parameter :: GPUSVD_STATUS_INTERNAL_ERROR = 6
  ! gpusvdBackend_t
  integer(c_int), parameter :: GPUSVD_BACKEND_AUTO = 0
  integer(c_int), parameter :: GPUSVD_BACKEND_CPU = 1
  integer(c_int), parameter :: GPUSVD_BACKEND_GPU = 2
  ! gpusvdJob_t
  integer(c_int), parameter :: GPUSVD_JOB_NOVEC = 0
  integer(c_int), parameter :: GPUSVD_JOB_VEC = 1
  ! gpusvdUplo_t
  integer(c_int), parameter :: GPUSVD_UPPER = 0
  integer(c_int), parameter :: GPUSVD_LOWER = 1
  ! gpusvdOrth_t
  integer(c_int), parameter :: GPUSVD_ORTH_MGS = 0
  integer(c_int), parameter :: GPUSVD_ORTH_MGS2 = 1
  ! gpusvdPcaMethod_t
  integer(c_int), parameter :: GPUSVD_PCA_AUTO = 0
  integer(c_int), parameter :: GPUSVD_PCA_QR = 1
  integer(c_int), parameter :: GPUSVD_PCA_COVARIANCE = 2
  ! gpusvdLayout_t (gpusvdSetMatrixLayout; Fortran arrays are column-major, the default)
  integer(c_int), parameter :: GPUSVD_LAYOUT_COL_MAJOR = 0
  integer(c_int), parameter :: GPUSVD_LAYOUT_ROW_MAJOR = 1
  ! gpusvdDataType_t, gpusvdReduceOp_t (a communicator's all-reduce callback)
  integer(c_int), parameter :: GPUSVD_DATA_INT32 = 0
  integer(c_int), parameter :: GPUSVD_DATA_INT64 = 1
  integer(c_int), parameter :: GPUSVD_DATA_FLOAT = 2
  integer(c_int), parameter :: GPUSVD_DATA_DOUBLE = 3
  integer(c_int), parameter :: GPUSVD_REDUCE_SUM = 0
  integer(c_int), parameter :: GPUSVD_REDUCE_MAX = 1
  ! info of a matrix holding NaN or Inf (not factorized, outputs NaN)
  integer(c_int), parameter :: GPUSVD_INFO_NONFINITE = -1

  interface
    ! --------------------------------------------------------------------------------------
    ! Handle, settings, errors, version
    ! --------------------------------------------------------------------------------------
    integer(c_int) function gpusvdCreate(handle) bind(C, name="gpusvdCreate")
      import
      implicit none
      type(c_ptr), intent(out) :: handle
    end function gpusvdCreate
    integer(c_int) function gpusvdDestroy(handle) bind(C, name="gpusvdDestroy")
      import
      implicit none
      type(c_ptr), value :: handle
    end function gpusvdDestroy
    integer(c_int) function gpusvdSetBackend(handle, backend) bind(C, name="gpusvdSetBackend")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: backend
    end function gpusvdSetBackend
    integer(c_int) function gpusvdGetBackend(handle, resolved) bind(C, name="gpusvdGetBackend")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), intent(inout) :: resolved
    end function gpusvdGetBackend
    integer(c_int) function gpusvdSetStream(handle, cudaStream) bind(C, name="gpusvdSetStream")
      import
      implicit none
      type(c_ptr), value :: handle, cudaStream
    end function gpusvdSetStream
    integer(c_int) function gpusvdGetStream(handle, cudaStream) bind(C, name="gpusvdGetStream")
      import
      implicit none
      type(c_ptr), value :: handle
      type(c_ptr), intent(inout) :: cudaStream
    end function gpusvdGetStream
    integer(c_int) function gpusvdGetDevice(handle, device) bind(C, name="gpusvdGetDevice")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: device
    end function gpusvdGetDevice
    integer(c_int) function gpusvdSetDevices(handle, count, ids) bind(C, name="gpusvdSetDevices")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: count
      integer(c_int), intent(in) :: ids(*)
    end function gpusvdSetDevices
    integer(c_int) function gpusvdGetDevices(handle, maxCount, ids, count) &
        bind(C, name="gpusvdGetDevices")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: maxCount
      integer(c_int), intent(out) :: ids(*)
      integer(c_int), intent(out) :: count
    end function gpusvdGetDevices
    integer(c_int) function gpusvdSetWorkspace(handle, deviceBuffer, deviceBytes, hostBuffer, &
        hostBytes) bind(C, name="gpusvdSetWorkspace")
      import
      implicit none
      type(c_ptr), value :: handle, deviceBuffer, hostBuffer
      integer(c_size_t), value :: deviceBytes, hostBytes
    end function gpusvdSetWorkspace
    integer(c_int) function gpusvdSetJacobiTolerance(handle, tol) bind(C, &
        name="gpusvdSetJacobiTolerance")
      import
      implicit none
      type(c_ptr), value :: handle
      real(c_double), value :: tol
    end function gpusvdSetJacobiTolerance
    integer(c_int) function gpusvdSetJacobiMaxSweeps(handle, maxSweeps) bind(C, &
        name="gpusvdSetJacobiMaxSweeps")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: maxSweeps
    end function gpusvdSetJacobiMaxSweeps
    integer(c_int) function gpusvdGetJacobiStats(handle, sweeps, offNorm) bind(C, &
        name="gpusvdGetJacobiStats")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), intent(inout), optional :: sweeps
      real(c_double), intent(inout), optional :: offNorm
    end function gpusvdGetJacobiStats
    integer(c_int) function gpusvdSetMatrixLayout(handle, layout) &
        bind(C, name="gpusvdSetMatrixLayout")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: layout
    end function gpusvdSetMatrixLayout
    integer(c_int) function gpusvdGetMatrixLayout(handle, layout) &
        bind(C, name="gpusvdGetMatrixLayout")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: layout
    end function gpusvdGetMatrixLayout
    integer(c_int) function gpusvdGetPcaTotalVariance(handle, totalVariance) &
        bind(C, name="gpusvdGetPcaTotalVariance")
      import
      implicit none
      type(c_ptr), value :: handle
      real(c_double), intent(out) :: totalVariance
    end function gpusvdGetPcaTotalVariance
    integer(c_int) function gpusvdGetPcaTotalVariance_gpu(handle, totalVariance) &
        bind(C, name="gpusvdGetPcaTotalVariance_gpu")
      import
      implicit none
      type(c_ptr), value :: handle
      type(c_ptr), value :: totalVariance
    end function gpusvdGetPcaTotalVariance_gpu
    integer(c_int) function gpusvdSetPcaMethod(handle, method) bind(C, name="gpusvdSetPcaMethod")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: method
    end function gpusvdSetPcaMethod
    integer(c_int) function gpusvdGetPcaMethod(handle, method) bind(C, name="gpusvdGetPcaMethod")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: method
    end function gpusvdGetPcaMethod
    type(c_ptr) function gpusvdGetErrorMessage(handle) bind(C, name="gpusvdGetErrorMessage")
      import
      implicit none
      type(c_ptr), value :: handle
    end function gpusvdGetErrorMessage
    type(c_ptr) function gpusvdGetStatusName(status) bind(C, name="gpusvdGetStatusName")
      import
      implicit none
      integer(c_int), value :: status
    end function gpusvdGetStatusName
    integer(c_int) function gpusvdGetVersion() bind(C, name="gpusvdGetVersion")
      import
      implicit none
    end function gpusvdGetVersion
    type(c_ptr) function gpusvdGetVersionString() bind(C, name="gpusvdGetVersionString")
      import
      implicit none
    end function gpusvdGetVersionString
    type(c_ptr) function gpusvdGetBuildInfo() bind(C, name="gpusvdGetBuildInfo")
      import
      implicit none
    end function gpusvdGetBuildInfo

    ! --------------------------------------------------------------------------------------
    ! One-sided Jacobi SVD (economy): A = U diag(S) V^T
    ! --------------------------------------------------------------------------------------
    integer(c_int) function gpusvd_sgesvj(handle, jobu, jobv, m, n, A, lda, S, U, ldu, V, ldv, &
        info) bind(C, name="gpusvd_sgesvj")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, ldu, ldv
      integer(c_int), intent(inout) :: info
      real(c_float), intent(inout) :: A(lda, *), S(*)
      real(c_float), intent(inout), optional :: U(ldu, *), V(ldv, *)
    end function gpusvd_sgesvj
    integer(c_int) function gpusvd_dgesvj(handle, jobu, jobv, m, n, A, lda, S, U, ldu, V, ldv, &
        info) bind(C, name="gpusvd_dgesvj")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, ldu, ldv
      integer(c_int), intent(inout) :: info
      real(c_double), intent(inout) :: A(lda, *), S(*)
      real(c_double), intent(inout), optional :: U(ldu, *), V(ldv, *)
    end function gpusvd_dgesvj
    integer(c_int) function gpusvd_sgesvj_gpu(handle, jobu, jobv, m, n, A, lda, S, U, ldu, V, &
        ldv, info) bind(C, name="gpusvd_sgesvj_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, S, U, V, info
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, ldu, ldv
    end function gpusvd_sgesvj_gpu
    integer(c_int) function gpusvd_dgesvj_gpu(handle, jobu, jobv, m, n, A, lda, S, U, ldu, V, &
        ldv, info) bind(C, name="gpusvd_dgesvj_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, S, U, V, info
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, ldu, ldv
    end function gpusvd_dgesvj_gpu
    integer(c_int) function gpusvd_sgesvj_bufferSize(handle, jobu, jobv, m, n, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_sgesvj_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_sgesvj_bufferSize
    integer(c_int) function gpusvd_dgesvj_bufferSize(handle, jobu, jobv, m, n, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_dgesvj_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_dgesvj_bufferSize
    integer(c_int) function gpusvd_sgesvj_batched(handle, jobu, jobv, m, n, A, lda, strideA, S, &
        strideS, U, ldu, strideU, V, ldv, strideV, batchCount, info) bind(C, &
        name="gpusvd_sgesvj_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, strideA, strideS, ldu, strideU, ldv, strideV, &
          batchCount
      real(c_float), intent(inout) :: A(*), S(*)
      real(c_float), intent(inout), optional :: U(*), V(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_sgesvj_batched
    integer(c_int) function gpusvd_dgesvj_batched(handle, jobu, jobv, m, n, A, lda, strideA, S, &
        strideS, U, ldu, strideU, V, ldv, strideV, batchCount, info) bind(C, &
        name="gpusvd_dgesvj_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, strideA, strideS, ldu, strideU, ldv, strideV, &
          batchCount
      real(c_double), intent(inout) :: A(*), S(*)
      real(c_double), intent(inout), optional :: U(*), V(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_dgesvj_batched
    integer(c_int) function gpusvd_sgesvj_batched_gpu(handle, jobu, jobv, m, n, A, lda, &
        strideA, S, strideS, U, ldu, strideU, V, ldv, strideV, batchCount, info) bind(C, &
        name="gpusvd_sgesvj_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, S, U, V, info
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, strideA, strideS, ldu, strideU, ldv, strideV, &
          batchCount
    end function gpusvd_sgesvj_batched_gpu
    integer(c_int) function gpusvd_dgesvj_batched_gpu(handle, jobu, jobv, m, n, A, lda, &
        strideA, S, strideS, U, ldu, strideU, V, ldv, strideV, batchCount, info) bind(C, &
        name="gpusvd_dgesvj_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, S, U, V, info
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, strideA, strideS, ldu, strideU, ldv, strideV, &
          batchCount
    end function gpusvd_dgesvj_batched_gpu
    integer(c_int) function gpusvd_sgesvj_batched_bufferSize(handle, jobu, jobv, m, n, &
        batchCount, deviceBytes, hostBytes) bind(C, name="gpusvd_sgesvj_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_sgesvj_batched_bufferSize
    integer(c_int) function gpusvd_dgesvj_batched_bufferSize(handle, jobu, jobv, m, n, &
        batchCount, deviceBytes, hostBytes) bind(C, name="gpusvd_dgesvj_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_dgesvj_batched_bufferSize

    ! --------------------------------------------------------------------------------------
    ! QR by Gram-Schmidt, explicit Q (in A) and R
    ! --------------------------------------------------------------------------------------
    integer(c_int) function gpusvd_sgeqrf_mgs(handle, orth, m, n, A, lda, R, ldr, info) bind(C, &
        name="gpusvd_sgeqrf_mgs")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, ldr
      integer(c_int), intent(inout) :: info
      real(c_float), intent(inout) :: A(lda, *), R(ldr, *)
    end function gpusvd_sgeqrf_mgs
    integer(c_int) function gpusvd_dgeqrf_mgs(handle, orth, m, n, A, lda, R, ldr, info) bind(C, &
        name="gpusvd_dgeqrf_mgs")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, ldr
      integer(c_int), intent(inout) :: info
      real(c_double), intent(inout) :: A(lda, *), R(ldr, *)
    end function gpusvd_dgeqrf_mgs
    integer(c_int) function gpusvd_sgeqrf_mgs_gpu(handle, orth, m, n, A, lda, R, ldr, &
        info) bind(C, name="gpusvd_sgeqrf_mgs_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, R, info
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, ldr
    end function gpusvd_sgeqrf_mgs_gpu
    integer(c_int) function gpusvd_dgeqrf_mgs_gpu(handle, orth, m, n, A, lda, R, ldr, &
        info) bind(C, name="gpusvd_dgeqrf_mgs_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, R, info
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, ldr
    end function gpusvd_dgeqrf_mgs_gpu
    integer(c_int) function gpusvd_sgeqrf_mgs_bufferSize(handle, orth, m, n, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_sgeqrf_mgs_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_sgeqrf_mgs_bufferSize
    integer(c_int) function gpusvd_dgeqrf_mgs_bufferSize(handle, orth, m, n, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_dgeqrf_mgs_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_dgeqrf_mgs_bufferSize
    integer(c_int) function gpusvd_sgeqrf_mgs_batched(handle, orth, m, n, A, lda, strideA, R, &
        ldr, strideR, batchCount, info) bind(C, name="gpusvd_sgeqrf_mgs_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, strideA, ldr, strideR, batchCount
      real(c_float), intent(inout) :: A(*), R(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_sgeqrf_mgs_batched
    integer(c_int) function gpusvd_dgeqrf_mgs_batched(handle, orth, m, n, A, lda, strideA, R, &
        ldr, strideR, batchCount, info) bind(C, name="gpusvd_dgeqrf_mgs_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, strideA, ldr, strideR, batchCount
      real(c_double), intent(inout) :: A(*), R(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_dgeqrf_mgs_batched
    integer(c_int) function gpusvd_sgeqrf_mgs_batched_gpu(handle, orth, m, n, A, lda, strideA, &
        R, ldr, strideR, batchCount, info) bind(C, name="gpusvd_sgeqrf_mgs_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, R, info
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, strideA, ldr, strideR, batchCount
    end function gpusvd_sgeqrf_mgs_batched_gpu
    integer(c_int) function gpusvd_dgeqrf_mgs_batched_gpu(handle, orth, m, n, A, lda, strideA, &
        R, ldr, strideR, batchCount, info) bind(C, name="gpusvd_dgeqrf_mgs_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, R, info
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, strideA, ldr, strideR, batchCount
    end function gpusvd_dgeqrf_mgs_batched_gpu
    integer(c_int) function gpusvd_sgeqrf_mgs_batched_bufferSize(handle, orth, m, n, &
        batchCount, deviceBytes, hostBytes) bind(C, name="gpusvd_sgeqrf_mgs_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_sgeqrf_mgs_batched_bufferSize
    integer(c_int) function gpusvd_dgeqrf_mgs_batched_bufferSize(handle, orth, m, n, &
        batchCount, deviceBytes, hostBytes) bind(C, name="gpusvd_dgeqrf_mgs_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_dgeqrf_mgs_batched_bufferSize

    ! --------------------------------------------------------------------------------------
    ! Eigenvalues / right eigenvectors of many small general matrices
    ! --------------------------------------------------------------------------------------
    integer(c_int) function gpusvd_sgeev_batched(handle, jobvr, n, A, lda, strideA, wr, wi, &
        strideW, VR, ldvr, strideVR, batchCount, info) bind(C, name="gpusvd_sgeev_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, lda, strideA, strideW, ldvr, strideVR, batchCount
      real(c_float), intent(inout) :: A(*), wr(*), wi(*)
      real(c_float), intent(inout), optional :: VR(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_sgeev_batched
    integer(c_int) function gpusvd_dgeev_batched(handle, jobvr, n, A, lda, strideA, wr, wi, &
        strideW, VR, ldvr, strideVR, batchCount, info) bind(C, name="gpusvd_dgeev_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, lda, strideA, strideW, ldvr, strideVR, batchCount
      real(c_double), intent(inout) :: A(*), wr(*), wi(*)
      real(c_double), intent(inout), optional :: VR(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_dgeev_batched
    integer(c_int) function gpusvd_sgeev_batched_gpu(handle, jobvr, n, A, lda, strideA, wr, wi, &
        strideW, VR, ldvr, strideVR, batchCount, info) bind(C, name="gpusvd_sgeev_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, wr, wi, VR, info
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, lda, strideA, strideW, ldvr, strideVR, batchCount
    end function gpusvd_sgeev_batched_gpu
    integer(c_int) function gpusvd_dgeev_batched_gpu(handle, jobvr, n, A, lda, strideA, wr, wi, &
        strideW, VR, ldvr, strideVR, batchCount, info) bind(C, name="gpusvd_dgeev_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, wr, wi, VR, info
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, lda, strideA, strideW, ldvr, strideVR, batchCount
    end function gpusvd_dgeev_batched_gpu
    integer(c_int) function gpusvd_sgeev_batched_bufferSize(handle, jobvr, n, batchCount, &
        deviceBytes, hostBytes) bind(C, name="gpusvd_sgeev_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_sgeev_batched_bufferSize
    integer(c_int) function gpusvd_dgeev_batched_bufferSize(handle, jobvr, n, batchCount, &
        deviceBytes, hostBytes) bind(C, name="gpusvd_dgeev_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_dgeev_batched_bufferSize

    ! --------------------------------------------------------------------------------------
    ! SVD of a bidiagonal matrix
    ! --------------------------------------------------------------------------------------
    integer(c_int) function gpusvd_sbdsvd(handle, uplo, jobz, n, d, e, U, ldu, VT, ldvt, &
        info) bind(C, name="gpusvd_sbdsvd")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: uplo, jobz
      integer(c_int64_t), value :: n, ldu, ldvt
      integer(c_int), intent(inout) :: info
      real(c_float), intent(inout) :: d(*)
      real(c_float), intent(inout), optional :: e(*), U(ldu, *), VT(ldvt, *)
    end function gpusvd_sbdsvd
    integer(c_int) function gpusvd_dbdsvd(handle, uplo, jobz, n, d, e, U, ldu, VT, ldvt, &
        info) bind(C, name="gpusvd_dbdsvd")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: uplo, jobz
      integer(c_int64_t), value :: n, ldu, ldvt
      integer(c_int), intent(inout) :: info
      real(c_double), intent(inout) :: d(*)
      real(c_double), intent(inout), optional :: e(*), U(ldu, *), VT(ldvt, *)
    end function gpusvd_dbdsvd
    integer(c_int) function gpusvd_sbdsvd_gpu(handle, uplo, jobz, n, d, e, U, ldu, VT, ldvt, &
        info) bind(C, name="gpusvd_sbdsvd_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, d, e, U, VT, info
      integer(c_int), value :: uplo, jobz
      integer(c_int64_t), value :: n, ldu, ldvt
    end function gpusvd_sbdsvd_gpu
    integer(c_int) function gpusvd_dbdsvd_gpu(handle, uplo, jobz, n, d, e, U, ldu, VT, ldvt, &
        info) bind(C, name="gpusvd_dbdsvd_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, d, e, U, VT, info
      integer(c_int), value :: uplo, jobz
      integer(c_int64_t), value :: n, ldu, ldvt
    end function gpusvd_dbdsvd_gpu
    integer(c_int) function gpusvd_sbdsvd_bufferSize(handle, uplo, jobz, n, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_sbdsvd_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: uplo, jobz
      integer(c_int64_t), value :: n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_sbdsvd_bufferSize
    integer(c_int) function gpusvd_dbdsvd_bufferSize(handle, uplo, jobz, n, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_dbdsvd_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: uplo, jobz
      integer(c_int64_t), value :: n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_dbdsvd_bufferSize

    ! --------------------------------------------------------------------------------------
    ! Principal component analysis
    ! --------------------------------------------------------------------------------------
    integer(c_int) function gpusvd_spca(handle, m, n, X, ldx, k, components, ldc, &
        explainedVariance, scores, lds, mean, info) bind(C, name="gpusvd_spca")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: m, n, ldx, k, ldc, lds
      integer(c_int), intent(inout) :: info
      real(c_float), intent(in) :: X(ldx, *)
      real(c_float), intent(inout) :: components(ldc, *), explainedVariance(*)
      real(c_float), intent(inout), optional :: scores(lds, *), mean(*)
    end function gpusvd_spca
    integer(c_int) function gpusvd_dpca(handle, m, n, X, ldx, k, components, ldc, &
        explainedVariance, scores, lds, mean, info) bind(C, name="gpusvd_dpca")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: m, n, ldx, k, ldc, lds
      integer(c_int), intent(inout) :: info
      real(c_double), intent(in) :: X(ldx, *)
      real(c_double), intent(inout) :: components(ldc, *), explainedVariance(*)
      real(c_double), intent(inout), optional :: scores(lds, *), mean(*)
    end function gpusvd_dpca
    integer(c_int) function gpusvd_spca_gpu(handle, m, n, X, ldx, k, components, ldc, &
        explainedVariance, scores, lds, mean, info) bind(C, name="gpusvd_spca_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, X, components, explainedVariance, scores, mean, info
      integer(c_int64_t), value :: m, n, ldx, k, ldc, lds
    end function gpusvd_spca_gpu
    integer(c_int) function gpusvd_dpca_gpu(handle, m, n, X, ldx, k, components, ldc, &
        explainedVariance, scores, lds, mean, info) bind(C, name="gpusvd_dpca_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, X, components, explainedVariance, scores, mean, info
      integer(c_int64_t), value :: m, n, ldx, k, ldc, lds
    end function gpusvd_dpca_gpu
    integer(c_int) function gpusvd_spca_bufferSize(handle, m, n, k, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_spca_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: m, n, k
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_spca_bufferSize
    integer(c_int) function gpusvd_dpca_bufferSize(handle, m, n, k, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_dpca_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: m, n, k
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_dpca_bufferSize
    ! Complex precisions (c: complex(c_float_complex), z: complex(c_double_complex)); singular
    ! values and explained variances are real. The _gpu forms answer GPUSVD_STATUS_NOT_SUPPORTED
    ! in this version (no complex GPU kernels); the host forms run on the CPU.
    integer(c_int) function gpusvd_cgesvj(handle, jobu, jobv, m, n, A, lda, S, U, ldu, V, ldv, &
        info) bind(C, name="gpusvd_cgesvj")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, ldu, ldv
      integer(c_int), intent(inout) :: info
      complex(c_float_complex), intent(inout) :: A(lda, *)
      real(c_float), intent(inout) :: S(*)
      complex(c_float_complex), intent(inout), optional :: U(ldu, *), V(ldv, *)
    end function gpusvd_cgesvj
    integer(c_int) function gpusvd_cgesvj_gpu(handle, jobu, jobv, m, n, A, lda, S, U, ldu, V, &
        ldv, info) bind(C, name="gpusvd_cgesvj_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, S, U, V, info
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, ldu, ldv
    end function gpusvd_cgesvj_gpu
    integer(c_int) function gpusvd_cgesvj_bufferSize(handle, jobu, jobv, m, n, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_cgesvj_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_cgesvj_bufferSize
    integer(c_int) function gpusvd_cgesvj_batched(handle, jobu, jobv, m, n, A, lda, strideA, S, &
        strideS, U, ldu, strideU, V, ldv, strideV, batchCount, info) bind(C, &
        name="gpusvd_cgesvj_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, strideA, strideS, ldu, strideU, ldv, strideV, &
          batchCount
      complex(c_float_complex), intent(inout) :: A(*)
      real(c_float), intent(inout) :: S(*)
      complex(c_float_complex), intent(inout), optional :: U(*), V(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_cgesvj_batched
    integer(c_int) function gpusvd_cgesvj_batched_gpu(handle, jobu, jobv, m, n, A, lda, &
        strideA, S, strideS, U, ldu, strideU, V, ldv, strideV, batchCount, info) bind(C, &
        name="gpusvd_cgesvj_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, S, U, V, info
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, strideA, strideS, ldu, strideU, ldv, strideV, &
          batchCount
    end function gpusvd_cgesvj_batched_gpu
    integer(c_int) function gpusvd_cgesvj_batched_bufferSize(handle, jobu, jobv, m, n, &
        batchCount, deviceBytes, hostBytes) bind(C, name="gpusvd_cgesvj_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_cgesvj_batched_bufferSize
    integer(c_int) function gpusvd_cgeqrf_mgs(handle, orth, m, n, A, lda, R, ldr, info) bind(C, &
        name="gpusvd_cgeqrf_mgs")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, ldr
      integer(c_int), intent(inout) :: info
      complex(c_float_complex), intent(inout) :: A(lda, *), R(ldr, *)
    end function gpusvd_cgeqrf_mgs
    integer(c_int) function gpusvd_cgeqrf_mgs_gpu(handle, orth, m, n, A, lda, R, ldr, &
        info) bind(C, name="gpusvd_cgeqrf_mgs_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, R, info
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, ldr
    end function gpusvd_cgeqrf_mgs_gpu
    integer(c_int) function gpusvd_cgeqrf_mgs_bufferSize(handle, orth, m, n, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_cgeqrf_mgs_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_cgeqrf_mgs_bufferSize
    integer(c_int) function gpusvd_cgeqrf_mgs_batched(handle, orth, m, n, A, lda, strideA, R, &
        ldr, strideR, batchCount, info) bind(C, name="gpusvd_cgeqrf_mgs_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, strideA, ldr, strideR, batchCount
      complex(c_float_complex), intent(inout) :: A(*), R(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_cgeqrf_mgs_batched
    integer(c_int) function gpusvd_cgeqrf_mgs_batched_gpu(handle, orth, m, n, A, lda, strideA, &
        R, ldr, strideR, batchCount, info) bind(C, name="gpusvd_cgeqrf_mgs_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, R, info
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, strideA, ldr, strideR, batchCount
    end function gpusvd_cgeqrf_mgs_batched_gpu
    integer(c_int) function gpusvd_cgeqrf_mgs_batched_bufferSize(handle, orth, m, n, &
        batchCount, deviceBytes, hostBytes) bind(C, name="gpusvd_cgeqrf_mgs_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_cgeqrf_mgs_batched_bufferSize
    integer(c_int) function gpusvd_cgeev_batched(handle, jobvr, n, A, lda, strideA, W, strideW, &
        VR, ldvr, strideVR, batchCount, info) bind(C, name="gpusvd_cgeev_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, lda, strideA, strideW, ldvr, strideVR, batchCount
      complex(c_float_complex), intent(inout) :: A(*), W(*)
      complex(c_float_complex), intent(inout), optional :: VR(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_cgeev_batched
    integer(c_int) function gpusvd_cgeev_batched_gpu(handle, jobvr, n, A, lda, strideA, W, strideW, &
        VR, ldvr, strideVR, batchCount, info) bind(C, name="gpusvd_cgeev_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, W, VR, info
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, lda, strideA, strideW, ldvr, strideVR, batchCount
    end function gpusvd_cgeev_batched_gpu
    integer(c_int) function gpusvd_cgeev_batched_bufferSize(handle, jobvr, n, batchCount, &
        deviceBytes, hostBytes) bind(C, name="gpusvd_cgeev_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_cgeev_batched_bufferSize
    integer(c_int) function gpusvd_cpca(handle, m, n, X, ldx, k, components, ldc, &
        explainedVariance, scores, lds, mean, info) bind(C, name="gpusvd_cpca")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: m, n, ldx, k, ldc, lds
      integer(c_int), intent(inout) :: info
      complex(c_float_complex), intent(in) :: X(ldx, *)
      complex(c_float_complex), intent(inout) :: components(ldc, *)
      real(c_float), intent(inout) :: explainedVariance(*)
      complex(c_float_complex), intent(inout), optional :: scores(lds, *), mean(*)
    end function gpusvd_cpca
    integer(c_int) function gpusvd_cpca_gpu(handle, m, n, X, ldx, k, components, ldc, &
        explainedVariance, scores, lds, mean, info) bind(C, name="gpusvd_cpca_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, X, components, explainedVariance, scores, mean, info
      integer(c_int64_t), value :: m, n, ldx, k, ldc, lds
    end function gpusvd_cpca_gpu
    integer(c_int) function gpusvd_cpca_bufferSize(handle, m, n, k, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_cpca_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: m, n, k
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_cpca_bufferSize
    integer(c_int) function gpusvd_zgesvj(handle, jobu, jobv, m, n, A, lda, S, U, ldu, V, ldv, &
        info) bind(C, name="gpusvd_zgesvj")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, ldu, ldv
      integer(c_int), intent(inout) :: info
      complex(c_double_complex), intent(inout) :: A(lda, *)
      real(c_double), intent(inout) :: S(*)
      complex(c_double_complex), intent(inout), optional :: U(ldu, *), V(ldv, *)
    end function gpusvd_zgesvj
    integer(c_int) function gpusvd_zgesvj_gpu(handle, jobu, jobv, m, n, A, lda, S, U, ldu, V, &
        ldv, info) bind(C, name="gpusvd_zgesvj_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, S, U, V, info
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, ldu, ldv
    end function gpusvd_zgesvj_gpu
    integer(c_int) function gpusvd_zgesvj_bufferSize(handle, jobu, jobv, m, n, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_zgesvj_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_zgesvj_bufferSize
    integer(c_int) function gpusvd_zgesvj_batched(handle, jobu, jobv, m, n, A, lda, strideA, S, &
        strideS, U, ldu, strideU, V, ldv, strideV, batchCount, info) bind(C, &
        name="gpusvd_zgesvj_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, strideA, strideS, ldu, strideU, ldv, strideV, &
          batchCount
      complex(c_double_complex), intent(inout) :: A(*)
      real(c_double), intent(inout) :: S(*)
      complex(c_double_complex), intent(inout), optional :: U(*), V(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_zgesvj_batched
    integer(c_int) function gpusvd_zgesvj_batched_gpu(handle, jobu, jobv, m, n, A, lda, &
        strideA, S, strideS, U, ldu, strideU, V, ldv, strideV, batchCount, info) bind(C, &
        name="gpusvd_zgesvj_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, S, U, V, info
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, strideA, strideS, ldu, strideU, ldv, strideV, &
          batchCount
    end function gpusvd_zgesvj_batched_gpu
    integer(c_int) function gpusvd_zgesvj_batched_bufferSize(handle, jobu, jobv, m, n, &
        batchCount, deviceBytes, hostBytes) bind(C, name="gpusvd_zgesvj_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_zgesvj_batched_bufferSize
    integer(c_int) function gpusvd_zgeqrf_mgs(handle, orth, m, n, A, lda, R, ldr, info) bind(C, &
        name="gpusvd_zgeqrf_mgs")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, ldr
      integer(c_int), intent(inout) :: info
      complex(c_double_complex), intent(inout) :: A(lda, *), R(ldr, *)
    end function gpusvd_zgeqrf_mgs
    integer(c_int) function gpusvd_zgeqrf_mgs_gpu(handle, orth, m, n, A, lda, R, ldr, &
        info) bind(C, name="gpusvd_zgeqrf_mgs_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, R, info
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, ldr
    end function gpusvd_zgeqrf_mgs_gpu
    integer(c_int) function gpusvd_zgeqrf_mgs_bufferSize(handle, orth, m, n, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_zgeqrf_mgs_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_zgeqrf_mgs_bufferSize
    integer(c_int) function gpusvd_zgeqrf_mgs_batched(handle, orth, m, n, A, lda, strideA, R, &
        ldr, strideR, batchCount, info) bind(C, name="gpusvd_zgeqrf_mgs_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, strideA, ldr, strideR, batchCount
      complex(c_double_complex), intent(inout) :: A(*), R(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_zgeqrf_mgs_batched
    integer(c_int) function gpusvd_zgeqrf_mgs_batched_gpu(handle, orth, m, n, A, lda, strideA, &
        R, ldr, strideR, batchCount, info) bind(C, name="gpusvd_zgeqrf_mgs_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, R, info
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, lda, strideA, ldr, strideR, batchCount
    end function gpusvd_zgeqrf_mgs_batched_gpu
    integer(c_int) function gpusvd_zgeqrf_mgs_batched_bufferSize(handle, orth, m, n, &
        batchCount, deviceBytes, hostBytes) bind(C, name="gpusvd_zgeqrf_mgs_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: m, n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_zgeqrf_mgs_batched_bufferSize
    integer(c_int) function gpusvd_zgeev_batched(handle, jobvr, n, A, lda, strideA, W, strideW, &
        VR, ldvr, strideVR, batchCount, info) bind(C, name="gpusvd_zgeev_batched")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, lda, strideA, strideW, ldvr, strideVR, batchCount
      complex(c_double_complex), intent(inout) :: A(*), W(*)
      complex(c_double_complex), intent(inout), optional :: VR(*)
      integer(c_int), intent(inout) :: info(*)
    end function gpusvd_zgeev_batched
    integer(c_int) function gpusvd_zgeev_batched_gpu(handle, jobvr, n, A, lda, strideA, W, strideW, &
        VR, ldvr, strideVR, batchCount, info) bind(C, name="gpusvd_zgeev_batched_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, A, W, VR, info
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, lda, strideA, strideW, ldvr, strideVR, batchCount
    end function gpusvd_zgeev_batched_gpu
    integer(c_int) function gpusvd_zgeev_batched_bufferSize(handle, jobvr, n, batchCount, &
        deviceBytes, hostBytes) bind(C, name="gpusvd_zgeev_batched_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: jobvr
      integer(c_int64_t), value :: n, batchCount
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_zgeev_batched_bufferSize
    integer(c_int) function gpusvd_zpca(handle, m, n, X, ldx, k, components, ldc, &
        explainedVariance, scores, lds, mean, info) bind(C, name="gpusvd_zpca")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: m, n, ldx, k, ldc, lds
      integer(c_int), intent(inout) :: info
      complex(c_double_complex), intent(in) :: X(ldx, *)
      complex(c_double_complex), intent(inout) :: components(ldc, *)
      real(c_double), intent(inout) :: explainedVariance(*)
      complex(c_double_complex), intent(inout), optional :: scores(lds, *), mean(*)
    end function gpusvd_zpca
    integer(c_int) function gpusvd_zpca_gpu(handle, m, n, X, ldx, k, components, ldc, &
        explainedVariance, scores, lds, mean, info) bind(C, name="gpusvd_zpca_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, X, components, explainedVariance, scores, mean, info
      integer(c_int64_t), value :: m, n, ldx, k, ldc, lds
    end function gpusvd_zpca_gpu
    integer(c_int) function gpusvd_zpca_bufferSize(handle, m, n, k, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_zpca_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: m, n, k
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_zpca_bufferSize

    ! --------------------------------------------------------------------------------------
    ! Distributed tall QR and PCA: communicators (an ncclComm_t, or an all-reduce callback,
    ! e.g. a bind(C) function wrapping MPI_Allreduce passed as c_funloc(f)), geqrf_mgs_dist and
    ! pca_dist
    ! --------------------------------------------------------------------------------------
    integer(c_int) function gpusvdCommCreateNccl(comm, ncclComm) &
        bind(C, name="gpusvdCommCreateNccl")
      import
      implicit none
      type(c_ptr), intent(inout) :: comm
      type(c_ptr), value :: ncclComm
    end function gpusvdCommCreateNccl
    integer(c_int) function gpusvdCommCreate(comm, size, rank, allreduce, user) &
        bind(C, name="gpusvdCommCreate")
      import
      implicit none
      type(c_ptr), intent(inout) :: comm
      integer(c_int), value :: size, rank
      type(c_funptr), value :: allreduce
      type(c_ptr), value :: user
    end function gpusvdCommCreate
    integer(c_int) function gpusvdCommGetRank(comm, size, rank) bind(C, name="gpusvdCommGetRank")
      import
      implicit none
      type(c_ptr), value :: comm
      integer(c_int), intent(inout), optional :: size, rank
    end function gpusvdCommGetRank
    integer(c_int) function gpusvdCommDestroy(comm) bind(C, name="gpusvdCommDestroy")
      import
      implicit none
      type(c_ptr), value :: comm
    end function gpusvdCommDestroy
    integer(c_int) function gpusvd_sgeqrf_mgs_dist(handle, comm, orth, mLocal, n, A, lda, R, &
        ldr, info) bind(C, name="gpusvd_sgeqrf_mgs_dist")
      import
      implicit none
      type(c_ptr), value :: handle, comm
      integer(c_int), value :: orth
      integer(c_int64_t), value :: mLocal, n, lda, ldr
      real(c_float), intent(inout) :: A(lda, *), R(ldr, *)
      integer(c_int), intent(inout) :: info
    end function gpusvd_sgeqrf_mgs_dist
    integer(c_int) function gpusvd_dgeqrf_mgs_dist(handle, comm, orth, mLocal, n, A, lda, R, &
        ldr, info) bind(C, name="gpusvd_dgeqrf_mgs_dist")
      import
      implicit none
      type(c_ptr), value :: handle, comm
      integer(c_int), value :: orth
      integer(c_int64_t), value :: mLocal, n, lda, ldr
      real(c_double), intent(inout) :: A(lda, *), R(ldr, *)
      integer(c_int), intent(inout) :: info
    end function gpusvd_dgeqrf_mgs_dist
    integer(c_int) function gpusvd_sgeqrf_mgs_dist_gpu(handle, comm, orth, mLocal, n, A, lda, &
        R, ldr, info) bind(C, name="gpusvd_sgeqrf_mgs_dist_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, comm, A, R, info
      integer(c_int), value :: orth
      integer(c_int64_t), value :: mLocal, n, lda, ldr
    end function gpusvd_sgeqrf_mgs_dist_gpu
    integer(c_int) function gpusvd_dgeqrf_mgs_dist_gpu(handle, comm, orth, mLocal, n, A, lda, &
        R, ldr, info) bind(C, name="gpusvd_dgeqrf_mgs_dist_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, comm, A, R, info
      integer(c_int), value :: orth
      integer(c_int64_t), value :: mLocal, n, lda, ldr
    end function gpusvd_dgeqrf_mgs_dist_gpu
    integer(c_int) function gpusvd_sgeqrf_mgs_dist_bufferSize(handle, orth, mLocal, n, &
        deviceBytes, hostBytes) bind(C, name="gpusvd_sgeqrf_mgs_dist_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: mLocal, n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_sgeqrf_mgs_dist_bufferSize
    integer(c_int) function gpusvd_dgeqrf_mgs_dist_bufferSize(handle, orth, mLocal, n, &
        deviceBytes, hostBytes) bind(C, name="gpusvd_dgeqrf_mgs_dist_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int), value :: orth
      integer(c_int64_t), value :: mLocal, n
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_dgeqrf_mgs_dist_bufferSize
    integer(c_int) function gpusvd_spca_dist(handle, comm, mLocal, n, X, ldx, k, components, &
        ldc, explainedVariance, scores, lds, mean, info) bind(C, name="gpusvd_spca_dist")
      import
      implicit none
      type(c_ptr), value :: handle, comm
      integer(c_int64_t), value :: mLocal, n, ldx, k, ldc, lds
      integer(c_int), intent(inout) :: info
      real(c_float), intent(in) :: X(ldx, *)
      real(c_float), intent(inout) :: components(ldc, *), explainedVariance(*)
      real(c_float), intent(inout), optional :: scores(lds, *), mean(*)
    end function gpusvd_spca_dist
    integer(c_int) function gpusvd_dpca_dist(handle, comm, mLocal, n, X, ldx, k, components, &
        ldc, explainedVariance, scores, lds, mean, info) bind(C, name="gpusvd_dpca_dist")
      import
      implicit none
      type(c_ptr), value :: handle, comm
      integer(c_int64_t), value :: mLocal, n, ldx, k, ldc, lds
      integer(c_int), intent(inout) :: info
      real(c_double), intent(in) :: X(ldx, *)
      real(c_double), intent(inout) :: components(ldc, *), explainedVariance(*)
      real(c_double), intent(inout), optional :: scores(lds, *), mean(*)
    end function gpusvd_dpca_dist
    integer(c_int) function gpusvd_spca_dist_gpu(handle, comm, mLocal, n, X, ldx, k, &
        components, ldc, explainedVariance, scores, lds, mean, info) &
        bind(C, name="gpusvd_spca_dist_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, comm, X, components, explainedVariance, scores, mean, info
      integer(c_int64_t), value :: mLocal, n, ldx, k, ldc, lds
    end function gpusvd_spca_dist_gpu
    integer(c_int) function gpusvd_dpca_dist_gpu(handle, comm, mLocal, n, X, ldx, k, &
        components, ldc, explainedVariance, scores, lds, mean, info) &
        bind(C, name="gpusvd_dpca_dist_gpu")
      import
      implicit none
      type(c_ptr), value :: handle, comm, X, components, explainedVariance, scores, mean, info
      integer(c_int64_t), value :: mLocal, n, ldx, k, ldc, lds
    end function gpusvd_dpca_dist_gpu
    integer(c_int) function gpusvd_spca_dist_bufferSize(handle, mLocal, n, k, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_spca_dist_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: mLocal, n, k
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_spca_dist_bufferSize
    integer(c_int) function gpusvd_dpca_dist_bufferSize(handle, mLocal, n, k, deviceBytes, &
        hostBytes) bind(C, name="gpusvd_dpca_dist_bufferSize")
      import
      implicit none
      type(c_ptr), value :: handle
      integer(c_int64_t), value :: mLocal, n, k
      integer(c_size_t), intent(inout), optional :: deviceBytes, hostBytes
    end function gpusvd_dpca_dist_bufferSize
  end interface

contains

  ! Copy of a NUL-terminated C string ('' for a NULL pointer).
  function c_to_f_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    interface
      integer(c_size_t) function c_strlen(str) bind(C, name="strlen")
        import :: c_size_t, c_ptr
        implicit none
        type(c_ptr), value :: str
      end function c_strlen
    end interface
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function c_to_f_string

  !> gpusvdGetErrorMessage as a Fortran string: detail of the last failed call on handle
  !> ('' after a success); pass c_null_ptr for calls made with a NULL handle on this thread.
  function gpusvd_error_message(handle) result(s)
    type(c_ptr), intent(in) :: handle
    character(len=:), allocatable :: s
    s = c_to_f_string(gpusvdGetErrorMessage(handle))
  end function gpusvd_error_message

  !> gpusvdGetStatusName as a Fortran string, e.g. 'GPUSVD_STATUS_INVALID_VALUE'.
  function gpusvd_status_name(status) result(s)
    integer(c_int), intent(in) :: status
    character(len=:), allocatable :: s
    s = c_to_f_string(gpusvdGetStatusName(status))
  end function gpusvd_status_name

  !> gpusvdGetVersionString as a Fortran string: 'MAJOR.MINOR.PATCH' of the loaded library.
  function gpusvd_version_string() result(s)
    character(len=:), allocatable :: s
    s = c_to_f_string(gpusvdGetVersionString())
  end function gpusvd_version_string

  !> gpusvdGetBuildInfo as a Fortran string: one line on the build and this machine.
  function gpusvd_build_info() result(s)
    character(len=:), allocatable :: s
    s = c_to_f_string(gpusvdGetBuildInfo())
  end function gpusvd_build_info

end module gpusvd
