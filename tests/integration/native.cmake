# Native-kernel tests read the SPIR-V of kernels/native (build/spirv-native, target
# spirv_native_kernels).
if(TARGET native_kernels_test)
  add_dependencies(native_kernels_test spirv_native_kernels)
  target_compile_definitions(native_kernels_test PRIVATE
                             HK_SPIRV_NATIVE_DIR="${CMAKE_BINARY_DIR}/spirv-native")
endif()
