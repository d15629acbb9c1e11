# tests/plots.cmake: ctest tests (label cpu) for plots/plot.py and plots/tables.py.
# Included from tests/CMakeLists.txt. They need Python 3 with matplotlib
# (pip install -r plots/requirements.txt): without either they FAIL with a
# message saying so, they never skip, so CI cannot pass without its plots.
#
#   test_plot_synthetic       plot.py on tests/data/synthetic.csv: every chart is a valid PNG and SVG
#   test_plot_h200            the same on results/h200/*.csv (registered only when such files exist)
#   test_plot_missing_column  a CSV lacking a column, or absent: exit 2 naming the file and column
#   test_tables               tables.py rows, selections, and the --readme rewrite on a copy

get_filename_component(compare_plots_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(compare_plots_py "${compare_plots_root}/plots/plot.py")
set(compare_tables_py "${compare_plots_root}/plots/tables.py")
set(compare_plots_check "${compare_plots_root}/tests/check_plots.py")
set(compare_tables_check "${compare_plots_root}/tests/check_tables.py")
set(compare_plots_fixture "${compare_plots_root}/tests/data/synthetic.csv")

# CONFIGURE_DEPENDS: adding a CSV under results/h200 re-runs the configure step
# at the next build, so test_plot_h200 appears as soon as there is data.
file(GLOB compare_h200_csvs CONFIGURE_DEPENDS "${compare_plots_root}/results/h200/*.csv")

set(compare_plot_tests test_plot_synthetic test_plot_missing_column test_tables)
if(compare_h200_csvs)
  list(APPEND compare_plot_tests test_plot_h200)
endif()

find_package(Python3 COMPONENTS Interpreter)

if(NOT Python3_Interpreter_FOUND)
  message(WARNING "Python 3 not found: the plot tests (${compare_plot_tests}) will fail")
  set(compare_no_python "${CMAKE_CURRENT_BINARY_DIR}/no_python3.cmake")
  file(WRITE "${compare_no_python}"
       "message(FATAL_ERROR \"Python 3 was not found when configuring: install python3, "
       "then pip install -r plots/requirements.txt, and re-run cmake\")\n")
  foreach(t IN LISTS compare_plot_tests)
    add_test(NAME ${t} COMMAND ${CMAKE_COMMAND} -P "${compare_no_python}")
    set_tests_properties(${t} PROPERTIES LABELS cpu)
  endforeach()
  return()
endif()

execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import matplotlib"
                RESULT_VARIABLE compare_mpl_rc OUTPUT_QUIET ERROR_QUIET)
if(NOT compare_mpl_rc EQUAL 0)
  message(WARNING "matplotlib is not importable by ${Python3_EXECUTABLE}: the plot tests "
                  "will fail until you run: pip install -r plots/requirements.txt")
endif()

set(compare_expected_charts "")
foreach(stem sgemm_pct_of_library sgemm_throughput reduce_pct_of_library reduce_throughput
             sort_pct_of_library sort_throughput roofline)
  list(APPEND compare_expected_charts --expect ${stem})
endforeach()

add_test(NAME test_plot_synthetic
         COMMAND "${Python3_EXECUTABLE}" "${compare_plots_check}" plot
                 --script "${compare_plots_py}"
                 --out "${CMAKE_CURRENT_BINARY_DIR}/plots_synthetic"
                 ${compare_expected_charts} --skipped 2 "${compare_plots_fixture}")

if(compare_h200_csvs)
  add_test(NAME test_plot_h200
           COMMAND "${Python3_EXECUTABLE}" "${compare_plots_check}" plot
                   --script "${compare_plots_py}"
                   --out "${CMAKE_CURRENT_BINARY_DIR}/plots_h200" ${compare_h200_csvs})
endif()

add_test(NAME test_plot_missing_column
         COMMAND "${Python3_EXECUTABLE}" "${compare_plots_check}" missing-column
                 --script "${compare_plots_py}"
                 --work "${CMAKE_CURRENT_BINARY_DIR}/plots_missing_column"
                 --column pct_of_ref_library --column status "${compare_plots_fixture}")

add_test(NAME test_tables
         COMMAND "${Python3_EXECUTABLE}" "${compare_tables_check}"
                 --script "${compare_tables_py}"
                 --work "${CMAKE_CURRENT_BINARY_DIR}/tables_work" "${compare_plots_fixture}")

set_tests_properties(${compare_plot_tests} PROPERTIES
                     LABELS cpu TIMEOUT 300
                     ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;MPLBACKEND=Agg")
