/// \file variants.hpp
/// \brief The one shape of a chapter's ladder: a table of `Variant` structs whose first two fields are
/// `name` (ours: tables, tests, --variants, the lesson) and `teaches` (one line: what this rung adds),
/// followed by the chapter's launcher(s). These helpers walk any such table.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "common/cli.hpp"

namespace course {

/// The names of a ladder's variants, in table order.
template <class Variant>
std::vector<std::string> variant_names(std::span<const Variant> table) {
  std::vector<std::string> names;
  for (const auto& v : table) names.emplace_back(v.name);
  return names;
}

/// The variants named on the command line (all of them when `names` is empty), in table order.
/// Throws UsageError naming the valid choices for an unknown name.
template <class Variant>
std::vector<Variant> select_variants(std::span<const Variant> table, const std::vector<std::string>& names) {
  check_variant_names(names, variant_names(table));
  std::vector<Variant> chosen;
  for (const auto& v : table) {
    bool wanted = names.empty();
    for (const auto& n : names) wanted = wanted || n == v.name;
    if (wanted) chosen.push_back(v);
  }
  return chosen;
}

}  // namespace course
