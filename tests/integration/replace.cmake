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
