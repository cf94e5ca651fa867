#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds safesubst with profile-guided optimization (CMake's SAFESUBST_PROFILE):
# an instrumented build, a training run, then the optimized build in the same
# directory. The training renders the shipped examples (examples/), never the
# benchmark's generated inputs: the envsubst form and a manifest render of
# examples/inline-wrapper, the efs-zone apps with their merge steps, and a
# stream of inline-wrapper Deployments large enough to be cut into pieces.
#
#   bench/pgo_build.sh BUILD_DIR [CMAKE_ARGUMENTS...]
#   bench/pgo_build.sh build-bench -DSAFESUBST_STATIC_EXECUTABLE=ON \
#       -DSAFESUBST_LINK_ORDER_FILE=bench/startup-order.txt
#
# Takes two builds' time (about 6 minutes on 2 cores). GCC only.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/.." && pwd)
build=${1:?usage: pgo_build.sh BUILD_DIR [CMAKE_ARGUMENTS...]}
shift
jobs=$(nproc)

echo "pgo_build.sh: 1/3 instrumented build in $build" >&2
cmake -S "$source_dir" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSAFESUBST_PROFILE=generate "$@" >/dev/null
find "$build" -name '*.gcda' -delete
cmake --build "$build" -j"$jobs" --target safesubst_cli
safesubst=$(cd "$build" && pwd)/safesubst

echo "pgo_build.sh: 2/3 training on examples/" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(
  cd "$source_dir/examples/inline-wrapper"
  set -a
  # shellcheck disable=SC1091
  . ./dev.env
  set +a
  for _ in $(seq 20); do
    "$safesubst" render -m manifest.yaml deployment.yaml >/dev/null
    # shellcheck disable=SC2016 # envsubst's SHELL-FORMAT: the names, not their values
    "$safesubst" '${TENANT_ID} ${EFS_HOSTNAME} ${EFS_PRIMARY_IP} ${EFS_IP_2C}' <deployment.yaml >/dev/null
  done
  for _ in $(seq 3000); do
    echo "---"
    cat deployment.yaml
  done >"$work/stream.yaml"
  "$safesubst" render -m manifest.yaml "$work/stream.yaml" >/dev/null
)
(
  cd "$source_dir/examples/efs-zone"
  for _ in $(seq 10); do
    for template in apps/*.yaml; do
      "$safesubst" render -m manifest.yaml --values values/dev.env --set "APP=$(basename "$template" .yaml)" \
        "$template" >/dev/null
    done
  done
)

echo "pgo_build.sh: 3/3 optimized build" >&2
cmake -S "$source_dir" -B "$build" -DSAFESUBST_PROFILE=use >/dev/null
# What bench/run.sh runs; the tests are built and run by the plain build.
cmake --build "$build" -j"$jobs" --target safesubst_cli safesubst_bench_generate safesubst_bench_time
