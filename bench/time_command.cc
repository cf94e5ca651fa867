// SPDX-License-Identifier: Apache-2.0
// Times short commands precisely: runs each many times without a shell in
// between and prints the median, minimum and mean wall time and the largest
// peak RSS. bench/run.sh uses it for the latency comparison, where hyperfine's
// shell start-up correction (its only way to redirect standard input) is
// noisier than the few milliseconds being measured.
//
//   safesubst_bench_time [--runs N] [--warmup N] [--stdin FILE] -- COMMAND ARGS...
//                        [--next [--stdin FILE] COMMAND ARGS...]...
//
// With several commands (each after `--next`, with its own `--stdin`), the
// runs are interleaved: run r of every command, then run r + 1, each round
// starting with the next command. A machine whose speed drifts (another
// process, CPU frequency, page cache) then shifts all of them alike, where
// timing one command's runs after the other's would credit the drift to one.
//
// Output, one line per command, in order: `median_ms min_ms mean_ms
// max_rss_kb`. Standard output of the commands goes to /dev/null. Exits 1
// when any run fails.
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

// One command to time, and its runs so far.
struct Command {
  std::vector<char*> argv;  // null-terminated
  const char* stdin_path = nullptr;
  std::vector<double> times;
  long max_rss_kb = 0;
  double total = 0;
};

int Usage() {
  std::fprintf(stderr,
               "usage: safesubst_bench_time [--runs N] [--warmup N] [--stdin FILE] -- COMMAND ARGS...\n"
               "                            [--next [--stdin FILE] COMMAND ARGS...]...\n");
  return 2;
}

// Splits `COMMAND ARGS... [--next [--stdin FILE] COMMAND ARGS...]...`.
bool ParseCommands(char** first, char** last, const char* stdin_path, std::vector<Command>* commands) {
  commands->emplace_back().stdin_path = stdin_path;
  for (char** arg = first; arg != last; ++arg) {
    if (std::strcmp(*arg, "--next") == 0) {
      commands->emplace_back();
      if (arg + 1 < last && std::strcmp(arg[1], "--stdin") == 0) {
        if (arg + 2 == last) return false;  // `--stdin` without its file
        commands->back().stdin_path = arg[2];
        arg += 2;
      }
      continue;
    }
    commands->back().argv.push_back(*arg);
  }
  for (Command& command : *commands) {
    if (command.argv.empty()) return false;
    command.argv.push_back(nullptr);
  }
  return true;
}

// Runs `command` once; records the run unless it is a warm-up.
bool Time(Command& command, bool warmup) {
  const Run run = RunOnce(command.argv.data(), command.stdin_path);
  if (!run.ok) {
    std::fprintf(stderr, "time_command: %s failed\n", command.argv[0]);
    return false;
  }
  if (warmup) return true;
  command.times.push_back(run.milliseconds);
  command.total += run.milliseconds;
  command.max_rss_kb = std::max(command.max_rss_kb, run.max_rss_kb);
  return true;
}

void PrintSummary(Command& command) {
  std::vector<double>& times = command.times;
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  const double median = n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  std::printf("%.3f %.3f %.3f %ld\n", median, times.front(), command.total / static_cast<double>(n),
              command.max_rss_kb);
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
  std::vector<Command> commands;
  if (i + 1 >= argc || runs < 1 || !ParseCommands(argv + i + 1, argv + argc, stdin_path, &commands)) return Usage();
  for (int w = 0; w < warmup; ++w) {
    for (Command& command : commands) {
      if (!Time(command, /*warmup=*/true)) return 1;
    }
  }
  const std::size_t count = commands.size();
  for (int r = 0; r < runs; ++r) {
    for (std::size_t k = 0; k < count; ++k) {
      if (!Time(commands[(k + static_cast<std::size_t>(r)) % count], /*warmup=*/false)) return 1;
    }
  }
  for (Command& command : commands) PrintSummary(command);
  return 0;
}
