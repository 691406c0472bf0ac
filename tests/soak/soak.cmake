# Soak test (tests/soak/soak.cpp): hk_soak launches from several application threads and
# checks every result and the process's memory. The full run (10^6 launches, a few
# minutes) is not part of ctest:
#     build/bin/hk_soak --launches 1000000 --threads 4
# ctest runs a short variant, labelled `soak` (exclude it with `ctest -LE soak`).
add_executable(hk_soak ${CMAKE_CURRENT_LIST_DIR}/soak.cpp)
target_link_libraries(hk_soak PRIVATE hostkernel OpenCL::OpenCL Threads::Threads)
target_include_directories(hk_soak PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})  # support/

add_test(NAME soak.short COMMAND hk_soak --launches 20000 --threads 4)
set_tests_properties(soak.short PROPERTIES LABELS soak TIMEOUT 900)
