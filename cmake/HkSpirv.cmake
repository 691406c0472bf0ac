# hk_add_spirv_kernels: OpenCL C files → SPIR-V modules at build time.
#
#   include(HkSpirv)
#   hk_add_spirv_kernels(my_spirv ${CMAKE_BINARY_DIR}/spirv
#                        SOURCES kernels/axpy.cl kernels/scan.cl
#                        OPTIONS -DTILE=16)          # extra clang options (optional)
#   add_dependencies(my_app my_spirv)                # builds spirv/axpy.spv, spirv/scan.spv
#
# Each file is compiled as PoCL compiles OpenCL C itself (front end at -O0; PoCL
# optimises after its own work-group passes, so optimising here first gains nothing and
# changes which IR reaches them), to 64-bit SPIR, then translated:
#   clang-15 -c -target spir64 -cl-std=CL1.2 -O0 -cl-kernel-arg-info -emit-llvm f.cl -o f.bc
#   llvm-spirv-15 f.bc -o f.spv
# -cl-kernel-arg-info keeps the argument names (clGetKernelArgInfo, hk::Error messages).
# Build options that change code generation (e.g. -cl-denorms-are-zero) belong in the
# clBuildProgram options of the SPIR-V program too: SPIR-V does not carry them.
#
# The target gets the property HK_SPIRV_DIR (the output directory). Header dependencies of
# the .cl files are tracked (clang -MD). Tools: HK_CLANG (clang-<HK_LLVM_VERSION>) and
# HK_LLVM_SPIRV (llvm-spirv-<HK_LLVM_VERSION>), cache variables that can be overridden.
include_guard(GLOBAL)

find_program(HK_CLANG NAMES clang-${HK_LLVM_VERSION} PATHS /usr/lib/llvm-${HK_LLVM_VERSION}/bin
             DOC "clang of HK_LLVM_VERSION, for OpenCL C → SPIR (hk_add_spirv_kernels)")
find_program(HK_LLVM_SPIRV NAMES llvm-spirv-${HK_LLVM_VERSION} llvm-spirv
             PATHS /usr/lib/llvm-${HK_LLVM_VERSION}/bin
             DOC "LLVM/SPIR-V translator of HK_LLVM_VERSION (hk_add_spirv_kernels)")
set(HK_SPIRV_CLANG_FLAGS -c -target spir64 -cl-std=CL1.2 -O0 -cl-kernel-arg-info -emit-llvm
    CACHE STRING "clang flags for OpenCL C → SPIR bitcode (hk_add_spirv_kernels)")

function(hk_add_spirv_kernels target output_dir)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "" "SOURCES;OPTIONS")
  set(sources ${ARG_SOURCES} ${ARG_UNPARSED_ARGUMENTS})
  if(NOT sources)
    message(FATAL_ERROR "hk_add_spirv_kernels(${target}): no SOURCES")
  endif()
  if(NOT HK_CLANG OR NOT HK_LLVM_SPIRV)
    message(FATAL_ERROR "hk_add_spirv_kernels(${target}) needs clang-${HK_LLVM_VERSION} and "
                        "llvm-spirv-${HK_LLVM_VERSION} (Debian: apt-get install "
                        "clang-${HK_LLVM_VERSION} llvm-spirv-${HK_LLVM_VERSION})")
  endif()
  set(outputs)
  foreach(src ${sources})
    get_filename_component(src_abs ${src} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_filename_component(name ${src} NAME_WE)
    set(bc ${output_dir}/${name}.bc)
    set(spv ${output_dir}/${name}.spv)
    add_custom_command(
      OUTPUT ${spv}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${output_dir}
      COMMAND ${HK_CLANG} ${HK_SPIRV_CLANG_FLAGS} ${ARG_OPTIONS} -MD -MF ${bc}.d -MT ${spv}
              -o ${bc} ${src_abs}
      COMMAND ${HK_LLVM_SPIRV} ${bc} -o ${spv}
      MAIN_DEPENDENCY ${src_abs}
      DEPFILE ${bc}.d
      BYPRODUCTS ${bc}
      COMMENT "SPIR-V: ${name}.spv"
      VERBATIM)
    list(APPEND outputs ${spv})
  endforeach()
  add_custom_target(${target} ALL DEPENDS ${outputs})
  set_target_properties(${target} PROPERTIES HK_SPIRV_DIR ${output_dir})
endfunction()
