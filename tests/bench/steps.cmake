# The step cases of pocl-launch-bench (bench/step_paths.hpp) and the real-program A/B
# script run and check their results:
#   integration.bench_steps        every steps/* case, hostkernel and queue paths, short
#                                  runs: exit 0 (every step's and the final check passed)
#                                  and a row per case and path
#   integration.bench_steps_layer  the same with OPENCL_LAYERS=<the layer>: the queue path's
#                                  cl* calls go through the layer, and its rows' notes say
#                                  where the layer sent the launches ("layer: ...")
#   integration.real_programs_ab_list  scripts/real-programs-ab.sh --list names every
#                                  workload, and a bad argument exits 2 (no workload runs:
#                                  they need packages and take a minute)
#
# Run as a script (cmake -DBENCH=... [-DLAYER=1] -P steps.cmake) this file is the driver of
# the first two.

include(${CMAKE_CURRENT_LIST_DIR}/bench_driver.cmake)

if(CMAKE_SCRIPT_MODE_FILE)
  hk_run_bench(table progress --quick --runs 3 --filter "^steps/")
  foreach(c args-launch-finish/4k write-launch-read/4k write-launch-read/1m fill-launch-read/4k
            copy-launch-read/4k write-launch-map/4k event-chain/4k svm-launch/4k
            out-of-order/4k new-buffer/4k new-kernel/4k)
    foreach(path hostkernel queue)
      if(NOT table MATCHES "steps/${c} +applications +${path} ")
        message(FATAL_ERROR "no row for steps/${c} ${path}:\n${table}")
      endif()
    endforeach()
    if(LAYER AND NOT table MATCHES "steps/${c} +applications +queue [^\n]*layer: ")
      message(FATAL_ERROR "steps/${c}: the queue path's launches did not go through the layer:\n${table}")
    endif()
  endforeach()
  return()
endif()

if(TARGET pocl-launch-bench)
  hk_add_bench_test(integration.bench_steps)
  hk_add_bench_test(integration.bench_steps_layer -DLAYER=1)
  set_tests_properties(integration.bench_steps_layer PROPERTIES
                       ENVIRONMENT "OPENCL_LAYERS=$<TARGET_FILE:hostkernel-layer>")
endif()

add_test(NAME integration.real_programs_ab_list
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/real-programs-ab.sh --build ${PROJECT_BINARY_DIR} --list)
set_tests_properties(integration.real_programs_ab_list PROPERTIES
                     PASS_REGULAR_EXPRESSION "pyopencl-arrays-nopool.*pyopencl-arrays-pool.*pyopencl-reductions.*viennacl-cg.*boost-compute.*clblast-small.*clfft-small")
add_test(NAME integration.real_programs_ab_bad_argument
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/real-programs-ab.sh --pairs 0)
set_tests_properties(integration.real_programs_ab_bad_argument PROPERTIES WILL_FAIL TRUE)
