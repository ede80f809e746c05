#include "common/report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "common/cli.hpp"
#include "common/errors.hpp"

#ifndef COURSE_GIT_COMMIT
#define COURSE_GIT_COMMIT "unknown"
#endif

namespace course {

namespace {
bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  // Allow a trailing unit marker such as "x" or "%" after a number ("1.23x", "97.1%").
  return end != s.c_str() && (*end == '\0' || ((*end == 'x' || *end == '%') && end[1] == '\0'));
}
std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}
std::string utc_now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
}  // namespace

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != headers_.size())
    throw std::invalid_argument("Table::add_row: " + std::to_string(cells.size()) + " cells for " +
                                std::to_string(headers_.size()) + " columns");
  rows_.push_back(std::move(cells));
}

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> width(headers_.size());
  std::vector<bool> numeric(headers_.size(), !rows_.empty());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    width[c] = headers_[c].size();
    for (const auto& row : rows_) {
      width[c] = std::max(width[c], row[c].size());
      if (!looks_numeric(row[c]) && row[c] != "-") numeric[c] = false;
    }
  }
  const auto emit = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::size_t pad = width[c] - cells[c].size();
      if (c) out << "  ";
      if (numeric[c]) out << std::string(pad, ' ') << cells[c];
      else out << cells[c] << (c + 1 < cells.size() ? std::string(pad, ' ') : "");
    }
    out << '\n';
  };
  emit(headers_);
  std::size_t total = 0;
  for (std::size_t c = 0; c < width.size(); ++c) total += width[c] + (c ? 2 : 0);
  out << std::string(total, '-') << '\n';
  for (const auto& row : rows_) emit(row);
}

void Table::print_csv(std::ostream& out) const {
  const auto emit = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) out << (c ? "," : "") << csv_escape(cells[c]);
    out << '\n';
  };
  emit(headers_);
  for (const auto& row : rows_) emit(row);
}

std::string format_fixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

std::string format_ratio(double value) { return format_fixed(value, 2) + "x"; }

std::string format_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[64];
  if (bytes == static_cast<double>(static_cast<long long>(bytes)))
    std::snprintf(buf, sizeof buf, "%lld %s", static_cast<long long>(bytes), units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.2f %s", bytes, units[u]);
  return buf;
}

std::string host_cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(' '));
        return name;
      }
    }
  }
  return "unknown";
}

std::string build_commit() {
  if (const char* env = std::getenv("COURSE_GIT_COMMIT"); env && *env) return env;
  return COURSE_GIT_COMMIT;
}

ResultsFile::ResultsFile(std::string chapter, int argc, char** argv) {
  std::string cmd;
  for (int i = 0; i < argc; ++i) {
    if (i) cmd += ' ';
    cmd += (i == 0) ? std::filesystem::path(argv[0]).filename().string() : argv[i];
  }
  doc_ = {{"schema", "cuda-lessons/results/v1"},
          {"chapter", std::move(chapter)},
          {"device", nlohmann::json::object()},
          {"toolkit", ""},
          {"driver", ""},
          {"date", utc_now_iso8601()},
          {"commit", build_commit()},
          {"command_line", cmd},
          {"config", nlohmann::json::object()},
          {"rows", nlohmann::json::array()},
          {"extra", nlohmann::json::object()}};
}

void ResultsFile::set_device(const DeviceInfo& d) {
  doc_["device"] = {{"index", d.index},
                    {"name", d.name},
                    {"arch", d.arch()},
                    {"sm_count", d.sm_count},
                    {"global_mem_bytes", d.global_mem_bytes},
                    {"l2_bytes", d.l2_bytes},
                    {"async_engine_count", d.async_engine_count},
                    {"concurrent_kernels", d.concurrent_kernels},
                    {"pcie_generation", d.pcie_generation},
                    {"pcie_width", d.pcie_width},
                    {"host_cpu", host_cpu_name()}};
  doc_["toolkit"] = cuda_version_string(d.runtime_version);
  doc_["driver"] = cuda_version_string(d.driver_version);
}

void ResultsFile::set_host_cpu() {
  doc_["device"] = {{"cpu", host_cpu_name()}, {"logical_cores", std::thread::hardware_concurrency()}};
}

void ResultsFile::write(const std::string& path) const { write_file_atomically(path, doc_.dump(2) + "\n"); }

namespace {
/// A file written in two steps: its content to `<path>.tmp.<pid>` beside the target, then renamed onto it
/// by commit(). Until then the old file is untouched, and a PendingFile never committed removes its
/// temporary: a run that fails between the two leaves nothing behind.
class PendingFile {
 public:
  PendingFile(const std::string& path, const std::string& content)
      : target_(path), tmp_(path + ".tmp." + std::to_string(::getpid())) {
    namespace fs = std::filesystem;
    if (target_.has_parent_path()) fs::create_directories(target_.parent_path());
    std::ofstream out(tmp_, std::ios::binary | std::ios::trunc);
    if (!out) fail("cannot write " + tmp_.string());
    out << content;
    out.flush();
    if (!out) fail("write failed (disk full?): " + tmp_.string());
  }
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile() {
    std::error_code ignored;
    if (!committed_) std::filesystem::remove(tmp_, ignored);
  }
  void commit() {
    std::error_code ec;
    std::filesystem::rename(tmp_, target_, ec);
    if (ec) fail("cannot rename " + tmp_.string() + " to " + target_.string() + ": " + ec.message());
    committed_ = true;
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    std::error_code ignored;
    std::filesystem::remove(tmp_, ignored);  // never leave a torn temporary behind
    committed_ = true;                        // nothing left for the destructor
    throw std::runtime_error(why);
  }
  std::filesystem::path target_, tmp_;
  bool committed_ = false;
};
}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  PendingFile file(path, content);
  file.commit();
}

