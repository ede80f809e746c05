#include "common/device_info.hpp"

#include <cstdio>
#include <string>

namespace course {

int pcie_generation_from_speed(const std::string& speed) {
  double gts = 0;
  if (std::sscanf(speed.c_str(), "%lf", &gts) != 1) return 0;
  if (gts >= 60) return 6;
  if (gts >= 30) return 5;
  if (gts >= 15) return 4;
  if (gts >= 7.5) return 3;
  if (gts >= 4.5) return 2;
  if (gts >= 2) return 1;
  return 0;
}

double DeviceInfo::pcie_theoretical_gbs() const {
  static constexpr double gts[] = {0, 2.5, 5, 8, 16, 32, 64};
  if (pcie_generation < 1 || pcie_generation > 6 || pcie_width <= 0) return 0;
  // Gen 1-2 use 8b/10b line coding, gen 3-5 128b/130b; gen 6 (PAM4, FLIT) ~242/256.
  const double efficiency = pcie_generation <= 2 ? 0.8 : (pcie_generation <= 5 ? 128.0 / 130.0 : 242.0 / 256.0);
  return gts[pcie_generation] * efficiency * pcie_width / 8.0;
}

std::string DeviceInfo::arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

}  // namespace course
