# tests/max_lines.cmake: FILE has at most MAX lines (the README stays a page a
# newcomer reads; history and long tables belong in docs/).
#   cmake -DFILE=README.md -DMAX=250 -P max_lines.cmake
file(READ ${FILE} text)
string(REGEX MATCHALL "\n" newlines "${text}")
list(LENGTH newlines n)
if(n GREATER MAX)
  message(FATAL_ERROR "${FILE} has ${n} lines, more than ${MAX}: move detail to docs/")
endif()
message(STATUS "${FILE}: ${n} lines (at most ${MAX})")
