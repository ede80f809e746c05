#include "common/device.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <string>

#include "common/check.cuh"

namespace course {

namespace {
std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
}  // namespace

int usable_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the (non-sticky) error so later calls start clean
    return 0;
  }
  return count;
}

DeviceInfo query_device(int device) {
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  DeviceInfo d;
  d.index = device;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.global_mem_bytes = p.totalGlobalMem;
  d.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.shared_mem_per_sm = p.sharedMemPerMultiprocessor;
  d.async_engine_count = p.asyncEngineCount;
  d.concurrent_kernels = p.concurrentKernels != 0;
  d.memory_bus_width_bits = p.memoryBusWidth;
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) {
    d.pci_bus_id = bus;
    const std::string sys = "/sys/bus/pci/devices/" + lower(d.pci_bus_id) + "/";
    d.pcie_generation = pcie_generation_from_speed(read_first_line(sys + "current_link_speed"));
    const std::string width = read_first_line(sys + "current_link_width");
    d.pcie_width = width.empty() ? 0 : std::atoi(width.c_str());
  }
  CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  return d;
}

DeviceInfo require_device(int device) {
  const int count = usable_device_count();
  if (count == 0) throw NoDeviceError("no usable CUDA device (this program needs an NVIDIA GPU)");
  if (device < 0 || device >= count)
    throw UsageError("--device " + std::to_string(device) + " is out of range: " + std::to_string(count) +
                     " device(s) present");
  CUDA_CHECK(cudaSetDevice(device));
  return query_device(device);
}

void print_device_header(std::ostream& out, const DeviceInfo& d) {
  char line[512];
  std::snprintf(line, sizeof line,
                "# device %d: %s (%s, %d SMs, %.1f GiB, L2 %.0f MiB, copy engines %d, concurrent kernels %s)\n",
                d.index, d.name.c_str(), d.arch().c_str(), d.sm_count,
                static_cast<double>(d.global_mem_bytes) / (1u << 30), static_cast<double>(d.l2_bytes) / (1u << 20),
                d.async_engine_count, d.concurrent_kernels ? "yes" : "no");
  out << line;
  std::string pcie = "unknown";
  if (d.pcie_generation > 0)
    pcie = "gen" + std::to_string(d.pcie_generation) + " x" + std::to_string(d.pcie_width);
  std::snprintf(line, sizeof line, "# PCIe %s, driver %s, runtime %s\n", pcie.c_str(),
                cuda_version_string(d.driver_version).c_str(), cuda_version_string(d.runtime_version).c_str());
  out << line;
}

}  // namespace course
