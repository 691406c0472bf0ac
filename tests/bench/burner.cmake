# pocl-launch-bench --burner (bench/burner.hpp):
#   unit.bench_burner_test   the burning process burns while its Burner lives, stop() and
#                            the destructor kill and reap it, stop() says when it had died,
#                            and it dies with the process that made it (SIGKILL, SIGTERM,
#                            an exit without destructors)
#   integration.bench_burner the bench with --burner on launch/trivial: meta.burner in the
#                            JSON (true, and false without the flag), one burner for a
#                            --processes run, and no burner left behind after the run, nor
#                            after the bench is killed (SIGKILL, SIGTERM) in the middle of
#                            a case (tests/bench/burner_run.sh)

if(TARGET pocl-launch-bench)
  add_executable(bench_burner_test ${CMAKE_CURRENT_LIST_DIR}/burner_test.cpp
                 ${PROJECT_SOURCE_DIR}/bench/burner.cpp)
  target_include_directories(bench_burner_test PRIVATE ${PROJECT_SOURCE_DIR}/bench)
  target_link_libraries(bench_burner_test PRIVATE GTest::gtest GTest::gtest_main)
  add_test(NAME unit.bench_burner_test COMMAND bench_burner_test)
  add_test(NAME integration.bench_burner
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/burner_run.sh $<TARGET_FILE:pocl-launch-bench>)
endif()
