#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes the symbol ordering file that SAFESUBST_LINK_ORDER_FILE takes
# (bench/startup-order.txt): the functions the static safesubst command runs
# to render one small template, so that the linker lays them out together.
# Start-up latency is mostly page faults and exec: the code a render runs is
# spread over the 4.7 MB of libc, libstdc++, CLI11 and our own objects, and
# every 64 KB window of it that is touched costs a page fault.
#
#   bench/startup_order.sh BUILD_DIR > bench/startup-order.txt
#
# BUILD_DIR holds a static build (-DSAFESUBST_STATIC_EXECUTABLE=ON). Needs
# valgrind. The training renders are the examples (examples/), not the
# benchmark's inputs.
# Regenerate after a change of compiler or libraries; a name that no longer
# exists is skipped by the linker, so a stale list only costs locality.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: startup_order.sh BUILD_DIR}" && pwd)
safesubst=$build/safesubst
command -v valgrind >/dev/null || { echo "startup_order.sh: valgrind is needed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# trace NAME COMMAND...: callgrind's record of every function COMMAND runs.
trace() {
  local name=$1
  shift
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.out" "$@" >/dev/null 2>"$work/$name.err" ||
    { cat "$work/$name.err" >&2; exit 1; }
}

# The training renders, most common form first: a template with a manifest
# and values from the environment, then envsubst's SHELL-FORMAT form, then
# manifests with steps and a values file. The functions are listed in the
# order the renders first ran them, so that those every render needs come
# first and code that only steps use comes after.
examples=$here/../examples
with_values() {  # with_values ENV_FILE COMMAND...: COMMAND with ENV_FILE's values exported
  (
    set -a
    # shellcheck disable=SC1090
    . "$1"
    set +a
    "${@:2}"
  )
}
cd "$examples/inline-wrapper"
with_values dev.env trace 1-manifest "$safesubst" render -m manifest.yaml deployment.yaml
# shellcheck disable=SC2016 # envsubst's SHELL-FORMAT: the names, not their values
with_values dev.env trace 2-dropin "$safesubst" '${TENANT_ID} ${EFS_HOSTNAME} ${EFS_PRIMARY_IP} ${EFS_IP_2C}' \
  <deployment.yaml
cd "$examples/efs-zone"
for template in apps/*.yaml; do
  trace "3-steps-$(basename "$template" .yaml)" "$safesubst" render -m manifest.yaml --values values/dev.env \
    --set "APP=$(basename "$template" .yaml)" "$template"
done

# Function names ("fn=(id) name"; a recursion level is written as a 'N suffix).
for out in "$work"/[0-9]*.out; do
  sed -nE "s/^c?fn=\([0-9]+\) (.*)/\1/p" "$out" | sed -E "s/'[0-9]+$//"
done | awk '!seen[$0]++' >"$work/functions"

# glibc picks a string function's variant (__memcpy_avx2_unaligned_erms,
# __strlen_evex...) for the CPU it runs on, and valgrind's virtual CPU is not
# the machine's: list every variant of a family that the trace used.
nm "$safesubst" | awk '{ print $NF }' | sort -u >"$work/symbols"
families=$(sed -nE 's/^(__[a-z0-9]+(_[a-z0-9]+)*)_(sse2|ssse3|sse4_1|sse4_2|avx|avx2|evex|avx512)(_.*)?$/\1/p' "$work/functions" | sort -u)
{
  cat "$work/functions"
  for family in $families; do
    grep -E "^${family}_(sse2|ssse3|sse4_1|sse4_2|avx|avx2|evex|avx512)" "$work/symbols" || true
  done
} | awk 'NR == FNR { symbol[$0] = 1; next } ($0 in symbol) && !seen[$0]++' "$work/symbols" -  # not "(below main)"
