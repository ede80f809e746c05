# Runs PROGRAM with ARGS and --json RESULTS. The run must blow up: exit 1, no table on stdout, and no
# results file (not even a stale temporary one) where --json pointed.
file(REMOVE "${RESULTS}")
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${PROGRAM} ${args} --json ${RESULTS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "`${ARGS}`: exit ${rc}, expected 1 (a detected blow-up)\n${out}${err}")
endif()
if(out MATCHES "force_ms")
  message(FATAL_ERROR "`${ARGS}`: printed a table although the run failed:\n${out}")
endif()
file(GLOB left "${RESULTS}" "${RESULTS}.tmp*")
if(left)
  message(FATAL_ERROR "`${ARGS}`: left ${left} behind although the run failed")
endif()
message(STATUS "blew up as expected, no table, no results file: ${err}")
