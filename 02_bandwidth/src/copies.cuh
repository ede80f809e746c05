/// \file copies.cuh
/// \brief Host buffers of each memory kind, the two ways of timing a copy, the data check, and the
/// benches that walk the sweep, the bidirectional case and the peer-to-peer matrix.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/buffers.cuh"
#include "common/timing.cuh"
#include "measurements.hpp"
#include "model.hpp"
#include "sm_copy.cuh"
#include "variants.hpp"

namespace bandwidth {

/// `bytes` of host memory of one kind. Pinned and write-combined memory come from cudaHostAlloc;
/// pageable from std::malloc (on purpose: it is what a program gets unless it asks); registered from a
/// page-aligned std::aligned_alloc that cudaHostRegister then page-locks (and unregisters on release).
class HostBuffer {
 public:
  HostBuffer(HostMemoryKind kind, std::size_t bytes);
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  HostMemoryKind kind() const noexcept { return kind_; }
  unsigned char* data() noexcept { return ptr_; }
  const unsigned char* data() const noexcept { return ptr_; }
  std::size_t bytes() const noexcept { return bytes_; }
  std::span<unsigned char> span() noexcept { return {ptr_, bytes_}; }

 private:
  struct FreeDeleter {
    void operator()(unsigned char* p) const noexcept;
  };
  HostMemoryKind kind_;
  std::size_t bytes_;
  course::PinnedBuffer<unsigned char> pinned_;              // pinned, write-combined
  std::unique_ptr<unsigned char, FreeDeleter> malloced_;    // pageable, registered
  bool registered_ = false;
  unsigned char* ptr_ = nullptr;
};

/// Fills `out` with pseudo-random bytes (splitmix64 of `seed` and the position): the same seed always
/// gives the same bytes, and no two nearby 8-byte words repeat, so a shifted or stale copy shows.
void fill_random(std::span<unsigned char> out, std::uint64_t seed);

/// The byte every destination is poisoned with before it is written.
inline constexpr unsigned char poison_byte = 0xff;

/// Counts, on the device, the bytes of `actual[0, bytes)` that differ from `expected[0, bytes)` plus the
/// bytes of `actual[bytes, bytes + guard_bytes)` that are not poison_byte (a write past the end).
/// Both pointers on the current device. Synchronous.
std::size_t count_wrong_bytes_on_device(const unsigned char* actual, const unsigned char* expected,
                                        std::size_t bytes, std::size_t guard_bytes, cudaStream_t stream);

/// The same check on the host (for tests, and as an independent second opinion).
std::size_t count_wrong_bytes_on_host(std::span<const unsigned char> actual, std::span<const unsigned char> expected,
                                      std::size_t guard_bytes);

/// One stream's share of a timed trial: which device, which stream, what to enqueue for one copy.
struct CopyLane {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::function<void(cudaStream_t)> enqueue;
};


// [naive_timing]
/// The naive timing: an event, one copy per lane, an event, for every trial. For small copies the
/// interval includes the host's cost of enqueueing the copy, since the GPU reaches the start event
/// (and its clock starts) while the host is still inside cudaMemcpyAsync.
CopyTiming time_with_events(std::span<const CopyLane> lanes, course::TimingOptions opts);
// [naive_timing]

/// The spin-blocked timing: a spin kernel holds lane 0's stream while `copies` copies per lane are
/// enqueued behind it; the interval runs from an event after the spin to the end of the last copy, so
/// it holds only GPU work, back to back. Reports per-copy time and whether the spin outlasted the
/// enqueueing (it cannot for pageable D2H, which blocks the host until the data has arrived).
CopyTiming time_spin_blocked(std::span<const CopyLane> lanes, int copies, course::TimingOptions opts);




/// The single-GPU bench: device buffers of the largest size, random reference data, host buffers of
/// one kind at a time. Every measure*() poisons the destination, times, then checks every byte (and
/// the guard past the end) outside the timed region; a wrong byte throws std::runtime_error.
class CopyBench {
 public:
  CopyBench(std::size_t max_bytes, std::uint64_t seed);
  /// Allocates the host source and destination of `kind` (dropping the previous pair) and fills the
  /// source with the reference data.
  void use_host_memory(HostMemoryKind kind);
  /// Times `kind` at `bytes` both ways (events, spin-blocked). Host copies use the current host kind.
  CopyMeasurement measure(CopyKind kind, std::size_t bytes, course::TimingOptions opts);
  /// H2D and D2H at once on two streams (current host kind); times are per pair of copies.
  CopyMeasurement measure_bidirectional(std::size_t bytes, course::TimingOptions opts);
  /// When `call` returns for `copy` (h2d or d2h from the current host kind, or d2d_memcpy; else
  /// std::invalid_argument) of `bytes`, against when the copy is complete: host clock from just before
  /// the call, then a synchronize on the copy's stream (the default stream for cudaMemcpy, ours for
  /// cudaMemcpyAsync); and that synchronize alone on the idle stream, the floor. Every trial starts with
  /// the GPU idle. Checked byte for byte afterwards.
  CallReturn measure_call_return(CopyKind copy, CopyCall call, std::size_t bytes, course::TimingOptions opts);
  /// The same for a copy between the current host kind's two buffers (cudaMemcpyHostToHost).
  CallReturn measure_host_to_host_call_return(CopyCall call, std::size_t bytes, course::TimingOptions opts);
  /// Device→device at `bytes`: cudaMemcpy (always entry 0, the baseline), then each of `copies` (device
  /// copies other than d2d_memcpy, else std::invalid_argument), then each of `variants`, interleaved trial
  /// by trial so that clock or thermal drift hits all alike; events around single copies (the copies are
  /// long). Every copy is checked byte for byte.
  std::vector<DuelEntry> d2d_duel(std::size_t bytes, course::TimingOptions opts, std::span<const CopyKind> copies = {},
                                  std::span<const SmCopyVariant> variants = {});

 private:
  void poison_destination(CopyKind kind, std::size_t bytes);
  void check_destination(CopyKind kind, std::size_t bytes, const char* what);
  void enqueue(CopyKind kind, std::size_t bytes, cudaStream_t stream);
  CallReturn time_call_return(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind direction, CopyCall call,
                              course::TimingOptions opts);

  int device_ = 0;
  std::size_t max_bytes_;
  std::vector<unsigned char> reference_;            // the data every source holds
  course::DeviceBuffer<unsigned char> device_reference_, device_destination_, device_scratch_;
  std::optional<HostBuffer> host_source_, host_destination_;
  course::Stream stream_, second_stream_;
};


/// The peer-to-peer matrix over every ordered pair of `devices`: first with peer access off (the
/// driver may stage through host memory), then with it enabled where cudaDeviceCanAccessPeer allows;
/// pairs that cannot have it appear once, with peer_access false. Copies by cudaMemcpyPeerAsync issued
/// on the source device's stream; every destination checked. Peer access is disabled again at the end.
std::vector<PeerMeasurement> measure_peer_matrix(int device_count, std::size_t bytes, course::TimingOptions opts,
                                                 std::uint64_t seed);

}  // namespace bandwidth
