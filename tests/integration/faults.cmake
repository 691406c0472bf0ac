# integration.faults_unload: the "library unloaded while idle" part of faults_test.cpp,
# built without linking libhostkernel (which it dlopens and dlcloses itself; a linked copy
# would never be unloaded).
add_executable(faults_unload ${CMAKE_CURRENT_LIST_DIR}/faults_test.cpp)
target_include_directories(faults_unload PRIVATE ${PROJECT_SOURCE_DIR}/include
  ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(faults_unload PRIVATE OpenCL::OpenCL GTest::gtest GTest::gtest_main
  Threads::Threads ${CMAKE_DL_LIBS})
target_compile_definitions(faults_unload PRIVATE HK_FAULTS_UNLOAD
  HK_LIBHOSTKERNEL="$<TARGET_FILE:hostkernel>")
add_dependencies(faults_unload hostkernel)
add_test(NAME integration.faults_unload COMMAND faults_unload)


# integration.faults_no_platform: no OpenCL platform at all (the ICD loader reads an empty
# vendor directory).
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/no-icd-vendors)
add_test(NAME integration.faults_no_platform
         COMMAND faults_test --gtest_filter=NoPlatform.*)
set_tests_properties(integration.faults_no_platform PROPERTIES ENVIRONMENT
  "OCL_ICD_VENDORS=${CMAKE_CURRENT_BINARY_DIR}/no-icd-vendors;HK_TEST_NO_PLATFORM=1")
