# PoCL's specialized work-group functions for hot kernels (docs/specialized.md): a cold
# run (an empty PoCL kernel cache: one launch through PoCL's queue compiles the function,
# after 1 ms of team work) and a warm one (the function is in PoCL's cache already: taken
# after 2 ms of team work, with compiling put off to 100 s).
include(${CMAKE_CURRENT_LIST_DIR}/pocl_cache_fixture.cmake)
set_tests_properties(integration.specialized_test PROPERTIES
  ENVIRONMENT "HOSTKERNEL_SPECIALIZE_MS=1" FIXTURES_SETUP hk_specialized_cold)
hk_test_empty_pocl_cache(specialized integration.specialized_test)
add_test(NAME integration.specialized_test.warm COMMAND specialized_test)
set_tests_properties(integration.specialized_test.warm PROPERTIES
  ENVIRONMENT
  "HOSTKERNEL_SPECIALIZE_MS=100000;POCL_CACHE_DIR=${HK_TEST_POCL_CACHE};HK_TEST_SPECIALIZED_WARM=1"
  FIXTURES_REQUIRED hk_specialized_cold)
