/// \file child_process.hpp
/// \brief Runs a program as a child process with some environment variables set. Why: a variable such as
/// CUDA_DEVICE_MAX_CONNECTIONS is read once, when the CUDA context is created, so a process that already
/// has a context can only try another value in a fresh process.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace streams {

/// Runs `argv` (argv[0] = the program's path) with the parent's environment plus `env` (replacing
/// variables of the same name), waits for it and returns its exit code (128 + signal if killed).
/// `stdout_path`: where the child's stdout goes ("/dev/null" to silence it, a file to read it back);
/// empty: the parent's stdout. Its stderr stays the parent's, so its errors are seen.
int run_child_process(const std::vector<std::string>& argv,
                      const std::vector<std::pair<std::string, std::string>>& env, const std::string& stdout_path);

/// The path of the running executable (/proc/self/exe).
std::string current_executable();

}  // namespace streams
