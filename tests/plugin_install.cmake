# tests/plugin_install.cmake (ctest test_plugin_install, label cpu): what a user
# does with compare's package. 1. cmake --install the build into a scratch
# prefix; 2. configure and build examples/plugin, a project outside compare's
# tree, against that prefix (find_package(compare)); 3. the installed compare
# lists the plugin's variant, with its file as its source.
#   cmake -DBUILD=<build dir> -DSRC=<source dir> -DWORK=<scratch> -DARCH=<cuda archs> -P plugin_install.cmake
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
if(ARCH STREQUAL "native" OR ARCH STREQUAL "")
  set(ARCH 90)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/examples/plugin -B ${WORK}/example ${gen}
                        -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CUDA_ARCHITECTURES=${ARCH} -DCMAKE_BUILD_TYPE=Release
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

execute_process(COMMAND ${PREFIX}/bin/compare --plugin ${WORK}/example/libmine.so --list
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed compare --plugin libmine.so --list: exit ${rc}\n${out}\n${err}")
endif()
string(REGEX MATCH "\nsgemm +mine +hand +fp32 +libmine\\.so +" row "${out}")
if(NOT row)
  message(FATAL_ERROR "--list does not show the plugin's row 'sgemm mine hand fp32 libmine.so':\n${out}")
endif()
message(STATUS "installed compare lists the example plugin: ${row}")
