#include "launcher.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace wave {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void terminate_all(const std::vector<pid_t>& children) {
  for (pid_t other : children)
    if (other > 0) ::kill(other, SIGTERM);
}

// Waits for every child; the first non-zero exit ends the others.
int wait_for_ranks(std::vector<pid_t> children) {
  int worst = 0;
  std::size_t alive = children.size();
  while (alive > 0) {
    int status = 0;
    const pid_t pid = ::wait(&status);
    if (pid < 0) break;
    const auto it = std::find(children.begin(), children.end(), pid);
    if (it == children.end()) continue;
    *it = -1;
    --alive;
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (rc != 0 && worst == 0) {
      worst = rc;
      terminate_all(children);
    }
  }
  return worst;
}

}  // namespace

std::vector<std::string> rank_arguments(int argc, char** argv, const std::string& id_file) {
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--launch" || a == "--nccl-id-file") {
      ++i;  // and its value
      continue;
    }
    if (starts_with(a, "--launch=") || starts_with(a, "--nccl-id-file=")) continue;
    args.push_back(a);
  }
  args.push_back("--nccl-id-file");
  args.push_back(id_file);
  return args;
}

std::vector<std::string> rank_environment(char** environment, int rank, int count) {
  std::vector<std::string> env;
  for (char** e = environment; e && *e; ++e) {
    const std::string kv = *e;
    if (starts_with(kv, "RANK=") || starts_with(kv, "WORLD_SIZE=") || starts_with(kv, "LOCAL_RANK=") ||
        starts_with(kv, "NCCL_NVLS_ENABLE="))
      continue;
    env.push_back(kv);
  }
  env.push_back("RANK=" + std::to_string(rank));
  env.push_back("WORLD_SIZE=" + std::to_string(count));
  env.push_back("LOCAL_RANK=" + std::to_string(rank));
  env.push_back("NCCL_NVLS_ENABLE=0");  // never NVLink multicast on these machines
  return env;
}

int launch_local_ranks(int count, int argc, char** argv, const std::string& id_file) {
  std::vector<std::string> args = rank_arguments(argc, argv, id_file);
  std::filesystem::remove(id_file);  // never a stale id from an earlier run
  std::vector<pid_t> children;
  for (int rank = 0; rank < count; ++rank) {
    std::vector<std::string> env = rank_environment(environ, rank, count);
    std::vector<char*> child_argv = pointers(args), child_env = pointers(env);
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, child_argv.data(), child_env.data()) != 0) {
      // The ranks already started would wait for this one in NCCL forever.
      terminate_all(children);
      wait_for_ranks(children);
      throw std::runtime_error("cannot start rank " + std::to_string(rank) + " of " + std::to_string(count));
    }
    children.push_back(pid);
  }
  return wait_for_ranks(children);
}

}  // namespace wave
