# The OpenMP team tests link OpenMP themselves (libhostkernel never does: it finds the
# process's runtime with dlsym). Not run under ThreadSanitizer: libgomp is not
# instrumented, so TSan cannot see its barriers order a task's writes before the join and
# reports races that are not there. The same ForeignTeam code runs under TSan in
# team_foreign_test and team_executor_test, with a std::thread pool as the parallel-for.
find_package(OpenMP REQUIRED COMPONENTS CXX)
foreach(t unit.team_openmp_test integration.team_openmp_launch_test)
  string(REGEX REPLACE "^[a-z]+\\." "" target ${t})
  if(TARGET ${target})
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX)
    # openmp, not auto: auto runs jobs inline for a while after a slow join (a loaded
    # machine), and these tests count where jobs ran.
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT HOSTKERNEL_TEAM=openmp)
    if(HK_SANITIZE STREQUAL "thread")
      set_tests_properties(${t} PROPERTIES DISABLED TRUE)
    endif()
  endif()
endforeach()
