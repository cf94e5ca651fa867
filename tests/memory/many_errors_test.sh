#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A template with a million syntax errors (one scalar of `${ ` repeated) is
# refused with the first --max-errors of them and a note counting the rest,
# and its peak memory stays within 40 x its size above a tiny render's: each
# error kept cost about 1 KB, which made 4.7 GB of 4 million.
# Usage: many_errors_test.sh TIMER SAFESUBST
set -u
timer=$1 safesubst=$2
if [ "${SAFESUBST_SANITIZED:-0}" = 1 ]; then
  echo "many_errors_test: skipped: built with the sanitizers (SAFESUBST_SANITIZE), whose shadow memory" \
       "and quarantine make up most of the peak"
  exit 77
fi
fail() { echo "many_errors_test: $*" >&2; exit 1; }
dir=$(mktemp -d) || fail "cannot make a temporary directory"
trap 'rm -rf "$dir"' EXIT
errors=1000000

# The peak RSS in KB of rendering template $1 (the timer's fourth field); its stderr goes to $dir/err.
peak_kb() {
  # shellcheck disable=SC2016 # the inner shell expands its own arguments
  "$timer" --runs 1 --warmup 0 -- sh -c '"$1" render -q "$2" >/dev/null 2>"$3"; [ $? -le 1 ]' sh \
    "$safesubst" "$1" "$dir/err" | awk 'NF == 4 { print $4 }'
}

printf 'apiVersion: v1\nkind: ConfigMap\n' > "$dir/tiny.yaml"
base=$(peak_kb "$dir/tiny.yaml")
[ -n "$base" ] || fail "rendering a tiny template failed"
awk -v n="$errors" 'BEGIN { printf "a: \""; for (i = 0; i < n; i++) printf "${ "; printf "\"\n" }' > "$dir/t.yaml"
peak=$(peak_kb "$dir/t.yaml")
[ -n "$peak" ] || fail "rendering the template failed"
input=$(wc -c < "$dir/t.yaml")
budget=$((base + 40 * input / 1024))
echo "many_errors_test: $errors errors, $input bytes: peak $peak KB, budget $budget KB (a tiny template: $base KB)"
[ "$peak" -le "$budget" ] || fail "the peak RSS of $peak KB is over the budget of $budget KB"
shown=$(grep -c ': error: unterminated' "$dir/err")
[ "$shown" -eq 50 ] || fail "$shown errors shown, not the default 50"
grep -q "t.yaml: note: 999950 more errors and 0 more warnings or notes not shown" "$dir/err" ||
  fail "no note counting the errors not shown: $(tail -n 2 "$dir/err")"
echo "many_errors_test: ok"
