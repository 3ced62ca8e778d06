# Defines gpusvd::lapack: OpenBLAS (BLAS + LAPACK) and LAPACKE.
# pkg-config first (Debian/Ubuntu ship openblas.pc and lapacke.pc); otherwise CMake's
# FindBLAS/FindLAPACK plus a search for LAPACKE.
# Also installed with the CMake package, where it gives gpusvd::gpusvd_static its dependencies;
# there a missing LAPACK must not fail find_package(gpusvd) for users of the shared library, so
# with GPUSVD_LAPACK_OPTIONAL set it only leaves GPUSVD_LAPACK_FOUND false.
# Sets GPUSVD_LAPACK_FOUND, GPUSVD_BLAS_VENDOR and GPUSVD_LAPACK_STATIC_LIBS (what a static link
# of libgpusvd.a needs for them, as linker arguments, for gpusvd.pc's Libs.private).
if(TARGET gpusvd::lapack)
  set(GPUSVD_LAPACK_FOUND TRUE)
  return()
endif()
set(GPUSVD_LAPACK_FOUND FALSE)
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(GPUSVD_OPENBLAS QUIET IMPORTED_TARGET openblas)
  pkg_check_modules(GPUSVD_LAPACKE QUIET IMPORTED_TARGET lapacke)
  if(GPUSVD_OPENBLAS_FOUND AND GPUSVD_LAPACKE_FOUND)
    # Not GLOBAL: the pkg-config targets it links are local to this directory.
    add_library(gpusvd::lapack INTERFACE IMPORTED)
    target_link_libraries(gpusvd::lapack INTERFACE PkgConfig::GPUSVD_LAPACKE PkgConfig::GPUSVD_OPENBLAS)
    set(GPUSVD_BLAS_VENDOR "OpenBLAS ${GPUSVD_OPENBLAS_VERSION} + LAPACKE ${GPUSVD_LAPACKE_VERSION}")
    set(GPUSVD_LAPACK_STATIC_LIBS ${GPUSVD_LAPACKE_STATIC_LDFLAGS} ${GPUSVD_OPENBLAS_STATIC_LDFLAGS})
    set(GPUSVD_LAPACK_FOUND TRUE)
  endif()
endif()
if(NOT GPUSVD_LAPACK_FOUND)
  set(_gpusvd_saved_bla_vendor "${BLA_VENDOR}")
  set(BLA_VENDOR OpenBLAS)
  if(GPUSVD_LAPACK_OPTIONAL)
    find_package(BLAS QUIET)
    find_package(LAPACK QUIET)
  else()
    find_package(BLAS REQUIRED)
    find_package(LAPACK REQUIRED)
  endif()
  set(BLA_VENDOR "${_gpusvd_saved_bla_vendor}")
  find_path(GPUSVD_LAPACKE_INCLUDE_DIR lapacke.h PATH_SUFFIXES openblas)
  find_library(GPUSVD_LAPACKE_LIBRARY NAMES lapacke)
  if(BLAS_FOUND AND LAPACK_FOUND AND GPUSVD_LAPACKE_INCLUDE_DIR AND GPUSVD_LAPACKE_LIBRARY)
    add_library(gpusvd::lapack INTERFACE IMPORTED)
    target_include_directories(gpusvd::lapack INTERFACE ${GPUSVD_LAPACKE_INCLUDE_DIR})
    target_link_libraries(gpusvd::lapack INTERFACE ${GPUSVD_LAPACKE_LIBRARY} LAPACK::LAPACK BLAS::BLAS)
    set(GPUSVD_BLAS_VENDOR "OpenBLAS (FindBLAS) + LAPACKE")
    set(GPUSVD_LAPACK_STATIC_LIBS ${GPUSVD_LAPACKE_LIBRARY} ${LAPACK_LIBRARIES} ${BLAS_LIBRARIES})
    set(GPUSVD_LAPACK_FOUND TRUE)
  elseif(NOT GPUSVD_LAPACK_OPTIONAL)
    message(FATAL_ERROR "gpusvd: LAPACKE not found (lapacke.h: ${GPUSVD_LAPACKE_INCLUDE_DIR}, "
                        "library: ${GPUSVD_LAPACKE_LIBRARY})")
  endif()
endif()
if(GPUSVD_LAPACK_FOUND AND NOT GPUSVD_LAPACK_OPTIONAL)
  message(STATUS "gpusvd: BLAS/LAPACK = ${GPUSVD_BLAS_VENDOR}")
endif()
