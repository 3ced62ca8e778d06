! Test of the Fortran module gpusvd against the installed library (CPU or GPU backend, AUTO).
! Accuracy ratios are LAPACK's, with the thresholds of the design document. Exit status 1 (error
! stop) on any failure; one summary line on success.
program test_gpusvd
  use gpusvd
  implicit none

  type(c_ptr) :: h, stream
  integer :: nfail = 0, ncheck = 0
  integer(c_int) :: st, backend
  integer(c_int64_t) :: seed = 12345

  st = gpusvdCreate(h)
  call check(st == GPUSVD_STATUS_SUCCESS .and. c_associated(h), 'gpusvdCreate')
  st = gpusvdGetBackend(h, backend)
  call check(st == GPUSVD_STATUS_SUCCESS .and. &
             (backend == GPUSVD_BACKEND_CPU .or. backend == GPUSVD_BACKEND_GPU), 'gpusvdGetBackend')
  st = gpusvdGetStream(h, stream)
  call check(st == GPUSVD_STATUS_SUCCESS .and. .not. c_associated(stream), 'gpusvdGetStream default')

  call test_version()
  call test_dgesvj()
  call test_sgesvj()
  call test_dgeqrf_mgs()
  call test_dgeev_batched()
  call test_dbdsvd()
  call test_dpca()
  call test_zcomplex()
  call test_bad_argument()
  call test_gpu_form()

  st = gpusvdDestroy(h)
  call check(st == GPUSVD_STATUS_SUCCESS, 'gpusvdDestroy')
  if (nfail > 0) then
    print '(a, i0, a, i0, a)', 'test_gpusvd: ', nfail, ' of ', ncheck, ' checks FAILED'
    error stop 1
  end if
  print '(a, i0, 5a)', 'test_gpusvd: all ', ncheck, ' checks passed (gpusvd ', &
      gpusvd_version_string(), ', backend ', trim(merge('CPU', 'GPU', backend == GPUSVD_BACKEND_CPU)), ')'

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    ncheck = ncheck + 1
    if (.not. ok) then
      nfail = nfail + 1
      print '(2a)', 'FAILED: ', what
    end if
  end subroutine check

  ! Deterministic uniform numbers in [-1, 1).
  real(c_double) function rnd()
    seed = modulo(seed * 1103515245_c_int64_t + 12345_c_int64_t, 2147483648_c_int64_t)
    rnd = real(seed, c_double) / 1073741824.0_c_double - 1.0_c_double
  end function rnd

  real(c_double) function orth_error(Q) result(e)   ! ||I - Q^T Q||_F
    real(c_double), intent(in) :: Q(:, :)
    real(c_double), allocatable :: G(:, :)
    integer :: i
    G = matmul(transpose(Q), Q)
    do i = 1, size(G, 1)
      G(i, i) = G(i, i) - 1
    end do
    e = norm2(G)
  end function orth_error

  logical function descending_nonneg(s)
    real(c_double), intent(in) :: s(:)
    descending_nonneg = all(s >= 0)
    if (size(s) > 1) descending_nonneg = descending_nonneg .and. all(s(1:size(s)-1) >= s(2:))
  end function descending_nonneg

  subroutine test_version()
    character(len=32) :: expected
    call check(gpusvdGetVersion() == GPUSVD_VERSION, 'gpusvdGetVersion() == GPUSVD_VERSION')
    write (expected, '(i0, ".", i0, ".", i0)') GPUSVD_VERSION_MAJOR, GPUSVD_VERSION_MINOR, &
        GPUSVD_VERSION_PATCH
    call check(gpusvd_version_string() == trim(expected), 'gpusvd_version_string() == ' // trim(expected))
    call check(len(gpusvd_build_info()) > 0, 'gpusvd_build_info() not empty')
    call check(gpusvd_status_name(GPUSVD_STATUS_NO_DEVICE) == 'GPUSVD_STATUS_NO_DEVICE', &
               'gpusvd_status_name')
  end subroutine test_version

  ! Economy SVD of a 7 x 4 matrix stored with lda = 9 > m.
  ! Complex (z) routines: zgesvj and zgeqrf_mgs on complex(c_double_complex) arrays, zgeev on a
  ! diagonal matrix with known eigenvalues; the _gpu form refused (no complex GPU kernels).
  subroutine test_zcomplex()
    use, intrinsic :: iso_c_binding, only: c_loc
    integer(c_int64_t), parameter :: m = 6, n = 3
    complex(c_double_complex), target :: A(m, n), U(m, n), V(n, n)
    complex(c_double_complex) :: A0(m, n), R(n, n), D(n, n), W(n), VR(n, n)
    real(c_double), target :: S(n)
    real(c_double) :: eps
    integer(c_int), target :: info
    integer(c_int) :: infos(1)
    integer :: i, j
    eps = epsilon(1.0_c_double)
    do j = 1, n
      do i = 1, m
        A0(i, j) = cmplx(rnd(), rnd(), c_double_complex)
      end do
    end do
    A = A0
    st = gpusvd_zgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A, m, S, U, m, V, n, info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0, 'gpusvd_zgesvj status/info')
    call check(norm_c(A0 - matmul(U, matmul(cdiag(S), conjg(transpose(V))))) / &
               (norm_c(A0) * m * eps) < 50, 'zgesvj |A - U S V^H| / (|A| m eps) < 50')
    call check(norm_c(matmul(conjg(transpose(U)), U) - cdiag([1d0, 1d0, 1d0])) / (m * eps) < 50, &
               'zgesvj |I - U^H U| / (m eps) < 50')
    call check(descending_nonneg(S), 'zgesvj S >= 0, descending')
    A = A0
    st = gpusvd_zgeqrf_mgs(h, GPUSVD_ORTH_MGS2, m, n, A, m, R, n, info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0, 'gpusvd_zgeqrf_mgs status/info')
    call check(norm_c(A0 - matmul(A, R)) / (m * norm_c(A0) * eps) < 30, &
               'zgeqrf_mgs |A - QR| / (m |A| eps) < 30')
    do j = 1, n
      call check(aimag(R(j, j)) == 0 .and. real(R(j, j)) >= 0, 'zgeqrf_mgs R(j,j) real >= 0')
    end do
    D = 0
    do j = 1, n
      D(j, j) = cmplx(j, -j, c_double_complex)
    end do
    st = gpusvd_zgeev_batched(h, GPUSVD_JOB_VEC, n, D, n, n * n, W, n, VR, n, n * n, &
                              1_c_int64_t, infos)
    call check(st == GPUSVD_STATUS_SUCCESS .and. infos(1) == 0, 'gpusvd_zgeev_batched status/info')
    do j = 1, n
      call check(any(abs(W - cmplx(j, -j, c_double_complex)) <= 10 * eps * j), &
                 'zgeev_batched eigenvalue j - i j found')
    end do
    ! host memory given to the _gpu form: refused before anything is read (no device, or one
    ! that cannot reach host memory), or run (a device that reaches host memory: HMM / ATS)
    A = A0
    info = 77
    st = gpusvd_zgesvj_gpu(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, c_loc(A), m, c_loc(S), &
                           c_loc(U), m, c_loc(V), n, c_loc(info))
    if (st == GPUSVD_STATUS_SUCCESS) then
      st = gpusvdGetJacobiStats(h)  ! waits for the call
      call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0, &
                 'gpusvd_zgesvj_gpu on memory the device reaches')
    else
      call check((st == GPUSVD_STATUS_NO_DEVICE .or. st == GPUSVD_STATUS_INVALID_VALUE) .and. &
                 info == 77 .and. all(A == A0), 'gpusvd_zgesvj_gpu refused, nothing changed')
    end if
  end subroutine test_zcomplex

  real(c_double) function norm_c(X)   ! Frobenius norm of a complex matrix
    complex(c_double_complex), intent(in) :: X(:, :)
    norm_c = sqrt(sum(abs(X)**2))
  end function norm_c

  function cdiag(s) result(d)
    real(c_double), intent(in) :: s(:)
    complex(c_double_complex) :: d(size(s), size(s))
    integer :: i
    d = 0
    do i = 1, size(s)
      d(i, i) = s(i)
    end do
  end function cdiag

  subroutine test_dgesvj()
    integer(c_int64_t), parameter :: m = 7, n = 4, lda = 9
    real(c_double) :: A(lda, n), A0(m, n), S(n), S2(n), U(m, n), V(n, n), off, eps
    integer(c_int) :: info, sweeps
    integer(c_size_t) :: hostBytes
    integer :: i, j
    eps = epsilon(1.0_c_double)
    do j = 1, n
      do i = 1, m
        A0(i, j) = rnd()
      end do
    end do
    A = 0
    A(1:m, :) = A0
    st = gpusvd_dgesvj_bufferSize(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, hostBytes=hostBytes)
    call check(st == GPUSVD_STATUS_SUCCESS, 'gpusvd_dgesvj_bufferSize (deviceBytes omitted)')
    st = gpusvd_dgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A, lda, S, U, m, V, n, info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0, 'gpusvd_dgesvj status/info')
    call check(norm2(A0 - matmul(U, matmul(diag(S), transpose(V)))) / (norm2(A0) * m * eps) < 50, &
               'dgesvj |A - U S V^T| / (|A| max(m,n) eps) < 50')
    call check(orth_error(U) / (m * eps) < 50, 'dgesvj |I - U^T U| / (m eps) < 50')
    call check(orth_error(V) / (n * eps) < 50, 'dgesvj |I - V^T V| / (n eps) < 50')
    call check(descending_nonneg(S), 'dgesvj S >= 0, descending')
    st = gpusvdGetJacobiStats(h, sweeps, off)
    call check(st == GPUSVD_STATUS_SUCCESS .and. sweeps > 0 .and. off >= 0, 'gpusvdGetJacobiStats')
    call check(gpusvd_error_message(h) == '', 'error message empty after a success')
    ! Values only: U and V omitted (NULL in C), later arguments by keyword.
    A(1:m, :) = A0
    st = gpusvd_dgesvj(h, GPUSVD_JOB_NOVEC, GPUSVD_JOB_NOVEC, m, n, A, lda, S2, ldu=1_c_int64_t, &
                       ldv=1_c_int64_t, info=info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0, 'gpusvd_dgesvj NOVEC, U/V omitted')
    call check(maxval(abs(S2 - S)) <= 10 * n * eps * S(1), 'dgesvj NOVEC values match')
  end subroutine test_dgesvj

  subroutine test_sgesvj()
    integer(c_int64_t), parameter :: m = 6, n = 5
    real(c_float) :: A(m, n), A0(m, n), S(n), U(m, n), V(n, n), eps
    integer(c_int) :: info
    integer :: i, j
    eps = epsilon(1.0_c_float)
    do j = 1, n
      do i = 1, m
        A0(i, j) = real(rnd(), c_float)
      end do
    end do
    A = A0
    st = gpusvd_sgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, A, m, S, U, m, V, n, info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0, 'gpusvd_sgesvj status/info')
    call check(norm2(A0 - matmul(U, matmul(sdiag(S), transpose(V)))) / (norm2(A0) * m * eps) < 50, &
               'sgesvj |A - U S V^T| / (|A| max(m,n) eps) < 50')
    call check(orth_error(real(U, c_double)) / (m * eps) < 50, 'sgesvj |I - U^T U| / (m eps) < 50')
    call check(descending_nonneg(real(S, c_double)), 'sgesvj S >= 0, descending')
  end subroutine test_sgesvj

  ! QR, MGS2 mode, m = 6, n = 4: Q overwrites A, R is 4 x 4 upper triangular, R(j,j) >= 0.
  subroutine test_dgeqrf_mgs()
    integer(c_int64_t), parameter :: m = 6, n = 4
    real(c_double) :: A(m, n), A0(m, n), R(n, n), eps
    integer(c_int) :: info
    integer :: i, j
    eps = epsilon(1.0_c_double)
    do j = 1, n
      do i = 1, m
        A0(i, j) = rnd()
      end do
    end do
    A = A0
    st = gpusvd_dgeqrf_mgs(h, GPUSVD_ORTH_MGS2, m, n, A, m, R, n, info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0, 'gpusvd_dgeqrf_mgs status/info')
    call check(norm2(A0 - matmul(A, R)) / (m * norm2(A0) * eps) < 30, 'dgeqrf_mgs |A - QR| / (m |A| eps) < 30')
    call check(orth_error(A) / (m * eps) < 30, 'dgeqrf_mgs |I - Q^T Q| / (m eps) < 30')
    do j = 1, n
      call check(R(j, j) >= 0 .and. all(R(j+1:, j) == 0), 'dgeqrf_mgs R upper triangular, R(j,j) >= 0')
    end do
  end subroutine test_dgeqrf_mgs

  ! A batch of two 2 x 2 rotations by 90 degrees, scaled by 1 and 2: eigenvalues +-i, +-2i.
  subroutine test_dgeev_batched()
    integer(c_int64_t), parameter :: n = 2, nb = 2
    real(c_double) :: A(n, n, nb), A0(n, n, nb), wr(n, nb), wi(n, nb), VR(n, n, nb), vre(n), vim(n)
    real(c_double) :: eps
    integer(c_int) :: info(nb)
    integer :: b
    eps = epsilon(1.0_c_double)
    do b = 1, nb
      A0(:, :, b) = b * reshape([0.0_c_double, 1.0_c_double, -1.0_c_double, 0.0_c_double], [2, 2])
    end do
    A = A0
    info = -99
    st = gpusvd_dgeev_batched(h, GPUSVD_JOB_VEC, n, A, n, n * n, wr, wi, n, VR, n, n * n, nb, info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. all(info == 0), 'gpusvd_dgeev_batched status/info')
    do b = 1, nb
      call check(all(abs(wr(:, b)) <= 10 * eps * b) .and. abs(wi(1, b) - b) <= 10 * eps * b .and. &
                 abs(wi(2, b) + b) <= 10 * eps * b, 'dgeev_batched eigenvalues +-i*b, +i first')
      ! A (vr + i vi) = (wr + i wi)(vr + i vi)
      vre = VR(:, 1, b)
      vim = VR(:, 2, b)
      call check(norm2([matmul(A0(:, :, b), vre) - (wr(1, b) * vre - wi(1, b) * vim), &
                        matmul(A0(:, :, b), vim) - (wi(1, b) * vre + wr(1, b) * vim)]) &
                 / (n * norm2(A0(:, :, b)) * eps) < 20, 'dgeev_batched |A VR - VR W| / (n |A| eps) < 20')
    end do
  end subroutine test_dgeev_batched

  ! Upper bidiagonal 4 x 4: B = U diag(d) VT.
  subroutine test_dbdsvd()
    integer(c_int64_t), parameter :: n = 4
    real(c_double) :: d(n), e(n-1), d2(n), e2(n-1), B(n, n), U(n, n), VT(n, n), eps
    integer(c_int) :: info
    integer :: i
    eps = epsilon(1.0_c_double)
    d = [1.0_c_double, -2.0_c_double, 3.0_c_double, 0.5_c_double]
    e = [0.5_c_double, 0.25_c_double, -1.0_c_double]
    B = 0
    do i = 1, n
      B(i, i) = d(i)
    end do
    do i = 1, n - 1
      B(i, i+1) = e(i)
    end do
    d2 = d
    e2 = e
    st = gpusvd_dbdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_VEC, n, d, e, U, n, VT, n, info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0, 'gpusvd_dbdsvd status/info')
    call check(descending_nonneg(d), 'dbdsvd d >= 0, descending')
    call check(norm2(B - matmul(U, matmul(diag(d), VT))) / (norm2(B) * n * eps) < 50, &
               'dbdsvd |B - U diag(d) VT| / (|B| n eps) < 50')
    call check(orth_error(U) / (n * eps) < 50 .and. orth_error(transpose(VT)) / (n * eps) < 50, &
               'dbdsvd U, VT orthogonal')
    ! Values only, U and VT omitted.
    st = gpusvd_dbdsvd(h, GPUSVD_UPPER, GPUSVD_JOB_NOVEC, n, d2, e2, ldu=1_c_int64_t, &
                       ldvt=1_c_int64_t, info=info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0 .and. &
               maxval(abs(d2 - d)) <= 10 * n * eps * d(1), 'gpusvd_dbdsvd NOVEC, U/VT omitted')
  end subroutine test_dbdsvd

  ! PCA of 8 samples x 3 features, top 2 components.
  subroutine test_dpca()
    integer(c_int64_t), parameter :: m = 8, n = 3, k = 2
    real(c_double) :: X(m, n), Xc(m, n), comp(n, k), ev(k), scores(m, k), mean(n), comp2(n, k), ev2(k)
    real(c_double) :: eps
    integer(c_int) :: info
    integer :: i, j
    eps = epsilon(1.0_c_double)
    do j = 1, n
      do i = 1, m
        X(i, j) = j * rnd() + j
      end do
    end do
    st = gpusvd_dpca(h, m, n, X, m, k, comp, n, ev, scores, m, mean, info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0, 'gpusvd_dpca status/info')
    call check(maxval(abs(mean - sum(X, dim=1) / m)) <= 100 * eps * maxval(abs(X)), 'dpca mean')
    do j = 1, n
      Xc(:, j) = X(:, j) - mean(j)
    end do
    call check(orth_error(comp) / (n * eps) < 50, 'dpca components orthonormal')
    call check(norm2(scores - matmul(Xc, comp)) <= 100 * eps * norm2(Xc), 'dpca scores = Xc comp')
    call check(descending_nonneg(ev), 'dpca explained variance >= 0, descending')
    call check(maxval(abs(ev - sum(scores**2, dim=1) / (m - 1))) <= 100 * eps * ev(1), &
               'dpca explained variance = var(scores)')
    do j = 1, k
      call check(comp(maxloc(abs(comp(:, j)), dim=1), j) > 0, 'dpca sign convention')
    end do
    ! scores and mean omitted.
    st = gpusvd_dpca(h, m, n, X, m, k, comp2, n, ev2, lds=1_c_int64_t, info=info)
    call check(st == GPUSVD_STATUS_SUCCESS .and. info == 0 .and. &
               maxval(abs(comp2 - comp)) <= 1e-10_c_double .and. &
               maxval(abs(ev2 - ev)) <= 1e-10_c_double * ev(1), 'gpusvd_dpca scores/mean omitted')
  end subroutine test_dpca

  ! lda < m is rejected, nothing is written, and the message names the argument.
  subroutine test_bad_argument()
    real(c_double) :: A(4, 3), S(3), U(4, 3), V(3, 3)
    integer(c_int) :: info
    character(len=:), allocatable :: msg
    A = 1
    S = -7
    info = -99
    st = gpusvd_dgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 4_c_int64_t, 3_c_int64_t, A, &
                       3_c_int64_t, S, U, 4_c_int64_t, V, 3_c_int64_t, info)
    msg = gpusvd_error_message(h)
    call check(st == GPUSVD_STATUS_INVALID_VALUE, 'lda < m gives GPUSVD_STATUS_INVALID_VALUE')
    call check(gpusvd_status_name(st) == 'GPUSVD_STATUS_INVALID_VALUE', 'status name of INVALID_VALUE')
    call check(len(msg) > 0 .and. index(msg, 'lda') > 0 .and. index(msg, 'gpusvd_dgesvj') > 0, &
               'error message names routine and argument: "' // msg // '"')
    call check(all(S == -7) .and. info == -99, 'invalid call changes no output')
  end subroutine test_bad_argument

  ! A _gpu form links and answers: NO_DEVICE without a usable GPU. Empty batch, NULL pointers.
  subroutine test_gpu_form()
    st = gpusvd_dgesvj_batched_gpu(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, 0_c_int64_t, 0_c_int64_t, &
        c_null_ptr, 1_c_int64_t, 0_c_int64_t, c_null_ptr, 0_c_int64_t, c_null_ptr, 1_c_int64_t, &
        0_c_int64_t, c_null_ptr, 1_c_int64_t, 0_c_int64_t, 0_c_int64_t, c_null_ptr)
    if (backend == GPUSVD_BACKEND_CPU) then
      call check(st == GPUSVD_STATUS_NO_DEVICE, 'dgesvj_batched_gpu without a GPU gives NO_DEVICE')
    else
      call check(st == GPUSVD_STATUS_SUCCESS, 'dgesvj_batched_gpu on an empty batch')
    end if
  end subroutine test_gpu_form

  function diag(s) result(D)
    real(c_double), intent(in) :: s(:)
    real(c_double) :: D(size(s), size(s))
    integer :: i
    D = 0
    do i = 1, size(s)
      D(i, i) = s(i)
    end do
  end function diag

  function sdiag(s) result(D)
    real(c_float), intent(in) :: s(:)
    real(c_float) :: D(size(s), size(s))
    integer :: i
    D = 0
    do i = 1, size(s)
      D(i, i) = s(i)
    end do
  end function sdiag

end program test_gpusvd
