# The lab's second grader: compute-sanitizer racecheck on the rungs that call warp_tail.
#
#   cmake -DSANITIZER=<compute-sanitizer or empty> -DPROGRAM=<reduce_unroll> "-DARGS=<args>" -P lab_racecheck.cmake
#
# Passes when racecheck reports no hazard. Fails when it reports one, and fails as well when
# compute-sanitizer is missing on a machine whose GPU could run the program: a grader that cannot look
# must not look like a pass (nor vanish from the test list). Without a usable GPU there is nothing to
# grade: it prints COURSE-SKIPPED (ctest: skipped), or fails when REQUIRE_GPU=1.
separate_arguments(args UNIX_COMMAND "${ARGS}")

function(skip_or_fail why)
  if("$ENV{REQUIRE_GPU}" STREQUAL "1")
    message(FATAL_ERROR "REQUIRE_GPU=1 but ${why}")
  endif()
  message("COURSE-SKIPPED: ${why}")
endfunction()

# Is there a GPU to grade on? The program itself answers (exit 77: no usable device), before the
# sanitizer, which may fail in its own way on a machine without one.
execute_process(COMMAND ${PROGRAM} ${args} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 300)
if(rc EQUAL 77)
  skip_or_fail("no usable CUDA device, nothing to grade: ${err}")
  return()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "the program failed before racecheck could run (exit ${rc}): ${err}")
endif()
if(SANITIZER STREQUAL "" OR SANITIZER MATCHES "-NOTFOUND$" OR NOT EXISTS "${SANITIZER}")
  message(FATAL_ERROR "compute-sanitizer was not found (configure with -DCOMPUTE_SANITIZER=/path/to/"
          "compute-sanitizer, or install the CUDA toolkit's sanitizer), so the racecheck grader cannot "
          "judge the warp tail: it fails rather than pass unseen")
endif()

execute_process(COMMAND ${SANITIZER} --tool racecheck --racecheck-report hazard --error-exitcode 1 ${PROGRAM} ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "racecheck found a hazard, or the program failed (exit ${rc}):\n${out}${err}")
endif()
message(STATUS "racecheck: no hazard")
