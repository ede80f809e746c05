// CPU side of chapter 02's command line: what --variants picks from the ladders, and the plan every run
// starts from, checked before any GPU is touched. Runs on CI (no GPU).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/variants.hpp"
#include "options.hpp"
#include "variants.hpp"

using namespace bandwidth;

namespace {

// Stand-ins for the tuned SM copies beyond the lesson, whose real table needs CUDA to build.
const std::vector<std::string> beyond = {"sm_fast", "sm_faster"};

struct Named {
  const char* name;
};
constexpr Named beyond_table[] = {{"sm_fast"}, {"sm_faster"}};

std::vector<std::string> picked_hosts(const Selection& s) {
  return course::variant_names<HostMemoryVariant>(s.pick(host_memory_variants()));
}
std::vector<std::string> picked_devices(const Selection& s) {
  return course::variant_names<DeviceCopyVariant>(s.pick(device_copy_variants()));
}
std::vector<std::string> picked_beyond(const Selection& s) {
  return course::variant_names<Named>(s.pick<Named>(beyond_table));
}

// Parses a command line as the program does and returns its plan.
Plan plan_of(std::vector<std::string> args) {
  Options options;
  CLI::App app;
  add_options(app, options, beyond);
  std::vector<char*> argv{const_cast<char*>("bandwidth")};
  for (auto& a : args) argv.push_back(a.data());
  course::parse_command_line(app, static_cast<int>(argv.size()), argv.data());
  return make_plan(options, beyond);
}

}  // namespace

TEST_CASE("the ladders: four host memory kinds by name, cudaMemcpy first among the device copies") {
  CHECK(course::variant_names(host_memory_variants()) ==
        std::vector<std::string>{"pageable", "pinned", "write-combined", "registered"});
  for (const auto& v : host_memory_variants()) CHECK(kind_name(v.kind) == v.name);
  REQUIRE(device_copy_variants().size() == 3);
  CHECK(device_copy_variants()[0].kind == CopyKind::d2d_memcpy);
  for (const auto& v : device_copy_variants()) {
    CHECK(copy_kind_name(v.kind) == v.name);
    CHECK(!involves_host(v.kind));
  }
}

TEST_CASE("--variants runs only the rows it names, from any ladder; no names, or all, runs everything") {
  const Selection everything;
  CHECK(picked_hosts(everything).size() == 4);
  CHECK(picked_devices(everything).size() == 3);
  CHECK(picked_beyond(everything) == beyond);
  CHECK(picked_hosts(Selection({"all"}, beyond)).size() == 4);
  CHECK(picked_beyond(Selection({"all", "pinned"}, beyond)) == beyond);

  const Selection some({"registered", "pageable", "d2d_sm_kernel", "sm_faster"}, beyond);
  CHECK(picked_hosts(some) == std::vector<std::string>{"pageable", "registered"});  // in table order
  CHECK(picked_devices(some) == std::vector<std::string>{"d2d_sm_kernel"});
  CHECK(picked_beyond(some) == std::vector<std::string>{"sm_faster"});

  const Selection host_only({"pinned"}, beyond);  // the old --kinds pinned: no device copies now
  CHECK(picked_hosts(host_only) == std::vector<std::string>{"pinned"});
  CHECK(picked_devices(host_only).empty());
  CHECK(picked_beyond(host_only).empty());
}

TEST_CASE("--variants keeps the old --kinds spellings and refuses unknown names, naming the choices") {
  CHECK(picked_hosts(Selection({"wc"}, beyond)) == std::vector<std::string>{"write-combined"});
  CHECK_THROWS_WITH_AS(Selection({"pinned", "bogus"}, beyond),
                       doctest::Contains("--variants bogus: no such variant; choose from pageable"),
                       course::UsageError);
  CHECK_THROWS_WITH_AS(Selection({"all", "bogus"}, beyond), doctest::Contains("sm_faster"), course::UsageError);
  CHECK_THROWS_AS(Selection({"managed"}, beyond), course::UsageError);
  CHECK_THROWS_AS(Selection({"sm_fast"}, {}), course::UsageError);  // a beyond name only when its table has it
}

TEST_CASE("the plan: sizes parsed and swept, the book's size included, names resolved, p2p on or off") {
  const Plan plan = plan_of({"--min-size", "1KiB", "--max-size", "64KiB", "--step", "8", "--size", "3000",
                             "--variants", "wc,d2d_memcpy", "--p2p", "off", "--p2p-size", "2^20", "--seed", "7"});
  CHECK(plan.sizes == std::vector<std::size_t>{1024, 3000, 8192, 65536});
  CHECK(plan.call_return_sizes == std::vector<std::size_t>{3000, 4096});
  CHECK(plan.sweep.largest() == 65536);
  CHECK(plan.selection.names() == std::vector<std::string>{"write-combined", "d2d_memcpy"});
  CHECK(!plan.p2p);
  CHECK(plan.p2p_bytes == std::size_t{1} << 20);
  CHECK(plan.seed == 7);
  const auto config = config_json(plan, false);
  CHECK(config["kinds"] == "write-combined");
  CHECK(config["sizes"].size() == 4);
  CHECK(config["call_return_sizes"] == nlohmann::json{3000, 4096});
  CHECK(config_json(plan_of({}), true)["kinds"] == "all");
  CHECK(config_json(plan_of({}), true)["p2p"] == true);
  CHECK(plan_of({"--seed", "18446744073709551615"}).seed == UINT64_MAX);
}

TEST_CASE("bad command lines are usage errors before any GPU: sizes, steps, names, lists, seeds") {
  const std::vector<std::vector<std::string>> bad = {
      {"--size", "0"},
      {"--min-size", "1MiB", "--max-size", "1KiB"},
      {"--max-size", "2^18446744073709551620"},
      {"--step", "1"},
      {"--variants", "pinned,bogus"},
      {"--variants", "pinned,,wc"},
      {"--seed", "-1"},
      {"--seed", "18446744073709551616"},
      {"--p2p", "maybe"},
      {"--p2p-size", "0"},
      {"--kinds", "pinned"},  // renamed to --variants
  };
  for (const auto& args : bad) {
    CAPTURE(args.front());
    CHECK_THROWS_AS(plan_of(args), course::UsageError);
  }
}
