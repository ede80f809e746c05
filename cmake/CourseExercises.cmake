# The CMake side of the classroom kit (docs/instructors.md, "Authoring exercises"; scripts/course is
# the rest). Included by the top level after project() and before the chapters, because
# COURSE_EXERCISES must reach every target through add_compile_definitions.
#
#   -DCOURSE_EXERCISES=03.1;06.2 (or 03.1,06.2, or all)
#       Builds those exercises in their student form in the instructor's tree: COURSE_STUB_03_1 ... is
#       defined for every target, so each solution region compiles its #else (stub) branch. Unknown
#       ids stop the configure and name the declared ones.
#   -DCOURSE_EXERCISE_TIMEOUT=<s>
#       ctest timeout of every exercise test (scripts/course grade sets its --timeout here).
#   course_add_exercise_tests(<test_binary> IDS <NN.k> ...)
#       For each id declared in this chapter's exercises.json, a ctest exercise.NN.k running
#       `<test_binary> -ts="exercise NN.k"` (with --gpu when the exercise has "gpu": true; exit 77 is
#       a skip), labels exercise;exercise.NN.k;cpu|gpu. An exercise with "sanitizer": "<tool>" also gets
#       exercise.NN.k.<tool>: the same run under compute-sanitizer --error-exitcode 1; where
#       compute-sanitizer is missing that test fails with one line saying so. An id listed in IDS but
#       absent from exercises.json (a handout made without it) gets no test.
#       An exercise test fails when its suite ran no test case: a misspelt suite cannot pass.

set(COURSE_EXERCISES "" CACHE STRING
  "Exercises built in their student (stub) form in this tree: 03.1;06.2, 03.1,06.2 or all")
set(COURSE_EXERCISE_TIMEOUT 300 CACHE STRING "Timeout of each exercise test in seconds")

