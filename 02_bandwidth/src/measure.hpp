/// \file measure.hpp
/// \brief The run's measurement families, one function each, in the order the program runs them:
/// the device memory check, the sweep (with both directions at once), the device-to-device duel, the
/// peer-to-peer matrix. Host code; the copies themselves are in copies.cuh, sm_copy.cuh and beyond/.
#pragma once
#include <vector>

#include "copies.cuh"
#include "measurements.hpp"
#include "options.hpp"

namespace bandwidth {

/// Throws course::UsageError, before any long work, when the sweep's buffers do not fit in the free
/// memory of `device` or, with `peer_devices` > 0, the peer matrix's do not fit on devices 0 ..
/// peer_devices - 1. Leaves `device` current.
void check_device_memory(const Plan& plan, int device, int peer_devices);

/// For each chosen host memory kind: H2D and D2H at every size of the sweep, then both at once at the
/// book's size, then when each copy call (cudaMemcpy, cudaMemcpyAsync) returns at plan.call_return_sizes;
/// then each chosen device copy that is swept. Every copy is checked byte for byte.
SweepResults measure_sweep(CopyBench& bench, const Plan& plan);

/// cudaMemcpy, the chosen SM copies of the lesson and the chosen tuned copies beyond it, at the
/// largest sweep size, in interleaved trials. Empty when --variants chose no device copy.
Duel measure_duel(CopyBench& bench, const Plan& plan);

/// The peer-to-peer matrix over `device_count` devices (see measure_peer_matrix).
std::vector<PeerMeasurement> measure_p2p(const Plan& plan, int device_count);

}  // namespace bandwidth
