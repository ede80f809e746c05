#include "common/errors.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

namespace course {

std::string standard_output_problem() {
  errno = 0;
  std::cout.flush();
  int error = errno;
  if (std::fflush(stdout) != 0 && error == 0) error = errno;
  if (std::cout.good() && !std::ferror(stdout)) return {};
  return std::string("cannot write standard output: ") +
         (error != 0 ? std::strerror(error) : "a write failed (disk full, or the output closed?)");
}

namespace {
// A run that ends well has really delivered its output: a table lost to a full disk or a closed pipe
// must not exit 0 (issue 31, item 4).
int with_output_checked(const char* program, int code) {
  if (code != exit_ok) return code;
  const std::string problem = standard_output_problem();
  if (problem.empty()) return code;
  std::fprintf(stderr, "%s: %s\n", program, problem.c_str());
  return exit_failure;
}
}  // namespace

int run_main(const char* program, int (*body)(int, char**), int argc, char** argv) {
  try {
    return with_output_checked(program, body(argc, argv));
  } catch (const ExitRequest& e) {
    return with_output_checked(program, e.code);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s (see --help)\n", program, e.what());
    return exit_usage;
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "%s: skipped: %s\n", program, e.what());
    return exit_no_device;
  } catch (const WrongResultError& e) {
    std::fprintf(stderr, "%s: wrong result: %s\n", program, e.what());
    return exit_failure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return exit_failure;
  }
}

}  // namespace course
