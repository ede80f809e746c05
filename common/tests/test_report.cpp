#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/cli.hpp"
#include "common/device.cuh"
#include "common/report.hpp"

TEST_CASE("the table aligns numbers right and text left, under a rule") {
  course::Table t({"kernel", "time_ms"});
  t.add_row({"neighbored", "8.459"});
  t.add_row({"cub", "0.03"});
  std::ostringstream out;
  t.print(out);
  CHECK(out.str() ==
        "kernel      time_ms\n"
        "-------------------\n"
        "neighbored    8.459\n"
        "cub            0.03\n");
}

TEST_CASE("a row with the wrong number of cells is refused") {
  course::Table t({"a", "b"});
  CHECK_THROWS_AS(t.add_row({"1"}), std::invalid_argument);
}

TEST_CASE("CSV output quotes cells that need it") {
  course::Table t({"name", "note"});
  t.add_row({"x", "a,b"});
  t.add_row({"y", "say \"hi\""});
  std::ostringstream out;
  t.print(out, /*csv=*/true);
  CHECK(out.str() == "name,note\nx,\"a,b\"\ny,\"say \"\"hi\"\"\"\n");
}

TEST_CASE("formatting helpers") {
  CHECK(course::format_fixed(3.14159, 2) == "3.14");
  CHECK(course::format_ratio(10.891) == "10.89x");
  CHECK(course::format_bytes(32.0 * 1024 * 1024) == "32 MiB");
  CHECK(course::format_bytes(1536) == "1.50 KiB");
  CHECK(course::format_bytes(100) == "100 B");
}

TEST_CASE("the results file has the common schema and is written atomically") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("course_report_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  char a0[] = "/some/path/prog", a1[] = "--n", a2[] = "2^24";
  char* argv[] = {a0, a1, a2};
  course::ResultsFile rf("99_example", 3, argv);
  rf.set_host_cpu();
  rf.config()["n"] = 16777216;
  rf.add_row({{"kernel", "a"}, {"time_ms", 1.5}});
  rf.add_row({{"kernel", "b"}, {"time_ms", 0.5}});
  const std::string path = (dir / "sub" / "out.json").string();
  rf.write(path);
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  CHECK(j["schema"] == "cuda-lessons/results/v1");
  CHECK(j["chapter"] == "99_example");
  CHECK(j["command_line"] == "prog --n 2^24");
  CHECK(j["config"]["n"] == 16777216);
  CHECK(j["rows"].size() == 2);
  CHECK(j["rows"][1]["time_ms"] == 0.5);
  CHECK(j.contains("date"));
  CHECK(j.contains("commit"));
  CHECK(j["device"].contains("cpu"));
  // No temporary file is left beside the result.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir / "sub")) files += e.is_regular_file();
  CHECK(files == 1);
  fs::remove_all(dir);
}

TEST_CASE("PCIe link facts: generation from sysfs speed, theoretical bandwidth") {
  CHECK(course::pcie_generation_from_speed("32.0 GT/s PCIe") == 5);
  CHECK(course::pcie_generation_from_speed("16.0 GT/s PCIe") == 4);
  CHECK(course::pcie_generation_from_speed("8.0 GT/s PCIe") == 3);
  CHECK(course::pcie_generation_from_speed("2.5 GT/s") == 1);
  CHECK(course::pcie_generation_from_speed("Unknown") == 0);
  course::DeviceInfo d;
  d.pcie_generation = 5;
  d.pcie_width = 16;
  CHECK(d.pcie_theoretical_gbs() == doctest::Approx(32.0 * 16 / 8 * 128.0 / 130.0));
  d.pcie_generation = 2;
  CHECK(d.pcie_theoretical_gbs() == doctest::Approx(5.0 * 16 / 8 * 0.8));
  d.pcie_width = 0;
  CHECK(d.pcie_theoretical_gbs() == 0);
  CHECK(course::cuda_version_string(13000) == "13.0");
  CHECK(course::cuda_version_string(12090) == "12.9");
}

TEST_CASE("a row is recorded once: the table, the CSV and the JSON come from the same cells") {
  course::RowTable t("ladder");
  t.add_row().text("kernel", "neighbored").fixed("time_ms", 8.4591, 3).fixed({"GB/s", "gbs"}, 123.456, 0)
      .json("min_ms", 8.1);
  t.add_row().text("kernel", "cub").fixed("time_ms", 0.03, 3).ratio({"speedup", "step"}, 2.5);
  std::ostringstream out;
  t.to_table().print(out, /*csv=*/true);
  CHECK(out.str() == "kernel,time_ms,GB/s,speedup\nneighbored,8.459,123,-\ncub,0.030,-,2.50x\n");
  const auto& j = t.rows()[0].to_json();
  CHECK(j["kernel"] == "neighbored");
  CHECK(j["time_ms"].get<double>() == doctest::Approx(8.4591));  // full precision in JSON
  CHECK(j["gbs"].get<double>() == doctest::Approx(123.456));
  CHECK(j["min_ms"].get<double>() == doctest::Approx(8.1));
  CHECK_FALSE(j.contains("GB/s"));
  CHECK(t.rows()[1].to_json()["step"].get<double>() == doctest::Approx(2.5));
}

TEST_CASE("RunReport: one CSV on stdout under --csv, every table's rows in the results file") {
  const std::string path = "/tmp/course-runreport-" + std::to_string(::getpid()) + ".json";
  course::CommonOptions opts;
  opts.csv = true;
  opts.json_path = path;
  char prog[] = "prog";
  char* argv[] = {prog};
  course::RunReport report("00_test", 1, argv, opts);
  report.table("h2d").add_row().text("kind", "pinned").fixed({"GB/s", "gbs"}, 50, 1);
  report.table("d2d").add_row().text("copy", "memcpy").fixed({"GB/s", "gbs"}, 3000, 0);
  std::ostringstream out;
  report.finish(out);
  CHECK(out.str() == "table,kind,GB/s,copy\nh2d,pinned,50.0,\nd2d,,3000,memcpy\n");
  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);
  REQUIRE(doc["rows"].size() == 2);
  CHECK(doc["rows"][0]["kind"] == "pinned");
  CHECK(doc["rows"][1]["gbs"].get<double>() == doctest::Approx(3000));
  std::filesystem::remove(path);
}

TEST_CASE("a failed atomic write leaves the old file untouched") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("course-atomic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path target = dir / "out.json";
  course::write_file_atomically(target.string(), "old\n");
  // A folder where the temporary file would go makes the write fail after the target exists.
  fs::create_directories(target.string() + ".tmp." + std::to_string(::getpid()) + "/blocker");
  CHECK_THROWS(course::write_file_atomically(target.string(), "new\n"));
  std::ifstream in(target);
  std::string content;
  std::getline(in, content);
  CHECK(content == "old");
  fs::remove_all(dir);
}
