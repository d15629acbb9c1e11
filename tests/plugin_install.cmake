# tests/plugin_install.cmake (ctest test_plugin_install, label cpu): what a user
# does with compare's package. 1. cmake --install the build into a scratch
# prefix; 2. configure and build examples/plugin, a project outside compare's
# tree, against that prefix (find_package(compare)), exactly as a user does:
# no architecture given, so on a machine without a GPU this checks that the
# example's own default builds there; 3. the installed compare lists the
# plugin's two variants (sgemm and reduce), with its file as their source.
#   cmake -DBUILD=<build dir> -DSRC=<source dir> -DWORK=<scratch> [-DGEN=<generator>] -P plugin_install.cmake
file(REMOVE_RECURSE ${WORK})
set(PREFIX ${WORK}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}")
endif()
foreach(f bin/compare lib/libcompare_gpu.so include/compare/compare_plugin.h lib/cmake/compare/compareConfig.cmake)
  if(NOT EXISTS ${PREFIX}/${f})
    message(FATAL_ERROR "the install lacks ${f}")
  endif()
endforeach()

set(gen)
if(GEN)
  set(gen -G ${GEN})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/examples/plugin -B ${WORK}/example ${gen}
                        -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_BUILD_TYPE=Release
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring examples/plugin against the installed package failed (${rc}):\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/example RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building examples/plugin failed (${rc}):\n${out}")
endif()
if(NOT EXISTS ${WORK}/example/libmine.so)
  message(FATAL_ERROR "examples/plugin built no libmine.so")
endif()
# the architectures it chose on its own: with no GPU visible, its documented
# list (not `native`, which cannot be resolved without one)
file(STRINGS ${WORK}/example/CMakeCache.txt arch REGEX "^CMAKE_CUDA_ARCHITECTURES:")
string(REGEX REPLACE "^[^=]*=" "" arch "${arch}")
execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                RESULT_VARIABLE smi_rc OUTPUT_VARIABLE smi_out ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
if((NOT smi_rc EQUAL 0 OR smi_out STREQUAL "") AND NOT DEFINED ENV{CUDAARCHS} AND NOT arch MATCHES "^80[^0-9]+90$")
  message(FATAL_ERROR "with no GPU, examples/plugin chose '${arch}', not its documented 80;90")
endif()
message(STATUS "examples/plugin built for ${arch}")

execute_process(COMMAND ${PREFIX}/bin/compare --plugin ${WORK}/example/libmine.so --list
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed compare --plugin libmine.so --list: exit ${rc}\n${out}\n${err}")
endif()
foreach(op sgemm reduce)
  string(REGEX MATCH "\n${op} +mine +hand +fp32 +libmine\\.so +" row "${out}")
  if(NOT row)
    message(FATAL_ERROR "--list does not show the plugin's row '${op} mine hand fp32 libmine.so':\n${out}")
  endif()
  string(STRIP "${row}" row)
  message(STATUS "installed compare lists the example plugin's row: ${row}")
endforeach()
