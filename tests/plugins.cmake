# tests/plugins.cmake: plugins for the tests (included from tests/CMakeLists.txt).
#   good_plugin       five variants, one per outcome (ok, SKIP, ERROR, FAIL, a
#                     reduce with a workspace): tests/test_gpu_cli.c runs it
#   bad_plugin_N      plugins compare must refuse (tests/plugins/bad_plugin.c,
#                     BAD_KIND N): tests/test_plugin.c checks each message
#   test_plugin_install  cmake --install into a scratch prefix, then builds
#                     examples/plugin against the installed package and lists it
add_library(good_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/good_plugin.cu)
target_include_directories(good_plugin PRIVATE ${CMAKE_SOURCE_DIR}/src/gpu)
set_target_properties(good_plugin PROPERTIES CUDA_RUNTIME_LIBRARY Shared
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/plugins)

set(COMPARE_BAD_PLUGINS "")
foreach(kind 1 2 3 4 5 6 7)
  add_library(bad_plugin_${kind} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/bad_plugin.c)
  target_compile_definitions(bad_plugin_${kind} PRIVATE BAD_KIND=${kind})
  target_include_directories(bad_plugin_${kind} PRIVATE ${CMAKE_SOURCE_DIR}/src/gpu ${CUDAToolkit_INCLUDE_DIRS})
  set_target_properties(bad_plugin_${kind} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/plugins)
  list(APPEND COMPARE_BAD_PLUGINS bad_plugin_${kind})
endforeach()

if(TARGET test_plugin)
  target_compile_definitions(test_plugin PRIVATE
    PLUGIN_DIR="${CMAKE_CURRENT_BINARY_DIR}/plugins" GOOD_PLUGIN="$<TARGET_FILE:good_plugin>")
  add_dependencies(test_plugin good_plugin ${COMPARE_BAD_PLUGINS})
endif()
if(TARGET test_gpu_cli)
  target_compile_definitions(test_gpu_cli PRIVATE GOOD_PLUGIN="$<TARGET_FILE:good_plugin>")
  add_dependencies(test_gpu_cli good_plugin)
endif()

add_test(NAME test_plugin_install
         COMMAND ${CMAKE_COMMAND} -DBUILD=${CMAKE_BINARY_DIR} -DSRC=${CMAKE_SOURCE_DIR}
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/plugin_install
                 -DARCH=${CMAKE_CUDA_ARCHITECTURES} -DGEN=${CMAKE_GENERATOR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/plugin_install.cmake)
set_tests_properties(test_plugin_install PROPERTIES LABELS cpu TIMEOUT 600)
