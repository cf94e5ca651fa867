// SPDX-License-Identifier: Apache-2.0
// Generates the inputs of the performance benchmark (bench/run.sh).
//
//   safesubst_bench_generate stream --deployments N   # N Deployments, ~800 bytes each
//   safesubst_bench_generate stream --megabytes M     # as many Deployments as fill M MB
//   safesubst_bench_generate documents --count N      # N tiny ConfigMaps (per-document cost)
//   safesubst_bench_generate laughs --copies N        # N "billion laughs" documents (80 aliases each)
//   safesubst_bench_generate app                      # one typical ~5 KB app template
//   safesubst_bench_generate manifest                 # the manifest for stream/documents/app
//   safesubst_bench_generate values                   # dotenv values for that manifest
//   safesubst_bench_generate shell-format             # the same names as an envsubst SHELL-FORMAT
//   safesubst_bench_generate tenant DIR               # one tenant of 19 apps, seed and safesubst inputs
//   safesubst_bench_generate dense --placeholders N   # one document: lines of 1,000 ${A} (placeholder-dense data)
//   safesubst_bench_generate dense-script --placeholders N  # one document: a | script, 4 ${A} a line
//   safesubst_bench_generate dense-plain --placeholders N   # one document: one plain scalar of N ${A}
//   safesubst_bench_generate dense-flow --placeholders N    # one document: a flow sequence of N "${A}"
//   safesubst_bench_generate dense-keys --placeholders N    # one document: N lines `k<i>: ${A}`
//
// Everything goes to standard output except `tenant`, which writes files.
// Output is deterministic: the same arguments always give the same bytes.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

// The deploy-time variables of every generated template, with their values.
struct Variable {
  const char* name;
  const char* type;
  const char* value;
};

constexpr Variable kVariables[] = {
    {"TENANT_ID", "dns-label", "tenant-a"},
    {"IMAGE_TAG", "string", "1.10"},
    {"REPLICAS", "int", "3"},
    {"EFS_HOSTNAME", "hostname", "fs-0123456789abcdef0.efs.ap-northeast-2.amazonaws.com"},
    {"EFS_PRIMARY_IP", "ipv4", "10.0.1.10"},
    {"EFS_IP_2A", "ipv4", "10.0.1.10"},
    {"EFS_IP_2C", "ipv4", "10.0.2.10"},
    {"ZONE_BOUNDARY", "int", "31"},
};

// The wrapper's own shell variables: runtime, never substituted.
constexpr const char* kRuntime = "[NODE_IP, OCT3, EFS_IP, EFS_HOST, EFS_2A, EFS_2C, HOME]";

// The apps of one tenant, as in the seed: 19 apps, web-portal excluded from the EFS wrapper.
constexpr const char* kApps[] = {
    "mo-back",      "mo-front",     "web-portal",  "api-gateway",   "auth",
    "billing",      "catalog",      "checkout",    "notification",  "search",
    "report",       "scheduler",    "inventory",   "media",         "profile",
    "admin-back",   "admin-front",  "batch",       "audit-log",
};

void Write(std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); }

// One Deployment of the throughput stream: comments, plain and quoted
// placeholders in data, a shell wrapper in `args: - |` with deploy-time and
// runtime references, a flow command, and Kubernetes' own $(NAME). About 800 bytes.
std::string Deployment(long i) {
  const std::string n = std::to_string(i);
  std::string d;
  d.reserve(900);
  d += "---\n";
  d += "# app-" + n + "\n";
  d += "apiVersion: apps/v1\n";
  d += "kind: Deployment\n";
  d += "metadata:\n";
  d += "  name: ${TENANT_ID}-app-" + n + "\n";
  d += "  namespace: ${TENANT_ID}\n";
  d += "  labels: {app: app-" + n + ", tenant: \"${TENANT_ID}\"}\n";
  d += "spec:\n";
  d += "  replicas: ${REPLICAS}\n";
  d += "  template:\n";
  d += "    metadata:\n";
  d += "      labels:\n";
  d += "        tenant: '${TENANT_ID}'\n";
  d += "    spec:\n";
  d += "      containers:\n";
  d += "        - name: app\n";
  d += "          image: registry.example.com/app:${IMAGE_TAG}\n";
  d += "          command: [\"/bin/sh\", \"-c\"]\n";
  d += "          args:\n";
  d += "            - |\n";
  d += "              EFS_2A=\"${EFS_IP_2A}\"  # deploy-time\n";
  d += "              OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)\n";
  d += "              [ \"$OCT3\" -le ${ZONE_BOUNDARY} ] && EFS_IP=\"$EFS_2A\" || EFS_IP=\"${EFS_IP_2C}\"\n";
  d += "              echo \"$EFS_IP ${EFS_HOSTNAME}\" >> /etc/hosts\n";
  d += "          env:\n";
  d += "            - name: JAVA_OPTS  # Kubernetes expands $(NODE_IP)\n";
  d += "              value: \"-Dnode.ip=$(NODE_IP)\"\n";
  return d;
}

