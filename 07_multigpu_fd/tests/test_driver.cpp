// The driver's host parts, on the CPU: the command line names the real constraint, a row carries the
// keys the lesson's tables are made from, the launcher hands each rank its own identity, the snapshot is
// a valid .npy file, and the memory plan adds up.
#include <doctest/doctest.h>

#include <cstring>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/report.hpp"
#include "decomposition.hpp"
#include "launcher.hpp"
#include "measurement.hpp"
#include "options.hpp"
#include "snapshot.hpp"

using namespace wave;

namespace {

Settings parse(std::initializer_list<std::string> args) {
  std::vector<std::string> words{"wave_fd"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  return parse_settings(static_cast<int>(words.size()), argv.data());
}

std::string refusal(std::initializer_list<std::string> args) {
  try {
    (void)parse(args);
  } catch (const course::UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

std::vector<std::string> names(const std::vector<Variant>& chosen) {
  std::vector<std::string> out;
  for (const auto& v : chosen) out.emplace_back(v.name);
  return out;
}

}  // namespace

TEST_CASE("a refusal names the real constraint: slab thickness before the sponge") {
  CHECK(refusal({"--ny", "7", "--slabs", "2"}).find("halo") != std::string::npos);
  CHECK(refusal({"--ny", "7", "--slabs", "2"}).find("sponge") == std::string::npos);
  CHECK(refusal({"--ny", "7"}).find("sponge") != std::string::npos);  // one slab: the sponge is the problem
  CHECK(refusal({"--gpus", "4", "--slabs", "2"}).find("more GPUs") != std::string::npos);
  CHECK(refusal({"--scaling", "--gpus", "4", "--ny", "400000"}).find("2^20") != std::string::npos);
}

TEST_CASE("the source is the centre only when not given; a negative position is refused") {
  const Settings centred = parse({"--nx", "100", "--ny", "60"});
  CHECK(centred.problem.source_x == 50);
  CHECK(centred.problem.source_y == 30);
  const Settings placed = parse({"--nx", "100", "--ny", "60", "--source-x", "0", "--source-y", "59"});
  CHECK(placed.problem.source_x == 0);
  CHECK(placed.problem.source_y == 59);
  CHECK(refusal({"--source-x", "-5"}).find("--source-x") != std::string::npos);
  CHECK(refusal({"--source-y", "-1"}).find("--source-y") != std::string::npos);
}

TEST_CASE("--variants: a list selects ladder rows in table order; any other run takes exactly one") {
  CHECK(names(parse({"--ladder"}).variants).size() == variants().size());
  CHECK(names(parse({"--ladder", "--variants", "tiled_vec4,naive_global"}).variants) ==
        std::vector<std::string>{"naive_global", "tiled_vec4"});
  CHECK(names(parse({}).variants) == std::vector<std::string>{default_variant});
  CHECK(names(parse({"--variants", "tiled_l1"}).variants) == std::vector<std::string>{"tiled_l1"});
  CHECK(refusal({"--variants", "naive_global,tiled_vec4"}).find("exactly one") != std::string::npos);
  CHECK(refusal({"--variants", "fastest"}).find("no such variant") != std::string::npos);
  CHECK(refusal({"--ladder", "--variants", "naive_global,,tiled_vec4"}).find("empty item") != std::string::npos);
  // A tuning candidate by name: for a run, or beside the rungs of a ladder.
  CHECK(names(parse({"--variants", "pipelined_b256_s8_r64"}).variants) ==
        std::vector<std::string>{"pipelined_b256_s8_r64"});
  CHECK(names(parse({"--ladder", "--variants", "temporal_2_b256_s8_r128,tiled_vec4"}).variants) ==
        std::vector<std::string>{"tiled_vec4", "temporal_2_b256_s8_r128"});
}

TEST_CASE("--tune: alone or before the ladder, one GPU, tuned rungs only; temporal rungs on one slab") {
  CHECK(parse({"--tune"}).mode == Mode::tune);
  const std::vector<Variant> tuned = parse({"--tune"}).variants;
  CHECK(tuned.size() >= 4);  // tiled_vec4_prefetch, pipelined, temporal_2, temporal_3
  for (const Variant& v : tuned) CHECK(v.family != nullptr);
  CHECK(parse({"--ladder", "--tune"}).mode == Mode::ladder);
  CHECK(parse({"--ladder", "--tune"}).tune);
  CHECK_FALSE(parse({"--ladder"}).tune);
  CHECK(names(parse({"--tune", "--variants", "pipelined"}).variants) == std::vector<std::string>{"pipelined"});
  CHECK(refusal({"--tune", "--variants", "naive_global"}).find("nothing to tune") != std::string::npos);
  CHECK(refusal({"--tune", "--variants", "pipelined_b256_s8_r64"}).find("nothing to tune") != std::string::npos);
  CHECK(candidates_of(find_variant("pipelined_b256_s8_r64")).empty());  // a named shape is that shape
  CHECK(refusal({"--tune", "--scaling", "--gpus", "2"}).find("--tune") != std::string::npos);
  CHECK(refusal({"--tune", "--gpus", "2"}).find("--tune runs on one GPU") != std::string::npos);
  CHECK(refusal({"--tune", "--check"}).find("--check") != std::string::npos);
  CHECK(parse({"--variants", "temporal_2"}).variants.front().steps_per_pass == 2);
  // A temporal rung runs decomposed, with slabs at least halo · K rows thick.
  CHECK(parse({"--variants", "temporal_2", "--slabs", "2"}).slabs == 2);
  CHECK(parse({"--variants", "temporal_3", "--scaling", "--gpus", "2"}).gpus == 2);
  CHECK(refusal({"--variants", "temporal_3", "--slabs", "4", "--ny", "47"}).find("12-row halo") != std::string::npos);
  CHECK(refusal({"--variants", "temporal_4", "--backend", "nccl", "--launch", "4", "--ny", "63"}).find("16-row halo") !=
        std::string::npos);
  // The default is tuned on the GPU at hand: a rung with candidates, one step per pass (any decomposition).
  const Variant& fallback = find_variant(default_variant);
  CHECK(fallback.family != nullptr);
  CHECK(fallback.steps_per_pass == 1);
  CHECK(candidates_of(fallback).size() >= 4);
}

TEST_CASE("every tuned rung's candidates share its family and its steps per pass; no candidate is a rung") {
  std::set<std::string> seen;
  for (const Variant& v : every_kernel()) CHECK(seen.insert(v.name).second);  // names unique
  for (const Variant& rung : variants()) {
    if (rung.family == nullptr) continue;
    const std::vector<Variant> candidates = candidates_of(rung);
    INFO(rung.name);
    REQUIRE(!candidates.empty());
    bool default_is_a_candidate = false;
    for (const Variant& c : candidates) {
      CHECK(c.steps_per_pass == rung.steps_per_pass);
      CHECK((c.pass != nullptr) == (rung.pass != nullptr));
      CHECK(!shape_of(c).empty());
      default_is_a_candidate = default_is_a_candidate || shape_of(c) == shape_of(rung);
    }
    CHECK(default_is_a_candidate);  // the shape before tuning is one the search times
  }
}

TEST_CASE("modes: options that would be ignored are refused") {
  CHECK(parse({"--ladder"}).mode == Mode::ladder);
  CHECK(parse({"--scaling", "--gpus", "2"}).mode == Mode::scaling);
  CHECK(parse({"--gpus", "2", "--slabs", "5"}).slabs == 5);
  CHECK(parse({"--gpus", "3"}).slabs == 3);
  CHECK(refusal({"--ladder", "--scaling"}) != "(accepted)");
  CHECK(refusal({"--scaling", "--slabs", "4"}) != "(accepted)");
  CHECK(refusal({"--launch", "2"}).find("--backend nccl") != std::string::npos);
  CHECK(refusal({"--ladder", "--snapshot", "field.npy"}).find("--snapshot") != std::string::npos);
  if (nccl_available()) {
    CHECK(parse({"--backend", "nccl", "--launch", "2"}).mode == Mode::launch);
    CHECK(refusal({"--backend", "nccl", "--launch", "2", "--gpus", "2"}) != "(accepted)");
  } else {
    CHECK(refusal({"--backend", "nccl", "--launch", "2"}).find("no NCCL") != std::string::npos);
  }
}

TEST_CASE("--snapshot is checked before the run: empty, a folder, or an impossible place") {
  CHECK(refusal({"--snapshot", ""}).find("empty file name") != std::string::npos);
  CHECK(refusal({"--snapshot="}).find("--snapshot") != std::string::npos);
  CHECK(refusal({"--snapshot", "."}).find("folder") != std::string::npos);
  CHECK(refusal({"--snapshot", "/proc/wave_fd/field.npy"}).find("--snapshot") != std::string::npos);
}

TEST_CASE("a recorded row carries exactly the keys the lesson's tables read, typed") {
  Measurement m{"strong", "temporal_3", "single", 16384, 16384, 2, 2, true, 0.5, true, 0.99, 250.0, 3, 1.5e6};
  course::RowTable table;
  record(table.add_row(), m, 3000.0);
  const nlohmann::json row = table.rows().front().to_json();
  std::set<std::string> keys;
  for (const auto& [key, value] : row.items()) keys.insert(key);
  CHECK(keys == std::set<std::string>{"table", "variant", "backend", "nx", "ny", "gpus", "slabs", "overlap",
                                      "ms_per_step", "gcells_per_s", "mcells_per_s", "gb_per_s", "roofline_pct",
                                      "ceiling_pct", "bitwise_equal", "efficiency", "steps_per_pass",
                                      "halo_bytes_per_step"});
  CHECK(row["steps_per_pass"] == 3);
  CHECK(row["halo_bytes_per_step"].get<double>() == doctest::Approx(1.5e6));
  CHECK(row["overlap"] == true);
  CHECK(row["bitwise_equal"] == true);
  CHECK(row["efficiency"].get<double>() == doctest::Approx(0.99));
  CHECK(row["gcells_per_s"].get<double>() == doctest::Approx(16384.0 * 16384 / 0.5e6));
  CHECK(row["roofline_pct"].get<double>() == doctest::Approx(100.0 * row["gb_per_s"].get<double>() / 6000.0));
  // The stream ceiling is per GPU too: 2 GPUs at 250 Gcells/s each.
  CHECK(row["ceiling_pct"].get<double>() == doctest::Approx(100.0 * row["gcells_per_s"].get<double>() / 500.0));
  const course::Table shown = table.to_table();
  CHECK(table.rows().front().shown("overlap") == "yes");
  CHECK(table.rows().front().shown("efficiency") == "99.0%");
  CHECK(table.rows().front().shown("bitwise") == "equal");
  CHECK(shown.row_count() == 1);

  Measurement unchecked{"run", "tiled_vec4", "single", 64, 64, 1, 1, false, 0.01, {}, {}, {}, 1, {}};
  course::RowTable plain;
  record(plain.add_row(), unchecked, 3000.0);
  CHECK(plain.rows().front().to_json()["bitwise_equal"].is_null());
  CHECK(plain.rows().front().to_json()["efficiency"].is_null());
  CHECK(plain.rows().front().to_json()["ceiling_pct"].is_null());
  CHECK(plain.rows().front().to_json()["halo_bytes_per_step"].is_null());
  CHECK(plain.rows().front().shown("bitwise").empty());  // no column for what was not measured
}

TEST_CASE("each rank gets this command line without --launch, and its own identity") {
  std::vector<std::string> words{"wave_fd", "--launch", "2", "--nx", "64", "--launch=3", "--nccl-id-file", "old",
                                 "--nccl-id-file=older", "--check"};
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  CHECK(rank_arguments(static_cast<int>(argv.size()), argv.data(), "/tmp/id") ==
        std::vector<std::string>{"wave_fd", "--nx", "64", "--check", "--nccl-id-file", "/tmp/id"});

  std::vector<std::string> env{"PATH=/bin", "RANK=7", "WORLD_SIZE=9", "LOCAL_RANK=7", "NCCL_NVLS_ENABLE=1", "HOME=/r"};
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  CHECK(rank_environment(envp.data(), 1, 2) == std::vector<std::string>{"PATH=/bin", "HOME=/r", "RANK=1", "WORLD_SIZE=2",
                                                                        "LOCAL_RANK=1", "NCCL_NVLS_ENABLE=0"});
}

TEST_CASE("snapshots: block averages, a valid .npy file, RFC 4648 base64") {
  std::vector<float> field(6 * 4);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 6; ++x) field[static_cast<std::size_t>(y * 6 + x)] = static_cast<float>(10 * y + x);
  const Snapshot s = downsample(field, 6, 4, 3);  // stride 2: 3 × 2 blocks
  CHECK(s.stride == 2);
  CHECK(s.width == 3);
  CHECK(s.height == 2);
  CHECK(s.values == std::vector<float>{5.5f, 7.5f, 9.5f, 25.5f, 27.5f, 29.5f});

  const std::string npy = npy_bytes(s);
  CHECK(npy.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
  const std::size_t header_len = static_cast<unsigned char>(npy[8]) | static_cast<unsigned char>(npy[9]) << 8;
  CHECK((10 + header_len) % 64 == 0);  // the data starts on a 64-byte boundary
  CHECK(npy.substr(10, header_len).find("'shape': (2, 3)") != std::string::npos);
  CHECK(npy[10 + header_len - 1] == '\n');
  REQUIRE(npy.size() == 10 + header_len + 6 * sizeof(float));
  CHECK(std::memcmp(npy.data() + 10 + header_len, s.values.data(), 6 * sizeof(float)) == 0);

  const auto b64 = [](const std::string& text) { return base64(std::vector<unsigned char>(text.begin(), text.end())); };
  CHECK(b64("") == "");
  CHECK(b64("f") == "Zg==");
  CHECK(b64("fo") == "Zm8=");
  CHECK(b64("foo") == "Zm9v");
  CHECK(b64("foobar") == "Zm9vYmFy");
  CHECK(base64({0xff, 0xfe, 0x80}) == "//6A");
}

TEST_CASE("the memory plan: every slab counted once, on the device it runs on") {
  for (int slabs : {1, 2, 5, 7})
    for (int devices = 1; devices <= slabs; ++devices) {
      const std::vector<std::size_t> bytes = device_bytes(1000, 333, slabs, devices);
      REQUIRE(bytes.size() == static_cast<std::size_t>(devices));
      std::size_t total = 0, expected = 0;
      for (std::size_t b : bytes) {
        CHECK(b > 0);
        total += b;
      }
      for (int s = 0; s < slabs; ++s) expected += slab_bytes(1000, slab_rows(333, slabs, s).size());
      CHECK(total == expected);
    }
  const SlabLayout one = SlabLayout::make(1000, 333);
  CHECK(slab_bytes(1000, 333) == sizeof(float) * (3 * one.elements() + 2 * (333 + 2 * halo) + one.pitch));
  // A temporal rung's slab: K + 2 fields and coefficients with halo · K ghost rows each side.
  const SlabLayout deep = SlabLayout::make(1000, 333, 3 * halo);
  CHECK(deep.elements() == static_cast<std::size_t>(333 + 6 * halo) * deep.pitch);
  CHECK(slab_bytes(1000, 333, 5, 3 * halo) == sizeof(float) * (5 * deep.elements() + 2 * (333 + 6 * halo) + deep.pitch));
}
