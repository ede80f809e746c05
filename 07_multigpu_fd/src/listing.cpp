// wave_fd --list-variants: the kernels as data. Everything here is read from the program itself: the
// variant table and the rungs' launch facts (built from their template arguments), the build flags CMake
// hands this file, and, with a GPU, the runtime's attributes of each kernel and the toolkit's occupancy
// calculator. The figures and the compiler report read this listing instead of the C++ sources.
#include "listing.hpp"

#include <cuda_occupancy.h>
#include <cuda_runtime.h>

#include <optional>
#include <string>

#include "common/check.cuh"
#include "common/device.cuh"
#include "common/errors.hpp"

#ifndef WAVE_FD_BUILD_TYPE
#define WAVE_FD_BUILD_TYPE "unknown"
#endif
#ifndef WAVE_FD_CUDA_FLAGS
#define WAVE_FD_CUDA_FLAGS ""
#endif
#ifndef WAVE_FD_CUDA_ARCHITECTURES
#define WAVE_FD_CUDA_ARCHITECTURES ""
#endif
#ifndef WAVE_FD_NVCC_VERSION
#define WAVE_FD_NVCC_VERSION ""
#endif

namespace wave {
namespace {

/// What the runtime says about one kernel on one device.
struct RuntimeFacts {
  cudaFuncAttributes attributes{};
  cudaOccResult occupancy{};
  int blocks_per_sm = 0;  ///< cudaOccupancyMaxActiveBlocksPerMultiprocessor
};

RuntimeFacts query(const LaunchFacts& f, const cudaDeviceProp& prop) {
  RuntimeFacts r;
  if (f.dynamic_smem_bytes > 48 * 1024)  // as the launcher asks for it before its first launch
    CUDA_CHECK(cudaFuncSetAttribute(f.entry, cudaFuncAttributeMaxDynamicSharedMemorySize, f.dynamic_smem_bytes));
  CUDA_CHECK(cudaFuncGetAttributes(&r.attributes, f.entry));
  const int threads = f.block_x * f.block_y;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.blocks_per_sm, f.entry, threads,
                                                           static_cast<std::size_t>(f.dynamic_smem_bytes)));
  const cudaOccDeviceProp occ_prop(prop);
  const cudaOccFuncAttributes occ_attr(r.attributes);
  const cudaOccDeviceState state;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&r.occupancy, &occ_prop, &occ_attr, &state, threads,
                                              static_cast<std::size_t>(f.dynamic_smem_bytes)) != CUDA_OCC_SUCCESS)
    throw course::CudaError("the occupancy calculator (cuda_occupancy.h) refused " + f.kernel);
  return r;
}

/// The calculator's limit, or null where the resource does not limit at all (it says INT_MAX then).
nlohmann::json limit(int blocks) { return blocks >= (1 << 30) ? nlohmann::json(nullptr) : nlohmann::json(blocks); }

