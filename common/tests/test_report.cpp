#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

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
