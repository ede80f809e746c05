/// \file issue_order_child.hpp
/// \brief The issue_order scenarios run in child processes of the program itself: CUDA_DEVICE_MAX_CONNECTIONS
/// (the number of hardware work queues) is read once, when the CUDA context is created, so each setting
/// needs a fresh process. The parent starts `streams --variants <scenario> --child-streams S --json FILE`
/// with the variable set; the child measures every issue order and leaves them in the results file's
/// extra.child; the parent reads them back and checks that the child saw the variable.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "model.hpp"
#include "session.hpp"
#include "timeline.hpp"

namespace streams {

/// One hardware-queue setting: CUDA_DEVICE_MAX_CONNECTIONS and the number of streams sharing them.
struct QueueSetting {
  int connections;
  int streams;
};

/// CUDA's default number of connections.
inline constexpr int default_connections = 8;
/// issue_order_copies: more streams than the default 8 connections.
inline constexpr int copies_many_streams = 16;
/// issue_order: kernel chains, 4 streams per connection.
inline constexpr int chain_many_streams = 32;
inline constexpr int chain_steps = 3;          ///< dependent kernels per stream (A, B, C)
inline constexpr double chain_kernel_ms = 1.0;

/// The settings a scenario runs: `streams` streams on one queue and on the default queues, then
/// `many_streams` streams on the default queues (when `streams` is fewer).
std::vector<QueueSetting> queue_settings(int streams, int many_streams);

/// "1 queue, 4 streams", "8 queues, 32 streams": how rows and timelines name a setting.
std::string queue_tag(const QueueSetting& setting);

/// One issue order as a child measured it.
struct ChildOrder {
  IssueOrder order;
  double wall_ms;               ///< median over the child's timed runs
  nlohmann::json recorded_wall_ms;
  Timeline measured;            ///< named "<tag>, <order>"
};

/// Parent side: runs `scenario` ("issue_order" or "issue_order_copies") under `setting` in a child process
/// (--size, --reps, --warmup, --device as given to the parent; `kernel_iterations` FMAs per element) and
/// returns every order it measured. Throws course::NoDeviceError if the child found no device,
/// std::runtime_error if it failed or did not see CUDA_DEVICE_MAX_CONNECTIONS.
std::vector<ChildOrder> measure_in_child(Session& s, const std::string& scenario, const QueueSetting& setting,
                                         int kernel_iterations, const std::string& tag);

/// Child side (--child-streams S): measures every issue order of the one scenario in the plan, with S
/// streams on whatever connections the process was given, and records extra.child.
void run_as_child(Session& s);

}  // namespace streams
