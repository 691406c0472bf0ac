# SPIR-V tests: they read the corpus's SPIR-V (build/spirv, target spirv_kernels) and the
# test-only kernels of tests/unit/spirv_kernels (build/spirv-test).
hk_add_spirv_kernels(spirv_test_kernels ${CMAKE_BINARY_DIR}/spirv-test
                     SOURCES ${CMAKE_CURRENT_LIST_DIR}/../unit/spirv_kernels/locals_two_kernels.cl)
foreach(t spirv_test spirv_corpus_test cpp_api_test)
  if(TARGET ${t})
    add_dependencies(${t} spirv_kernels spirv_test_kernels)
    target_compile_definitions(${t} PRIVATE HK_SPIRV_DIR="${CMAKE_BINARY_DIR}/spirv"
                               HK_SPIRV_TEST_DIR="${CMAKE_BINARY_DIR}/spirv-test")
  endif()
endforeach()
