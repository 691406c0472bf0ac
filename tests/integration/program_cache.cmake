# The corpora with the persistent program cache (docs/cache.md): once cold (every entry
# written), once warm (every program's binary read from the cache), each compared bit for
# bit with PoCL's queue as without the cache.
set(HK_TEST_CACHE_DIR ${CMAKE_BINARY_DIR}/test-program-cache)
add_test(NAME integration.program_cache.clean
         COMMAND ${CMAKE_COMMAND} -E rm -rf ${HK_TEST_CACHE_DIR})
set_tests_properties(integration.program_cache.clean PROPERTIES FIXTURES_SETUP hk_cache_clean)
foreach(t corpus_test spirv_corpus_test)
  add_test(NAME integration.${t}.cache_cold COMMAND ${t})
  set_tests_properties(integration.${t}.cache_cold PROPERTIES
    ENVIRONMENT HOSTKERNEL_CACHE_DIR=${HK_TEST_CACHE_DIR}
    FIXTURES_REQUIRED hk_cache_clean FIXTURES_SETUP hk_cache_${t}_cold)
  add_test(NAME integration.${t}.cache_warm COMMAND ${t})
  set_tests_properties(integration.${t}.cache_warm PROPERTIES
    ENVIRONMENT HOSTKERNEL_CACHE_DIR=${HK_TEST_CACHE_DIR}
    FIXTURES_REQUIRED hk_cache_${t}_cold)
endforeach()
