# background_test is about launches in the background: it runs with the production
# default (scripts/test-sanitizers.sh also runs it under ThreadSanitizer).
set_tests_properties(integration.background_test PROPERTIES
                     ENVIRONMENT HOSTKERNEL_BACKGROUND_US=5)
