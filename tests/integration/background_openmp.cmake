# background_openmp_test defines a stand-in OpenMP runtime that libhostkernel must find with
# dlsym(RTLD_DEFAULT): its symbols are exported. Every launch goes to a team, so that the
# stand-in's team is the one that runs in the background.
set_property(TARGET background_openmp_test PROPERTY ENABLE_EXPORTS ON)
set_tests_properties(integration.background_openmp_test PROPERTIES
                     ENVIRONMENT "HOSTKERNEL_ALWAYS_TEAM=1")
