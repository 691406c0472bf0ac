# The include order of src/ (docs/architecture.md): a file may include headers of its own
# folder or of a lower layer, never of a higher one. Layers from the top:
#   layer, api  >  queue  >  launch  >  team  >  kernel  >  program  >  pocl, trace  >  base
# Each `#include "<folder>/..."` line of src/**/*.{cpp,hpp,h,inc,inl} is checked; a violation is
# reported as file:line and the script fails.
#
#   cmake -DSRC_DIR=<repo>/src -P tests/layering/check_include_order.cmake
cmake_minimum_required(VERSION 3.25)

if(NOT SRC_DIR)
  message(FATAL_ERROR "usage: cmake -DSRC_DIR=<src folder> -P ${CMAKE_CURRENT_LIST_FILE}")
endif()

# Rank of each folder: higher numbers may include lower ones.
set(rank_layer 7)
set(rank_api 7)
set(rank_queue 6)
set(rank_launch 5)
set(rank_team 4)
set(rank_kernel 3)
set(rank_program 2)
set(rank_pocl 1)
set(rank_trace 1)
set(rank_base 0)

file(GLOB_RECURSE files RELATIVE ${SRC_DIR} ${SRC_DIR}/*.cpp ${SRC_DIR}/*.hpp ${SRC_DIR}/*.h
     ${SRC_DIR}/*.inc ${SRC_DIR}/*.inl)
list(SORT files)
set(violations 0)
set(checked 0)
foreach(file ${files})
  if(NOT file MATCHES "^([a-z_]+)/")
    continue()  # a file directly in src/ belongs to no layer
  endif()
  set(own ${CMAKE_MATCH_1})
  if(NOT DEFINED rank_${own})
    message(SEND_ERROR "${file}: folder '${own}' has no layer (add it to ${CMAKE_CURRENT_LIST_FILE})")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  file(READ ${SRC_DIR}/${file} text)
  set(line_no 1)
  set(rest "${text}")
  # Each match is one include line; its line number is the count of newlines before it.
  while(rest MATCHES "(^|\n)[ \t]*#[ \t]*include[ \t]*\"([a-z_]+)/[^\"\n]*\"")
    set(found "${CMAKE_MATCH_0}")
    set(target ${CMAKE_MATCH_2})
    string(FIND "${rest}" "${found}" at)
    string(SUBSTRING "${rest}" 0 ${at} before)
    string(REGEX MATCHALL "\n" newlines "${before}${CMAKE_MATCH_1}")
    list(LENGTH newlines n)
    math(EXPR line_no "${line_no} + ${n}")
    string(LENGTH "${found}" len)
    math(EXPR at "${at} + ${len}")
    string(SUBSTRING "${rest}" ${at} -1 rest)
    string(STRIP "${found}" shown)
    math(EXPR checked "${checked} + 1")
    if(NOT DEFINED rank_${target})
      continue()  # not one of src/'s folders (e.g. a system header's folder)
    endif()
    if(rank_${target} GREATER rank_${own})
      message(SEND_ERROR "${file}:${line_no}: ${own}/ includes ${target}/, a higher layer: ${shown}")
      math(EXPR violations "${violations} + 1")
    endif()
  endwhile()
endforeach()

if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include(s) against the layer order")
endif()
message(STATUS "include order: ${checked} includes in ${SRC_DIR} follow the layers")
