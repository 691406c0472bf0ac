# Tests of libhostkernel-layer.so: unmodified OpenCL programs (linked with libOpenCL only,
# never with libhostkernel) run with OPENCL_LAYERS=<the layer>.
#
#   integration.layer              layer_program.cpp: kernels, ordering with non-blocking
#                                  commands (in-order, out-of-order, two queues), events
#                                  and profiling timestamps, direct launches checked through
#                                  the layer's hkGetKernelLaunchCounts extension function
#   integration.layer_report       HOSTKERNEL_REPORT=1 prints the per-kernel counts at exit
#   integration.layer_not_loaded   the same program without the layer must fail
#   integration.layer_corpus       corpus_test.cpp and its cases (corpus_cases/) built as
#                                  plain OpenCL (-DHK_QUEUE_ONLY) through the layer: every
#                                  launch direct, results agree
#   integration.layer_entries      replace.h maps exactly the functions of entries.def, the
#                                  list the layer's table is made from
#
# Run as a script (cmake -DMODE=... -P layer.cmake) this file is a test driver:
#   MODE=run      PROGRAM, ARGS, PASS, FAIL, DIRECT: runs PROGRAM; passes if it exits with
#                 0, its output (stdout + stderr) matches PASS and does not match FAIL, and,
#                 with DIRECT=n, PASS's 2nd and 3rd groups (inline and team counts) sum to n
#                 (which of the two a launch takes depends on timing)

if(CMAKE_SCRIPT_MODE_FILE AND MODE STREQUAL "run")
  execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} exited with ${rc}")
  endif()
  if(PASS AND NOT "${out}${err}" MATCHES "${PASS}")
    message(FATAL_ERROR "the output does not match '${PASS}'")
  endif()
  if(DIRECT)
    math(EXPR direct "${CMAKE_MATCH_2} + ${CMAKE_MATCH_3}")
    if(NOT direct EQUAL DIRECT)
      message(FATAL_ERROR "${direct} direct launches (inline + team), expected ${DIRECT}")
    endif()
  endif()
  # EXEMPT (one group: a kernel's name) names kernels that PoCL's own queue cannot run
  # either: their report lines are not checked against FAIL when every launch of theirs
  # went to the queue because the kernel could not be prepared.
  set(checked "${out}${err}")
  if(EXEMPT)
    string(REGEX MATCHALL "${EXEMPT}" exempt_lines "${checked}")
    foreach(line ${exempt_lines})
      string(REGEX REPLACE "${EXEMPT}" "\\1" kernel "${line}")
      string(REGEX REPLACE
             "\n  ${kernel}( \\(released\\))? +inline 0 +team 0 +queue [0-9]+ +background 0 *\n +queue: [0-9]+ x kernel could not be prepared"
             "" checked "${checked}")
    endforeach()
  endif()
  if(FAIL AND "${checked}" MATCHES "${FAIL}")
    message(FATAL_ERROR "the output matches '${FAIL}': ${CMAKE_MATCH_0}")
  endif()
  return()
endif()

set(HK_LAYER_ENV "OPENCL_LAYERS=$<TARGET_FILE:hostkernel-layer>")

add_executable(layer_program ${CMAKE_CURRENT_LIST_DIR}/layer_program.cpp)
target_include_directories(layer_program PRIVATE ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(layer_program PRIVATE OpenCL::OpenCL GTest::gtest GTest::gtest_main)
target_compile_definitions(layer_program PRIVATE HK_KERNELS_DIR="${PROJECT_SOURCE_DIR}/kernels")
add_dependencies(layer_program hostkernel-layer)

add_test(NAME integration.layer COMMAND layer_program)
set_tests_properties(integration.layer PROPERTIES ENVIRONMENT "${HK_LAYER_ENV}")

add_test(NAME integration.layer_report
         COMMAND ${CMAKE_COMMAND} -DMODE=run -DPROGRAM=$<TARGET_FILE:layer_program>
                 -DARGS=--gtest_filter=Layer.AxpyRepeatedWithChangingArguments
                 "-DPASS=hostkernel report: launches by path.*axpy( \\(released\\))? +inline ([0-9]+) +team ([0-9]+) +queue 0 "
                 -DDIRECT=10
                 -P ${CMAKE_CURRENT_LIST_FILE})
set_tests_properties(integration.layer_report PROPERTIES
  ENVIRONMENT "${HK_LAYER_ENV};HOSTKERNEL_REPORT=1")

# Break-it check: without the layer the program must fail (its launches are not direct).
add_test(NAME integration.layer_not_loaded
         COMMAND layer_program --gtest_filter=Layer.IsLoaded*:Layer.TrivialRunsDirectly)
set_tests_properties(integration.layer_not_loaded PROPERTIES
  ENVIRONMENT_MODIFICATION "OPENCL_LAYERS=unset:" WILL_FAIL TRUE)

# The corpus, as a plain OpenCL program: both of its launch paths go through the layer
# (its hk* calls are plain cl* calls in this build), so the two results must agree and
# the layer's report must show no launch that fell back to PoCL's queue.
add_executable(layer_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus_test.cpp
  ${HK_CORPUS_CASES})
target_include_directories(layer_corpus PRIVATE ${PROJECT_SOURCE_DIR}/include
  ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(layer_corpus PRIVATE OpenCL::OpenCL GTest::gtest GTest::gtest_main)
target_compile_definitions(layer_corpus PRIVATE HK_QUEUE_ONLY
  HK_KERNELS_DIR="${PROJECT_SOURCE_DIR}/kernels")
add_dependencies(layer_corpus hostkernel-layer)
add_test(NAME integration.layer_corpus
         COMMAND ${CMAKE_COMMAND} -DMODE=run -DPROGRAM=$<TARGET_FILE:layer_corpus>
                 "-DPASS=hostkernel report: launches by path" "-DFAIL=queue: [0-9]+ x [^\n]*"
                 "-DEXEMPT=PoCL's own queue fails ([A-Za-z_0-9]+) "
                 -P ${CMAKE_CURRENT_LIST_FILE})
set_tests_properties(integration.layer_corpus PROPERTIES
  ENVIRONMENT "${HK_LAYER_ENV};HOSTKERNEL_REPORT=1")

add_test(NAME integration.layer_entries
         COMMAND ${CMAKE_COMMAND} -DMODE=check -P ${PROJECT_SOURCE_DIR}/cmake/HkReplaceHeader.cmake)
