# baselines/cudnn.cmake: where cuDNN's headers are, for the cuDNN rows of the
# row-wise ops (baselines/cudnn_rows.c). Nothing is linked: the library is
# loaded at run time (baselines/cudnn_lib.h), so the binary starts without it.
#
# Looked for, first found wins:
#   1. COMPARE_CUDNN_ROOT (cache variable): a folder with include/cudnn.h
#      (a cuDNN tarball, a pip package's nvidia/cudnn, a conda env);
#   2. the CUDA toolkit's include folder (cuDNN installed into the toolkit);
#   3. a pip nvidia-cudnn-cu13 or -cu12 package: nvidia/cudnn/include under
#      python3's site-packages (purelib and platlib, the user site too).
# Found: the target gets COMPARE_HAVE_CUDNN, the include folder, and
# COMPARE_CUDNN_LIBDIR (the lib folder beside it: the loader's last resort
# after libcudnn.so.9 on the system search path). Not found: the cuDNN rows
# are SKIP "cuDNN not found at build time".
set(COMPARE_CUDNN_ROOT "" CACHE PATH "a folder with include/cudnn.h (cuDNN 9), tried before the toolkit and pip")

function(compare_find_cudnn target)
  set(_roots "")
  if(COMPARE_CUDNN_ROOT)
    list(APPEND _roots "${COMPARE_CUDNN_ROOT}")
  endif()
  foreach(_inc IN LISTS CUDAToolkit_INCLUDE_DIRS)
    get_filename_component(_root "${_inc}" DIRECTORY)
    list(APPEND _roots "${_root}")
  endforeach()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(
      COMMAND ${Python3_EXECUTABLE} -c
              "import site, sysconfig; p = [sysconfig.get_paths()[k] for k in ('purelib', 'platlib')]; p += [site.getusersitepackages()]; print(';'.join(p))"
      OUTPUT_VARIABLE _sites OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    foreach(_site IN LISTS _sites)
      list(APPEND _roots "${_site}/nvidia/cudnn" "${_site}/nvidia/cu13" "${_site}/nvidia/cu12")
    endforeach()
  endif()
  set(_found "")
  foreach(_root IN LISTS _roots)
    if(NOT _found AND EXISTS "${_root}/include/cudnn.h" AND EXISTS "${_root}/include/cudnn_version.h")
      file(STRINGS "${_root}/include/cudnn_version.h" _major REGEX "#define CUDNN_MAJOR [0-9]+")
      if(_major MATCHES "CUDNN_MAJOR 9")
        set(_found "${_root}")
      endif()
    endif()
  endforeach()
  if(_found)
    set(_libdir "${_found}/lib")
    if(NOT EXISTS "${_libdir}/libcudnn.so.9" AND EXISTS "${_found}/lib64/libcudnn.so.9")
      set(_libdir "${_found}/lib64")
    endif()
    message(STATUS "cuDNN 9 headers: ${_found}/include (run-time fallback library folder: ${_libdir})")
    target_include_directories(${target} PRIVATE "${_found}/include")
    target_compile_definitions(${target} PRIVATE COMPARE_HAVE_CUDNN=1 COMPARE_CUDNN_LIBDIR="${_libdir}")
  else()
    message(STATUS "cuDNN 9 headers not found (COMPARE_CUDNN_ROOT, the CUDA toolkit, pip nvidia-cudnn-cu13/-cu12): "
                   "the cuDNN rows will be SKIP")
  endif()
endfunction()
