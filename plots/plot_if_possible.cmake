# Called by the `run` target: plots results/latest.csv into plots/latest/ with
# PYTHON (python3 with matplotlib, or the build tree's venv: see
# plots/python_env.cmake); without one, says in one line why (WHY) and how to
# get plots.
if(NOT PYTHON)
  message(STATUS "plots skipped: ${WHY}")
  return()
endif()
execute_process(COMMAND ${PYTHON} -c "import matplotlib" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
if(NOT _rc EQUAL 0)
  message(STATUS "plots skipped: matplotlib is no longer importable by ${PYTHON}: "
                 "re-run the configure step (cmake --preset release) to make the venv again")
  return()
endif()
execute_process(COMMAND ${PYTHON} ${SRC}/plots/plot.py --out ${SRC}/plots/latest ${SRC}/results/latest.csv
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "plots/plot.py failed (exit ${_rc})")
endif()
message(STATUS "table above; CSV: results/latest.csv; plots: plots/latest/")
