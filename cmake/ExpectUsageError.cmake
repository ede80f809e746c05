# Runs PROGRAM with ARGS (one string, split like a shell would) and fails unless the program rejects
# them as a usage error: exit code 2 and exactly one line on stderr. With ALLOW_SKIP (checks that need
# a GPU to be judged), exit 77 (no GPU) prints COURSE-SKIPPED, which the test's SKIP_REGULAR_EXPRESSION
# turns into "skipped", unless REQUIRE_GPU=1; without it, 77 is a failure: the check must come before
# any GPU call.
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${PROGRAM} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 77 AND ALLOW_SKIP)
  if("$ENV{REQUIRE_GPU}" STREQUAL "1")
    message(FATAL_ERROR "REQUIRE_GPU=1 but no usable CUDA device: ${err}")
  endif()
  message("COURSE-SKIPPED: ${err}")
  return()
endif()
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "`${ARGS}`: exit ${rc}, expected 2 (a usage error)\n${out}${err}")
endif()
string(STRIP "${err}" err)
if(err STREQUAL "")
  message(FATAL_ERROR "`${ARGS}`: exit 2 but no message on stderr")
endif()
if(err MATCHES "\n")
  message(FATAL_ERROR "`${ARGS}`: the message is more than one line:\n${err}")
endif()
message(STATUS "rejected as expected: ${err}")
