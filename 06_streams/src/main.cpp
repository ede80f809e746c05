// streams: what CUDA streams buy and when they don't, one named scenario per claim of the lecture.
//   streams                             every scenario, the ASCII timelines, one table at the end
//   streams --variants pipeline         the chunked H2D → kernel → D2H pipeline, N swept, measured vs model
//   streams --trace trace.json          also write every timeline as a Chrome trace (open in ui.perfetto.dev)
//   streams --csv                       only the table on stdout, as CSV (notes and timelines on stderr)
// The driver: command line → checks (all before the GPU is touched) → the scenarios → the report.
#include <algorithm>
#include <string>

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/nvtx.hpp"
#include "issue_order_child.hpp"
#include "options.hpp"
#include "scenarios.hpp"
#include "session.hpp"

namespace {

using namespace streams;

int run(int argc, char** argv) {
  Options opt;
  CLI::App app{"Chapter 06: CUDA streams. Each scenario measures one claim and prints the model's prediction."};
  add_options(app, opt);
  course::parse_command_line(app, argc, argv);
  const Plan plan = check_options(opt);

  Session session(opt, plan, argc, argv);
  session.start();
  if (plan.child) {
    run_as_child(session);
  } else {
    for (const Scenario& sc : scenarios()) {
      if (std::find(plan.scenarios.begin(), plan.scenarios.end(), sc.name) == plan.scenarios.end()) continue;
      course::NvtxRange range(sc.name);
      session.say(std::string("== ") + sc.name + " ==\n");
      sc.run(session);
    }
  }
  session.finish();
  return course::exit_ok;
}

}  // namespace

int main(int argc, char** argv) { return course::run_main("streams", run, argc, argv); }
