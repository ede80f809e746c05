# Runs Doxygen and, with FAIL_ON_WARNINGS, fails when it wrote any warning.
# Doxygen never deletes a page it no longer writes: start from an empty HTML folder, so that the site (and
# scripts/check_html.py, and Pages) holds only today's pages.
if(HTML_DIR)
  file(REMOVE_RECURSE "${HTML_DIR}")
endif()
execute_process(COMMAND ${DOXYGEN} ${DOXYFILE} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "doxygen failed (exit ${rc})")
endif()
file(READ ${WARN_LOG} warnings)
string(STRIP "${warnings}" warnings)
if(warnings)
  if(FAIL_ON_WARNINGS)
    message(FATAL_ERROR "Doxygen warnings:\n${warnings}")
  endif()
  message(WARNING "Doxygen warnings:\n${warnings}")
endif()
