# integration.bench_host_gap: every apps/host-gap/* case of pocl-launch-bench runs on the
# hostkernel and queue paths with short runs: exit 0 (every step's result and the final
# check matched the host's), a row per case and path, and a note with the kernel's
# calibrated work. No timing is asserted.
#
# Run as a script (cmake -DBENCH=... -P host_gap.cmake) this file is the test's driver.

include(${CMAKE_CURRENT_LIST_DIR}/bench_driver.cmake)

if(CMAKE_SCRIPT_MODE_FILE)
  hk_run_bench(table progress --quick --runs 2 --filter "^apps/host-gap/")
  foreach(x 2 20 200)
    foreach(y 2 20 200)
      foreach(path hostkernel queue)
        if(NOT table MATCHES "apps/host-gap/x${x}-y${y} +applications +${path} [^\n]*kernel alone [^\n]* \\([0-9]+ iterations\\)")
          message(FATAL_ERROR "no row with the kernel's work for apps/host-gap/x${x}-y${y} ${path}:\n${table}")
        endif()
      endforeach()
    endforeach()
  endforeach()
  return()
endif()

if(TARGET pocl-launch-bench)
  hk_add_bench_test(integration.bench_host_gap)
endif()
