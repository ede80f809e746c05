# Runs PROGRAM with ARGS (a ;-list) and fails unless it exits with EXPECTED.
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECTED}")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: exit ${rc}, expected ${EXPECTED}\n${out}${err}")
endif()
message(STATUS "exit ${rc} as expected: ${err}")
