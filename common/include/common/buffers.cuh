/// \file buffers.cuh
/// \brief RAII owners for device buffers, pinned host buffers, streams and events.
///
/// Destructors never throw: a release that fails (after an earlier sticky error) is ignored, since the
/// error that caused it has already been reported.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <utility>

#include "common/check.cuh"

namespace course {

namespace detail {
struct DeviceFree {
  void operator()(void* p) const noexcept { cudaFree(p); }
};
struct PinnedFree {
  void operator()(void* p) const noexcept { cudaFreeHost(p); }
};
struct StreamDestroy {
  void operator()(cudaStream_t s) const noexcept { cudaStreamDestroy(s); }
};
struct EventDestroy {
  void operator()(cudaEvent_t e) const noexcept { cudaEventDestroy(e); }
};

/// Owns one CUDA handle (a stream, an event): move-only, destroyed exactly once. The one place where
/// the move rules are written, for every owner below.
template <class Handle, class Destroy>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  explicit UniqueHandle(Handle h) noexcept : handle_(h) {}
  ~UniqueHandle() { reset(); }
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  Handle get() const noexcept { return handle_; }
  void reset() noexcept {
    if (handle_) Destroy{}(handle_);
    handle_ = Handle{};
  }

 private:
  Handle handle_{};
};

/// `count` elements of T behind a pointer that `Free` releases: the storage of both buffer kinds.
template <class T, class Free>
class OwnedArray {
 public:
  T* data() noexcept { return ptr_.get(); }
  const T* data() const noexcept { return ptr_.get(); }
  std::size_t size() const noexcept { return ptr_.get() ? count_ : 0; }
  std::size_t bytes() const noexcept { return size() * sizeof(T); }

 protected:
  OwnedArray() = default;
  OwnedArray(T* ptr, std::size_t count) noexcept : ptr_(ptr), count_(count) {}

 private:
  struct FreeAsVoid {
    void operator()(T* p) const noexcept { Free{}(static_cast<void*>(p)); }
  };
  UniqueHandle<T*, FreeAsVoid> ptr_;
  std::size_t count_ = 0;  // meaningful only while ptr_ holds memory (size() checks)
};
}  // namespace detail

/// A typed array in device memory (cudaMalloc on the current device).
template <class T>
class DeviceBuffer : public detail::OwnedArray<T, detail::DeviceFree> {
  using Base = detail::OwnedArray<T, detail::DeviceFree>;

 public:
  DeviceBuffer() = default;
  /// Allocates `count` elements on the current device; contents are undefined.
  explicit DeviceBuffer(std::size_t count) : Base(allocate(count), count) {}
  using Base::bytes;
  using Base::data;
  using Base::size;

  /// Copies host data in (synchronous: complete on the device when it returns). `host.size()` must not
  /// exceed size().
  void upload(std::span<const T> host) {
    if (host.size() > size()) throw UsageError("DeviceBuffer::upload: source larger than buffer");
    CUDA_CHECK(cudaMemcpy(data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
    // From pageable memory cudaMemcpy may return before the DMA into the device has finished, and a
    // stream made with cudaStreamNonBlocking does not wait for the legacy default stream: without this,
    // a kernel launched next on such a stream can read the buffer's old contents.
    CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }
  /// Copies device data out (synchronous). `host.size()` must not exceed size().
  void download(std::span<T> host) const {
    if (host.size() > size()) throw UsageError("DeviceBuffer::download: destination larger than buffer");
    CUDA_CHECK(cudaMemcpy(host.data(), data(), host.size_bytes(), cudaMemcpyDeviceToHost));
  }
  /// Fills every byte with `byte` (synchronous). Tests poison outputs with 0xFF, not zero, so that an
  /// element a kernel forgot to write cannot pass as a correct zero.
  void fill_bytes(int byte) {
    if (size() == 0) return;
    CUDA_CHECK(cudaMemset(data(), byte, bytes()));
    CUDA_CHECK(cudaStreamSynchronize(nullptr));  // cudaMemset of device memory is asynchronous (see upload)
  }

 private:
  static T* allocate(std::size_t count) {
    T* ptr = nullptr;
    if (count > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr), count * sizeof(T)));
    return ptr;
  }
};

/// A typed array in page-locked host memory (cudaHostAlloc): the only host memory that the copy
/// engines can read or write asynchronously. `flags` as cudaHostAlloc's (cudaHostAllocWriteCombined, …).
template <class T>
class PinnedBuffer : public detail::OwnedArray<T, detail::PinnedFree> {
  using Base = detail::OwnedArray<T, detail::PinnedFree>;

 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count, unsigned flags = cudaHostAllocDefault)
      : Base(allocate(count, flags), count) {}
  using Base::bytes;
  using Base::data;
  using Base::size;
  T& operator[](std::size_t i) noexcept { return data()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data()[i]; }
  std::span<T> span() noexcept { return {data(), size()}; }
  std::span<const T> span() const noexcept { return {data(), size()}; }

 private:
  static T* allocate(std::size_t count, unsigned flags) {
    T* ptr = nullptr;
    if (count > 0) CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&ptr), count * sizeof(T), flags));
    return ptr;
  }
};

/// An owned CUDA stream on the current device. Non-blocking by default: it does not synchronise with
/// the legacy default stream, which is what overlap needs.
class Stream {
 public:
  explicit Stream(unsigned flags = cudaStreamNonBlocking, int priority = 0) : stream_(create(flags, priority)) {}
  cudaStream_t get() const noexcept { return stream_.get(); }
  operator cudaStream_t() const noexcept { return stream_.get(); }  // NOLINT: used where a cudaStream_t is
  void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(get())); }

 private:
  static cudaStream_t create(unsigned flags, int priority) {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithPriority(&s, flags, priority));
    return s;
  }
  detail::UniqueHandle<cudaStream_t, detail::StreamDestroy> stream_;
};

/// An owned CUDA event. Timing events by default; pass cudaEventDisableTiming for pure dependencies.
class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) : event_(create(flags)) {}
  cudaEvent_t get() const noexcept { return event_.get(); }
  operator cudaEvent_t() const noexcept { return event_.get(); }  // NOLINT
  void record(cudaStream_t stream = nullptr) { CUDA_CHECK(cudaEventRecord(get(), stream)); }
  void synchronize() const { CUDA_CHECK(cudaEventSynchronize(get())); }
  /// Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_ms_since(const Event& start) const {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), get()));
    return ms;
  }

 private:
  static cudaEvent_t create(unsigned flags) {
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
    return e;
  }
  detail::UniqueHandle<cudaEvent_t, detail::EventDestroy> event_;
};

}  // namespace course
