# Called by the `run` target: plots results/latest.csv into plots/latest/ when
# python3 with matplotlib is there, else says in one line how to get plots.
if(NOT PYTHON)
  message(STATUS "plots skipped: no python3 found (install python3, then: pip install -r plots/requirements.txt)")
  return()
endif()
execute_process(COMMAND ${PYTHON} -c "import matplotlib" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
if(NOT _rc EQUAL 0)
  message(STATUS "plots skipped: matplotlib missing (pip install -r plots/requirements.txt, then rerun)")
  return()
endif()
execute_process(COMMAND ${PYTHON} ${SRC}/plots/plot.py --out ${SRC}/plots/latest ${SRC}/results/latest.csv
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "plots/plot.py failed (exit ${_rc})")
endif()
message(STATUS "table above; CSV: results/latest.csv; plots: plots/latest/")
