# merged_groups_test: how far groups merge depends on the team's size (docs/launch.md,
# "Merged work-groups"); the test expects a team of 2 threads (1 where only one CPU is
# allowed).
set_tests_properties(integration.merged_groups_test PROPERTIES ENVIRONMENT HOSTKERNEL_NUM_THREADS=2)
