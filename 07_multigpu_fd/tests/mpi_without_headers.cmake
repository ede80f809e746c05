# Configures tests/mpi_probe with MPI_CXX_COMPILER = WRAPPER (a fake mpicxx naming a missing include
# folder). Passes when configure and generate succeed with the MPI bootstrap off, saying why.
#   cmake -DSOURCE=<probe dir> -DBINARY=<scratch dir> -DWRAPPER=<fake mpicxx> -DGENERATOR=<generator> -P this
file(REMOVE_RECURSE "${BINARY}")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE}" -B "${BINARY}" -G "${GENERATOR}"
                        "-DMPI_CXX_COMPILER=${WRAPPER}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure failed with an MPI runtime lacking headers (exit ${rc}):\n${out}${err}")
endif()
if(NOT out MATCHES "MPI bootstrap: off: [^\n]*does not exist")
  message(FATAL_ERROR "configure succeeded but did not turn the MPI bootstrap off for the missing folder:\n${out}")
endif()
string(REGEX MATCH "MPI bootstrap: off: [^\n]*" line "${out}")
message(STATUS "${line}")
