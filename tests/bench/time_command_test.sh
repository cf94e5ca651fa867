#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The contract of bench/time_command.cc that bench/run.sh relies on: one line
# of four numbers per command, in the order given; a failing command, or a
# `--next` with no command after it, fails the timer.
set -u
timer=$1
fail() { echo "time_command_test: $*" >&2; exit 1; }

out=$("$timer" --runs 3 --warmup 1 -- true --next --stdin /dev/null cat --next echo x) || fail "three commands failed"
printf '%s\n' "$out" | awk 'NF != 4 { exit 1 } END { exit NR != 3 }' || fail "expected 3 lines of 4 fields, got: $out"
"$timer" --runs 2 -- true --next false 2>/dev/null && fail "a failing command passed"
"$timer" --runs 2 -- true --next 2>/dev/null
[ $? -eq 2 ] || fail "--next without a command is not a usage error"
"$timer" --runs 2 -- true --next --stdin 2>/dev/null
[ $? -eq 2 ] || fail "--stdin without its file is not a usage error"
echo "time_command_test: ok"
