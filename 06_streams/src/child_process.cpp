#include "child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace streams {

int run_child_process(const std::vector<std::string>& argv,
                      const std::vector<std::pair<std::string, std::string>>& env, const std::string& stdout_path) {
  if (argv.empty()) throw std::invalid_argument("run_child_process: empty argv");
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& [name, value] : env)
      if (entry.compare(0, name.size() + 1, name + "=") == 0) replaced = true;
    if (!replaced) env_strings.push_back(entry);
  }
  for (const auto& [name, value] : env) env_strings.push_back(name + "=" + value);

  std::vector<char*> argv_ptrs, env_ptrs;
  std::vector<std::string> argv_copy = argv;  // posix_spawn takes char* const*
  for (auto& a : argv_copy) argv_ptrs.push_back(a.data());
  argv_ptrs.push_back(nullptr);
  for (auto& e : env_strings) env_ptrs.push_back(e.data());
  env_ptrs.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!stdout_path.empty())
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv_copy[0].c_str(), &actions, nullptr, argv_ptrs.data(), env_ptrs.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));

  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::string current_executable() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

}  // namespace streams
