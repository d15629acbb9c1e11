# plots/python_env.cmake: the Python the plots run with, found once per
# configure (included by tests/plots.cmake and by the `run` target's setup).
# Sets, as INTERNAL cache entries so that every directory sees them:
#
#   COMPARE_PYTHON           a python3 (the standard-library tools: tables.py,
#                            compare_csv.py, their tests), "" if none was found
#   COMPARE_PLOT_PYTHON      a python3 that imports matplotlib: COMPARE_PYTHON
#                            when it does, else <build>/venv/bin/python, a venv
#                            this file makes from plots/requirements.txt (once;
#                            again when requirements.txt changes); "" if neither
#   COMPARE_PLOT_PYTHON_WHY  when COMPARE_PLOT_PYTHON is "": one line saying why
#                            and how to fix it
#
# -DCOMPARE_PLOT_VENV=OFF never makes the venv (no network at configure time);
# the plots then need matplotlib in the found python3.
include_guard(GLOBAL)

option(COMPARE_PLOT_VENV "make <build>/venv from plots/requirements.txt when matplotlib is missing" ON)

set(_compare_requirements "${CMAKE_CURRENT_LIST_DIR}/requirements.txt")
set(_compare_venv "${CMAKE_BINARY_DIR}/venv")
set(_compare_venv_python "${_compare_venv}/bin/python")
set(_compare_venv_stamp "${_compare_venv}/compare-requirements.txt")
set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${_compare_requirements}")

function(_compare_imports_matplotlib python result)
  execute_process(COMMAND "${python}" -c "import matplotlib"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(${result} TRUE PARENT_SCOPE)
  else()
    set(${result} FALSE PARENT_SCOPE)
  endif()
endfunction()

# the last line of a tool's output: what one message line can quote
function(_compare_last_line text result)
  string(STRIP "${text}" text)
  string(REGEX REPLACE ".*\n" "" text "${text}")
  string(REPLACE ";" "," text "${text}")
  set(${result} "${text}" PARENT_SCOPE)
endfunction()

function(_compare_find_plot_python)
  set(plot_python "")
  set(why "")
  set(fix "with network access re-run the configure step (cmake --preset release), or install the plot requirements yourself: ${COMPARE_PYTHON} -m pip install -r plots/requirements.txt")
  if(NOT COMPARE_PYTHON)
    set(why "no python3 found: install python3 and re-run the configure step")
  else()
    _compare_imports_matplotlib("${COMPARE_PYTHON}" has_mpl)
    file(READ "${_compare_requirements}" wanted)
    set(have "")
    if(EXISTS "${_compare_venv_stamp}")
      file(READ "${_compare_venv_stamp}" have)
    endif()
    if(has_mpl)
      set(plot_python "${COMPARE_PYTHON}")
    elseif(EXISTS "${_compare_venv_python}" AND have STREQUAL wanted)
      _compare_imports_matplotlib("${_compare_venv_python}" has_mpl)
      if(has_mpl)
        set(plot_python "${_compare_venv_python}")
      endif()
    endif()
    if(NOT plot_python AND NOT COMPARE_PLOT_VENV)
      set(why "matplotlib is not importable by ${COMPARE_PYTHON} and COMPARE_PLOT_VENV is OFF: ${COMPARE_PYTHON} -m pip install -r plots/requirements.txt")
    elseif(NOT plot_python)
      message(STATUS "plots: matplotlib is not importable by ${COMPARE_PYTHON}: "
                     "installing plots/requirements.txt into ${_compare_venv} (once, about a minute)")
      file(REMOVE "${_compare_venv_stamp}")
      if(NOT EXISTS "${_compare_venv_python}")
        execute_process(COMMAND "${COMPARE_PYTHON}" -m venv "${_compare_venv}"
                        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
        if(NOT rc EQUAL 0)
          _compare_last_line("${out}" last)
          set(why "could not make the venv ${_compare_venv} (${COMPARE_PYTHON} -m venv: ${last}; on Debian/Ubuntu: apt install python3-venv), so ${fix}")
        endif()
      endif()
      if(NOT why)
        execute_process(COMMAND "${_compare_venv_python}" -m pip install --disable-pip-version-check
                                --quiet --retries 1 --timeout 15 -r "${_compare_requirements}"
                        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
        if(rc EQUAL 0)
          _compare_imports_matplotlib("${_compare_venv_python}" has_mpl)
        endif()
        if(rc EQUAL 0 AND has_mpl)
          file(WRITE "${_compare_venv_stamp}" "${wanted}")
          set(plot_python "${_compare_venv_python}")
        else()
          _compare_last_line("${out}" last)
          set(why "could not install plots/requirements.txt into ${_compare_venv} (pip: ${last}): ${fix}")
        endif()
      endif()
    endif()
  endif()
  if(plot_python)
    message(STATUS "plots: drawn with ${plot_python}")
  else()
    # NOTICE: one plain line on stderr, not lost among the -- status lines
    message(NOTICE "plots off: ${why}")
  endif()
  set(COMPARE_PLOT_PYTHON "${plot_python}" CACHE INTERNAL "python3 with matplotlib")
  set(COMPARE_PLOT_PYTHON_WHY "${why}" CACHE INTERNAL "why there is no COMPARE_PLOT_PYTHON")
endfunction()

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(COMPARE_PYTHON "${Python3_EXECUTABLE}" CACHE INTERNAL "python3 for the CSV tools")
else()
  set(COMPARE_PYTHON "" CACHE INTERNAL "python3 for the CSV tools")
endif()
_compare_find_plot_python()
