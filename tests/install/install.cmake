# Tests of the installed tree (cmake/HkInstall.cmake, docs/install.md). install.tree
# installs the build into build/install-test/prefix; the others use that tree only:
#
#   install.examples             scripts/test-installed.sh: examples/ built with CMake and
#                                with pkg-config against the tree, run; hostkernel-run clinfo
#   run.report                   hostkernel-run --report: an unmodified OpenCL program's
#                                launches ran directly, said by the report at exit
#   run.disable                  hostkernel-run --disable: the same launches go to PoCL
#   run.child                    a child OpenCL program of an OpenCL program is accelerated
#   run.child_keeps_user_layers  a layer the user listed reaches the parent and the child
#                                (ocl-icd cuts OPENCL_LAYERS to its first element)
#   run.layer_order              the layer goes first, the user's layers follow, a
#                                hostkernel layer already listed is not listed twice
#   run.clinfo, run.clpeak, run.pyopencl   programs people run (clpeak if installed;
#                                run.pyopencl skips without python3-pyopencl)
#
# Run as a script (cmake -DMODE=expect -P install.cmake) this file is a test driver:
#   COMMAND (its words separated by '|'): run; passes if it exits with 0 and, for each i
#   of 1 2 3 given, PATTERN<i> matches its output (stdout + stderr) exactly COUNT<i> times.

if(CMAKE_SCRIPT_MODE_FILE AND MODE STREQUAL "expect")
  string(REPLACE "|" ";" command "${COMMAND}")
  execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${command} exited with ${rc}")
  endif()
  foreach(i 1 2 3)
    if(DEFINED PATTERN${i})
      string(REGEX MATCHALL "${PATTERN${i}}" found "${out}${err}")
      list(LENGTH found n)
      if(NOT n EQUAL COUNT${i})
        message(FATAL_ERROR "'${PATTERN${i}}' matches ${n} times, expected ${COUNT${i}}")
      endif()
    endif()
  endforeach()
  return()
endif()

set(HK_TEST_PREFIX ${CMAKE_BINARY_DIR}/install-test/prefix)
set(HK_TEST_RUN ${HK_TEST_PREFIX}/${CMAKE_INSTALL_BINDIR}/hostkernel-run)

add_test(NAME install.tree COMMAND ${CMAKE_COMMAND} -E rm -rf ${HK_TEST_PREFIX})
add_test(NAME install.tree_install
         COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --prefix ${HK_TEST_PREFIX})
set_tests_properties(install.tree PROPERTIES FIXTURES_SETUP hk_tree_clean)
set_tests_properties(install.tree_install PROPERTIES FIXTURES_REQUIRED hk_tree_clean
                     FIXTURES_SETUP hk_tree)

# Programs built outside this build (the examples by test-installed.sh, clinfo, clpeak,
# python3) cannot load a sanitizer build's libraries, whose runtime must come first:
# sanitizer builds run the run.* tests of the programs built here only.
if(NOT HK_SANITIZE)
  add_test(NAME install.examples
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/test-installed.sh ${HK_TEST_PREFIX}
                   ${CMAKE_BINARY_DIR}/install-test/work)
  set_tests_properties(install.examples PROPERTIES FIXTURES_REQUIRED hk_tree TIMEOUT 300
                       PASS_REGULAR_EXPRESSION "test-installed: all passed")
endif()

# Unmodified OpenCL programs (libOpenCL only): the example built without replace.h, a
# program that starts another, and a layer that only announces itself.
add_executable(opencl_axpy ${PROJECT_SOURCE_DIR}/examples/drop_in.c)
target_link_libraries(opencl_axpy PRIVATE OpenCL::OpenCL)
add_executable(spawn_child ${CMAKE_CURRENT_LIST_DIR}/spawn_child.c)
target_link_libraries(spawn_child PRIVATE OpenCL::OpenCL)
add_library(marker_layer MODULE ${CMAKE_CURRENT_LIST_DIR}/marker_layer.c)
target_link_libraries(marker_layer PRIVATE OpenCL::OpenCL)

