# team_busy_openmp_test defines a stand-in OpenMP runtime that libhostkernel must find
# with dlsym(RTLD_DEFAULT): its symbols are exported. The default team mode, auto, is the
# mode under test.
if(TARGET team_busy_openmp_test)
  set_property(TARGET team_busy_openmp_test PROPERTY ENABLE_EXPORTS ON)
endif()
