# hk_test_empty_pocl_cache(<name> <test>): <test> runs with a PoCL kernel cache of its own,
# ${CMAKE_BINARY_DIR}/test-<name>-pocl-cache (POCL_CACHE_DIR), which the fixture test
# integration.<name>.clean empties before it, so that PoCL compiles anew whatever the test
# needs. The fixture is hk_<name>_clean; the directory is returned in HK_TEST_POCL_CACHE,
# for tests that run later on the same cache. Call it after setting <test>'s ENVIRONMENT:
# it appends to it.
include_guard(GLOBAL)

function(hk_test_empty_pocl_cache name test)
  set(dir ${CMAKE_BINARY_DIR}/test-${name}-pocl-cache)
  add_test(NAME integration.${name}.clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${dir})
  set_tests_properties(integration.${name}.clean PROPERTIES FIXTURES_SETUP hk_${name}_clean)
  set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT POCL_CACHE_DIR=${dir})
  set_property(TEST ${test} APPEND PROPERTY FIXTURES_REQUIRED hk_${name}_clean)
  set(HK_TEST_POCL_CACHE ${dir} PARENT_SCOPE)
endfunction()
