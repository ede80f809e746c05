# Chooses CMAKE_CUDA_ARCHITECTURES before project() enables CUDA.
#   - the user's value, if given (-DCMAKE_CUDA_ARCHITECTURES=90, or the CUDAARCHS environment variable);
#   - `native` when nvidia-smi sees a GPU (CMake then compiles for exactly the GPUs present);
#   - otherwise 90 (Hopper SASS + PTX): `native` would fail on a machine without a GPU (CI, laptops),
#     and the embedded PTX lets the driver JIT for newer GPUs, so no list goes stale with the toolkit.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()
set(_course_arch 90)
find_program(_course_nvidia_smi nvidia-smi)
if(_course_nvidia_smi)
  execute_process(COMMAND "${_course_nvidia_smi}" -L
    OUTPUT_VARIABLE _course_gpus RESULT_VARIABLE _course_smi_rc ERROR_QUIET TIMEOUT 20)
  if(_course_smi_rc EQUAL 0 AND _course_gpus MATCHES "GPU [0-9]+:")
    set(_course_arch native)
  endif()
endif()
set(CMAKE_CUDA_ARCHITECTURES ${_course_arch} CACHE STRING "CUDA architectures (default: native if a GPU is present, else 90)")