Row& Row::show(const Column& column, nlohmann::json value, std::string text) {
  json_[column.key] = std::move(value);
  for (auto& cell : cells_)
    if (cell.first == column.header) {
      cell.second = std::move(text);
      return *this;
    }
  cells_.emplace_back(column.header, std::move(text));
  return *this;
}

Row& Row::text(const Column& column, std::string value) { return show(column, value, value); }

Row& Row::fixed(const Column& column, double value, int digits) {
  if (!std::isfinite(value)) return show(column, nullptr, "-");
  return show(column, value, format_fixed(value, digits));
}

Row& Row::ratio(const Column& column, double value) {
  if (!std::isfinite(value)) return show(column, nullptr, "-");
  return show(column, value, format_ratio(value));
}

Row& Row::integer(const Column& column, long long value) { return show(column, value, std::to_string(value)); }

Row& Row::json(const std::string& key, nlohmann::json value) {
  json_[key] = std::move(value);
  return *this;
}

std::string Row::shown(const std::string& header) const {
  for (const auto& cell : cells_)
    if (cell.first == header) return cell.second;
  return {};
}

Row& RowTable::add_row() { return rows_.emplace_back(); }

Table RowTable::to_table() const {
  std::vector<std::string> headers;
  for (const auto& row : rows_)
    for (const auto& cell : row.cells_)
      if (std::find(headers.begin(), headers.end(), cell.first) == headers.end()) headers.push_back(cell.first);
  Table table(headers);
  for (const auto& row : rows_) {
    std::vector<std::string> cells;
    for (const auto& h : headers) {
      std::string text = row.shown(h);
      cells.push_back(text.empty() ? "-" : text);
    }
    table.add_row(std::move(cells));
  }
  return table;
}

RunReport::RunReport(std::string chapter, int argc, char** argv, const CommonOptions& options)
    : results_(std::move(chapter), argc, argv), csv_(options.csv), json_path_(options.json_path) {}

RowTable& RunReport::table(std::string title) {
  tables_.push_back(std::make_unique<RowTable>(std::move(title)));
  return *tables_.back();
}

std::ostream& RunReport::info() const { return csv_ ? std::cerr : std::cout; }

void RunReport::finish(std::ostream& destination) {
  // The tables are composed first, printed after the results file's content is safely on disk.
  std::ostringstream out;
  if (csv_) {
    std::vector<const RowTable*> shown;
    for (const auto& t : tables_)
      if (!t->rows().empty()) shown.push_back(t.get());
    if (shown.size() == 1) {
      shown.front()->to_table().print_csv(out);
    } else if (!shown.empty()) {
      // Several tables, one CSV: the union of their columns behind a "table" column.
      std::vector<std::string> headers{"table"};
      std::vector<Table> parts;
      for (const auto* t : shown) {
        parts.push_back(t->to_table());
        for (const auto& h : parts.back().headers())
          if (std::find(headers.begin(), headers.end(), h) == headers.end()) headers.push_back(h);
      }
      Table all(headers);
      for (std::size_t i = 0; i < shown.size(); ++i) {
        const auto& part = parts[i];
        for (const auto& cells : part.rows()) {
          std::vector<std::string> row{shown[i]->title()};
          for (std::size_t c = 1; c < headers.size(); ++c) {
            const auto it = std::find(part.headers().begin(), part.headers().end(), headers[c]);
            row.push_back(it == part.headers().end() ? "" : cells[static_cast<std::size_t>(it - part.headers().begin())]);
          }
          all.add_row(std::move(row));
        }
      }
      all.print_csv(out);
    }
  } else {
    bool first = true;
    for (const auto& t : tables_) {
      if (t->rows().empty()) continue;
      if (!first) out << '\n';
      first = false;
      if (!t->title().empty()) out << t->title() << '\n';
      t->to_table().print(out);
    }
  }
  for (const auto& t : tables_)
    for (const auto& row : t->rows()) results_.add_row(row.to_json());
  // The results file is written beside its place first, the tables printed, and only then is the file put
  // in place: a file that cannot be written prints no table, and tables that cannot reach standard output
  // (a full disk, a closed pipe) leave no results file, as any failed run (issue 31, item 4).
  std::optional<PendingFile> results_file;
  if (!json_path_.empty()) results_file.emplace(json_path_, results_.json().dump(2) + "\n");
  destination << out.str();
  if (&destination == &std::cout) {
    const std::string problem = standard_output_problem();
    if (!problem.empty()) throw std::runtime_error(problem);
  } else if (!destination.flush()) {
    throw std::runtime_error("cannot write the tables");
  }
  if (results_file) results_file->commit();
}

}  // namespace course
