// Times a short command precisely: runs it many times without a shell in
// between and prints the median, minimum and mean wall time and the largest
// peak RSS. bench/run.sh uses it for the latency comparison, where hyperfine's
// shell start-up correction (its only way to redirect standard input) is
// noisier than the few milliseconds being measured.
//
//   safesubst_bench_time [--runs N] [--warmup N] [--stdin FILE] -- COMMAND ARGS...
//
// Output, one line: `median_ms min_ms mean_ms max_rss_kb`. Standard output of
// the command goes to /dev/null. Exits 1 when any run fails.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace {

struct Run {
  double milliseconds = 0;
  long max_rss_kb = 0;
  bool ok = false;
};

Run RunOnce(char** argv, const char* stdin_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdin_path != nullptr) posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, stdin_path, O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  Run run;
  const auto start = std::chrono::steady_clock::now();
  pid_t pid;
  int error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    std::fprintf(stderr, "time_command: cannot run %s: %s\n", argv[0], std::strerror(error));
    return run;
  }
  int status = 0;
  struct rusage usage;
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) return run;
  }
  const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
  run.milliseconds = elapsed.count();
  run.max_rss_kb = usage.ru_maxrss;
  run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return run;
}

int Usage() {
  std::fprintf(stderr, "usage: safesubst_bench_time [--runs N] [--warmup N] [--stdin FILE] -- COMMAND ARGS...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 100, warmup = 10;
  const char* stdin_path = nullptr;
  int i = 1;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    if (i + 1 >= argc) return Usage();
    if (std::strcmp(argv[i], "--runs") == 0) {
      runs = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--warmup") == 0) {
      warmup = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--stdin") == 0) {
      stdin_path = argv[++i];
    } else {
      return Usage();
    }
  }
  if (i + 1 >= argc || runs < 1) return Usage();
  char** command = argv + i + 1;
  for (int w = 0; w < warmup; ++w) {
    if (!RunOnce(command, stdin_path).ok) {
      std::fprintf(stderr, "time_command: %s failed\n", command[0]);
      return 1;
    }
  }
  std::vector<double> times;
  long max_rss_kb = 0;
  double total = 0;
  for (int r = 0; r < runs; ++r) {
    const Run run = RunOnce(command, stdin_path);
    if (!run.ok) {
      std::fprintf(stderr, "time_command: %s failed\n", command[0]);
      return 1;
    }
    times.push_back(run.milliseconds);
    total += run.milliseconds;
    max_rss_kb = std::max(max_rss_kb, run.max_rss_kb);
  }
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  const double median = n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  std::printf("%.3f %.3f %.3f %ld\n", median, times.front(), total / static_cast<double>(n), max_rss_kb);
  return 0;
}
