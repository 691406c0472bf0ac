# pocl-launch-bench's own logic:
#   unit.bench_processes_test      combining --processes results (bench/processes.hpp)
#   integration.bench_processes    --processes 2 on launch/trivial, end to end: the JSON
#                                  says 2 processes, holds both processes' runs and a
#                                  ratio, and the note gives the per-process ratios
#
# Run as a script (cmake -DBENCH=... -DOUT=... -P bench.cmake) this file is the driver of
# integration.bench_processes.

include(${CMAKE_CURRENT_LIST_DIR}/bench_driver.cmake)

if(CMAKE_SCRIPT_MODE_FILE)
  hk_run_bench(table progress --processes 2 --quick --runs 3 --filter "^launch/trivial$"
               --json ${OUT})
  file(READ ${OUT} json)
  string(JSON processes GET "${json}" meta processes)
  string(JSON count LENGTH "${json}" results)
  if(NOT processes EQUAL 2 OR NOT count EQUAL 2)
    message(FATAL_ERROR "want 2 processes and 2 results, got ${processes} and ${count}:\n${json}")
  endif()
  foreach(i RANGE 1)
    string(JSON path GET "${json}" results ${i} path)
    string(JSON runs GET "${json}" results ${i} runs)
    if(NOT runs EQUAL 6)
      message(FATAL_ERROR "${path}: want 6 runs (3 in each process), got ${runs}")
    endif()
    if(path STREQUAL "hostkernel")
      string(JSON ratio GET "${json}" results ${i} ratio)
      string(JSON note GET "${json}" results ${i} note)
      if(ratio STREQUAL "NOTFOUND" OR NOT note MATCHES "ratio per process [0-9.]+x-[0-9.]+x")
        message(FATAL_ERROR "hostkernel: ratio '${ratio}', note '${note}'")
      endif()
    endif()
  endforeach()
  if(NOT progress MATCHES "\\[process 2/2\\]")
    message(FATAL_ERROR "no progress for the second process:\n${progress}")
  endif()
  return()
endif()

if(TARGET pocl-launch-bench)
  set(hk_bench_dir ${PROJECT_SOURCE_DIR}/bench)
  add_executable(bench_processes_test ${CMAKE_CURRENT_LIST_DIR}/processes_test.cpp
                 ${hk_bench_dir}/processes.cpp ${hk_bench_dir}/stats.cpp
                 ${hk_bench_dir}/report.cpp)
  target_include_directories(bench_processes_test PRIVATE ${hk_bench_dir})
  target_link_libraries(bench_processes_test PRIVATE GTest::gtest GTest::gtest_main
                        nlohmann_json::nlohmann_json)
  add_test(NAME unit.bench_processes_test COMMAND bench_processes_test)
  hk_add_bench_test(integration.bench_processes
                    -DOUT=${CMAKE_CURRENT_BINARY_DIR}/bench-processes.json)
endif()
