/// \file variants.hpp
/// \brief What chapter 02 measures, as data: the host memory kinds (the host side of H2D and D2H), the
/// device-to-device copies of the lesson, and what `--variants` picks from them and from the tuned SM
/// copies beyond the lesson (beyond/sm_copy_tuned.cuh). No CUDA here, so all of it is tested on CI.
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bandwidth {

/// Where the host side of a transfer lives. The copy engines can only read and write page-locked
/// memory, so a pageable buffer is first copied by the CPU into a pinned staging buffer.
enum class HostMemoryKind {
  pageable,        ///< std::malloc, on purpose: what a user gets by default
  pinned,          ///< cudaHostAlloc (cudaMallocHost): page-locked, DMA straight from it
  write_combined,  ///< cudaHostAlloc(cudaHostAllocWriteCombined): pinned, uncached for the CPU
  registered,      ///< a page-aligned malloc'ed buffer page-locked afterwards with cudaHostRegister
};

/// One host memory kind as a row family: each runs H2D and D2H over the sweep, and both at once.
struct HostMemoryVariant {
  const char* name;     ///< in the tables, the JSON and --variants
  const char* teaches;  ///< one line: what this kind shows
  HostMemoryKind kind;
};

/// Every host memory kind, in the order the tables list them.
std::span<const HostMemoryVariant> host_memory_variants();

/// "pageable", "pinned", "write-combined", "registered": the name in host_memory_variants().
std::string_view kind_name(HostMemoryKind kind);

/// The copies this chapter measures.
enum class CopyKind {
  h2d,               ///< host → device, cudaMemcpyAsync
  d2h,               ///< device → host, cudaMemcpyAsync
  d2d_memcpy,        ///< device → device, cudaMemcpyAsync (the driver's own path)
  d2d_sm_kernel,     ///< device → device, our 16-byte kernel, one block per 4 KiB tile
  d2d_grid_stride,   ///< device → device, the naive one-int4-per-step kernel
};
/// "h2d", "d2h", "d2d_memcpy", "d2d_sm_kernel", "d2d_grid_stride".
std::string copy_kind_name(CopyKind kind);
/// Whether the host memory kind matters for this copy.
constexpr bool involves_host(CopyKind kind) { return kind == CopyKind::h2d || kind == CopyKind::d2h; }

/// The two calls a program copies between host and device with. Which one, and from which host memory,
/// decides whether the call returns before its copy is done (the "copy_return" scenario measures it).
enum class CopyCall {
  memcpy,        ///< cudaMemcpy, on the default stream
  memcpy_async,  ///< cudaMemcpyAsync, on a stream of ours
};
/// "cudaMemcpy", "cudaMemcpyAsync": the call's own name.
std::string copy_call_name(CopyCall call);

/// A device-to-device copy of the lesson: cudaMemcpy (the baseline) and the SM copies it is compared with.
struct DeviceCopyVariant {
  const char* name;     ///< copy_kind_name(kind)
  const char* teaches;  ///< one line: what this rung adds
  CopyKind kind;
  bool swept;           ///< measured over the whole sweep and fitted, not only in the duel at the largest size
};

/// The lesson's device copies: d2d_memcpy first (every ratio is taken against it), then the SM copies.
std::span<const DeviceCopyVariant> device_copy_variants();

/// What `--variants` chose. Names come from every table (host memory kinds, device copies, the tuned SM
/// copies beyond the lesson); only the named rows run, and no names at all means everything. "all" also
/// means everything and "wc" is write-combined, as with the old --kinds.
class Selection {
 public:
  /// Everything.
  Selection() = default;
  /// Throws course::UsageError naming the choices for a name that is in none of the tables;
  /// `beyond_names` are the names of the tuned SM copies (their table needs CUDA to build).
  Selection(std::vector<std::string> names, const std::vector<std::string>& beyond_names);

  /// Whether the row family `name` runs.
  bool wants(std::string_view name) const;

  /// The entries of `table` (any struct with a `name`) that run, in table order.
  template <class Variant>
  std::vector<Variant> pick(std::span<const Variant> table) const {
    std::vector<Variant> chosen;
    for (const Variant& v : table)
      if (wants(v.name)) chosen.push_back(v);
    return chosen;
  }

  /// The names as resolved ("wc" spelt out, "all" as no names); empty means everything.
  const std::vector<std::string>& names() const noexcept { return names_; }

 private:
  std::vector<std::string> names_;
};

}  // namespace bandwidth
