#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The performance benchmark of issue 5: safesubst against GNU envsubst, cat and
# the seed's envsubst+sed+yq pipeline. Prints a Markdown table (the README's
# "Performance" section) and exits 1 when a target is missed.
#
#   bench/pgo_build.sh build-bench -DSAFESUBST_STATIC_EXECUTABLE=ON \
#         -DSAFESUBST_LINK_ORDER_FILE=bench/startup-order.txt
#   bench/run.sh [BUILD_DIR]          # default: build-bench
#
# (a plain `cmake -DCMAKE_BUILD_TYPE=Release` build works too, about 15 %
# slower on the throughput row: pgo_build.sh adds profile-guided optimization
# trained on examples/.)
#
# Needs packaging/debian-bench-deps.txt: envsubst (gettext-base), yq (Debian's
# jq wrapper), jq, /usr/bin/time (package time) and, for the build, lld.
# RUNS (default 7) sets the runs per measurement (3 x RUNS for the throughput
# row); every number is a median. The throughput and latency rows run their
# commands interleaved with bench/time_command.cc; the others use hyperfine
# when installed, else a loop of their own. Run it on a quiet machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build-bench}" && pwd)
safesubst=$build/safesubst
generate=$build/bench/safesubst_bench_generate
time_command=$build/bench/safesubst_bench_time
runs=${RUNS:-7}
for tool in "$safesubst" "$generate" "$time_command"; do
  [[ -x $tool ]] || { echo "run.sh: $tool not built (cmake --build $build)" >&2; exit 2; }
done
for program in envsubst yq jq /usr/bin/time; do
  command -v "$program" >/dev/null || { echo "run.sh: $program is needed" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failed=0
results=()  # Markdown table rows

# ---------------------------------------------------------------- inputs ----
"$generate" stream --deployments 30000 > stream.yaml
"$generate" manifest > manifest.yaml
"$generate" values > values.env
"$generate" app > app.yaml
"$generate" tenant tenant
shell_format=$("$generate" shell-format)
set -a
# shellcheck disable=SC1091
. ./values.env
set +a
export SHELL_FORMAT=$shell_format SAFESUBST=$safesubst
bytes() { stat -c %s "$1"; }
stream_bytes=$(bytes stream.yaml)
megabytes() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }

# Both tools must do the same work: on this input safesubst writes exactly
# what envsubst writes (no value needs quoting, runtime $VARS stay).
envsubst "$shell_format" < stream.yaml > envsubst.out
"$safesubst" render -m manifest.yaml stream.yaml > safesubst.out
cmp -s envsubst.out safesubst.out || { echo "run.sh: safesubst and envsubst outputs differ" >&2; exit 1; }

# ------------------------------------------------------------- measuring ----
# median_ms NAME COMMAND...: median wall time of a shell command, in ms.
median_ms() {
  local name=$1
  shift
  if command -v hyperfine >/dev/null; then
    hyperfine --style none --warmup 1 --runs "$runs" --export-json "$name.json" -n "$name" "$*" >/dev/null
    jq '.results[0].median * 1000' "$name.json"
  else
    local times=()
    bash -c "$*" >/dev/null  # warm-up
    for ((r = 0; r < runs; r++)); do
      local start end
      start=$(date +%s%N)
      bash -c "$*" >/dev/null
      end=$(date +%s%N)
      times+=("$(((end - start) / 1000))")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2; print m / 1000 }'
  fi
}
# Float comparison and formatting helpers.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
mbps() { awk -v b="$1" -v ms="$2" 'BEGIN { printf "%.0f", b / 1e6 / (ms / 1000) }'; }
ms() { awk -v v="$1" 'BEGIN { printf (v < 10 ? "%.2f ms" : "%.0f ms"), v }'; }
at_least() { awk -v v="$1" -v t="$2" 'BEGIN { exit !(v >= t) }'; }
at_most() { awk -v v="$1" -v t="$2" 'BEGIN { exit !(v <= t) }'; }
# check TEST...: sets $verdict to the table cell and records a miss in
# $failed. Called directly, never in $(...), whose subshell would lose $failed.
check() {
  if "$@"; then verdict=pass; else verdict="**FAIL**"; failed=1; fi
}

