#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Peak memory of rendering placeholder-dense templates (issue 25 item 5): a
# million ${A} in one document, in five shapes (bench/generate.cc): lines of
# 1,000 in data, a shell script (`echo ${A} ${A} ${A} ${A}` lines), one plain
# scalar, a flow sequence of "${A}", and `k<i>: ${A}` lines. The goal is
# 3 x (input + output). The render streams (render_detail.h): no record
# is kept per placeholder, and the dense lines and the plain scalar are
# within 3x with nothing on top. A script's placeholders cost about 9 bytes
# each while it is lexed (its position in the decoded script, resolved in
# place as the script is decoded, and a byte naming the context found
# there; the shell lexer reads the positions in place), within 3x too.
# A scalar of its own per placeholder costs nothing kept: the tokenizer
# hands each scalar to the render as it reads it (TokenizeAsRead), and the
# input-limit pass drops them too; a key costs 8 bytes (16 with the hash
# table's room) while duplicate keys are looked for.
# What each shape needs now is allowed on top, per placeholder, so that
# this test fails when that cost grows (before issue 25: over 200 bytes in
# data, over 700 in a script; before streaming, 110 and 130; before the
# lexer read positions in place, the limits kept no node spans and a key
# cost 8 bytes: 55 in a script, 255 in a flow sequence, 295 in key lines;
# before the tokenizer handed scalars over: 95 in a flow sequence, 135 in
# key lines; before a script's positions were resolved in place and its
# contexts kept as a byte each, 30 in a script).
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

# The peak RSS in KB of rendering template $1 to $dir/out.yaml (the timer's fourth field).
peak_kb() {
  "$timer" --runs 1 --warmup 0 -- "$safesubst" render -m "$dir/manifest.yaml" --set A=x -o "$dir/out.yaml" "$1" |
    awk 'NF == 4 { print $4 }'
}

printf 'apiVersion: v1\nkind: ConfigMap\n' > "$dir/tiny.yaml"
base=$(peak_kb "$dir/tiny.yaml")
[ -n "$base" ] || fail "rendering a tiny template failed"
# Each shape, and the bytes per placeholder allowed on top of 3 x (input + output).
# Peaks measured: a flow sequence 35 MB (budget 44 MB), key lines 94 MB
# (3x is 90 MB; the key hashes' table, 16-24 MB, is allowed on top).
for shape_allowance in dense:0 dense-script:5 dense-plain:0 dense-flow:0 dense-keys:10; do
  shape=${shape_allowance%:*} per_placeholder=${shape_allowance#*:}
  "$generate" "$shape" --placeholders "$placeholders" > "$dir/$shape.yaml" || fail "cannot generate $shape"
  peak=$(peak_kb "$dir/$shape.yaml")
  [ -n "$peak" ] || fail "rendering $shape failed"
  input=$(wc -c < "$dir/$shape.yaml")
  output=$(wc -c < "$dir/out.yaml")
  budget=$((base + (3 * (input + output) + per_placeholder * placeholders) / 1024))
  echo "peak_memory_test: $shape: $placeholders placeholders, $input bytes in, $output bytes out:" \
       "peak $peak KB, budget $budget KB ($per_placeholder bytes a placeholder; a tiny template: $base KB)"
  rm -f "$dir/$shape.yaml"
  [ "$peak" -le "$budget" ] || fail "$shape: the peak RSS of $peak KB is over the budget of $budget KB"
done
echo "peak_memory_test: ok"
