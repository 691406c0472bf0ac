# A program's kernels compiled one by one (docs/first-launch.md, "One kernel compiled"):
# with a private, empty PoCL kernel cache that the test reads.
include(${CMAKE_CURRENT_LIST_DIR}/pocl_cache_fixture.cmake)
# Info: a wait for PoCL's queue to compile a function is said on stderr, which a test reads.
set_property(TEST integration.one_kernel_compiled_test APPEND PROPERTY ENVIRONMENT
             HOSTKERNEL_LOG=info)
hk_test_empty_pocl_cache(one_kernel_compiled integration.one_kernel_compiled_test)
