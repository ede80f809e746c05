/// \file errors.hpp
/// \brief The three ways a chapter program ends early, and the exit code each one maps to.
#pragma once
#include <stdexcept>
#include <string>

namespace course {

/// Exit codes shared by every chapter program and test binary.
enum ExitCode : int {
  exit_ok = 0,        ///< ran to the end
  exit_failure = 1,   ///< a CUDA error or a failed check
  exit_usage = 2,     ///< bad command line or bad input values
  exit_no_device = 77 ///< no usable CUDA device: ctest reports the test as skipped
};

/// Bad input from the user (command line or values out of range): exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// No usable CUDA device: the program says so in one line and exits 77.
struct NoDeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A CUDA runtime call or kernel launch failed: exit code 1.
struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A result the program checked is wrong (a sum that differs from the CPU's, a simulation that blew
/// up): one line saying so, no table, no results file, exit code 1. Not a CudaError: every CUDA call
/// succeeded, the answer did not.
struct WrongResultError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Thrown to end the program early with a given code and nothing more to say (e.g. after --help).
struct ExitRequest {
  int code = 0;
};

/// Flushes standard output (C++ stream and C stdio) and says why what was written there did not all
/// arrive (a full disk, /dev/full, a closed descriptor), or "" when it did.
std::string standard_output_problem();

/// Runs a chapter's body and turns the exceptions above into one line on stderr and the matching
/// exit code. A body that ends with 0 (or --help) but whose standard output could not be written ends
/// with exit 1 and one line saying so. Every chapter's `main` is `return course::run_main(argc, argv, body);`.
/// \param program short program name printed before each message
/// \param body the chapter's real main
/// \param argc,argv the command line, passed on to `body`
/// \return `body`'s exit code, or the code of the error that ended it
int run_main(const char* program, int (*body)(int, char**), int argc, char** argv);

}  // namespace course
