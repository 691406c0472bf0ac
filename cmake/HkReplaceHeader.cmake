# Writes replace.h's #defines (one `#define clX hkX` for each entry of entries.def), as a
# macro cannot write a #define. The block between the two marker lines of replace.h is
# replaced; the rest of the file is kept.
#
#   cmake -DMODE=write -P cmake/HkReplaceHeader.cmake   # after editing entries.def
#   cmake -DMODE=check -P cmake/HkReplaceHeader.cmake   # fails while replace.h differs
#
# ENTRIES and REPLACE_H default to include/hostkernel/{entries.def,replace.h}.
cmake_minimum_required(VERSION 3.25)
get_filename_component(root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
if(NOT ENTRIES)
  set(ENTRIES "${root}/include/hostkernel/entries.def")
endif()
if(NOT REPLACE_H)
  set(REPLACE_H "${root}/include/hostkernel/replace.h")
endif()

set(begin "/* begin: written from entries.def by cmake/HkReplaceHeader.cmake */")
set(end "/* end: written from entries.def */")

file(READ "${ENTRIES}" entries)
string(REGEX MATCHALL "\nHK_ENTRY\\([^,]+, *[A-Za-z]+," lines "${entries}")
set(block "${begin}\n")
foreach(line ${lines})
  string(REGEX REPLACE ".*, *([A-Za-z]+),$" "\\1" name "${line}")
  string(APPEND block "#define cl${name} hk${name}\n")
endforeach()
string(APPEND block "${end}")
list(LENGTH lines count)
if(count EQUAL 0)
  message(FATAL_ERROR "no HK_ENTRY in ${ENTRIES}")
endif()

file(READ "${REPLACE_H}" header)
string(FIND "${header}" "${begin}" at_begin)
string(FIND "${header}" "${end}" at_end)
if(at_begin EQUAL -1 OR at_end EQUAL -1)
  message(FATAL_ERROR "${REPLACE_H} lacks the marker lines '${begin}' and '${end}'")
endif()
string(LENGTH "${end}" end_length)
math(EXPR after "${at_end} + ${end_length}")
string(SUBSTRING "${header}" 0 ${at_begin} before_text)
string(SUBSTRING "${header}" ${after} -1 after_text)
set(written "${before_text}${block}${after_text}")

if(MODE STREQUAL "write")
  if(NOT written STREQUAL header)
    file(WRITE "${REPLACE_H}" "${written}")
  endif()
  message(STATUS "replace.h maps the ${count} functions of entries.def")
elseif(MODE STREQUAL "check")
  if(NOT written STREQUAL header)
    message(FATAL_ERROR "replace.h does not map exactly entries.def's ${count} functions: "
                        "run cmake -DMODE=write -P cmake/HkReplaceHeader.cmake")
  endif()
  message(STATUS "replace.h maps exactly the ${count} functions of entries.def")
else()
  message(FATAL_ERROR "MODE must be write or check")
endif()
