# tests/clocks.cmake: the fake libnvidia-ml that test_clocks (label cpu, from
# the test_*.c glob) loads instead of NVIDIA's, so the clocks module is tested
# with no GPU and no driver. Included from tests/CMakeLists.txt.
#
#   fake_nvml       the NVML entry points src/gpu/clocks.c uses, answers scripted
#                   by FAKE_NVML_* environment variables (see tests/fake_nvml.c)
#   fake_nvml_old   the same without nvmlDeviceGetCurrentClocksEventReasons (a
#                   driver from before that name), for the ThrottleReasons fallback

foreach(lib fake_nvml fake_nvml_old)
  add_library(${lib} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fake_nvml.c)
  target_compile_options(${lib} PRIVATE ${COMPARE_C_WARNINGS})
  # its own directory, away from anything that loads libraries by search path
  set_target_properties(${lib} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fake_nvml)
endforeach()
target_compile_definitions(fake_nvml_old PRIVATE FAKE_NVML_OLD=1)

target_compile_definitions(test_clocks PRIVATE FAKE_NVML_LIB="$<TARGET_FILE:fake_nvml>"
                           FAKE_NVML_OLD_LIB="$<TARGET_FILE:fake_nvml_old>")
target_link_libraries(test_clocks PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(test_clocks fake_nvml fake_nvml_old)
# the module itself, compiled in: it has no CUDA header, so this cpu test links
# no CUDA library (the GPU library it belongs to would load cuBLAS)
target_sources(test_clocks PRIVATE ${CMAKE_SOURCE_DIR}/src/gpu/clocks.c)
target_include_directories(test_clocks PRIVATE ${CMAKE_SOURCE_DIR}/src/gpu)
target_link_libraries(test_clocks PRIVATE Threads::Threads)
