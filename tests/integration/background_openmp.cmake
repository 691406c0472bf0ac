# background_openmp_test defines a stand-in OpenMP runtime that libhostkernel must find with
# dlsym(RTLD_DEFAULT): its symbols are exported. The team mode is the default, auto, and
# background launches have their production threshold (the suite's default turns them off).
set_property(TARGET background_openmp_test PROPERTY ENABLE_EXPORTS ON)
set_tests_properties(integration.background_openmp_test PROPERTIES
                     ENVIRONMENT "HOSTKERNEL_TEAM=auto;HOSTKERNEL_BACKGROUND_US=5;HOSTKERNEL_ALWAYS_TEAM=1")
