#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs every fuzz target for a bounded time and fails on any crash, leak,
# timeout, out-of-memory or sanitizer report.
#
# Usage: fuzz/run.sh SECONDS_PER_TARGET [BUILD_DIR] [TARGET...]
#   BUILD_DIR defaults to build-fuzz (built with fuzz/CMakeLists.txt). Each
#   target starts from tests/regression/<target>/ and the seed corpus
#   (fuzz/make_corpus.sh, built once into BUILD_DIR/seeds/), and grows its
#   corpus in BUILD_DIR/corpus/<target>/ across runs. Crashing inputs are saved
#   in BUILD_DIR/artifacts/<target>/, logs in BUILD_DIR/logs/<target>.log.
# Targets run one after the other: each uses one core.
set -eu
[ $# -ge 1 ] || { echo "usage: $0 SECONDS_PER_TARGET [BUILD_DIR] [TARGET...]" >&2; exit 2; }
seconds=$1
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build-fuzz}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
targets=${*:-tokenizer manifest render steps shell lint}

[ -d "$build/seeds" ] || "$root/fuzz/make_corpus.sh" "$build/seeds"
symbolizer=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
# Leaks, UB and assertion failures are all fatal; libFuzzer reports them and
# keeps the input.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1${symbolizer:+:external_symbolizer_path=$symbolizer}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

failed=""
for target in $targets; do
  binary=$build/fuzz_$target
  [ -x "$binary" ] || { echo "run.sh: $binary is not built" >&2; exit 2; }
  mkdir -p "$build/corpus/$target" "$build/artifacts/$target" "$build/logs" "$build/seeds/$target"
  regression=$root/tests/regression/$target
  [ -d "$regression" ] || regression=""
  log=$build/logs/$target.log
  echo "run.sh: $target for ${seconds}s" >&2
  status=0
  "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -dict="$root/fuzz/yaml.dict" \
    -artifact_prefix="$build/artifacts/$target/" \
    "$build/corpus/$target" "$build/seeds/$target" ${regression:+"$regression"} >"$log" 2>&1 || status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 || true)
  if [ "$status" -ne 0 ]; then
    echo "run.sh: $target FAILED (exit $status): see $log" >&2
    grep -E 'ERROR: |SUMMARY: |runtime error|fuzz property failed|Test unit written' "$log" | head -n 20 >&2 || true
    failed="$failed $target"
  else
    echo "run.sh: $target ok: ${executions:-?} executions, ${coverage:-cov ?}" >&2
  fi
done
if [ -n "$failed" ]; then
  echo "run.sh: failing targets:$failed" >&2
  exit 1
fi
