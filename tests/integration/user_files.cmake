# user_files_test: the trace and the perf map against another user's symbolic links
# (tests/integration/user_files_test.cpp); the trace's directory is made by the test. It
# lies in /tmp, which every user can reach (a build directory under /root is not), named
# for this build directory so that two builds' runs do not meet.
string(MD5 hk_user_files_tag "${CMAKE_CURRENT_BINARY_DIR}")
set_tests_properties(integration.user_files_test PROPERTIES ENVIRONMENT
  "HOSTKERNEL_PERF_MAP=1;HOSTKERNEL_TRACE=/tmp/hostkernel-user-files-${hk_user_files_tag}/trace.json")
