#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Checks the bash completion (packaging/safesubst.bash-completion) against the
# built program: it is sourced in this shell and asked to complete command
# lines, as bash would (COMP_WORDS, COMP_CWORD), and COMPREPLY is compared.
#
# usage: completion_test.sh SAFESUBST_BINARY COMPLETION_FILE
set -u

binary=$(realpath "$1")
completion=$(realpath "$2")
failures=0
checks=0

work=$(mktemp -d "${TMPDIR:-/tmp}/safesubst-completion-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/manifests"
touch "$work/vars.yaml" "$work/values.env"

# shellcheck source=/dev/null
source "$completion" || { echo "FAIL: cannot source $completion" >&2; exit 1; }
[[ $(complete -p safesubst 2>/dev/null) == *"-F _safesubst"* ]] || { echo "FAIL: no completion for safesubst" >&2; exit 1; }
[[ $(complete -p kubectl-safesubst 2>/dev/null) == *"-F _safesubst"* ]] || { echo "FAIL: no completion for kubectl-safesubst" >&2; exit 1; }

# expect "WORDS..." EXPECTED...: completes the last word of WORDS (the
# program is prepended) and checks that COMPREPLY holds exactly EXPECTED.
expect() {
  local line=$1 program=${PROGRAM:-$binary}
  shift
  local -a words
  read -r -a words <<<"$line"
  [[ $line == *" " ]] && words+=("")
  COMP_WORDS=("$program" "${words[@]}")
  COMP_CWORD=${#words[@]}
  COMPREPLY=()
  _safesubst
  local got expected
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
  expected=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  [[ $# -eq 0 ]] && expected=" "
  [[ ${#COMPREPLY[@]} -eq 0 ]] && got=" "
  checks=$((checks + 1))
  if [[ $got != "$expected" ]]; then
    echo "FAIL: '${program##*/} $line' completes to [$got], expected [$expected]" >&2
    failures=$((failures + 1))
  fi
}

# The commands and options come from the program's --help: read them the same
# way here to know what to expect, then spot-check the known ones.
commands=$("$binary" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z0-9-]*\).*/\1/p')
[[ -n $commands ]] || { echo "FAIL: no commands in '$binary --help'" >&2; exit 1; }
for known in render explain vars init audit lint; do
  grep -qx "$known" <<<"$commands" || { echo "FAIL: '$binary --help' lists no '$known'" >&2; failures=$((failures + 1)); }
done

cd "$work" || exit 1
# shellcheck disable=SC2086  # one word per command
expect " " $commands
expect "re" render
expect "render --col" --color
expect "render --color " auto always never
expect "render --color = al" always
expect "vars --format " text json
expect "render --out-dir " manifests
expect "render -m v" vars.yaml values.env
expect "render --values values" values.env
expect "render --max-depth "        # a number: nothing to offer
expect "render --strict va" vars.yaml values.env   # a flag: a template follows
expect "render --in-place --out" --output --out-dir
expect "init --f" --force
expect "explain ma" manifests
expect "--explain va" vars.yaml values.env
expect "-" -h --help -V --version -v --variables -q --quiet --strict
expect "lint --disable etc" etc-hosts-write
expect "render --lint-disable nfs" nfs-through-sidecar
expect "lint --fail" --fail-on-warning
# Every option `render --help` lists completes.
render_options=$("$binary" render --help | sed -n 's/^  \(-[a-zA-Z],\)\{0,1\}\(--[a-z-]*\).*/\2/p')
for option in $render_options; do
  COMP_WORDS=("$binary" render "$option")
  COMP_CWORD=2
  _safesubst
  checks=$((checks + 1))
  if ! printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "$option"; then
    echo "FAIL: 'safesubst render $option' does not offer $option (got: ${COMPREPLY[*]})" >&2
    failures=$((failures + 1))
  fi
done

# The program cannot be run (not installed yet, typo): the built-in lists.
PROGRAM=/nonexistent/safesubst expect "au" audit
PROGRAM=/nonexistent/safesubst expect "render --man" --manifest
# Under the kubectl plugin name, the same program (kubectl runs it by path).
ln -s "$binary" "$work/kubectl-safesubst"
PROGRAM=$work/kubectl-safesubst expect "ex" explain

echo "bash completion: $checks checks, $failures failed"
[[ $failures -eq 0 ]]
