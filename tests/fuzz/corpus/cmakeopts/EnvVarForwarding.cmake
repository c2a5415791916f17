# The newest era's forwarding: with no setup.py to turn the environment into
# -D options, CMake itself copies USE_*, BUILD_*, TORCH_CUDA_ARCH_LIST and the
# CUDA/NCCL/cuDNN hints from the environment into the cache, before the
# options are declared (so option() keeps them). Only names are taken from
# `cmake -E environment` (values may hold ';'); each value is read whole.
execute_process(COMMAND "${CMAKE_COMMAND}" -E environment OUTPUT_VARIABLE _bw_env)
string(REPLACE "\n" ";" _bw_env "${_bw_env}")
foreach(_line IN LISTS _bw_env)
  if(_line MATCHES "^((USE|BUILD)_[A-Z0-9_]+|TORCH_CUDA_ARCH_LIST|CUDNN_ROOT|NCCL_INCLUDE_DIR)=")
    set(_name "${CMAKE_MATCH_1}")
    set(_value "$ENV{${_name}}")
    if(NOT DEFINED CACHE{${_name}})
      if(_name MATCHES "^(USE|BUILD)_")
        set(${_name} "${_value}" CACHE BOOL "from the environment")
      else()
        set(${_name} "${_value}" CACHE STRING "from the environment")
      endif()
    endif()
  endif()
endforeach()