# ------------------------------------------------------------ throughput ----
# The three commands interleaved run by run, like the latency rows: this
# machine's speed drifts by a fifth over minutes, and timing envsubst's runs
# after safesubst's would credit the drift to one of them. 3 x RUNS runs
# (21 by default), the median of each.
read -r -d '' -a throughput_medians < <(
  "$time_command" --runs $((3 * runs)) --warmup 1 -- cat stream.yaml \
    --next --stdin stream.yaml envsubst "$shell_format" \
    --next "$safesubst" render -m manifest.yaml stream.yaml | cut -d' ' -f1
) || true
[[ ${#throughput_medians[@]} -eq 3 ]] || { echo "run.sh: the throughput timer failed" >&2; exit 1; }
cat_ms=${throughput_medians[0]} envsubst_ms=${throughput_medians[1]} safesubst_ms=${throughput_medians[2]}
speedup=$(ratio "$envsubst_ms" "$safesubst_ms")
check at_least "$speedup" 2
results+=("| Throughput, $(megabytes "$stream_bytes") MB stream of 30,000 Deployments (substitution + structure check) | envsubst $(ms "$envsubst_ms") ($(mbps "$stream_bytes" "$envsubst_ms") MB/s); cat $(ms "$cat_ms") ($(mbps "$stream_bytes" "$cat_ms") MB/s) | $(ms "$safesubst_ms") ($(mbps "$stream_bytes" "$safesubst_ms") MB/s, $(ratio "$safesubst_ms" "$cat_ms")x cat) | ${speedup}x faster than envsubst | >= 2x | $verdict |")

# --------------------------------------------------------------- latency ----
# Hundreds of runs without a shell in between, interleaved run by run so that
# all three see the same machine (a drift in its speed would otherwise be
# credited to whichever ran during it); the median of each. Two forms: with
# the manifest (the main command) and the drop-in form that takes envsubst's
# own arguments (no manifest to load).
read -r -d '' -a latency_medians < <(
  "$time_command" --runs 500 --warmup 10 --stdin app.yaml -- envsubst "$shell_format" \
    --next "$safesubst" render -m manifest.yaml app.yaml \
    --next --stdin app.yaml "$safesubst" "$shell_format" | cut -d' ' -f1
) || true
[[ ${#latency_medians[@]} -eq 3 ]] || { echo "run.sh: the latency timer failed" >&2; exit 1; }
latency_envsubst=${latency_medians[0]}
latency_row() {  # latency_row HOW MEDIAN: one table row for one form
  local how=$1 latency=$2 latency_ratio
  latency_ratio=$(ratio "$latency" "$latency_envsubst")
  check at_most "$latency_ratio" 1.0
  results+=("| Latency, one $(bytes app.yaml)-byte app template, \`$how\` (process start to exit) | envsubst $(ms "$latency_envsubst") | $(ms "$latency") | ${latency_ratio}x envsubst's time | <= 1.0x | $verdict |")
}
latency_row "render -m manifest.yaml app.yaml" "${latency_medians[1]}"
latency_row "safesubst SHELL-FORMAT < app.yaml" "${latency_medians[2]}"

# -------------------------------------------------------------- pipeline ----
# The seed pipeline takes seconds (each yq call starts Python): fewer runs.
all_runs=$runs
runs=$(((runs + 1) / 2))
seed_ms=$(median_ms seed "rm -rf out-seed && \"$here/pipelines.sh\" seed tenant out-seed")
runs=$all_runs
pipeline_ms=$(median_ms pipeline "rm -rf out-safesubst && \"$here/pipelines.sh\" safesubst tenant out-safesubst \"\$SAFESUBST\"")
tenant_ms=$(median_ms tenant "rm -rf out-tenant && \"$here/pipelines.sh\" tenant tenant out-tenant \"\$SAFESUBST\"")
# Same documents every way (compared as data: yq does not keep comments or layout).
for seed_out in out-seed/*.yaml; do
  name=$(basename "$seed_out")
  for safesubst_out in "out-safesubst/$name" "out-tenant/$name"; do
    if ! cmp -s <(yq -S -c . "$seed_out") <(yq -S -c . "$safesubst_out"); then
      echo "run.sh: $name differs between the seed pipeline and $safesubst_out" >&2
      exit 1
    fi
  done
done
apps=$(find tenant/apps -name '*.yaml' | wc -l)
pipeline_speedup=$(ratio "$seed_ms" "$pipeline_ms")
check at_least "$pipeline_speedup" 20
results+=("| Seed pipeline, one tenant of $apps apps (envsubst + sed + yq merge/delete vs one safesubst render with manifest steps per app) | $(ms "$seed_ms") | $(ms "$pipeline_ms") | ${pipeline_speedup}x faster | >= 20x | $verdict |")
tenant_speedup=$(ratio "$seed_ms" "$tenant_ms")
check at_least "$tenant_speedup" 200
results+=("| Seed pipeline, one tenant of $apps apps in one call (\`render --set-from-filename APP --out-dir out/ apps/*.yaml\`, manifest steps) | $(ms "$seed_ms") | $(ms "$tenant_ms") | ${tenant_speedup}x faster | >= 200x | $verdict |")

# ---------------------------------------------------------------- memory ----
peak_kb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
stream_kb=$(peak_kb "$safesubst" render -m manifest.yaml stream.yaml)
memory_ratio=$(ratio "$((stream_kb * 1024))" "$stream_bytes")
check at_most "$memory_ratio" 3
results+=("| Peak RSS, $(megabytes "$stream_bytes") MB stream | input $(megabytes "$stream_bytes") MB | $((stream_kb / 1024)) MB | ${memory_ratio}x the input | <= 3x | $verdict |")
# Aliases are never expanded: 24,000 "billion laughs" documents (1.9 million
# aliases, 10^9 nodes each if expanded) cost what any text of their size costs.
"$generate" laughs --copies 24000 > laughs.yaml
laughs_bytes=$(bytes laughs.yaml)
laughs_kb=$(peak_kb "$safesubst" render -m manifest.yaml --max-aliases 2000000 laughs.yaml)
laughs_ratio=$(ratio "$((laughs_kb * 1024))" "$laughs_bytes")
check at_most "$laughs_ratio" 3
results+=("| Peak RSS, $(megabytes "$laughs_bytes") MB of billion-laughs documents (1.9 M aliases) | input $(megabytes "$laughs_bytes") MB | $((laughs_kb / 1024)) MB | ${laughs_ratio}x the input | <= 3x, no alias expansion | $verdict |")

# --------------------------------------------------------------- scaling ----
# Time per MB and per document should not grow with the input: compare the
# largest input's cost per unit with the smallest's (within 25%, plus noise).
scaling() {  # scaling LABEL UNIT SIZES... : files scale-<size>.yaml exist
  local label=$1 unit=$2
  shift 2
  local first_cost="" last_cost="" cells=""
  for size in "$@"; do
    local t
    t=$(median_ms "scale-$size" "\"\$SAFESUBST\" render -m manifest.yaml --max-documents 1000000 scale-$size.yaml > /dev/null")
    local cost
    cost=$(awk -v t="$t" -v n="$size" 'BEGIN { printf "%.4f", t / n }')
    [[ -z $first_cost ]] && first_cost=$cost
    last_cost=$cost
    cells+="$size $unit: $(ms "$t"); "
  done
  local growth
  growth=$(ratio "$last_cost" "$first_cost")
  check at_most "$growth" 1.25
  results+=("| Scaling with $label | ${cells%; } | cost per $unit at $(echo "$@" | awk '{ print $NF }') vs $1: ${growth}x | linear | <= 1.25x | $verdict |")
}
for size in 1 4 16 64; do "$generate" stream --megabytes "$size" > "scale-$size.yaml"; done
scaling "input size" MB 1 4 16 64
for size in 20000 80000 320000; do "$generate" documents --count "$size" > "scale-$size.yaml"; done
scaling "number of documents (tiny ConfigMaps)" docs 20000 80000 320000

# ---------------------------------------------------------------- report ----
echo
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); $((3 * runs)) interleaved runs per median for the stream, 500 for latency, $runs for the others$(command -v hyperfine >/dev/null && echo ' (hyperfine)')."
echo
echo "| Measurement | Baseline | safesubst | Result | Target | |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${results[@]}"
echo
if ((failed)); then
  echo "Some targets were missed."
  exit 1
fi
echo "All targets met."
