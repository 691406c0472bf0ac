# integration.launch_instructions: the launch path's cost in instructions, the stable
# guard that timings on a shared machine cannot be. scripts/callgrind-launch.sh counts
# the main thread's instructions per steady-state step of pocl-launch-bench's hostkernel
# path, one thread, no spinning and no specialization, and each must stay under its bound:
#   launch/trivial        a launch + finish: the fast path (about 350)
#   steps/event-chain/4k  write, launch and read, each waiting for the last one's event
#                         and asking for its own, three event releases: complete direct
#                         events are reused and need no wait (about 6,400; 13,000 when
#                         each event is a new PoCL user event that the launch asks about)
# Skipped without valgrind and in sanitizer builds.
#
# Run as a script (cmake -DBENCH=... -DSCRIPT=... -P instructions.cmake) this file is the
# test's driver.

include(${CMAKE_CURRENT_LIST_DIR}/bench_driver.cmake)

if(CMAKE_SCRIPT_MODE_FILE)
  set(ENV{HOSTKERNEL_NUM_THREADS} 1)
  set(ENV{HOSTKERNEL_BACKGROUND_US} 0)
  set(ENV{HOSTKERNEL_SPIN_US} 0)
  # No specialization: under callgrind and a loaded machine even launch/trivial may be
  # timed as team work, and a specialized function compiled in one of the two runs only
  # (PoCL 6.0 compiles it on the enqueuing thread) would swamp the difference.
  set(ENV{HOSTKERNEL_SPECIALIZE_MS} 100000)
  set(ENV{OMP_WAIT_POLICY} passive)
  set(ENV{PATHS} hostkernel)
  set(ENV{N1} 100)
  set(ENV{N2} 300)
  set(ENV{WARMUP} 100)
  foreach(pair "launch/trivial=600" "steps/event-chain/4k=9000")
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 case)
    list(GET pair 1 bound)
    set(ENV{CASE} ${case})
    # Work that only one of the two runs did (a compile nothing here starts on purpose)
    # swamps the difference, either way: a count out of bounds is measured again, up to
    # twice. A real regression is out of bounds every time.
    foreach(attempt RANGE 2)
      execute_process(COMMAND bash ${SCRIPT} ${BENCH} RESULT_VARIABLE status
                      OUTPUT_VARIABLE out ERROR_VARIABLE err)
      if(NOT status EQUAL 0)
        message(FATAL_ERROR "${case}: callgrind-launch.sh exited with ${status}:\n${out}\n${err}")
      endif()
      if(NOT out MATCHES "\nhostkernel +[0-9]+ +[0-9]+ +[-0-9.]+ +([-0-9.]+)")
        message(FATAL_ERROR "${case}: no hostkernel row:\n${out}")
      endif()
      set(main ${CMAKE_MATCH_1})
      if(main GREATER 0 AND NOT main GREATER ${bound})
        break()
      endif()
      message(STATUS "${case}: ${main} instructions per step, measured again:\n${out}")
    endforeach()
    message(STATUS "${case}: ${main} instructions per step on the main thread (bound ${bound})")
    if(main GREATER ${bound} OR main LESS 1)
      message(FATAL_ERROR "${case}: ${main} instructions per step, bound ${bound}:\n${out}")
    endif()
  endforeach()
  return()
endif()

find_program(HK_VALGRIND valgrind)
if(TARGET pocl-launch-bench AND HK_VALGRIND AND NOT HK_SANITIZE)
  hk_add_bench_test(integration.launch_instructions
                    -DSCRIPT=${PROJECT_SOURCE_DIR}/scripts/callgrind-launch.sh)
endif()
