# HK_LLVM_VERSION: the LLVM major version hostkernel builds against, which must be the one
# the installed PoCL was built with (hostkernel reads PoCL's program.bc, and older LLVMs
# cannot read newer bitcode; its SPIR-V tools must produce what that LLVM reads). Detected
# from the LLVM version PoCL names in its platform string, a literal inside libpocl
# ("... SPIR-V, LLVM 18.1.8, ..."; a statically linked LLVM carries the same "LLVM x.y.z"),
# and kept as a cache variable: -DHK_LLVM_VERSION=18 overrides it.
#
#   include(HkLlvmVersion)
#   find_package(LLVM ${HK_LLVM_VERSION} REQUIRED CONFIG HINTS /usr/lib/llvm-${HK_LLVM_VERSION}/lib/cmake/llvm)
if(NOT HK_LLVM_VERSION)
  find_library(HK_POCL_LIBRARY NAMES pocl libpocl.so.2 DOC "PoCL's library, read for its LLVM version")
  set(detected "")
  if(HK_POCL_LIBRARY)
    get_filename_component(real "${HK_POCL_LIBRARY}" REALPATH)
    file(STRINGS "${real}" hits REGEX "LLVM [0-9]+\\.[0-9]+\\.[0-9]+" LIMIT_COUNT 1)
    if(hits MATCHES "LLVM ([0-9]+)\\.[0-9]+\\.[0-9]+")
      set(detected ${CMAKE_MATCH_1})
    endif()
  endif()
  if(NOT detected)
    message(FATAL_ERROR "the LLVM version of PoCL was not found in '${HK_POCL_LIBRARY}': "
                        "install PoCL (libpocl-dev) or pass -DHK_LLVM_VERSION=<major>")
  endif()
  set(HK_LLVM_VERSION ${detected} CACHE STRING "LLVM major version (that of the installed PoCL)")
  message(STATUS "PoCL is built with LLVM ${HK_LLVM_VERSION} (${real})")
endif()
