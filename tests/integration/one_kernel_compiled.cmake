# A program's kernels compiled one by one (docs/first-launch.md, "One kernel compiled"):
# with a private, empty PoCL kernel cache that the test reads.
include(${CMAKE_CURRENT_LIST_DIR}/pocl_cache_fixture.cmake)
hk_test_empty_pocl_cache(one_kernel_compiled integration.one_kernel_compiled_test)
