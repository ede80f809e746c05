// What a grading probe observes of the exercise's timed call (probe_record.cuh).
#include "common/probe_record.cuh"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

#include "common/check.cuh"
#include "common/errors.hpp"

namespace course::probe {
namespace {

std::string node_kind(cudaGraphNodeType type) {
  switch (type) {
    case cudaGraphNodeTypeMemcpy: return "a copy node (cudaMemcpy*)";
    case cudaGraphNodeTypeMemset: return "a memset node";
    case cudaGraphNodeTypeHost: return "a host function node";
    case cudaGraphNodeTypeMemAlloc: return "a device allocation node (cudaMallocAsync)";
    case cudaGraphNodeTypeMemFree: return "a device free node (cudaFreeAsync)";
    case cudaGraphNodeTypeGraph: return "a child graph node";
    default: return "a node of another type (" + std::to_string(static_cast<int>(type)) + ")";
  }
}

bool library_kernel(const void* kernel) {
  const std::string name = kernel_name(kernel);
  return name.find("3cub") != std::string::npos || name.find("6thrust") != std::string::npos;
}

std::string own_kernel_kind(const void* kernel, unsigned dynamic_shared, bool note_shared_memory) {
  if (!note_shared_memory) return "a kernel of its own";
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return attributes.sharedSizeBytes + dynamic_shared > 0 ? "a kernel of its own, with shared memory"
                                                         : "a kernel of its own, without shared memory";
}

}  // namespace

cudaGraph_t capture_graph(cudaStream_t stream, const std::function<void()>& call, cudaStreamCaptureMode mode) {
  CUDA_CHECK(cudaStreamBeginCapture(stream, mode));
  bool threw = false;
  try {
    call();
  } catch (const std::exception&) {
    threw = true;
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (ended != cudaSuccess || threw) {
    (void)cudaGetLastError();  // the capture's own error, not sticky: clear it
    if (ended == cudaSuccess && graph != nullptr) CUDA_CHECK(cudaGraphDestroy(graph));
    return nullptr;
  }
  return graph;
}

bool record_nodes(cudaStream_t stream, const std::function<void()>& call, cudaStreamCaptureMode mode,
                  std::vector<RecordedNode>& nodes) {
  nodes.clear();
  cudaGraph_t graph = capture_graph(stream, call, mode);
  if (graph == nullptr) return false;
  std::size_t count = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &count));
  std::vector<cudaGraphNode_t> handles(count);
  if (count > 0) CUDA_CHECK(cudaGraphGetNodes(graph, handles.data(), &count));
  handles.resize(count);
  for (cudaGraphNode_t handle : handles) {
    RecordedNode node;
    CUDA_CHECK(cudaGraphNodeGetType(handle, &node.type));
    if (node.type == cudaGraphNodeTypeKernel) {
      cudaKernelNodeParams params{};
      CUDA_CHECK(cudaGraphKernelNodeGetParams(handle, &params));
      node.kernel = params.func;
      node.dynamic_shared = params.sharedMemBytes;
    }
    nodes.push_back(node);
  }
  CUDA_CHECK(cudaGraphDestroy(graph));
  return true;
}

std::string kernel_name(const void* kernel) {
  const char* raw = nullptr;
  CUDA_CHECK(cudaFuncGetName(&raw, kernel));
  return raw != nullptr ? raw : "";
}

std::set<const void*> kernels_enqueued(cudaStream_t stream, const std::function<void()>& call) {
  std::set<const void*> kernels;
  std::vector<RecordedNode> nodes;
  if (!record_nodes(stream, call, cudaStreamCaptureModeRelaxed, nodes)) return kernels;
  for (const RecordedNode& node : nodes)
    if (node.kernel != nullptr) kernels.insert(node.kernel);
  return kernels;
}

std::vector<std::string> record_call(cudaStream_t stream, const std::function<void()>& call,
                                     const std::vector<KnownKernels>& known, bool note_shared_memory) {
#ifndef NDEBUG
  (void)stream;
  (void)call;
  (void)known;
  (void)note_shared_memory;
  return {"not recorded: debug build"};
#else
  std::vector<RecordedNode> nodes;
  if (!record_nodes(stream, call, cudaStreamCaptureModeThreadLocal, nodes))
    return {"not recorded: the call could not be captured (it allocates, synchronises, or works outside its stream)"};
  std::set<std::string> kinds;
  for (const RecordedNode& node : nodes) {
    if (node.type != cudaGraphNodeTypeKernel) {
      kinds.insert(node_kind(node.type));
      continue;
    }
    const auto set = std::find_if(known.begin(), known.end(),
                                  [&](const KnownKernels& k) { return k.kernels.count(node.kernel) != 0; });
    if (set != known.end())
      kinds.insert(set->label);
    else if (library_kernel(node.kernel))
      kinds.insert("a CUB or Thrust kernel");
    else
      kinds.insert(own_kernel_kind(node.kernel, node.dynamic_shared, note_shared_memory));
  }
  if (kinds.empty()) kinds.insert("nothing recorded: no work on the stream");
  return {kinds.begin(), kinds.end()};
#endif
}

std::vector<std::string> watch_device_memory(const std::function<void()>& call, std::size_t threshold_bytes) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::size_t before = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&before, &total));
  std::atomic<bool> running{true};
  std::atomic<std::size_t> lowest{before};
  std::atomic<int> watch_error{0};
  std::thread watcher([&] {
    if (cudaSetDevice(device) != cudaSuccess) {
      watch_error = 1;
      return;
    }
    while (running.load()) {
      std::size_t free_now = 0, total_now = 0;
      if (cudaMemGetInfo(&free_now, &total_now) != cudaSuccess) {
        watch_error = 1;
        return;
      }
      std::size_t seen = lowest.load();
      while (free_now < seen && !lowest.compare_exchange_weak(seen, free_now)) {
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  });
  std::exception_ptr failure;
  try {
    call();
    CUDA_CHECK(cudaDeviceSynchronize());
  } catch (...) {
    failure = std::current_exception();
  }
  running = false;
  watcher.join();
  if (failure) std::rethrow_exception(failure);
  if (watch_error.load() != 0) throw CudaError("probe: cudaMemGetInfo failed while watching the call");
  std::size_t after = 0;
  CUDA_CHECK(cudaMemGetInfo(&after, &total));
  const std::size_t low = std::min(lowest.load(), after);
  const std::string mib = std::to_string(threshold_bytes >> 20) + " MiB";
  return {before - std::min(before, low) > threshold_bytes
              ? "more than " + mib + " of device memory allocated during the call"
              : "no more than " + mib + " of device memory allocated during the call"};
}

}  // namespace course::probe
