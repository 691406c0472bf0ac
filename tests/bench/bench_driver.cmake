# What the pocl-launch-bench test scripts of this folder share. Each script is both a
# fragment that registers its test (tests/CMakeLists.txt includes it) and, run with
# cmake -P, that test's driver; both include this file first.
include_guard(GLOBAL)

# hk_add_bench_test(<name> [-D<var>=<value>]...) adds the test <name>: the calling script
# run with cmake -P, BENCH set to pocl-launch-bench and the given definitions.
# Must be called from the script itself: CMAKE_CURRENT_LIST_FILE names it.
function(hk_add_bench_test name)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DBENCH=$<TARGET_FILE:pocl-launch-bench> ${ARGN}
                   -P ${CMAKE_CURRENT_LIST_FILE})
endfunction()

# hk_run_bench(<table> <progress> <argument>...) runs ${BENCH} with the arguments and
# sets <table> and <progress> to what it wrote to stdout and stderr. The test fails, with
# both shown, when the bench exits with anything but 0: every case checks its own results.
function(hk_run_bench table progress)
  execute_process(COMMAND ${BENCH} ${ARGN}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "pocl-launch-bench exited with ${status}:\n${out}\n${err}")
  endif()
  set(${table} "${out}" PARENT_SCOPE)
  set(${progress} "${err}" PARENT_SCOPE)
endfunction()
