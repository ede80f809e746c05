/// \file device_info.hpp
/// \brief The facts about a GPU that a results file records: plain data, no CUDA headers, so that the
/// report code and CPU-only chapters compile without the toolkit's headers.
#pragma once
#include <cstddef>
#include <string>

namespace course {

/// What a chapter needs to know about a device (cudaGetDeviceProperties plus PCIe link from sysfs).
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t global_mem_bytes = 0;
  std::size_t l2_bytes = 0;
  std::size_t shared_mem_per_sm = 0;
  int async_engine_count = 0;     ///< copy engines: 1 = copy/kernel overlap; 2 = also both directions
  bool concurrent_kernels = false;
  int memory_bus_width_bits = 0;
  int pcie_generation = 0;        ///< 0 when unknown (read from sysfs; virtual machines may hide it)
  int pcie_width = 0;             ///< lanes; 0 when unknown
  int driver_version = 0;         ///< e.g. 13000 for 13.0
  int runtime_version = 0;

  /// Theoretical one-way PCIe bandwidth in decimal GB/s (line encoding included); 0 when unknown.
  double pcie_theoretical_gbs() const;
  /// "sm_90", "sm_80", …
  std::string arch() const;
};

/// "13.0" from 13000.
std::string cuda_version_string(int version);

/// Parses a sysfs PCIe speed string ("32.0 GT/s PCIe") into a generation (5); 0 if unknown.
int pcie_generation_from_speed(const std::string& speed);

}  // namespace course
