! Economy SVD from Fortran through the C ABI (ISO_C_BINDING), no wrapper module needed:
!   gfortran svd.f90 -L<prefix>/lib -lgpusvd -o svd_f && LD_LIBRARY_PATH=<prefix>/lib ./svd_f
! Sizes are integer(c_int64_t), enums are integer(c_int) by value, the handle is type(c_ptr).
program svd_example
  use, intrinsic :: iso_c_binding
  implicit none
  interface
    integer(c_int) function gpusvdCreate(h) bind(C, name="gpusvdCreate")
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: h
    end function
    integer(c_int) function gpusvdDestroy(h) bind(C, name="gpusvdDestroy")
      import :: c_ptr, c_int
      type(c_ptr), value :: h
    end function
    integer(c_int) function gpusvd_dgesvj(h, jobu, jobv, m, n, a, lda, s, u, ldu, v, ldv, info) &
        bind(C, name="gpusvd_dgesvj")
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: h
      integer(c_int), value :: jobu, jobv
      integer(c_int64_t), value :: m, n, lda, ldu, ldv
      real(c_double), intent(inout) :: a(lda, *)
      real(c_double), intent(out) :: s(*), u(ldu, *), v(ldv, *)
      integer(c_int), intent(out) :: info
    end function
  end interface
  integer(c_int), parameter :: GPUSVD_JOB_VEC = 1
  integer(c_int64_t), parameter :: m = 5, n = 3
  real(c_double) :: a(m, n), a0(m, n), s(n), u(m, n), v(n, n), err
  type(c_ptr) :: h
  integer(c_int) :: st, info, i, j

  do j = 1, n
    do i = 1, m
      a(i, j) = 1.0d0 / real(i + j - 1, c_double)   ! Hilbert-like, full rank
    end do
  end do
  a0 = a
  st = gpusvdCreate(h)
  st = gpusvd_dgesvj(h, GPUSVD_JOB_VEC, GPUSVD_JOB_VEC, m, n, a, m, s, u, m, v, n, info)
  if (st /= 0 .or. info /= 0) then
    print *, 'gpusvd_dgesvj failed: status', st, 'info', info
    stop 1
  end if
  err = 0
  do j = 1, n
    do i = 1, m
      err = max(err, abs(a0(i, j) - sum(u(i, :) * s * v(j, :))))
    end do
  end do
  print '(a, 3es12.4, a, es9.2)', 'S =', s, '   max |A - U S V^T| =', err
  st = gpusvdDestroy(h)
  if (err > 1.0d-13) stop 1
end program svd_example
