/// \file launch_facts.hpp
/// \brief What the rungs' launchers share: ceil_div, and the kernel's name spelled from its template
/// arguments (as the compiler and compiler_report.py spell it: "step_tiled_vec4<32, 8, 16, false, 3>").
#pragma once
#include <string>

namespace wave::rungs {

constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

inline std::string template_argument(bool b) { return b ? "true" : "false"; }
inline std::string template_argument(int i) { return std::to_string(i); }

/// `base<a0, a1, …>`.
template <class... Args>
std::string kernel_name(const char* base, Args... args) {
  std::string out = std::string(base) + "<";
  bool first = true;
  ((out += (first ? "" : ", ") + template_argument(args), first = false), ...);
  return out + ">";
}

}  // namespace wave::rungs
