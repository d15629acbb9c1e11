# tests/skip_or_fail.cmake: stands in for a test that cannot run here (no
# python3): `cmake -DWHY=... -P skip_or_fail.cmake` prints "SKIPPED: WHY", which
# the test's SKIP_REGULAR_EXPRESSION reports as skipped, or fails when the
# environment says COMPARE_REQUIRE_PLOTS=1 (CI: the plots must be tested).
if("$ENV{COMPARE_REQUIRE_PLOTS}" STREQUAL "1")
  message(FATAL_ERROR "cannot run (COMPARE_REQUIRE_PLOTS=1 makes this a failure): ${WHY}")
endif()
message("SKIPPED: ${WHY}")
