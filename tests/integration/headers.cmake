# integration.headers: every public header compiles on its own (the C headers as C11 and
# as C++, the C++ API's headers as C++20), so that one concept's header can be included
# without the umbrella hostkernel.hpp and without knowing what else it needs.
#
# Run as a script (cmake -DMODE=headers -P headers.cmake) this file is the test driver:
#   INCLUDE_DIR, C_COMPILER, CXX_COMPILER.

if(CMAKE_SCRIPT_MODE_FILE AND MODE STREQUAL "headers")
  file(GLOB c_headers RELATIVE ${INCLUDE_DIR} ${INCLUDE_DIR}/hostkernel/*.h)
  file(GLOB cxx_headers RELATIVE ${INCLUDE_DIR} ${INCLUDE_DIR}/hostkernel/*.hpp)
  list(REMOVE_ITEM c_headers hostkernel/kernel.h)  # OpenCL C: the native kernels' prelude
  set(failed "")
  set(src ${CMAKE_CURRENT_BINARY_DIR}/headers_test.src)
  foreach(h ${c_headers} ${cxx_headers})
    set(languages cxx)
    if(h MATCHES "\\.h$")
      set(languages c cxx)
    endif()
    foreach(lang ${languages})
      if(lang STREQUAL "c")
        set(compile ${C_COMPILER} -std=c11 -xc)
      else()
        set(compile ${CXX_COMPILER} -std=c++20 -xc++)
      endif()
      file(WRITE ${src} "#include <${h}>\n")
      execute_process(COMMAND ${compile} -fsyntax-only -Wall -Wextra -Werror -I${INCLUDE_DIR}
                              ${src}
                      RESULT_VARIABLE rc ERROR_VARIABLE err)
      if(NOT rc EQUAL 0)
        list(APPEND failed "${h} (${lang})")
        message("${h} (${lang}):\n${err}")
      endif()
    endforeach()
  endforeach()
  if(failed)
    message(FATAL_ERROR "headers that do not compile on their own: ${failed}")
  endif()
  list(LENGTH c_headers nc)
  list(LENGTH cxx_headers ncxx)
  message(STATUS "${nc} C and ${ncxx} C++ headers compile on their own")
  return()
endif()

add_test(NAME integration.headers
         COMMAND ${CMAKE_COMMAND} -DMODE=headers -DINCLUDE_DIR=${PROJECT_SOURCE_DIR}/include
                 -DC_COMPILER=${CMAKE_C_COMPILER} -DCXX_COMPILER=${CMAKE_CXX_COMPILER}
                 -P ${CMAKE_CURRENT_LIST_FILE})
