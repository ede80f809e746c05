/// \file report.hpp
/// \brief Reporting: a row is recorded once (Row) and feeds the aligned terminal table, the CSV and the
/// JSON results file alike; RunReport is the one hand-off of a run's tables and results.
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
#include <memory>
#include <string>
#include <vector>

#include "common/device_info.hpp"

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
  /// A top-level field of the file's header, beside "device", "date" and "commit": what a chapter records
  /// about the machine or the build that the common header does not (chapter 01: the CPU's vector extensions).
  nlohmann::json& header(const std::string& key) { return doc_[key]; }
  void add_row(nlohmann::json row) { doc_["rows"].push_back(std::move(row)); }
  const nlohmann::json& json() const noexcept { return doc_; }
  /// Writes the file atomically (temporary file + rename), creating parent folders.
  void write(const std::string& path) const;

 private:
  nlohmann::json doc_;
};


/// A column of a recorded table: the header the terminal and CSV show, and the JSON key of the row.
/// From one string, both are the same ("time_ms"); `{"GB/s", "gbs"}` gives them apart.
struct Column {
  std::string header;
  std::string key;
  Column(const char* both) : header(both), key(both) {}                // NOLINT: implicit on purpose
  Column(std::string h, std::string k) : header(std::move(h)), key(std::move(k)) {}
};

/// One row, recorded once: every cell has a JSON key and value; cells added with a Column also show
/// in the table under its header, formatted as asked. JSON keeps the full-precision value.
class Row {
 public:
  Row& text(const Column& column, std::string value);
  Row& fixed(const Column& column, double value, int digits);  ///< "3.142"; non-finite values show "-"
  Row& ratio(const Column& column, double value);              ///< "1.23x"; JSON holds 1.2345…
  Row& integer(const Column& column, long long value);
  /// A cell whose shown text is not its JSON value (e.g. "library" shown, null stored).
  Row& cell(const Column& column, nlohmann::json value, std::string text) {
    return show(column, std::move(value), std::move(text));
  }
  /// A value kept in the JSON row only (e.g. min/max times, a crosswalk name, a nested object).
  Row& json(const std::string& key, nlohmann::json value);
  const nlohmann::json& to_json() const noexcept { return json_; }
  /// The text of the shown cell with this header, or "" when the row has none.
  std::string shown(const std::string& header) const;

 private:
  friend class RowTable;
  Row& show(const Column& column, nlohmann::json value, std::string text);
  nlohmann::json json_ = nlohmann::json::object();
  std::vector<std::pair<std::string, std::string>> cells_;  // header -> text, in order
};

/// A titled table of rows. Its columns are the shown headers in order of first appearance; a row
/// without a cell for a column shows "-".
class RowTable {
 public:
  explicit RowTable(std::string title = "") : title_(std::move(title)) {}
  Row& add_row();
  const std::string& title() const noexcept { return title_; }
  const std::vector<Row>& rows() const noexcept { return rows_; }
  /// The rows as an aligned (or CSV) Table.
  Table to_table() const;

 private:
  std::string title_;
  std::vector<Row> rows_;
};

struct CommonOptions;

/// The one hand-off of a run: the results file (device, config, extra), the tables the run records,
/// and where prose goes. finish() prints every table and writes --json; nothing else prints a table
/// or writes a results file.
class RunReport {
 public:
  RunReport(std::string chapter, int argc, char** argv, const CommonOptions& options);
  ResultsFile& results() noexcept { return results_; }
  /// A new table, shown under `title` (an empty title shows none). Its rows go into the results
  /// file's "rows" in the order the tables were made.
  RowTable& table(std::string title = "");
  /// Where headers, notes and progress go: stdout, or stderr under --csv (stdout carries only CSV).
  std::ostream& info() const;
  /// Prints the tables (aligned with their titles, or as one CSV with a leading "table" column when
  /// there are several), then writes the results file if --json was given.
  void finish(std::ostream& out);

 private:
  ResultsFile results_;
  std::vector<std::unique_ptr<RowTable>> tables_;
  bool csv_ = false;
  std::string json_path_;
};

/// Writes `content` to `path` through a temporary file in the same folder and a rename, so an
/// interrupted run leaves either the old file or the new one, never a torn one.
void write_file_atomically(const std::string& path, const std::string& content);

/// The host CPU's model name (from /proc/cpuinfo), or "unknown".
std::string host_cpu_name();

/// The git commit the binary was built from (or $COURSE_GIT_COMMIT if set), "unknown" otherwise.
std::string build_commit();

}  // namespace course
