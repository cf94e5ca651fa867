// SPDX-License-Identifier: Apache-2.0
// Throughput of Tokenize on typical Kubernetes YAML: ~20 MB of Deployments
// (labels, env lists, a shell wrapper in `args: - |`, flow sequences,
// comments). Not a test: run it by hand and read the MB/s.
//
//   build/tests/tokenizer_perftest [megabytes]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "tokenizer.h"

namespace {

std::string Deployment(int i) {
  const std::string n = std::to_string(i);
  std::string doc;
  doc += "---\n";
  doc += "# Deployment " + n + " of the perf corpus\n";
  doc += "apiVersion: apps/v1\n";
  doc += "kind: Deployment\n";
  doc += "metadata:\n";
  doc += "  name: app-" + n + "\n";
  doc += "  namespace: ${TENANT_ID}\n";
  doc += "  labels:\n";
  doc += "    app.kubernetes.io/name: app-" + n + "\n";
  doc += "    app.kubernetes.io/part-of: \"tenant-${TENANT_ID}\"\n";
  doc += "  annotations:\n";
  doc += "    sidecar.istio.io/inject: \"true\"\n";
  doc += "    prometheus.io/scrape: 'true'\n";
  doc += "spec:\n";
  doc += "  replicas: 3\n";
  doc += "  selector:\n";
  doc += "    matchLabels: {app: app-" + n + ", tier: web}\n";
  doc += "  template:\n";
  doc += "    metadata:\n";
  doc += "      labels:\n";
  doc += "        app: app-" + n + "\n";
  doc += "    spec:\n";
  doc += "      hostAliases:\n";
  doc += "        - ip: \"10.0.0.1\"\n";
  doc += "          hostnames: [\"efs.internal\", \"efs\"]\n";
  doc += "      containers:\n";
  doc += "        - name: app\n";
  doc += "          image: registry.example.com/app:${IMAGE_TAG}\n";
  doc += "          command: [\"/bin/sh\", \"-c\"]\n";
  doc += "          args:\n";
  doc += "            - |\n";
  doc += "              EFS_2A=\"${EFS_PRIMARY_IP}\"   # deploy-time\n";
  doc += "              OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)\n";
  doc += "              if [ \"$OCT3\" -lt 32 ]; then EFS_IP=$EFS_2A; else EFS_IP=${EFS_IP_2C}; fi\n";
  doc += "              echo \"$EFS_IP $EFS_HOST\" >> /etc/hosts\n";
  doc += "              exec /app/server --port=8080\n";
  doc += "          env:\n";
  doc += "            - name: NODE_IP\n";
  doc += "              valueFrom:\n";
  doc += "                fieldRef:\n";
  doc += "                  fieldPath: status.hostIP\n";
  doc += "            - name: LOG_LEVEL\n";
  doc += "              value: info\n";
  doc += "            - name: JAVA_OPTS\n";
  doc += "              value: \"-Xmx512m -Dapp.id=$(POD_NAME)\"\n";
  doc += "          ports:\n";
  doc += "            - containerPort: 8080\n";
  doc += "              protocol: TCP\n";
  doc += "          resources:\n";
  doc += "            limits: {cpu: 500m, memory: 512Mi}\n";
  doc += "            requests:\n";
  doc += "              cpu: 100m\n";
  doc += "              memory: 128Mi\n";
  return doc;
}

// Runs `tokenize` `runs` times and returns the best wall-clock and CPU seconds.
template <typename Function>
std::pair<double, double> Best(int runs, Function tokenize) {
  double best_wall = 1e9, best_cpu = 1e9;
  for (int run = 0; run < runs; ++run) {
    const auto wall_start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    tokenize();
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start;
    best_wall = std::min(best_wall, wall.count());
    best_cpu = std::min(best_cpu, static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
  }
  return {best_wall, best_cpu};
}

void Report(const char* what, double megabytes, std::pair<double, double> seconds) {
  std::printf("%-34s %7.0f MB/s wall, %7.0f MB/s cpu (best of 5)\n", what, megabytes / seconds.first,
              megabytes / seconds.second);
}

}  // namespace

int main(int argc, char** argv) {
  const double megabytes = argc > 1 ? std::atof(argv[1]) : 20.0;
  std::vector<std::string> files;
  std::string stream;
  for (int i = 0; stream.size() < megabytes * 1e6; ++i) {
    files.push_back(Deployment(i));
    stream += files.back();
  }
  const double size = static_cast<double>(stream.size()) / 1e6;

  std::size_t scalars = 0, references = 0;
  bool clean = true;
  // One stream: includes faulting in the ~4x larger output vectors.
  const auto whole = Best(5, [&] {
    const safesubst::Tokens tokens = safesubst::Tokenize(stream);
    scalars = tokens.scalars.size();
    references = tokens.references.size();
    clean = tokens.diagnostics.empty();
  });
  // One file per Deployment, the way templates are rendered.
  const auto per_file = Best(5, [&] {
    for (const std::string& file : files) {
      const safesubst::Tokens tokens = safesubst::Tokenize(file);
      clean = clean && tokens.diagnostics.empty();
    }
  });
  if (!clean) {
    std::fprintf(stderr, "unexpected diagnostics in the perf corpus\n");
    return 1;
  }
  std::printf("corpus: %.1f MB, %zu files, %zu scalars, %zu references\n", size, files.size(), scalars, references);
  Report("one 20 MB stream:", size, whole);
  Report("one Tokenize per file (~2 KB):", size, per_file);
  return 0;
}