void add_kernel(course::RowTable& table, const char* name, const char* role, const Variant* v,
                const std::optional<LaunchFacts>& facts, const cudaDeviceProp* prop) {
  course::Row& row = table.add_row();
  row.text({"variant", "name"}, name).json("table", "variants").json("role", role);
  if (v != nullptr) {
    row.text({"family", "family"}, v->family != nullptr ? v->family : "")
        .json("family", v->family != nullptr ? nlohmann::json(v->family) : nlohmann::json(nullptr))
        .json("teaches", v->teaches).json("reads", v->reads_memory).json("steps_per_pass", v->steps_per_pass);
  }
  if (!facts) {
    row.json("kernel", nullptr).json("note", "exercise 07.3: the launch shape is the exercise's answer");
    return;
  }
  const LaunchFacts& f = *facts;
  const int threads = f.block_x * f.block_y;
  row.text({"kernel", "kernel"}, f.kernel)
      .text({"block", "block"}, std::to_string(f.block_x) + "x" + std::to_string(f.block_y))
      .json("block", {f.block_x, f.block_y}).json("threads", threads)
      .text({"launch grid", "grid"}, grid_formula(f))
      .json("cells_per_block_x", f.cells_x).json("rows_per_block", f.rows_per_block)
      .json("rows_per_thread", f.rows_per_thread).json("ring", f.ring)
      .json("min_blocks_per_sm", f.min_blocks_per_sm).json("dynamic_smem_bytes", f.dynamic_smem_bytes)
      .json("shape", shape_words(f));
  if (v != nullptr && v->steps_per_pass != f.steps_per_pass)
    throw std::logic_error(std::string(name) + ": its facts describe a kernel of another steps_per_pass");
  if (prop == nullptr) {
    row.json("runtime", nullptr);
    return;
  }
  const RuntimeFacts r = query(f, *prop);
  const cudaOccResult& o = r.occupancy;
  if (o.activeBlocksPerMultiprocessor != r.blocks_per_sm)
    throw course::CudaError(f.kernel + ": the occupancy calculator says " +
                            std::to_string(o.activeBlocksPerMultiprocessor) + " blocks per SM, the runtime " +
                            std::to_string(r.blocks_per_sm));
  nlohmann::json limited_by = nlohmann::json::array();
  const std::pair<unsigned, const char*> factors[] = {{OCC_LIMIT_REGISTERS, "registers"},
                                                      {OCC_LIMIT_SHARED_MEMORY, "shared memory"},
                                                      {OCC_LIMIT_WARPS, "warps"},
                                                      {OCC_LIMIT_BLOCKS, "block slots"},
                                                      {OCC_LIMIT_BARRIERS, "barriers"}};
  for (const auto& [bit, what] : factors)
    if ((o.limitingFactors & bit) != 0) limited_by.push_back(what);
  const int warps = (threads + prop->warpSize - 1) / prop->warpSize;
  row.integer({"registers", "registers"}, r.attributes.numRegs)
      .integer({"shared (B)", "shared_bytes"}, static_cast<long long>(r.attributes.sharedSizeBytes) + f.dynamic_smem_bytes)
      .integer({"local (B)", "local_bytes"}, static_cast<long long>(r.attributes.localSizeBytes))
      .integer({"blocks/SM", "blocks_per_sm"}, r.blocks_per_sm)
      .json("static_shared_bytes", r.attributes.sharedSizeBytes)
      .json("warps_per_sm", r.blocks_per_sm * warps)
      .json("limits", {{"registers", limit(o.blockLimitRegs)},
                       {"shared memory", limit(o.blockLimitSharedMem)},
                       {"warps", limit(o.blockLimitWarps)},
                       {"block slots", limit(o.blockLimitBlocks)}})
      .json("limited_by", limited_by)
      .json("allocated_registers_per_block", o.allocatedRegistersPerBlock)
      .json("allocated_shared_bytes_per_block", o.allocatedSharedMemPerBlock);
}

}  // namespace

void list_variants(const Settings& s, course::RunReport& report) {
  std::optional<cudaDeviceProp> prop;
  if (course::usable_device_count() > 0) {
    const course::DeviceInfo device = course::require_device(s.common.device);
    course::print_device_header(report.info(), device);
    report.results().set_device(device);
    prop.emplace();
    CUDA_CHECK(cudaGetDeviceProperties(&*prop, s.common.device));
    report.results().extra()["sm"] = {
        {"registers", prop->regsPerMultiprocessor},
        {"shared_bytes", prop->sharedMemPerMultiprocessor},
        {"reserved_shared_bytes_per_block", prop->reservedSharedMemPerBlock},
        {"max_threads", prop->maxThreadsPerMultiProcessor},
        {"max_blocks", prop->maxBlocksPerMultiProcessor},
        {"warp_size", prop->warpSize}};
  } else {
    report.info() << "no CUDA device: listing the kernels' launch facts only; what the runtime reports (registers, "
                     "shared and local memory, blocks per SM) needs a GPU\n";
  }
  report.results().extra()["default_rung"] = default_variant;
  report.results().extra()["stencil"] = {{"halo", halo}, {"bytes_per_cell", bytes_per_cell}};
  report.results().extra()["build"] = {{"type", WAVE_FD_BUILD_TYPE},
                                       {"cuda_flags", WAVE_FD_CUDA_FLAGS},
                                       {"cuda_architectures", WAVE_FD_CUDA_ARCHITECTURES},
                                       {"nvcc", WAVE_FD_NVCC_VERSION}};
  report.results().extra()["runtime_listed"] = prop.has_value();

  course::RowTable& table = report.table("variants");
  const cudaDeviceProp* p = prop ? &*prop : nullptr;
  const auto facts_of = [](const Variant& v) {
    return v.facts != nullptr ? std::optional<LaunchFacts>(v.facts()) : std::nullopt;
  };
  for (const Variant& v : variants()) add_kernel(table, v.name, "rung", &v, facts_of(v), p);
  for (const Variant& v : tuning_candidates()) add_kernel(table, v.name, "candidate", &v, facts_of(v), p);
  add_kernel(table, "stream_ceiling", "ceiling", nullptr, stream_ceiling_facts(), p);
}

}  // namespace wave
