#ifndef C10_MACROS_CMAKE_MACROS_H_
#define C10_MACROS_CMAKE_MACROS_H_

/* Generated at configure time, as torch generates caffe2/core/macros.h. */

#define CAFFE2_VERSION_STRING "2.11.0"

#define CAFFE2_BUILD_STRINGS { \
  {"TORCH_VERSION", "2.11.0"}, \
  {"CXX_COMPILER", "/usr/bin/c++"}, \
  {"CXX_FLAGS", " -DUSE_KINETO -DUSE_FBGEMM -DUSE_FLASH_ATTENTION -DUSE_MEM_EFF_ATTENTION -fvisibility-inlines-hidden"}, \
  {"BUILD_TYPE", "Release"}, \
  {"COMMIT_SHA", "c151ae8a968e4c2490c7974cb8e095ae4e60fb67"}, \
  {"CUDA_VERSION", "13.0"}, \
  {"CUDNN_VERSION", ""}, \
  {"USE_CUDA", "1"}, \
  {"USE_CUDNN", "0"}, \
  {"USE_NCCL", "0"}, \
  {"USE_DISTRIBUTED", "1"}, \
  {"USE_MKLDNN", "ON"}, \
  {"USE_ROCM", "OFF"}, \
  {"BUILD_TEST", "0"}, \
}

#endif
