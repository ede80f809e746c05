# Helpers every chapter uses, so that each chapter's CMakeLists.txt stays a few lines long.
#
#   course_add_program(<target> SOURCES ... [LIBRARIES ...] [CPU_ONLY])
#       A chapter program, linked with course::common (course::core alone with CPU_ONLY: no CUDA).
#   course_add_tests(<target> SOURCES ... [LIBRARIES ...] [CPU_ONLY])
#       One doctest binary, registered twice with ctest:
#         <target>.cpu  label cpu: every test case outside the doctest suite "gpu";
#         <target>.gpu  label gpu: the suite "gpu"; exits 77 (ctest: skipped) without a GPU,
#                       or fails when the environment variable REQUIRE_GPU=1.
#       CPU_ONLY: a chapter without GPU tests registers only <target>.cpu.
#   course_add_tour(<name> COMMAND <target> [args...] [CPU])
#       The chapter program at its default size, run by the `tour` workflow (label tour).
#       Without CPU it needs a GPU: exit 77 shows as skipped.

set(COURSE_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

#   course_add_hostile_tests(<prefix> COMMAND <target> [CASES "<exit>|<phrase>|<args>" ...]
#                            [GPU_CASES "<exit>|<phrase>|<args>" ...]
#                            [INTEGER_OPTIONS "--reps" "--block" ...] [OUTPUT_OPTIONS "--json" ...])
#       A table of hostile command lines. Test <prefix>.hostile.<n> passes when the program ends with
#       <exit> (2 usage, 1 detected failure, 77 no GPU), one line on stderr containing <phrase>
#       (case-insensitive; "a && b": both), and never by a signal. <args> may start with NAME=VALUE
#       (environment) and "> FILE" (standard output), see ExpectExit.cmake. CASES run on CI (label cpu);
#       GPU_CASES need a GPU to be judged (label gpu; skipped without one).
#       INTEGER_OPTIONS: each integer option of the program (optionally after the words that must come
#       with it, "--variants x --block"), attacked with 010, 0x8, 1e3 and +5: every one must be refused
#       (exit 2) with a message naming the option and saying "decimal" (common/cli: decimal only).
#       OUTPUT_OPTIONS: each option naming a file the program writes, attacked with a 5,000-character
#       path, a 255-character name (legal alone, too long with the temporary file beside it), /dev/full
#       and a path under a regular file: refused up front (exit 2), naming the option.
function(course_add_hostile_tests prefix)
  cmake_parse_arguments(ARG "" "COMMAND" "CASES;GPU_CASES;INTEGER_OPTIONS;OUTPUT_OPTIONS" ${ARGN})
  foreach(entry IN LISTS ARG_INTEGER_OPTIONS)
    string(REGEX MATCH "[^ ]+$" option "${entry}")
    foreach(value IN ITEMS 010 0x8 1e3 +5)
      list(APPEND ARG_CASES "2|${option} && decimal|${entry} ${value}")
    endforeach()
  endforeach()
  string(REPEAT "p" 5000 long_path)
  string(REPEAT "n" 255 long_name)
  foreach(entry IN LISTS ARG_OUTPUT_OPTIONS)
    string(REGEX MATCH "[^ ]+$" option "${entry}")
    list(APPEND ARG_CASES
      "2|${option} && too long|${entry} /tmp/${long_path}"
      "2|${option} && too long|${entry} ${CMAKE_CURRENT_BINARY_DIR}/${long_name}"
      "2|${option} && not a regular file|${entry} /dev/full"
      "2|${option} && not a folder|${entry} ${COURSE_CMAKE_DIR}/CourseChapter.cmake/out.json")
  endforeach()
  set(index 0)
  foreach(label IN ITEMS cpu gpu)
    if(label STREQUAL "cpu")
      set(cases ${ARG_CASES})
      set(allow_skip OFF)
    else()
      set(cases ${ARG_GPU_CASES})
      set(allow_skip ON)
    endif()
    foreach(case IN LISTS cases)
      if(NOT case MATCHES "^([0-9]+)\\|([^|]*)\\|(.*)$")
        message(FATAL_ERROR "course_add_hostile_tests(${prefix}): '${case}' is not \"<exit>|<phrase>|<args>\"")
      endif()
      set(expect ${CMAKE_MATCH_1})
      set(phrase "${CMAKE_MATCH_2}")
      set(args "${CMAKE_MATCH_3}")
      math(EXPR index "${index} + 1")
      string(REGEX REPLACE "[^A-Za-z0-9^]+" "_" name "${args}")
      string(REGEX REPLACE "^_+|_+$" "" name "${name}")
      string(SUBSTRING "${name}" 0 60 name)
      set(test_name ${prefix}.hostile.${index}_${name})
      add_test(NAME ${test_name}
        COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${ARG_COMMAND}> "-DARGS=${args}" -DEXPECT=${expect}
                "-DPHRASE=${phrase}" -DALLOW_SKIP=${allow_skip} -P ${COURSE_CMAKE_DIR}/ExpectExit.cmake)
      set_tests_properties(${test_name} PROPERTIES LABELS "${label};hostile" TIMEOUT 120
        SKIP_REGULAR_EXPRESSION "COURSE-SKIPPED")
    endforeach()
  endforeach()
endfunction()

function(_course_target_defaults target cpu_only)
  if(cpu_only)
    target_link_libraries(${target} PRIVATE course::core)
  else()
    target_link_libraries(${target} PRIVATE course::common)
  endif()
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
endfunction()

function(course_add_program target)
  cmake_parse_arguments(ARG "CPU_ONLY" "" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${target} ${ARG_SOURCES})
  _course_target_defaults(${target} "${ARG_CPU_ONLY}")
  target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES})
