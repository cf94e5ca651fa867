#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Peak memory of rendering placeholder-dense templates (issue 25 item 5): one
# document holding a million ${A} in data (lines of 1,000), and one holding
# them in a shell script (`echo ${A} ${A} ${A} ${A}` lines). The goal is
# 3 x (input + output); a render still keeps 130 to 140 bytes per placeholder
# (the tokenizer's Reference, 88; the substitution, 32; the splice, 24),
# allowed on top as `per_placeholder`, so that this test fails when that
# cost grows (before issue 25: over 200 in data, over 700 in a script).
# Usage: peak_memory_test.sh GENERATOR TIMER SAFESUBST
set -u
generate=$1 timer=$2 safesubst=$3
if [ "${SAFESUBST_SANITIZED:-0}" = 1 ]; then
  echo "peak_memory_test: skipped: built with the sanitizers (SAFESUBST_SANITIZE), whose shadow memory" \
       "and quarantine make up most of the peak"
  exit 77
fi
fail() { echo "peak_memory_test: $*" >&2; exit 1; }
dir=$(mktemp -d) || fail "cannot make a temporary directory"
trap 'rm -rf "$dir"' EXIT
printf 'variables:\n  A: {type: string}\n' > "$dir/manifest.yaml"
placeholders=1000000
per_placeholder=170  # bytes

# The peak RSS in KB of rendering template $1 to $dir/out.yaml (the timer's fourth field).
peak_kb() {
  "$timer" --runs 1 --warmup 0 -- "$safesubst" render -m "$dir/manifest.yaml" --set A=x -o "$dir/out.yaml" "$1" |
    awk 'NF == 4 { print $4 }'
}

printf 'apiVersion: v1\nkind: ConfigMap\n' > "$dir/tiny.yaml"
base=$(peak_kb "$dir/tiny.yaml")
[ -n "$base" ] || fail "rendering a tiny template failed"
for shape in dense dense-script; do
  "$generate" "$shape" --placeholders "$placeholders" > "$dir/$shape.yaml" || fail "cannot generate $shape"
  peak=$(peak_kb "$dir/$shape.yaml")
  [ -n "$peak" ] || fail "rendering $shape failed"
  input=$(wc -c < "$dir/$shape.yaml")
  output=$(wc -c < "$dir/out.yaml")
  budget=$((base + (3 * (input + output) + per_placeholder * placeholders) / 1024))
  echo "peak_memory_test: $shape: $placeholders placeholders, $input bytes in, $output bytes out:" \
       "peak $peak KB, budget $budget KB (a tiny template: $base KB)"
  [ "$peak" -le "$budget" ] || fail "$shape: the peak RSS of $peak KB is over the budget of $budget KB"
done
echo "peak_memory_test: ok"
