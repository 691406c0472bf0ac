# perf_map_test: HOSTKERNEL_PERF_MAP=1 names the loaded work-group functions in
# /tmp/perf-<pid>.map (docs/profiling.md).
set_tests_properties(integration.perf_map_test PROPERTIES ENVIRONMENT HOSTKERNEL_PERF_MAP=1)

# perf_report: `perf report` of a bench case names a work-group function (skipped where
# perf cannot record).
if(TARGET pocl-launch-bench)
  add_test(NAME integration.perf_report
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/perf_report.sh $<TARGET_FILE:pocl-launch-bench>)
  set_tests_properties(integration.perf_report PROPERTIES SKIP_RETURN_CODE 77)
endif()