endfunction()

# course_add_tests(<target> [CPU_ONLY] [TWO_GPUS] SOURCES … LIBRARIES …): <target>.cpu, <target>.gpu and,
# with TWO_GPUS, <target>.two_gpus (the doctest suite "two gpus", skipped with fewer than two GPUs).
function(course_add_tests target)
  cmake_parse_arguments(ARG "CPU_ONLY;TWO_GPUS" "" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${target} ${ARG_SOURCES})
  _course_target_defaults(${target} "${ARG_CPU_ONLY}")
  if(ARG_CPU_ONLY)
    target_link_libraries(${target} PRIVATE course::test_main_cpu ${ARG_LIBRARIES})
  else()
    target_link_libraries(${target} PRIVATE course::test_main ${ARG_LIBRARIES})
  endif()
  add_test(NAME ${target}.cpu COMMAND ${target})
  set_tests_properties(${target}.cpu PROPERTIES LABELS cpu TIMEOUT 600)
  if(ARG_CPU_ONLY)
    return()
  endif()
  # GPU suites run alone (RUN_SERIAL): several check what a measurement shows (overlap off a recorded
  # timeline, one direction's copy time against both at once), and a kernel of another test on the same
  # GPU (ctest -j) takes SMs and time slices from them. On the H100, with -j2, 02's both-directions case
  # saw 1.39 ms alone against 0.68 ms in the pair, and 06's one-queue timeline 4.9 units against 4.5.
  add_test(NAME ${target}.gpu COMMAND ${target} --gpu)
  set_tests_properties(${target}.gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900 RUN_SERIAL TRUE)
  if(ARG_TWO_GPUS)
    add_test(NAME ${target}.two_gpus COMMAND ${target} --two-gpus)
    set_tests_properties(${target}.two_gpus PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900 RUN_SERIAL TRUE)
  endif()
endfunction()

function(course_add_tour name)
  cmake_parse_arguments(ARG "CPU" "" "COMMAND" ${ARGN})
  add_test(NAME tour.${name} COMMAND ${ARG_COMMAND})
  set_tests_properties(tour.${name} PROPERTIES LABELS tour SKIP_RETURN_CODE 77 TIMEOUT 1800 RUN_SERIAL TRUE)
endfunction()

#   course_add_sanitize(<name> COMMAND <target> [args...])
#       A small, fast run of a chapter program that scripts/gpu_validate.sh runs under
#       compute-sanitizer (memcheck, racecheck, synccheck). Collected into
#       <build>/sanitize_commands.txt, one command a line (tab-separated: name, then the command).
function(course_add_sanitize name)
  cmake_parse_arguments(ARG "" "" "COMMAND" ${ARGN})
  list(POP_FRONT ARG_COMMAND target)
  string(REPLACE ";" " " args "${ARG_COMMAND}")
  set_property(GLOBAL APPEND PROPERTY COURSE_SANITIZE_LINES "${name}\t$<TARGET_FILE:${target}> ${args}")
endfunction()

function(course_write_sanitize_list)
  get_property(lines GLOBAL PROPERTY COURSE_SANITIZE_LINES)
  string(REPLACE ";" "\n" content "${lines}")
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/sanitize_commands.txt" CONTENT "${content}\n")
endfunction()