// A tiny document: the cost per document, not per byte, dominates a stream of these.
std::string TinyDocument(long i) {
  const std::string n = std::to_string(i);
  return "---\nkind: ConfigMap\nmetadata: {name: cm-" + n + ", namespace: \"${TENANT_ID}\"}\ndata:\n  tag: v${IMAGE_TAG}\n";
}

// One app of a tenant, shaped like examples/efs-zone/apps/mo-back.yaml:
// hostAliases that the wrapper replaces, NODE_IP from the Downward API.
std::string TenantApp(const std::string& app, int port, int extra_env) {
  std::string d;
  d += "# " + app + ": rendered per tenant by onboarding.sh\n";
  d += "apiVersion: apps/v1\n";
  d += "kind: Deployment\n";
  d += "metadata:\n";
  d += "  name: ${TENANT_ID}-" + app + "\n";
  d += "  namespace: ${TENANT_ID}\n";
  d += "  labels:\n";
  d += "    app: " + app + "\n";
  d += "    tenant: ${TENANT_ID}\n";
  d += "spec:\n";
  d += "  replicas: ${REPLICAS}\n";
  d += "  selector:\n";
  d += "    matchLabels:\n";
  d += "      app: " + app + "\n";
  d += "      tenant: ${TENANT_ID}\n";
  d += "  template:\n";
  d += "    metadata:\n";
  d += "      labels:\n";
  d += "        app: " + app + "\n";
  d += "        tenant: ${TENANT_ID}\n";
  d += "      annotations:\n";
  d += "        sidecar.istio.io/inject: \"true\"\n";
  d += "        proxy.istio.io/config: |\n";
  d += "          terminationDrainDuration: 15s\n";
  d += "          holdApplicationUntilProxyStarts: true\n";
  d += "    spec:\n";
  d += "      # Fixed EFS mount target; replaced by the zone wrapper\n";
  d += "      hostAliases:\n";
  d += "        - ip: \"${EFS_PRIMARY_IP}\"\n";
  d += "          hostnames:\n";
  d += "            - ${EFS_HOSTNAME}\n";
  d += "      containers:\n";
  d += "        - name: app\n";
  d += "          image: registry.example.com/" + app + ":${IMAGE_TAG}\n";
  d += "          ports:\n";
  d += "            - containerPort: " + std::to_string(port) + "\n";
  d += "          env:\n";
  d += "            - name: TENANT_ID\n";
  d += "              value: ${TENANT_ID}\n";
  d += "            - name: NODE_IP            # read by the zone wrapper at runtime\n";
  d += "              valueFrom:\n";
  d += "                fieldRef:\n";
  d += "                  fieldPath: status.hostIP\n";
  d += "            - name: JAVA_OPTS          # Kubernetes expands $(NODE_IP) itself\n";
  d += "              value: \"-Dnode.ip=$(NODE_IP) -Xmx512m\"\n";
  for (int e = 0; e < extra_env; ++e) {
    const std::string k = std::to_string(e);
    d += "            - name: FEATURE_" + k + "\n";
    d += "              value: \"" + app + "-feature-" + k + "-${TENANT_ID}\"\n";
  }
  d += "          volumeMounts:\n";
  d += "            - name: data\n";
  d += "              mountPath: /home/app/data\n";
  d += "      volumes:\n";
  d += "        - name: data\n";
  d += "          emptyDir: {}\n";
  return d;
}

// A typical app template of about 5 KB: the Deployment above with more
// settings, a Service and a ConfigMap holding a start script.
std::string App() {
  std::string d = TenantApp("mo-back", 8080, 34);
  d += "---\n";
  d += "apiVersion: v1\n";
  d += "kind: Service\n";
  d += "metadata:\n";
  d += "  name: ${TENANT_ID}-mo-back\n";
  d += "  namespace: ${TENANT_ID}\n";
  d += "spec:\n";
  d += "  selector: {app: mo-back, tenant: \"${TENANT_ID}\"}\n";
  d += "  ports:\n";
  d += "    - {name: http, port: 80, targetPort: 8080}\n";
  d += "---\n";
  d += "apiVersion: v1\n";
  d += "kind: ConfigMap\n";
  d += "metadata:\n";
  d += "  name: ${TENANT_ID}-mo-back-scripts\n";
  d += "  namespace: ${TENANT_ID}\n";
  d += "data:\n";
  d += "  start.sh: |\n";
  d += "    #!/bin/sh\n";
  d += "    # runtime variables stay as written; ${ZONE_BOUNDARY} is deploy-time\n";
  d += "    OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)\n";
  d += "    if [ \"$OCT3\" -le ${ZONE_BOUNDARY} ]; then EFS_IP=\"${EFS_IP_2A}\"; else EFS_IP=\"${EFS_IP_2C}\"; fi\n";
  d += "    echo \"$EFS_IP ${EFS_HOSTNAME}\" >> /etc/hosts\n";
  d += "    exec java $JAVA_OPTS -jar /app/app.jar\n";
  return d;
}

