# LLVM and LLVMSPIRVLib of HK_LLVM_VERSION (that of the installed PoCL: HkLlvmVersion.cmake),
# linked as shared libraries. Sets, for the few sources that see LLVM's headers (public
# headers never include them):
#   HK_LLVM_FLAGS      compile options: LLVM's definitions, its headers as system headers
#                      (LLVM's warnings are not ours), -fno-rtti when LLVM has none
#   HK_LLVM_LIBRARIES  what those sources link: LLVMSPIRVLib and libLLVM
#
#   include(HkLlvm)
#   set_source_files_properties(spirv_llvm.cpp PROPERTIES COMPILE_OPTIONS "${HK_LLVM_FLAGS}")
#   target_link_libraries(target PRIVATE ${HK_LLVM_LIBRARIES})
#
# LLVM 18 and later accept only their own major.minor as a version request: the major
# version is checked after the search instead.
find_package(LLVM REQUIRED CONFIG HINTS /usr/lib/llvm-${HK_LLVM_VERSION}/lib/cmake/llvm)
if(NOT LLVM_VERSION_MAJOR EQUAL HK_LLVM_VERSION)
  message(FATAL_ERROR "found LLVM ${LLVM_PACKAGE_VERSION} (${LLVM_DIR}), but PoCL uses "
                      "LLVM ${HK_LLVM_VERSION}: install llvm-${HK_LLVM_VERSION}-dev")
endif()
find_library(HK_LLVMSPIRV_LIBRARY NAMES LLVMSPIRVLib HINTS ${LLVM_LIBRARY_DIRS} REQUIRED)
find_path(HK_LLVMSPIRV_INCLUDE_DIR LLVMSPIRVLib/LLVMSPIRVLib.h HINTS ${LLVM_INCLUDE_DIRS} REQUIRED)
set(HK_LLVM_INCLUDE_DIRS ${LLVM_INCLUDE_DIRS})
if(NOT HK_LLVMSPIRV_INCLUDE_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  list(APPEND HK_LLVM_INCLUDE_DIRS ${HK_LLVMSPIRV_INCLUDE_DIR})  # not /usr/include itself
endif()
separate_arguments(HK_LLVM_FLAGS UNIX_COMMAND "${LLVM_DEFINITIONS}")
foreach(dir ${HK_LLVM_INCLUDE_DIRS})
  list(APPEND HK_LLVM_FLAGS -isystem${dir})
endforeach()
if(NOT LLVM_ENABLE_RTTI)
  list(APPEND HK_LLVM_FLAGS -fno-rtti)
endif()
set(HK_LLVM_LIBRARIES ${HK_LLVMSPIRV_LIBRARY} LLVM)
