# The OpenMP team tests link OpenMP themselves (libhostkernel never does: it finds the
# process's runtime with dlsym). Under ThreadSanitizer they skip themselves
# (tests/unit/team_openmp_test.cpp says why).
find_package(OpenMP REQUIRED COMPONENTS CXX)
foreach(t unit.team_openmp_test integration.team_openmp_launch_test)
  string(REGEX REPLACE "^[a-z]+\\." "" target ${t})
  if(TARGET ${target})
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX)
    # openmp, not auto: auto runs jobs on the own workers for a while after a slow join (a loaded
    # machine), and these tests count where jobs ran.
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT HOSTKERNEL_TEAM=openmp)
    # And on the team always: they count launches by path, and the calling thread alone
    # may measure faster for their small kernels (launch/team_gain.hpp).
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT HOSTKERNEL_ALWAYS_TEAM=1)
  endif()
endforeach()