// "Billion laughs": nine levels of ten aliases each, about 1 KB that a
// parser expanding aliases would turn into 10^9 nodes; with placeholders, so
// that the render has work to do. Repeated `copies` times as separate documents.
std::string Laughs(long copies) {
  std::string d;
  for (long c = 0; c < copies; ++c) {
    d += "---\nkind: ConfigMap\nmetadata: {name: \"laughs-${TENANT_ID}\"}\ndata:\n";
    d += "  l0: &l0 [\"${IMAGE_TAG}\", lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (int level = 1; level < 9; ++level) {
      const std::string previous = "*l" + std::to_string(level - 1);
      d += "  l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
      for (int k = 0; k < 10; ++k) d += (k == 0 ? "" : ", ") + previous;
      d += "]\n";
    }
  }
  return d;
}

// One document whose size is mostly placeholders (the memory test,
// tests/memory/peak_memory_test.sh): `count` uses of ${A}, in plain scalars
// of 1,000 each ("dense"), in a shell script of `echo ${A} ${A} ${A} ${A}`
// lines ("dense-script"), in one plain scalar ("dense-plain"), as the items
// of a flow sequence ("dense-flow"), or each the value of its own key
// ("dense-keys").
std::string Dense(long count, std::string_view shape) {
  std::string d = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dense\ndata:\n";
  if (shape == "dense-script") {
    d += "  run.sh: |\n    #!/bin/sh\n";
    for (long i = 0; i < count; i += 4) d += "    echo ${A} ${A} ${A} ${A}\n";
  } else if (shape == "dense-plain") {
    d += "  k: ";
    for (long i = 0; i < count; ++i) d += "${A}";
    d += "\n";
  } else if (shape == "dense-flow") {
    d += "  k: [";
    for (long i = 0; i < count; ++i) d += i == 0 ? "\"${A}\"" : ", \"${A}\"";
    d += "]\n";
  } else if (shape == "dense-keys") {
    for (long i = 0; i < count; ++i) d += "  k" + std::to_string(i) + ": ${A}\n";
  } else {
    for (long line = 0; line * 1000 < count; ++line) {
      d += "  k" + std::to_string(line) + ": ";
      for (long i = line * 1000; i < std::min(count, (line + 1) * 1000); ++i) d += "${A}";
      d += "\n";
    }
  }
  return d;
}

bool IsDenseShape(std::string_view shape) {
  for (std::string_view known : {"dense", "dense-script", "dense-plain", "dense-flow", "dense-keys"}) {
    if (shape == known) return true;
  }
  return false;
}

std::string Manifest(bool tenant) {
  std::string m = "# Generated by bench/generate.cc\nvariables:\n";
  for (const Variable& v : kVariables) m += "  " + std::string(v.name) + ": {type: " + v.type + "}\n";
  if (tenant) {
    m += "  APP: {type: dns-label, required: true}\n";
    m += "  EFS_ZONE_EXCLUDE_APPS: {type: list, default: \"\"}\n";
  }
  m += std::string("runtime: ") + kRuntime + "\n";
  if (tenant) {
    m += "steps:\n";
    m += "  - delete: .spec.template.spec.hostAliases\n";
    m += "    when: {var: APP, not_in: EFS_ZONE_EXCLUDE_APPS}\n";
    m += "  - merge: common/efs-zone-command.yaml\n";
    m += "    into: .spec.template.spec.containers[0]\n";
    m += "    when: {var: APP, not_in: EFS_ZONE_EXCLUDE_APPS}\n";
  }
  return m;
}

std::string Values(bool tenant) {
  std::string v = "# Generated by bench/generate.cc\n";
  for (const Variable& variable : kVariables) v += std::string(variable.name) + "=" + variable.value + "\n";
  if (tenant) v += "EFS_ZONE_EXCLUDE_APPS=web-portal\n";
  return v;
}

std::string ShellFormat() {
  std::string f;
  for (const Variable& v : kVariables) f += (f.empty() ? "${" : " ${") + std::string(v.name) + "}";
  return f;
}

