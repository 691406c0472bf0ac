# team_probe_test: a team of two threads for its team launches, and no launch in the
# background (a team job from the background thread runs on one thread fewer than the team
# has): the test counts the path every launch took.
set_tests_properties(integration.team_probe_test PROPERTIES ENVIRONMENT
  "HOSTKERNEL_NUM_THREADS=2;HOSTKERNEL_BACKGROUND_US=0")
