# Runs PROGRAM on SNAPSHOT and fails unless it exits 0 with exactly the lines of EXPECTED.
execute_process(COMMAND ${PROGRAM} ${SNAPSHOT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${rc}: ${err}")
endif()
file(READ ${EXPECTED} expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "output differs from ${EXPECTED}:\n${out}")
endif()
