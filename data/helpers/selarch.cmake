# What a tree's select_compute_arch.cmake makes of TORCH_CUDA_ARCH_LIST
# entries, asked of CMake itself (src/host/cmakearch.c runs this with
# `cmake -P`): the file is included as FindCUDA includes it, with
# CUDA_VERSION set, and CUDA_SELECT_NVCC_ARCH_FLAGS is called once per
# entry. Its errors (message SEND_ERROR / FATAL_ERROR) are caught per
# entry instead of stopping the run. One line per answer on stderr,
# "bwarch:KIND<TAB>...":
#   nofunc                       the file defines no CUDA_SELECT_NVCC_ARCH_FLAGS
#   from    NAME  X.Y            the first CUDA (10.0-13.9) whose known list has NAME
#   lists   ALL   KNOWN          the lists for BW_CUDA (space-separated)
#   entry   ENTRY FLAGS ERRORS   the flags it gives, what it said
# Input: -DBW_FILE=path -DBW_CUDA=13.0 -DBW_ENTRIES="10.0f;12.0" -DBW_NAME=Blackwell
cmake_minimum_required(VERSION 3.12)

function(message)
  set(_args ${ARGV})
  list(GET _args 0 _mode)
  if(_mode STREQUAL "SEND_ERROR" OR _mode STREQUAL "FATAL_ERROR")
    list(REMOVE_AT _args 0)
    string(JOIN "" _text ${_args})
    string(REPLACE "\n" " " _text "${_text}")
    string(STRIP "${_text}" _text)
    set_property(GLOBAL APPEND PROPERTY BW_ERRORS "${_text}")
  endif()
endfunction()

function(bw_say kind)
  set(_line "bwarch:${kind}")
  foreach(_i RANGE 1 3)
    if(_i LESS ARGC)
      set(_line "${_line}\t${ARGV${_i}}")
    endif()
  endforeach()
  _message("${_line}")
endfunction()

macro(bw_include cuda)
  set(CUDA_VERSION "${cuda}")
  set(CMAKE_CUDA_COMPILER_VERSION "${cuda}")
  include("${BW_FILE}")
endmacro()

if(BW_NAME)
  set(_from "")
  foreach(_maj 10 11 12 13)
    foreach(_min RANGE 0 9)
      if(NOT _from)
        bw_include("${_maj}.${_min}")
        if("${BW_NAME}" IN_LIST CUDA_KNOWN_GPU_ARCHITECTURES)
          set(_from "${_maj}.${_min}")
        endif()
      endif()
    endforeach()
  endforeach()
  bw_say(from "${BW_NAME}" "${_from}")
endif()

bw_include("${BW_CUDA}")
if(NOT COMMAND CUDA_SELECT_NVCC_ARCH_FLAGS)
  bw_say(nofunc)
  return()
endif()
string(JOIN " " _all ${CUDA_ALL_GPU_ARCHITECTURES})
string(JOIN " " _known ${CUDA_KNOWN_GPU_ARCHITECTURES})
bw_say(lists "${_all}" "${_known}")

foreach(_entry IN LISTS BW_ENTRIES)
  set_property(GLOBAL PROPERTY BW_ERRORS "")
  # v2.6.0's function reads CUDA_ARCH_LIST, set from its arguments by the caller's scope
  set(CUDA_ARCH_LIST "${_entry}")
  unset(_flags)
  CUDA_SELECT_NVCC_ARCH_FLAGS(_flags "${_entry}")
  get_property(_errors GLOBAL PROPERTY BW_ERRORS)
  string(JOIN " " _f ${_flags})
  string(JOIN " | " _e ${_errors})
  bw_say(entry "${_entry}" "${_f}" "${_e}")
endforeach()
