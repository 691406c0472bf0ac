# exit() during a compile: each child compiles into an empty PoCL cache, where PoCL 3.1
# loses 16 bytes per compile (tests/sanitizers/lsan.supp). Matching that suppression needs
# full malloc stacks, which make the compiles about ten times slower under ASan: this test
# is about crashes at exit, so its children run without the leak check, which the other
# tests keep.
set_property(TEST integration.exit_during_compile_test APPEND PROPERTY
             ENVIRONMENT ASAN_OPTIONS=detect_leaks=0)
