# tests/unit/first_launch_test.cpp with first launches on PoCL's queue, as by default; once
# more with a persistent cache of its own, and once for the report's line per kernel.
set(hk_first_launch_cache ${CMAKE_CURRENT_BINARY_DIR}/first_launch_cache)
add_test(NAME unit.first_launch_test.warm_cache
         COMMAND first_launch_test --gtest_filter=WarmCache.*)
set_tests_properties(unit.first_launch_test.warm_cache PROPERTIES
  ENVIRONMENT "HOSTKERNEL_CACHE_DIR=${hk_first_launch_cache}"
  FAIL_REGULAR_EXPRESSION "SKIPPED")
# The threads' test once more as a target of its own, named so that the TSan build runs
# it (scripts/test-sanitizers.sh builds the targets of the tests it runs).
add_executable(first_launch_concurrency_test ${CMAKE_CURRENT_LIST_DIR}/first_launch_test.cpp)
target_include_directories(first_launch_concurrency_test PRIVATE ${PROJECT_SOURCE_DIR}/src
                           ${CMAKE_CURRENT_LIST_DIR}/..)
target_link_libraries(first_launch_concurrency_test PRIVATE hostkernel_core GTest::gtest
                      GTest::gtest_main)
add_test(NAME unit.first_launch_concurrency_test
         COMMAND first_launch_concurrency_test --gtest_filter=FirstLaunch.Concurrent*)
add_test(NAME unit.first_launch_test.report
         COMMAND first_launch_test --gtest_filter=FirstLaunch.KernelLaunchedOnce*)
set_tests_properties(unit.first_launch_test.report PROPERTIES
  ENVIRONMENT "HOSTKERNEL_REPORT=1"
  PASS_REGULAR_EXPRESSION "queue: 1 x while the kernel was being prepared")
