/// \file nvtx.hpp
/// \brief A named NVTX range for the lifetime of a scope, so Nsight Systems shows each measured variant.
#pragma once
#include <nvtx3/nvToolsExt.h>

namespace course {

/// Pushes an NVTX range on construction and pops it on destruction. Costs nothing without a profiler.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) noexcept { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace course
