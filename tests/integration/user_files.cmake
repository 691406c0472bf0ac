# user_files_test: the trace and the perf map against another user's symbolic links
# (tests/integration/user_files_test.cpp); the trace's directory is made by the test.
set_tests_properties(integration.user_files_test PROPERTIES ENVIRONMENT
  "HOSTKERNEL_PERF_MAP=1;HOSTKERNEL_TRACE=${CMAKE_CURRENT_BINARY_DIR}/user-files/trace.json")