# Every id declared in <chapter>/exercises.json, in the variable named by `out_var`.
function(_course_declared_exercises out_var)
  file(GLOB metadata_files "${PROJECT_SOURCE_DIR}/[0-9][0-9]_*/exercises.json")
  set(ids "")
  foreach(metadata IN LISTS metadata_files)
    file(READ "${metadata}" json)
    string(JSON count ERROR_VARIABLE error LENGTH "${json}")
    if(error)
      message(FATAL_ERROR "${metadata}: not a JSON list of exercises (${error}); `scripts/course list` says more")
    endif()
    if(count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(index RANGE ${last})
        string(JSON id GET "${json}" ${index} id)
        list(APPEND ids "${id}")
      endforeach()
    endif()
  endforeach()
  set(${out_var} "${ids}" PARENT_SCOPE)
endfunction()

if(COURSE_EXERCISES)
  string(REPLACE "," ";" _course_stub_ids "${COURSE_EXERCISES}")
  _course_declared_exercises(_course_declared)
  if(_course_stub_ids STREQUAL "all")
    set(_course_stub_ids "${_course_declared}")
  endif()
  foreach(_course_id IN LISTS _course_stub_ids)
    if(NOT _course_id IN_LIST _course_declared)
      string(REPLACE ";" ", " _course_valid "${_course_declared}")
      if(NOT _course_valid)
        set(_course_valid "none: no chapter has an exercises.json")
      endif()
      message(FATAL_ERROR "COURSE_EXERCISES: unknown exercise '${_course_id}' (declared: ${_course_valid})")
    endif()
    string(REPLACE "." "_" _course_macro "${_course_id}")
    add_compile_definitions(COURSE_STUB_${_course_macro})
  endforeach()
  string(REPLACE ";" ", " _course_list "${_course_stub_ids}")
  message(STATUS "Exercises built in their student (stub) form: ${_course_list}")
endif()

function(course_add_exercise_tests binary)
  cmake_parse_arguments(ARG "" "" "IDS" ${ARGN})
  if(NOT ARG_IDS)
    message(FATAL_ERROR "course_add_exercise_tests(${binary}): give the exercises as IDS 03.1 03.2 ...")
  endif()
  get_filename_component(chapter "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  string(SUBSTRING "${chapter}" 0 2 chapter_number)
  set(metadata "${CMAKE_CURRENT_SOURCE_DIR}/exercises.json")
  set(json "[]")
  if(EXISTS "${metadata}")
    file(READ "${metadata}" json)
  endif()
  string(JSON count ERROR_VARIABLE error LENGTH "${json}")
  if(error)
    message(FATAL_ERROR "${metadata}: not a JSON list of exercises (${error})")
  endif()
  foreach(id IN LISTS ARG_IDS)
    if(NOT id MATCHES "^([0-9][0-9])\\.[1-9][0-9]*$")
      message(FATAL_ERROR "course_add_exercise_tests(${binary}): '${id}' is not an exercise id NN.k")
    endif()
    if(NOT CMAKE_MATCH_1 STREQUAL chapter_number)
      message(FATAL_ERROR "course_add_exercise_tests(${binary}): exercise ${id} does not belong to ${chapter}")
    endif()
    set(entry "")
    if(count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(index RANGE ${last})
        string(JSON candidate GET "${json}" ${index} id)
        if(candidate STREQUAL id)
          string(JSON entry GET "${json}" ${index})
          break()
        endif()
      endforeach()
    endif()
    if(entry STREQUAL "")
      message(STATUS "${chapter}: exercise ${id} is not in exercises.json (a handout without it): no test")
      continue()
    endif()
    string(JSON gpu GET "${entry}" gpu)
    string(JSON sanitizer_type TYPE "${entry}" sanitizer)
    set(gpu_args "")
    set(kind cpu)
    if(gpu)
      set(gpu_args --gpu)
      set(kind gpu)
    endif()
    # doctest's summary line with zero test cases: the suite name matched nothing.
    set(no_case_ran "\\[doctest\\] test cases: +0 \\|")
    add_test(NAME exercise.${id} COMMAND ${binary} "-ts=exercise ${id}" ${gpu_args})
    set_tests_properties(exercise.${id} PROPERTIES LABELS "exercise;exercise.${id};${kind}"
      SKIP_RETURN_CODE 77 TIMEOUT ${COURSE_EXERCISE_TIMEOUT} FAIL_REGULAR_EXPRESSION "${no_case_ran}")
    if(gpu)  # alone on the GPU, as the chapters' GPU suites (course_add_tests says why)
      set_tests_properties(exercise.${id} PROPERTIES RUN_SERIAL TRUE)
    endif()
    if(sanitizer_type STREQUAL "STRING")
      string(JSON tool GET "${entry}" sanitizer)
      if(NOT tool MATCHES "^(memcheck|racecheck|synccheck|initcheck)$")
        message(FATAL_ERROR "${metadata}: exercise ${id}: sanitizer '${tool}' is not memcheck, racecheck, synccheck or initcheck")
      endif()
      find_program(COURSE_COMPUTE_SANITIZER compute-sanitizer
        HINTS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin)
      set(test_name exercise.${id}.${tool})
      if(COURSE_COMPUTE_SANITIZER)
        set(tool_args "")
        if(tool STREQUAL "racecheck")
          set(tool_args --racecheck-report hazard)
        endif()
        add_test(NAME ${test_name}
          COMMAND ${COURSE_COMPUTE_SANITIZER} --tool ${tool} ${tool_args} --error-exitcode 1
                  $<TARGET_FILE:${binary}> "-ts=exercise ${id}" ${gpu_args})
        # COURSE_SANITIZER tells the cases they run under the tool: one that races is reported on
        # every block it runs, and racecheck slows by orders of magnitude per hazard, so the cases
        # keep a handful of blocks (every code path still runs) instead of thousands.
        set_tests_properties(${test_name} PROPERTIES SKIP_RETURN_CODE 77
          FAIL_REGULAR_EXPRESSION "${no_case_ran}" ENVIRONMENT "COURSE_SANITIZER=${tool}")
      else()
        # A grader without the tool must not hand out the points by leaving the test out.
        add_test(NAME ${test_name} COMMAND ${CMAKE_COMMAND} -E echo
          "FAILED: compute-sanitizer not found: exercise ${id} is graded by ${tool} (put the CUDA toolkit's bin/ on PATH)")
        set_tests_properties(${test_name} PROPERTIES FAIL_REGULAR_EXPRESSION "compute-sanitizer not found")
      endif()
      set_tests_properties(${test_name} PROPERTIES LABELS "exercise;exercise.${id};${kind};sanitizer"
        TIMEOUT ${COURSE_EXERCISE_TIMEOUT})
    endif()
  endforeach()
endfunction()

# The kit's own tests: one file per module of scripts/course_lib/ (scripts/tests/test_<module>.py; most run
# scripts/course on a tiny fixture course, plain C++, no CUDA), the grader's defences (issue 30: the sandbox,
# the perf rule, the report excerpts, the cheats graded end to end) and the module-size rule. Instructor-only
# (scripts/tests/ is not in a handout), so a handout registers nothing here. A test skipped where bubblewrap
# cannot make namespaces says so (exit 0, 'skipped').
find_package(Python3 QUIET COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/scripts/tests/kit_fixture.py")
  file(GLOB kit_test_files CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/scripts/tests/test_*.py")
  foreach(kit_test_file IN LISTS kit_test_files)
    get_filename_component(kit_test "${kit_test_file}" NAME_WE)
    string(REGEX REPLACE "^test_" "" kit_test "${kit_test}")
    add_test(NAME course.kit_${kit_test} COMMAND ${Python3_EXECUTABLE} "${kit_test_file}")
    # Exit 77: the whole file could not run here (test_slurm.py without a Slurm it can start): skipped, never passed.
    set_tests_properties(course.kit_${kit_test} PROPERTIES LABELS "cpu;kit" TIMEOUT 2400 SKIP_RETURN_CODE 77)
  endforeach()
endif()

# course_add_probe(<NN.k> [CPU_ONLY] [TIMED] SOURCES … LIBRARIES …)
#   The exercise's grading probe: target probe_NN_k (common/include/common/probe.hpp), instructor code linked
#   with the exercise's file. scripts/course grade runs it in the student's build and in the instructor's, each
#   sandboxed, and compares their raw outputs itself (issue 30). Its own test, probe.NN.k (label probe), runs it
#   twice with one seed (the cases must be identical) and, for a TIMED probe whose exercise is not built in its
#   stub form here, the timed protocol for `exercise` and `reference` with one nonce (their checks must agree).
function(course_add_probe id)
  cmake_parse_arguments(ARG "CPU_ONLY;TIMED" "" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT id MATCHES "^([0-9][0-9])\\.([1-9][0-9]*)$")
    message(FATAL_ERROR "course_add_probe(${id}): not an exercise id NN.k")
  endif()
  set(target probe_${CMAKE_MATCH_1}_${CMAKE_MATCH_2})
  add_executable(${target} ${ARG_SOURCES})
  # The course's probes speak common/probe.hpp (course::core; GPU ones course::common); a course without
  # them (the kit's fixture) links its own in LIBRARIES.
  if(ARG_CPU_ONLY AND TARGET course::core)
    target_link_libraries(${target} PRIVATE course::core)
  elseif(NOT ARG_CPU_ONLY AND TARGET course::common)
    target_link_libraries(${target} PRIVATE course::common)
    set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
  endif()
  target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES})
  set(timed_args "")
  # A stub (-DCOURSE_EXERCISES, or a handout, whose exercise files are stubs) computes something else.
  if(ARG_TIMED AND NOT id IN_LIST _course_stub_ids
     AND NOT EXISTS "${PROJECT_SOURCE_DIR}/scripts/course_lib/handout.json")
    set(timed_args --timed)
  endif()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    add_test(NAME probe.${id}
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/course_lib/probe_check.py self-test
              $<TARGET_FILE:${target}> ${timed_args})
    set(kind gpu)
    if(ARG_CPU_ONLY)
      set(kind cpu)
    endif()
    set_tests_properties(probe.${id} PROPERTIES LABELS "probe;${kind}" SKIP_RETURN_CODE 77 TIMEOUT 600)
  endif()
endfunction()
