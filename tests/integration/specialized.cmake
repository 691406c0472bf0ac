# PoCL's specialized work-group functions for hot kernels (docs/specialized.md): a cold
# run (an empty PoCL kernel cache: one launch through PoCL's queue compiles the function,
# after 1 ms of team work) and a warm one (the function is in PoCL's cache already: taken
# after 2 ms of team work, with compiling put off to 100 s).
include(${CMAKE_CURRENT_LIST_DIR}/pocl_cache_fixture.cmake)
# The team always (HOSTKERNEL_ALWAYS_TEAM=1): only team launches call the specialized
# function, and the triad is bound by memory bandwidth, so on a loaded machine a probe of
# the calling thread may win and keep the kernel's launches off the team (a CI run: 2
# specialized launches in 4000).
set_tests_properties(integration.specialized_test PROPERTIES
  ENVIRONMENT "HOSTKERNEL_SPECIALIZE_MS=1;HOSTKERNEL_ALWAYS_TEAM=1"
  FIXTURES_SETUP hk_specialized_cold)
hk_test_empty_pocl_cache(specialized integration.specialized_test)
add_test(NAME integration.specialized_test.warm COMMAND specialized_test)
set_tests_properties(integration.specialized_test.warm PROPERTIES
  ENVIRONMENT
  "HOSTKERNEL_SPECIALIZE_MS=100000;HOSTKERNEL_ALWAYS_TEAM=1;POCL_CACHE_DIR=${HK_TEST_POCL_CACHE};HK_TEST_SPECIALIZED_WARM=1"
  FIXTURES_REQUIRED hk_specialized_cold)
