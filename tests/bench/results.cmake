# integration.bench_results_load: the result files kept in bench/results/ (written by
# earlier versions of pocl-launch-bench) still load: --from-json F --compare F runs, and
# --from-json F --json OUT writes the same results (names, paths, medians, runs, ratios)
# in the schema of docs/benchmarks.md.
#
# Run as a script (cmake -DBENCH=... -DRESULTS_DIR=... -DOUT=... -P results.cmake) this
# file is the test's driver.

include(${CMAKE_CURRENT_LIST_DIR}/bench_driver.cmake)

if(CMAKE_SCRIPT_MODE_FILE)
  file(GLOB files ${RESULTS_DIR}/*.json)
  if(NOT files)
    message(FATAL_ERROR "no result files in ${RESULTS_DIR}")
  endif()
  foreach(f ${files})
    execute_process(COMMAND ${BENCH} --from-json ${f} --compare ${f}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT table MATCHES "geometric mean")
      message(FATAL_ERROR "--compare ${f}: exit ${rc}\n${table}\n${err}")
    endif()
    execute_process(COMMAND ${BENCH} --from-json ${f} --json ${OUT}
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "--from-json ${f} --json: exit ${rc}\n${err}")
    endif()
    file(READ ${f} before)
    file(READ ${OUT} after)
    string(JSON schema GET "${after}" schema)
    string(JSON n LENGTH "${before}" results)
    string(JSON m LENGTH "${after}" results)
    if(NOT schema STREQUAL "pocl-launch-bench/2" OR NOT n EQUAL m)
      message(FATAL_ERROR "${f}: schema '${schema}', ${m} results written of ${n}")
    endif()
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      foreach(key name path median_ns runs ratio)
        string(JSON a GET "${before}" results ${i} ${key})
        string(JSON b GET "${after}" results ${i} ${key})
        # The same decimal number: 73549.5200 was written as 73549.52.
        foreach(v a b)
          if(${v} MATCHES "^[0-9]+\\.[0-9]*$")
            string(REGEX REPLACE "0+$" "" ${v} "${${v}}")
            string(REGEX REPLACE "\\.$" "" ${v} "${${v}}")
          endif()
        endforeach()
        if(NOT a STREQUAL b)
          message(FATAL_ERROR "${f}: results[${i}].${key} was '${a}', written '${b}'")
        endif()
      endforeach()
    endforeach()
    message("${f}: ${n} results load and write back")
  endforeach()
  return()
endif()

if(TARGET pocl-launch-bench)
  hk_add_bench_test(integration.bench_results_load
                    -DRESULTS_DIR=${PROJECT_SOURCE_DIR}/bench/results
                    -DOUT=${CMAKE_CURRENT_BINARY_DIR}/bench-results-load.json)
endif()
