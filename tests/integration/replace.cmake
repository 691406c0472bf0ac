# integration.replace: an unchanged OpenCL C program compiled with
# `-include hostkernel/replace.h` and linked with libhostkernel.so. HK_CHECK_REPLACED
# enables its (otherwise absent) check that hostkernel saw and ran its launches.
add_executable(replace_test ${CMAKE_CURRENT_LIST_DIR}/replace_test.c)
set_target_properties(replace_test PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
target_compile_options(replace_test PRIVATE -include hostkernel/replace.h)
target_compile_definitions(replace_test PRIVATE HK_CHECK_REPLACED)
target_link_libraries(replace_test PRIVATE hostkernel OpenCL::OpenCL)
add_test(NAME integration.replace COMMAND replace_test)
set_tests_properties(integration.replace PROPERTIES TIMEOUT 120)

# Under ASan, no leak check for this program: on Debian 12's glibc 2.36-9+deb12u14 LSan's
# tracer crashes scanning the main thread's dynamic TLS at its exit ("Tracer caught signal
# 11", a DTLS range starting at 0x72a), with HOSTKERNEL_DISABLE=1 too, so PoCL's own
# loading and unloading of kernel libraries is enough. Every other test keeps the check.
if(HK_SANITIZE STREQUAL "address")
  set_property(TEST integration.replace APPEND PROPERTY ENVIRONMENT_MODIFICATION
               "ASAN_OPTIONS=string_append:detect_leaks=0")
endif()
