# A program's kernels compiled one by one (docs/first-launch.md, "One kernel compiled"):
# with a private, empty PoCL kernel cache that the test reads.
set(HK_TEST_ONE_KERNEL_POCL_CACHE ${CMAKE_BINARY_DIR}/test-one-kernel-pocl-cache)
add_test(NAME integration.one_kernel_compiled.clean
         COMMAND ${CMAKE_COMMAND} -E rm -rf ${HK_TEST_ONE_KERNEL_POCL_CACHE})
set_tests_properties(integration.one_kernel_compiled.clean PROPERTIES
                     FIXTURES_SETUP hk_one_kernel_clean)
set_tests_properties(integration.one_kernel_compiled_test PROPERTIES
  ENVIRONMENT "POCL_CACHE_DIR=${HK_TEST_ONE_KERNEL_POCL_CACHE}"
  FIXTURES_REQUIRED hk_one_kernel_clean)
