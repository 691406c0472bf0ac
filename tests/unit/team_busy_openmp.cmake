# team_busy_openmp_test defines a stand-in OpenMP runtime that libhostkernel must find
# with dlsym(RTLD_DEFAULT): its symbols are exported. HOSTKERNEL_TEAM=auto, the default,
# is the mode under test.
if(TARGET team_busy_openmp_test)
  set_property(TARGET team_busy_openmp_test PROPERTY ENABLE_EXPORTS ON)
  set_property(TEST unit.team_busy_openmp_test APPEND PROPERTY ENVIRONMENT HOSTKERNEL_TEAM=auto)
endif()
