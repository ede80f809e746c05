/// \file measurements.hpp
/// \brief What the benches measure (copies.cuh) and the tables record (tables.hpp): plain data, no
/// CUDA, so the tables and the results file can be checked on CI with made-up measurements.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "common/stats.hpp"

namespace bandwidth {

/// Timings of one copy scenario by one method, per copy, in milliseconds.
struct CopyTiming {
  course::Stats ms;                 ///< per copy (per pair of copies, with two lanes)
  int copies_per_trial = 1;         ///< copies each lane enqueued per timed interval
  double spin_covered_fraction = 1; ///< trials whose enqueueing ended before the spin kernel could
  /// Spin-blocked timing of two or more lanes on one device only (else empty): per copy, from the start
  /// that all lanes share to the end of each lane's own last copy, lane by lane. A lane that finishes
  /// early shows it here while `ms` (until the last lane is done) cannot.
  std::vector<course::Stats> lane_ms;
};

/// Both timings of one measured point; both were checked byte for byte afterwards.
struct CopyMeasurement {
  std::size_t bytes = 0;
  CopyTiming events;         ///< naive: events around a single copy
  CopyTiming spin_blocked;   ///< copies queued behind a spin kernel
};

/// When one copy call returned, against when its copy was complete, on a host clock started just before
/// the call, per trial, in milliseconds. Every trial starts with nothing queued on the GPU.
struct CallReturn {
  course::Stats returned_ms;      ///< until the call returned
  course::Stats complete_ms;      ///< until a synchronize on the copy's stream, begun at return, returned
  course::Stats after_return_ms;  ///< complete − returned, trial by trial: how long the host still waited
  course::Stats wait_floor_ms;    ///< the same synchronize with nothing queued: after_return of a copy that
                                  ///< was already complete when its call returned
};

/// One point of the "copy_return" scenario: a copy by one call, from or to one host memory kind (or
/// device to device), at one size.
struct CallReturnPoint {
  std::string copy;    ///< "h2d", "d2h", "h2h" (between two buffers of the host kind) or "d2d"
  std::string memory;  ///< the host memory kind; "device" for d2d
  std::string call;    ///< copy_call_name: "cudaMemcpy" or "cudaMemcpyAsync"
  std::size_t bytes = 0;
  CallReturn timing;   ///< checked byte for byte afterwards
};

/// One contestant of the device→device duel.
struct DuelEntry {
  std::string copy;  ///< "d2d_memcpy", "d2d_sm_kernel", "d2d_grid_stride" or a tuned variant's name
  course::Stats ms;  ///< per copy
};

/// One ordered pair of the peer-to-peer matrix.
struct PeerMeasurement {
  int src = 0, dst = 0;
  bool peer_access = false;      ///< cudaDeviceEnablePeerAccess was on (both directions) while timing
  bool peer_capable = false;     ///< cudaDeviceCanAccessPeer said yes
  CopyMeasurement one_way;       ///< src → dst
  CopyMeasurement both_ways;     ///< src → dst and dst → src at once (per pair)
};

/// One copy measured at every size of the sweep: rows of the sweep table, one fit, one book-size row.
struct Series {
  std::string copy;    ///< copy_kind_name
  std::string memory;  ///< the host memory kind, or "device"
  std::vector<CopyMeasurement> points;
};

/// H2D and D2H at once on two streams, from one host memory kind, at the book's size.
struct BothWays {
  std::string memory;
  CopyMeasurement measurement;  ///< times per pair of copies
};

/// The single-GPU sweep: every chosen series; for every chosen host kind, both directions at once and
/// when each copy call returns.
struct SweepResults {
  std::vector<Series> series;
  std::vector<BothWays> both_ways;
  std::vector<CallReturnPoint> call_returns;
};

/// The device→device duel: cudaMemcpy (entry 0), the lesson's SM copies, then those beyond the lesson.
struct Duel {
  std::size_t bytes = 0;
  std::vector<DuelEntry> entries;  ///< empty when no device copy was chosen
  std::size_t lesson_count = 0;    ///< entries [0, lesson_count) are the lesson's, the rest beyond it
};

/// The peaks the tables compare with.
struct Peaks {
  double copy_ceiling_gbs = 0;        ///< cudaMemcpy D2D, read + write counted (course::measure_copy_bandwidth_gbs)
  std::size_t copy_ceiling_bytes = 0; ///< the size it was measured at
  double pcie_gbs = 0;                ///< the PCIe link's theoretical rate one way; 0 when unknown
};

/// Everything one run measured, and what the tables compare it with.
struct Measurements {
  Peaks peaks;
  std::size_t source_bytes = 0;  ///< the book's size: the bidirectional and book-size tables are at it
  SweepResults sweep;
  Duel duel;
  int device_count = 1;
  bool p2p_ran = false;          ///< false: one GPU, or --p2p off
  std::size_t p2p_bytes = 0;
  std::vector<PeerMeasurement> peers;
};

}  // namespace bandwidth
