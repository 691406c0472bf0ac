# Runtime options for every test of a sanitizer build (-DHK_SANITIZE=address or thread),
# so that a plain `ctest` in build-asan / build-tsan runs as CI does
# (scripts/test-sanitizers.sh builds both and runs them).
#
# ASan+UBSan: leaks are checked (LSan); lsan.supp may list genuine leaks of PoCL, LLVM or
# the ICD loader only (today: PoCL's, by library, as it says why). UBSan stops at the first
# finding (the build uses -fno-sanitize-recover). TSan: tsan.supp may list races inside PoCL's own
# (uninstrumented) code only; a report with a hostkernel frame is never suppressed.
#
# The options are prepended to any value already in the environment, so a developer can
# still add or override options (later ones win), e.g. ASAN_OPTIONS=verbosity=1 ctest.
# Applied to every test of this directory once all tests/*/*.cmake fragments have been
# read (cmake_language(DEFER)), so tests added by later fragments get them too.
if(HK_SANITIZE STREQUAL "address")
  set(HK_SANITIZER_ENV
    "ASAN_OPTIONS=string_prepend:detect_leaks=1:halt_on_error=1:abort_on_error=0:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=0:"
    "LSAN_OPTIONS=string_prepend:suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan.supp:print_suppressions=0:"
    "UBSAN_OPTIONS=string_prepend:print_stacktrace=1:halt_on_error=1:")
elseif(HK_SANITIZE STREQUAL "thread")
  set(HK_SANITIZER_ENV
    "TSAN_OPTIONS=string_prepend:suppressions=${CMAKE_CURRENT_LIST_DIR}/tsan.supp:second_deadlock_stack=1:halt_on_error=0:exitcode=66:")
else()
  set(HK_SANITIZER_ENV "")
endif()

function(hk_apply_sanitizer_env)
  if(NOT HK_SANITIZER_ENV)
    return()
  endif()
  get_property(tests DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} PROPERTY TESTS)
  foreach(t IN LISTS tests)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT_MODIFICATION ${HK_SANITIZER_ENV})
  endforeach()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} CALL hk_apply_sanitizer_env)
