/// \file report.hpp
/// \brief Reporting: an aligned terminal table, CSV, and the JSON results file all chapters share.
///
/// Results file schema ("cuda-lessons/results/v1"):
/// \code{.json}
/// { "schema": "cuda-lessons/results/v1", "chapter": "05_reduce_unroll",
///   "device": {"name": ..., "sm_count": ..., ...} or {"cpu": ..., "cores": ...},
///   "toolkit": "13.0", "driver": "13.0", "date": "2026-11-22T10:00:00Z", "commit": "abc1234",
///   "command_line": "...", "config": {...}, "rows": [{...}, ...], "extra": {...} }
/// \endcode
#pragma once
#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

#include "common/device.cuh"

namespace course {

/// A table printed with aligned columns (numbers right-aligned, text left-aligned), or as CSV.
class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  /// Adds a row; throws std::invalid_argument if it has a different number of cells than headers.
  void add_row(std::vector<std::string> cells);
  void print(std::ostream& out) const;
  void print_csv(std::ostream& out) const;
  /// print_csv if `csv`, else print.
  void print(std::ostream& out, bool csv) const { csv ? print_csv(out) : print(out); }
  std::size_t row_count() const noexcept { return rows_.size(); }
  const std::vector<std::string>& headers() const noexcept { return headers_; }
  const std::vector<std::vector<std::string>>& rows() const noexcept { return rows_; }

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

/// Fixed-point text with `digits` decimals ("3.142").
std::string format_fixed(double value, int digits);
/// A ratio as "1.23x".
std::string format_ratio(double value);
/// A byte count with a binary unit ("32 MiB", "1 KiB", "100 B").
std::string format_bytes(double bytes);

/// The results file of one chapter run. Construct, fill config/rows/extra, write().
class ResultsFile {
 public:
  ResultsFile(std::string chapter, int argc, char** argv);
  /// Records the GPU (name, SMs, memory, L2, PCIe…) and the driver/runtime versions.
  void set_device(const DeviceInfo& info);
  /// Records the host CPU (model name, logical cores) for CPU-only chapters.
  void set_host_cpu();
  nlohmann::json& config() { return doc_["config"]; }
  nlohmann::json& extra() { return doc_["extra"]; }
  void add_row(nlohmann::json row) { doc_["rows"].push_back(std::move(row)); }
  const nlohmann::json& json() const noexcept { return doc_; }
  /// Writes the file atomically (temporary file + rename), creating parent folders.
  void write(const std::string& path) const;

 private:
  nlohmann::json doc_;
};

/// Writes `content` to `path` through a temporary file in the same folder and a rename, so an
/// interrupted run leaves either the old file or the new one, never a torn one.
void write_file_atomically(const std::string& path, const std::string& content);

/// The host CPU's model name (from /proc/cpuinfo), or "unknown".
std::string host_cpu_name();

/// The git commit the binary was built from (or $COURSE_GIT_COMMIT if set), "unknown" otherwise.
std::string build_commit();

}  // namespace course
