/// \file device.cuh
/// \brief Which GPU are we on: the facts every chapter prints in its header, and the "no GPU" exit.
#pragma once
#include <iosfwd>

#include "common/device_info.hpp"

namespace course {

/// Number of usable CUDA devices; 0 when there is no device or no driver (never throws).
int usable_device_count() noexcept;

/// Throws NoDeviceError (exit 77) if there is no usable device, UsageError (exit 2) if `device` is not a
/// valid index; otherwise makes `device` current and returns its description.
DeviceInfo require_device(int device);

/// Describes `device` (which must exist).
DeviceInfo query_device(int device);

/// Prints the short header every chapter program starts with (device, SMs, memory, L2, copy engines,
/// PCIe, driver/runtime).
void print_device_header(std::ostream& out, const DeviceInfo& info);

}  // namespace course
