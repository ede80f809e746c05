/// \file scenarios.hpp
/// \brief The chapter's table of scenarios, one per claim of the lecture. The driver runs the ones named
/// by --variants in table order; the lesson's scenario table lists the same names and claims.
///
/// Each scenario measures its claim, checks the output it computed (against the CPU reference or the
/// unchunked run) before it records a row, and prints the model's prediction beside the measurement.
#pragma once
#include <span>

#include "session.hpp"

namespace streams {

/// One scenario. The first two fields have the shape every chapter's ladder has (course::select_variants
/// walks it); a scenario is not a rung of a ladder, hence its own name.
struct Scenario {
  const char* name;     ///< what --variants, the rows' "scenario" key and the lesson call it
  const char* teaches;  ///< the claim it measures, one line
  void (*run)(Session&);
};

/// Every scenario, in the order the program runs and the lesson shows them.
std::span<const Scenario> scenarios();

// The scenarios, by family (one file each).
// scenario_concurrency.cpp: who runs while whom waits.
void scenario_host_device(Session& s);
void scenario_kernel_concurrency(Session& s);
void scenario_default_stream(Session& s);
// scenario_pipeline.cpp: the chunked H2D -> kernel -> D2H pipeline.
void scenario_pageable_vs_pinned(Session& s);
void scenario_pipeline(Session& s);
void scenario_host_func(Session& s);
void scenario_ring_pipeline(Session& s);
// scenario_issue_order.cpp: issue orders on shared hardware queues (measured in child processes).
void scenario_issue_order(Session& s);
void scenario_issue_order_copies(Session& s);

}  // namespace streams
