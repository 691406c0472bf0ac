# kernel_per_call_test is about the first-launch rule: it runs with the default.
set_tests_properties(integration.kernel_per_call_test PROPERTIES
                     ENVIRONMENT HOSTKERNEL_FIRST_LAUNCH=queue)
