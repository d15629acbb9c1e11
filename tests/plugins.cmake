# tests/plugins.cmake: plugins for the tests (included from tests/CMakeLists.txt).
#   good_plugin       ABI 2: a row for every op, and one per outcome (ok, SKIP,
#                     ERROR, FAIL): tests/test_gpu_cli.c runs it
#   abi1_plugin       a real ABI-1 plugin (its own frozen header): refused with
#                     the steps to port it (tests/test_plugin.c)
#   example_plugin    examples/plugin/mine.cu built in this tree (libmine.so):
#                     tests/test_gpu_cli.c runs its sgemm and reduce rows
#   bad_plugin_N      plugins compare must refuse (tests/plugins/bad_plugin.c,
#                     BAD_KIND N): tests/test_plugin.c checks each message
#   test_plugin_install  cmake --install into a scratch prefix, then builds
#                     examples/plugin, unpatched, against the installed package
#                     and lists it
set(COMPARE_TEST_PLUGIN_DIR ${CMAKE_CURRENT_BINARY_DIR}/plugins)
add_library(good_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/good_plugin.cu)
target_link_libraries(good_plugin PRIVATE compare::plugin)
add_library(abi1_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/abi1_plugin.cu)
add_library(example_plugin MODULE ${CMAKE_SOURCE_DIR}/examples/plugin/mine.cu)
target_link_libraries(example_plugin PRIVATE compare::plugin)
set_target_properties(good_plugin abi1_plugin example_plugin PROPERTIES CUDA_RUNTIME_LIBRARY Shared
                      LIBRARY_OUTPUT_DIRECTORY ${COMPARE_TEST_PLUGIN_DIR})
set_target_properties(example_plugin PROPERTIES OUTPUT_NAME mine)

set(COMPARE_BAD_PLUGINS "")
foreach(kind 1 2 3 4 5 6 7 8 9 10)
  add_library(bad_plugin_${kind} MODULE ${CMAKE_CURRENT_SOURCE_DIR}/plugins/bad_plugin.c)
  target_compile_definitions(bad_plugin_${kind} PRIVATE BAD_KIND=${kind})
  target_include_directories(bad_plugin_${kind} PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(bad_plugin_${kind} PRIVATE compare::plugin)
  set_target_properties(bad_plugin_${kind} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${COMPARE_TEST_PLUGIN_DIR})
  list(APPEND COMPARE_BAD_PLUGINS bad_plugin_${kind})
endforeach()

if(TARGET test_plugin)
  target_compile_definitions(test_plugin PRIVATE
    PLUGIN_DIR="${COMPARE_TEST_PLUGIN_DIR}" GOOD_PLUGIN="$<TARGET_FILE:good_plugin>"
    ABI1_PLUGIN="$<TARGET_FILE:abi1_plugin>" EXAMPLE_PLUGIN="$<TARGET_FILE:example_plugin>")
  add_dependencies(test_plugin good_plugin abi1_plugin example_plugin ${COMPARE_BAD_PLUGINS})
endif()
if(TARGET test_gpu_cli)
  target_compile_definitions(test_gpu_cli PRIVATE GOOD_PLUGIN="$<TARGET_FILE:good_plugin>"
    EXAMPLE_PLUGIN="$<TARGET_FILE:example_plugin>")
  add_dependencies(test_gpu_cli good_plugin example_plugin)
endif()

add_test(NAME test_plugin_install
         COMMAND ${CMAKE_COMMAND} -DBUILD=${CMAKE_BINARY_DIR} -DSRC=${CMAKE_SOURCE_DIR}
                 -DWORK=${CMAKE_CURRENT_BINARY_DIR}/plugin_install
                 -DGEN=${CMAKE_GENERATOR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/plugin_install.cmake)
set_tests_properties(test_plugin_install PROPERTIES LABELS cpu TIMEOUT 600)
