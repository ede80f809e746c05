#include "variants.hpp"

#include <algorithm>
#include <vector>

#include "common/cli.hpp"
#include "common/variants.hpp"

namespace bandwidth {

namespace {

constexpr HostMemoryVariant host_memory_table[] = {
    {"pageable", "std::malloc, what a program gets by default: the driver stages it through pinned memory",
     HostMemoryKind::pageable},
    {"pinned", "cudaHostAlloc: page-locked, so the copy engines DMA straight from it", HostMemoryKind::pinned},
    {"write-combined", "pinned and uncached for the CPU: fast CPU writes, very slow CPU reads",
     HostMemoryKind::write_combined},
    {"registered", "ordinary pages page-locked afterwards with cudaHostRegister", HostMemoryKind::registered},
};

// [device_copy_variants]
constexpr DeviceCopyVariant device_copy_table[] = {
    {"d2d_memcpy", "cudaMemcpyAsync device to device: the driver's own copy, the baseline", CopyKind::d2d_memcpy,
     true},
    {"d2d_sm_kernel", "the chapter's SM copy: one block per 4 KiB tile, one int4 per thread, no loop",
     CopyKind::d2d_sm_kernel, true},
    {"d2d_grid_stride", "the naive SM copy: one int4 per thread per grid-stride step (duel only)",
     CopyKind::d2d_grid_stride, false},
};
// [device_copy_variants]

}  // namespace

std::span<const HostMemoryVariant> host_memory_variants() { return host_memory_table; }

std::string_view kind_name(HostMemoryKind kind) {
  for (const HostMemoryVariant& v : host_memory_table)
    if (v.kind == kind) return v.name;
  return "?";
}

std::string copy_kind_name(CopyKind kind) {
  switch (kind) {
    case CopyKind::h2d: return "h2d";
    case CopyKind::d2h: return "d2h";
    case CopyKind::d2d_memcpy: return "d2d_memcpy";
    case CopyKind::d2d_sm_kernel: return "d2d_sm_kernel";
    case CopyKind::d2d_grid_stride: return "d2d_grid_stride";
  }
  return "?";
}

std::string copy_call_name(CopyCall call) {
  switch (call) {
    case CopyCall::memcpy: return "cudaMemcpy";
    case CopyCall::memcpy_async: return "cudaMemcpyAsync";
  }
  return "?";
}

std::span<const DeviceCopyVariant> device_copy_variants() { return device_copy_table; }

Selection::Selection(std::vector<std::string> names, const std::vector<std::string>& beyond_names) {
  // The old --kinds spellings stay valid: "all" chooses everything, "wc" is write-combined.
  const bool all = std::erase(names, std::string("all")) > 0;
  std::replace(names.begin(), names.end(), std::string("wc"), std::string("write-combined"));
  std::vector<std::string> known = course::variant_names(host_memory_variants());
  for (const auto& name : course::variant_names(device_copy_variants())) known.push_back(name);
  known.insert(known.end(), beyond_names.begin(), beyond_names.end());
  course::check_variant_names(names, known);
  if (!all) names_ = std::move(names);
}

bool Selection::wants(std::string_view name) const {
  return names_.empty() || std::find(names_.begin(), names_.end(), name) != names_.end();
}

}  // namespace bandwidth
