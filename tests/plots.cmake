# tests/plots.cmake: ctest tests (label cpu) for the Python tools under plots/.
# Included from tests/CMakeLists.txt.
#
#   test_plot_synthetic       plot.py on tests/data/synthetic.csv: every chart is a valid PNG and SVG
#   test_plot_labs            on tests/data/synthetic_labs.csv (the newer columns, a list of sgemm
#                             shapes, the ops transpose, histogram, scan, transfer, cpu_omp rows,
#                             fallbacks): the charts named below, the fallback footnotes on the
#                             charts that hold a fallback row and on no other
#   test_plot_mixed           both synthetic CSVs at once (an older CSV beside a newer one): the
#                             charts derived from the CSVs
#   test_plot_newop           on tests/data/synthetic_newop.csv (ops softmax and attention, which
#                             no Python file names; a shape column): their charts and the roofline
#   (every test_plot_*: each chart's Source metadata names the CSV it was drawn from)
#   test_plot_h200            the same on results/h200/*.csv (registered only when such files exist)
#   test_plot_missing_column  a CSV lacking a column, or absent: exit 2 naming the file and column
#   test_plot_roofline        tests/check_roofline.py on fake CSVs: plots/peaks.py's lookup by
#                             compute capability (and its rates = src/core/peaks.c's), the roofs;
#                             markers at one intensity drawn apart; a CSV without the newer
#                             columns still plots (--roofline and the overview); the intensity
#                             column used where present
#   test_tables               tables.py rows, selections, and the --readme rewrite on a copy
#   test_tables_labs          tables.py on synthetic_labs.csv: the shapes view and the new ops print
#                             the expected Markdown; README blocks of them; an absent csv= exits 2
#   test_tables_newop         tables.py on synthetic_newop.csv: the unknown ops' tables (unit,
#                             %peak, series, shape strings, speedup_vs) and a README block
#   test_readme_tables        the README's generated tables are up to date
#   test_diff_identical       compare_csv.py diff: identical figures exit 0
#   test_diff_regression      a hand variant 5% slower exits 1 and is named
#   test_diff_threshold       2% passes --threshold 3, fails --threshold 1; a uniform slowdown passes
#   test_diff_missing_column  a missing column / absent file / bad argument exits 2, named
#   test_csv_merge_runs       runs of one device and commit are all kept; the newest re-run is used
#
# The test_plot_* tests need matplotlib: they run with COMPARE_PLOT_PYTHON
# (plots/python_env.cmake: the found python3, or the venv it makes in the build
# tree). Where there is none (offline, no venv) they are SKIPPED (exit 77),
# saying why; with COMPARE_REQUIRE_PLOTS=1 in the environment (as .ci/run sets
# it) they FAIL instead. The others need only python3's standard library.

