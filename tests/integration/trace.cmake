# trace_test: HOSTKERNEL_TRACE's Chrome trace-event JSON, read back with nlohmann-json
# (docs/profiling.md); a team of two threads for its team launches, always taken (the test
# checks which launches ran where; launch/team_gain.hpp could measure its small kernel
# faster on the calling thread alone), and no launch in the background (a team job from
# the background thread leaves the application a CPU: with two threads it runs on one lane).
find_package(nlohmann_json 3 REQUIRED)
target_link_libraries(trace_test PRIVATE nlohmann_json::nlohmann_json)
set_tests_properties(integration.trace_test PROPERTIES ENVIRONMENT
  "HOSTKERNEL_NUM_THREADS=2;HOSTKERNEL_ALWAYS_TEAM=1;HOSTKERNEL_BACKGROUND_US=0;HOSTKERNEL_TRACE=${CMAKE_CURRENT_BINARY_DIR}/trace_test.json")