# One report line per process for axpy, which ran its 10 launches directly (or through
# PoCL's queue only: HOSTKERNEL_DISABLE=1).
set(hk_axpy_direct "axpy( [(]released[)])? +inline [0-9]+ +team [0-9]+ +queue 0 ")
set(hk_axpy_queue "axpy( [(]released[)])? +inline 0 +team 0 +queue 10 ")
# hk_run_test(name [ENV var=value...] RUN hostkernel-run's arguments... EXPECT pattern count...)
function(hk_run_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "" "" "ENV;RUN;EXPECT")
  set(expect "")
  set(i 0)
  while(T_EXPECT)
    math(EXPR i "${i} + 1")
    list(POP_FRONT T_EXPECT pattern count)
    list(APPEND expect "-DPATTERN${i}=${pattern}" "-DCOUNT${i}=${count}")
  endwhile()
  list(JOIN T_RUN "|" run)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DMODE=expect "-DCOMMAND=${HK_TEST_RUN}|${run}" ${expect}
                   -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED hk_tree TIMEOUT 300
                       ENVIRONMENT "${T_ENV}")
endfunction()

set(hk_axpy $<TARGET_FILE:opencl_axpy>)
set(hk_spawn $<TARGET_FILE:spawn_child>)
set(hk_marker $<TARGET_FILE:marker_layer>)
set(hk_marker_loaded "marker layer: loaded")

hk_run_test(run.report RUN --report ${hk_axpy} EXPECT "${hk_axpy_direct}" 1)
hk_run_test(run.disable RUN --disable --report -- ${hk_axpy}
            EXPECT "${hk_axpy_queue}" 1 "queue: 10 x HOSTKERNEL_DISABLE is set" 1)
hk_run_test(run.child RUN --report ${hk_spawn} ${hk_axpy}
            EXPECT "${hk_axpy_direct}" 1 "hostkernel report: launches by path" 2)
hk_run_test(run.child_keeps_user_layers ENV OPENCL_LAYERS=${hk_marker}
            RUN --report ${hk_spawn} ${hk_spawn} ${hk_axpy}
            EXPECT "${hk_axpy_direct}" 1 "${hk_marker_loaded}" 3)
hk_run_test(run.layer_order ENV "OPENCL_LAYERS=/x/a.so:/y/libhostkernel-layer.so:/x/b.so"
            RUN env
            EXPECT "[^_]OPENCL_LAYERS=${HK_TEST_PREFIX}/[^:]+/libhostkernel-layer.so:/x/a.so:/x/b.so[^:]" 1
                   "libhostkernel-layer.so" 2)
if(HK_SANITIZE)
  return()
endif()
hk_run_test(run.clinfo RUN --report clinfo -l
            EXPECT "Platform #0: Portable Computing Language" 1
                   "hostkernel report: launches by path" 1)

find_program(HK_CLPEAK clpeak)
if(HK_CLPEAK)
  hk_run_test(run.clpeak RUN --report ${HK_CLPEAK} --kernel-latency
              EXPECT "Kernel launch latency : [0-9.]+ us" 1
                     "global_bandwidth_v1_local_offset [(]released[)] +inline [0-9]+" 1)
else()
  message(STATUS "clpeak not found: no test run.clpeak (Debian: apt-get install clpeak)")
endif()

# The first python3 that has PyOpenCL (Debian's python3-pyopencl is /usr/bin/python3's);
# without one, the script itself says what is missing and the test is skipped.
set(HK_PYOPENCL_PYTHON python3)
foreach(python python3 /usr/bin/python3)
  execute_process(COMMAND ${python} -c "import pyopencl" RESULT_VARIABLE rc
                  OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(HK_PYOPENCL_PYTHON ${python})
    break()
  endif()
endforeach()
hk_run_test(run.pyopencl RUN --report ${HK_PYOPENCL_PYTHON}
                             ${CMAKE_CURRENT_LIST_DIR}/pyopencl_axpy.py
            EXPECT "${hk_axpy_direct}" 1 "pyopencl_axpy: 10 launches, results correct" 1)
set_tests_properties(run.pyopencl PROPERTIES SKIP_REGULAR_EXPRESSION "pyopencl_axpy: skipped")