// The seed's wrapper fragment: `__X__` sentinels for sed (`sentinels`), or
// `${X}` placeholders that safesubst substitutes while keeping `$NODE_IP`.
std::string Fragment(bool sentinels) {
  auto p = [&](const char* name) {
    return sentinels ? "__" + std::string(name) + "__" : "${" + std::string(name) + "}";
  };
  std::string f;
  f += "# Merged into the app container after substitution.\n";
  f += "command: [\"/bin/sh\", \"-c\"]\n";
  f += "args:\n";
  f += "  - |\n";
  f += "    EFS_HOST=\"" + p("EFS_HOSTNAME") + "\"\n";
  f += "    EFS_2A=\"" + p("EFS_IP_2A") + "\"\n";
  f += "    EFS_2C=\"" + p("EFS_IP_2C") + "\"\n";
  f += "    OCT3=$(echo \"$NODE_IP\" | cut -d. -f3)\n";
  f += "    case \"$OCT3\" in\n";
  f += "      ''|*[!0-9]*)\n";
  f += "        echo \"[efs-zone] WARN: NODE_IP invalid ('$NODE_IP'), fallback to 2a\"\n";
  f += "        EFS_IP=\"$EFS_2A\" ;;\n";
  f += "      *)\n";
  f += "        if [ \"$OCT3\" -le " + p("ZONE_BOUNDARY") +
       " ]; then EFS_IP=\"$EFS_2A\"; else EFS_IP=\"$EFS_2C\"; fi ;;\n";
  f += "    esac\n";
  f += "    echo \"[efs-zone] node=$NODE_IP -> efs=$EFS_IP\"\n";
  f += "    grep -q \"$EFS_HOST\" /etc/hosts || echo \"$EFS_IP $EFS_HOST\" >> /etc/hosts\n";
  f += "    cd /home/app\n";
  f += "    exec sh start.sh\n";
  return f;
}

bool WriteFile(const std::string& path, const std::string& text) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    std::fprintf(stderr, "generate: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  return std::fclose(file) == 0 && ok;
}

// DIR/apps/<app>.yaml, DIR/common/efs-zone-command.yaml (placeholders),
// DIR/seed/efs-zone-command.yaml (sed sentinels), DIR/manifest.yaml, DIR/dev.env.
int Tenant(const std::string& dir) {
  for (const char* sub : {"", "/apps", "/common", "/seed"}) ::mkdir((dir + sub).c_str(), 0755);
  bool ok = true;
  int port = 8080;
  for (const char* app : kApps) ok = ok && WriteFile(dir + "/apps/" + app + ".yaml", TenantApp(app, port++, 6));
  ok = ok && WriteFile(dir + "/common/efs-zone-command.yaml", Fragment(false));
  ok = ok && WriteFile(dir + "/seed/efs-zone-command.yaml", Fragment(true));
  ok = ok && WriteFile(dir + "/manifest.yaml", Manifest(true));
  ok = ok && WriteFile(dir + "/dev.env", Values(true));
  return ok ? 0 : 1;
}

int Usage() {
  std::fprintf(stderr,
               "usage: safesubst_bench_generate stream (--deployments N | --megabytes M)\n"
               "       safesubst_bench_generate documents --count N\n"
               "       safesubst_bench_generate laughs --copies N\n"
               "       safesubst_bench_generate app|manifest|values|shell-format\n"
               "       safesubst_bench_generate tenant DIR\n"
               "       safesubst_bench_generate dense|dense-script|dense-plain|dense-flow|dense-keys --placeholders N\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Usage();
  const std::string_view command = argv[1];
  const std::string_view option = argc > 2 ? argv[2] : "";
  const double number = argc > 3 ? std::atof(argv[3]) : 0;
  if (command == "stream" && option == "--deployments" && number > 0) {
    for (long i = 0; i < static_cast<long>(number); ++i) Write(Deployment(i));
  } else if (command == "stream" && option == "--megabytes" && number > 0) {
    double written = 0;
    for (long i = 0; written < number * 1e6; ++i) {
      std::string d = Deployment(i);
      written += static_cast<double>(d.size());
      Write(d);
    }
  } else if (command == "documents" && option == "--count" && number > 0) {
    for (long i = 0; i < static_cast<long>(number); ++i) Write(TinyDocument(i));
  } else if (command == "laughs" && option == "--copies" && number > 0) {
    Write(Laughs(static_cast<long>(number)));
  } else if (IsDenseShape(command) && option == "--placeholders" && number > 0) {
    Write(Dense(static_cast<long>(number), command));
  } else if (command == "app") {
    Write(App());
  } else if (command == "manifest") {
    Write(Manifest(false));
  } else if (command == "values") {
    Write(Values(false));
  } else if (command == "shell-format") {
    Write(ShellFormat() + "\n");
  } else if (command == "tenant" && argc == 3) {
    return Tenant(argv[2]);
  } else {
    return Usage();
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}