get_filename_component(compare_plots_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
include("${compare_plots_root}/plots/python_env.cmake")

set(compare_plots_dir "${compare_plots_root}/plots")
set(compare_plots_py "${compare_plots_dir}/plot.py")
set(compare_plots_check "${compare_plots_root}/tests/check_plots.py")
set(compare_plots_fixture "${compare_plots_root}/tests/data/synthetic.csv")
set(compare_plots_labs "${compare_plots_root}/tests/data/synthetic_labs.csv")
set(compare_plots_newop "${compare_plots_root}/tests/data/synthetic_newop.csv")

# CONFIGURE_DEPENDS: adding a CSV under results/h200 re-runs the configure step
# at the next build, so test_plot_h200 appears as soon as there is data.
file(GLOB compare_h200_csvs CONFIGURE_DEPENDS "${compare_plots_root}/results/h200/*.csv")

set(compare_plot_tests test_plot_synthetic test_plot_labs test_plot_mixed test_plot_newop
                       test_plot_missing_column)
list(APPEND compare_plot_tests test_plot_roofline)
if(compare_h200_csvs)
  list(APPEND compare_plot_tests test_plot_h200)
endif()
set(compare_diff_checks identical regression threshold missing-column)
set(compare_csv_tests test_tables test_tables_labs test_tables_newop test_readme_tables
                      test_docs_tables test_csv_merge_runs)
foreach(check IN LISTS compare_diff_checks)
  string(REPLACE "-" "_" name "${check}")
  list(APPEND compare_csv_tests test_diff_${name})
endforeach()

if(NOT COMPARE_PYTHON)
  # nothing can run these: skipped (failed with COMPARE_REQUIRE_PLOTS=1), never dropped
  foreach(t IN LISTS compare_plot_tests compare_csv_tests)
    add_test(NAME ${t} COMMAND "${CMAKE_COMMAND}" "-DWHY=${COMPARE_PLOT_PYTHON_WHY}"
                               -P "${CMAKE_CURRENT_LIST_DIR}/skip_or_fail.cmake")
    set_tests_properties(${t} PROPERTIES LABELS cpu SKIP_REGULAR_EXPRESSION "^SKIPPED: ")
  endforeach()
  return()
endif()

# ---- plot.py (matplotlib) ---------------------------------------------------------
if(COMPARE_PLOT_PYTHON)
  set(compare_plot_python "${COMPARE_PLOT_PYTHON}")
else()
  set(compare_plot_python "${COMPARE_PYTHON}")  # check_plots.py reports the skip
endif()
set(compare_plot_check "${compare_plot_python}" "${compare_plots_check}")
set(compare_why "")
if(COMPARE_PLOT_PYTHON_WHY)
  set(compare_why --why "${COMPARE_PLOT_PYTHON_WHY}")
endif()

# test: plot.py on one CSV writes exactly the CHARTS named, counts `skipped`
# rows whose status is not ok, and prints each of NOTES
function(compare_plot_expect test out skipped csv)
  cmake_parse_arguments(arg "" "" "CHARTS;NOTES" ${ARGN})
  set(expects "")
  foreach(stem IN LISTS arg_CHARTS)
    list(APPEND expects --expect ${stem})
  endforeach()
  foreach(note IN LISTS arg_NOTES)
    list(APPEND expects "--note=${note}")
  endforeach()
  add_test(NAME ${test}
           COMMAND ${compare_plot_check} plot ${compare_why}
                   --script "${compare_plots_py}"
                   --out "${CMAKE_CURRENT_BINARY_DIR}/${out}"
                   ${expects} --skipped ${skipped} "${csv}")
endfunction()

compare_plot_expect(test_plot_synthetic plots_synthetic 2 "${compare_plots_fixture}"
                    CHARTS sgemm_pct_of_library sgemm_throughput reduce_pct_of_library
                           reduce_throughput sort_pct_of_library sort_throughput roofline)

set(compare_labs_charts "")
foreach(op sgemm_shapes reduce transpose histogram scan transfer)
  list(APPEND compare_labs_charts --expect ${op}_pct_of_library --expect ${op}_throughput)
endforeach()
set(compare_tma_note "tf32_tma at 1024x50257x768 ran tf32_mma: n not a multiple of 4")
set(compare_fast_note
    "fast at 1002 ran transpose_fast_scalar_64x64: m or n not a multiple of 4: the scalar path")
add_test(NAME test_plot_labs
         COMMAND ${compare_plot_check} plot ${compare_why}
                 --script "${compare_plots_py}"
                 --out "${CMAKE_CURRENT_BINARY_DIR}/plots_labs"
                 ${compare_labs_charts} --expect roofline --skipped 5
                 "--footnote=sgemm_shapes_pct_of_library=${compare_tma_note}"
                 "--footnote=sgemm_shapes_throughput=${compare_tma_note}"
                 "--footnote=roofline=${compare_tma_note}"
                 "--footnote=transpose_throughput=${compare_fast_note}"
                 "${compare_plots_labs}")

add_test(NAME test_plot_mixed
         COMMAND ${compare_plot_check} plot ${compare_why}
                 --script "${compare_plots_py}"
                 --out "${CMAKE_CURRENT_BINARY_DIR}/plots_mixed"
                 "${compare_plots_fixture}" "${compare_plots_labs}")

# the speed-up from the speedup_vs column, one per series (never fp32 over bf16)
compare_plot_expect(test_plot_newop plots_newop 1 "${compare_plots_newop}"
                    CHARTS softmax_pct_of_library softmax_throughput
                           attention_shapes_pct_of_library attention_shapes_throughput roofline
                    NOTES "online: 2.11x the speed of naive at rows=4096,cols=1024, softmax fp32"
                          "online: 2.11x the speed of naive at rows=4096,cols=1024, softmax bf16")

if(compare_h200_csvs)
  add_test(NAME test_plot_h200
           COMMAND ${compare_plot_check} plot ${compare_why}
                   --script "${compare_plots_py}"
                   --out "${CMAKE_CURRENT_BINARY_DIR}/plots_h200" ${compare_h200_csvs})
endif()

add_test(NAME test_plot_missing_column
         COMMAND ${compare_plot_check} missing-column ${compare_why}
                 --script "${compare_plots_py}"
                 --work "${CMAKE_CURRENT_BINARY_DIR}/plots_missing_column"
                 --column pct_of_ref_library --column status "${compare_plots_fixture}")

add_test(NAME test_plot_roofline
         COMMAND "${compare_plot_python}" "${compare_plots_root}/tests/check_roofline.py"
                 --plots "${compare_plots_dir}" --work "${CMAKE_CURRENT_BINARY_DIR}/plots_roofline"
                 ${compare_why})

set_tests_properties(${compare_plot_tests} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

# ---- tables.py and compare_csv.py (standard library) ------------------------------
add_test(NAME test_tables
         COMMAND "${COMPARE_PYTHON}" "${compare_plots_root}/tests/check_tables.py"
                 --script "${compare_plots_dir}/tables.py"
                 --work "${CMAKE_CURRENT_BINARY_DIR}/tables_work" "${compare_plots_fixture}")

add_test(NAME test_tables_labs
         COMMAND "${COMPARE_PYTHON}" "${compare_plots_root}/tests/check_tables.py" --labs
                 --script "${compare_plots_dir}/tables.py"
                 --work "${CMAKE_CURRENT_BINARY_DIR}/tables_labs_work" "${compare_plots_labs}")

add_test(NAME test_tables_newop
         COMMAND "${COMPARE_PYTHON}" "${compare_plots_root}/tests/check_tables.py" --newop
                 --script "${compare_plots_dir}/tables.py"
                 --work "${CMAKE_CURRENT_BINARY_DIR}/tables_newop_work" "${compare_plots_newop}")

# The README's result tables are generated from the committed CSVs
# (plots/tables.py --readme); this fails when they are stale or hand-edited.
add_test(NAME test_readme_tables
         COMMAND "${COMPARE_PYTHON}" "${compare_plots_dir}/tables.py"
                 --readme "${compare_plots_root}/README.md" --check)
# and the full set of them in docs/results.md
add_test(NAME test_docs_tables
         COMMAND "${COMPARE_PYTHON}" "${compare_plots_dir}/tables.py"
                 --readme "${compare_plots_root}/docs/results.md" --check)

function(compare_check_diff test check)
  add_test(NAME ${test}
           COMMAND "${COMPARE_PYTHON}" "${compare_plots_root}/tests/check_diff.py" ${check}
                   --plots "${compare_plots_dir}" --work "${CMAKE_CURRENT_BINARY_DIR}/${test}"
                   "${compare_plots_fixture}")
endfunction()
foreach(check IN LISTS compare_diff_checks)
  string(REPLACE "-" "_" name "${check}")
  compare_check_diff(test_diff_${name} ${check})
endforeach()
compare_check_diff(test_csv_merge_runs merge-runs)

set_tests_properties(${compare_plot_tests} ${compare_csv_tests} PROPERTIES
                     LABELS cpu ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;MPLBACKEND=Agg")
set_tests_properties(${compare_csv_tests} PROPERTIES TIMEOUT 120)
