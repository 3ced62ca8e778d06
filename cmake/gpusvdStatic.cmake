# gpusvd_static (libgpusvd.a, exported as gpusvd::gpusvd_static): the sources, definitions and
# options of the shared library gpusvd, copied once src/ and cuda/ have defined them, so the two
# cannot drift apart.
#
# Symbols: the objects are compiled like the shared library's (hidden visibility, PIC so that the
# archive can also go into a consumer's shared library), then merged into one relocatable object
# in which every hidden symbol is made local. The archive thus defines, as global symbols, the
# gpusvd* API and nothing of its internals. What an archive cannot do, unlike libgpusvd.so with
# its version script:
# - The gpusvd* API keeps default visibility: a shared library built from libgpusvd.a exports it
#   unless linked with -Wl,--exclude-libs,libgpusvd.a (or a version script of its own).
# - Weak definitions stay global: instantiations of standard library templates (libstdc++ gives
#   namespace std default visibility) and a few of gpusvd's own template statics. The linker keeps
#   one definition of each name, as for any C++ code, so they cannot clash.
# - The dependencies are not inside: the consumer links OpenBLAS, LAPACKE, libstdc++ and, with
#   the CUDA backend, the static CUDA runtime (gpusvd.pc's Libs.private; the CMake target's link
#   interface), so a program that also links another CUDA runtime has two of them; only
#   libgpusvd.so keeps its CUDA runtime to itself.
get_target_property(_gpusvd_sources gpusvd SOURCES)
get_target_property(_gpusvd_source_dir gpusvd SOURCE_DIR)
set(_gpusvd_static_sources "")
foreach(_src IN LISTS _gpusvd_sources)
  if(NOT _src MATCHES "^\\$<" AND NOT IS_ABSOLUTE "${_src}")
    set(_src "${_gpusvd_source_dir}/${_src}")
  endif()
  list(APPEND _gpusvd_static_sources "${_src}")
endforeach()

add_library(gpusvd_static STATIC ${_gpusvd_static_sources})
add_library(gpusvd::gpusvd_static ALIAS gpusvd_static)
foreach(_prop INCLUDE_DIRECTORIES INTERFACE_INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS
              COMPILE_FEATURES)
  get_target_property(_value gpusvd ${_prop})
  if(_value)
    set_property(TARGET gpusvd_static PROPERTY ${_prop} "${_value}")
  endif()
endforeach()
get_target_property(_gpusvd_links gpusvd LINK_LIBRARIES)
if(_gpusvd_links)
  list(REMOVE_DUPLICATES _gpusvd_links)
  target_link_libraries(gpusvd_static PRIVATE ${_gpusvd_links})
endif()
# The C++ runtime: what the C++ compiler links beyond what the C compiler does. CMake adds it only
# where the consumer enables C++, so a C program would otherwise miss it.
set(_gpusvd_cxx_runtime "")
foreach(_lib IN LISTS CMAKE_CXX_IMPLICIT_LINK_LIBRARIES)
  if(NOT _lib IN_LIST CMAKE_C_IMPLICIT_LINK_LIBRARIES AND NOT _lib IN_LIST _gpusvd_cxx_runtime)
    list(APPEND _gpusvd_cxx_runtime ${_lib})
  endif()
endforeach()
target_link_libraries(gpusvd_static PRIVATE ${_gpusvd_cxx_runtime})
set_target_properties(gpusvd_static PROPERTIES
  OUTPUT_NAME gpusvd
  EXPORT_NAME gpusvd_static
  CXX_VISIBILITY_PRESET hidden
  CUDA_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  POSITION_INDEPENDENT_CODE ON)

# The merge needs GNU ld's -r with --force-group-allocation (COMDAT groups resolved inside the
# merged object: a group whose signature symbol became local could otherwise be discarded in
# favour of a consumer's group of the same name, leaving our references dangling) and objcopy.
set(_gpusvd_can_merge FALSE)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_LINKER AND CMAKE_OBJCOPY AND CMAKE_AR AND CMAKE_RANLIB)
  execute_process(COMMAND ${CMAKE_LINKER} --help OUTPUT_VARIABLE _ld_help ERROR_QUIET)
  if(_ld_help MATCHES "--force-group-allocation")
    set(_gpusvd_can_merge TRUE)
  endif()
endif()
if(_gpusvd_can_merge)
  set(_merged "${CMAKE_CURRENT_BINARY_DIR}/gpusvd_static_merge/gpusvd.o")
  add_custom_command(TARGET gpusvd_static POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/gpusvd_static_merge"
    COMMAND ${CMAKE_LINKER} -r --force-group-allocation --whole-archive "$<TARGET_FILE:gpusvd_static>"
            -o "${_merged}"
    COMMAND ${CMAKE_OBJCOPY} --localize-hidden "${_merged}"
    COMMAND ${CMAKE_COMMAND} -E rm -f "$<TARGET_FILE:gpusvd_static>"
    COMMAND ${CMAKE_AR} qc "$<TARGET_FILE:gpusvd_static>" "${_merged}"
    COMMAND ${CMAKE_RANLIB} "$<TARGET_FILE:gpusvd_static>"
    COMMENT "Merging libgpusvd.a into one object with its internal symbols local"
    VERBATIM)
  add_test(NAME abi_exports_static COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:gpusvd_static>
           -DSTATIC=ON -P ${CMAKE_CURRENT_LIST_DIR}/check_exports.cmake)
  set_tests_properties(abi_exports_static PROPERTIES LABELS cpu)
else()
  message(STATUS "gpusvd: libgpusvd.a keeps its internal symbols global (needs GNU ld -r "
                 "--force-group-allocation and objcopy)")
endif()

# Libs.private of gpusvd.pc: what a static link of libgpusvd.a adds, the C++ runtime included.
set(_gpusvd_private ${GPUSVD_LAPACK_STATIC_LIBS})
if(GPUSVD_ENABLE_CUDA)
  list(APPEND _gpusvd_private ${CUDA_cudart_static_LIBRARY} -lrt)
endif()
list(APPEND _gpusvd_private ${CMAKE_THREAD_LIBS_INIT})
foreach(_lib IN LISTS CMAKE_DL_LIBS _gpusvd_cxx_runtime)
  list(APPEND _gpusvd_private -l${_lib})
endforeach()
# One of each: search directories where they first appear, libraries where they last appear (an
# archive must come after everything that needs it).
set(_gpusvd_dirs "")
set(_gpusvd_libs "")
foreach(_arg IN LISTS _gpusvd_private)
  if(_arg MATCHES "^-L")
    if(NOT _arg IN_LIST _gpusvd_dirs)
      list(APPEND _gpusvd_dirs "${_arg}")
    endif()
  else()
    list(REMOVE_ITEM _gpusvd_libs "${_arg}")
    list(APPEND _gpusvd_libs "${_arg}")
  endif()
endforeach()
list(JOIN _gpusvd_dirs " " _gpusvd_dirs)
list(JOIN _gpusvd_libs " " _gpusvd_libs)
string(STRIP "${_gpusvd_dirs} ${_gpusvd_libs}" GPUSVD_PC_LIBS_PRIVATE)
set(GPUSVD_STATIC_DEPS_TEXT "Threads and OpenBLAS + LAPACKE")
if(GPUSVD_ENABLE_CUDA)
  set(GPUSVD_STATIC_DEPS_TEXT "Threads, OpenBLAS + LAPACKE and the CUDA toolkit (cudart_static)")
endif()
