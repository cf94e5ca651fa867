// SPDX-License-Identifier: Apache-2.0
// Cost of the per-value encoding checks and of the structure invariant. Not a
// test: run it by hand and read the numbers.
//
//   build/tests/yaml_encoding_perftest [megabytes-for-the-invariant]
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "invariant.h"
#include "yaml_encoding.h"

namespace {

// Process CPU time, not wall time: the numbers stay meaningful on a busy machine.
struct Clock {
  using time_point = std::clock_t;
  static time_point now() { return std::clock(); }
};

double Seconds(Clock::time_point start) {
  return static_cast<double>(Clock::now() - start) / CLOCKS_PER_SEC;
}

// Typical substituted values: image tags, hosts, IPs, numbers, keywords, text.
std::vector<std::string> Values() {
  std::vector<std::string> values = {
      "1.10",        "1.10.3",      "on",          "web-portal",  "10.0.39.229", "efs.example.internal",
      "31",          "0x1F",        "latest",      "v2.4.1-rc1",  "500m",        "1Gi",
      "true",        "2001-12-14",  "hello world", "a: b",        "#x",          "- x",
      "https://registry.example.com:5000/team/app@sha256:0123456789abcdef", "",
      "DB_PASSWORD=s3cr3t!\"'$x", "line 1\nline 2"};
  return values;
}

template <typename F>
void Bench(const char* name, const std::vector<std::string>& values, int rounds, F f) {
  std::size_t sink = 0;
  Clock::time_point start = Clock::now();
  for (int r = 0; r < rounds; ++r) {
    for (const std::string& value : values) sink += f(value);
  }
  double seconds = Seconds(start);
  double calls = static_cast<double>(rounds) * static_cast<double>(values.size());
  std::printf("%-22s %8.1f ns/value  (sink %zu)\n", name, seconds * 1e9 / calls, sink);
}

std::string Stream(double megabytes) {
  std::string out;
  for (int i = 0; out.size() < megabytes * 1e6; ++i) {
    std::string n = std::to_string(i);
    out += "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-" + n +
           "\n  labels: {app: app-" + n + ", tier: web}\nspec:\n  replicas: ${REPLICAS}\n  template:\n"
           "    spec:\n      containers:\n        - name: app\n          image: repo/app:${TAG}\n"
           "          command: [\"/bin/sh\", \"-c\"]\n          args:\n            - |\n"
           "              EFS=\"${EFS_IP}\"\n              echo \"$EFS $HOST\" >> /etc/hosts\n"
           "          env:\n            - {name: A, value: \"${A}\"}\n            - name: B\n"
           "              value: '${B}'\n";
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace safesubst;
  std::vector<std::string> values = Values();
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 200000;
  Bench("ResolvePlain", values, rounds, [](const std::string& v) { return static_cast<std::size_t>(ResolvePlain(v)); });
  Bench("FitsPlain", values, rounds, [](const std::string& v) { return std::size_t{FitsPlain(v, false)}; });
  Bench("SplicedPlainIsSafe", values, rounds,
        [](const std::string& v) { return std::size_t{SplicedPlainIsSafe("prefix-", v, "-suffix", false)}; });
  Bench("DoubleQuoted", values, rounds, [](const std::string& v) { return DoubleQuoted(v).size(); });

  double megabytes = argc > 1 ? std::atof(argv[1]) : 5.0;
  std::string before = Stream(megabytes);
  // The rendered stream: every `${...}` replaced by a short value.
  std::string after;
  after.reserve(before.size());
  std::size_t cursor = 0;
  for (std::size_t at = before.find("${"); at != std::string::npos; at = before.find("${", cursor)) {
    after.append(before, cursor, at - cursor);
    after += 'v';
    cursor = before.find('}', at) + 1;
  }
  after.append(before, cursor, std::string::npos);
  Clock::time_point start = Clock::now();
  Result<std::vector<StructureDifference>> result = CompareStructure(before, after, {}, "perf.yaml");
  double seconds = Seconds(start);
  std::printf("CompareStructure       %.1f MB template + %.1f MB output in %.3f s CPU: %.1f MB/s (%s, %zu differences)\n",
              static_cast<double>(before.size()) / 1e6, static_cast<double>(after.size()) / 1e6, seconds,
              static_cast<double>(before.size() + after.size()) / 1e6 / seconds, result.ok() ? "ok" : "error",
              result.value ? result.value->size() : 0);
  return result.ok() && result.value->empty() ? 0 : 1;
}
