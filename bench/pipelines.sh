#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The tenant onboarding step of the seed, two ways, for bench/run.sh:
#
#   pipelines.sh seed      TENANT_DIR OUT_DIR           # envsubst, sed, yq (as onboarding-v6.sh did)
#   pipelines.sh safesubst TENANT_DIR OUT_DIR SAFESUBST # one safesubst render per app (manifest steps)
#   pipelines.sh tenant    TENANT_DIR OUT_DIR SAFESUBST # one safesubst render for every app (--set-from-filename)
#
# TENANT_DIR is what `safesubst_bench_generate tenant` writes: apps/*.yaml,
# common/efs-zone-command.yaml (${X} placeholders), seed/efs-zone-command.yaml
# (__X__ sed sentinels), manifest.yaml and dev.env. Every app but the ones in
# EFS_ZONE_EXCLUDE_APPS loses its hostAliases and gets the zone wrapper
# merged into its first container.
set -euo pipefail

mode=$1 tenant=$2 out=$3
mkdir -p "$out"
set -a
# shellcheck disable=SC1091
. "$tenant/dev.env"
set +a

# The loop's own work forks nothing (no basename): what is timed is the tools.
excluded() { case " ${EFS_ZONE_EXCLUDE_APPS//,/ } " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

case $mode in
  seed)
    for app_yaml in "$tenant"/apps/*.yaml; do
      app=${app_yaml##*/}
      app=${app%.yaml}
      target="$out/$app.yaml"
      envsubst < "$app_yaml" > "$target"
      excluded "$app" && continue
      # Debian's yq is the jq wrapper: `-y` writes YAML, `-i` edits in place.
      yq -y -i 'del(.spec.template.spec.hostAliases)' "$target"
      sed -e "s/__EFS_HOSTNAME__/${EFS_HOSTNAME}/g" \
          -e "s/__EFS_IP_2A__/${EFS_IP_2A}/g" \
          -e "s/__EFS_IP_2C__/${EFS_IP_2C}/g" \
          -e "s/__ZONE_BOUNDARY__/${ZONE_BOUNDARY}/g" \
          "$tenant/seed/efs-zone-command.yaml" > "$target.fragment"
      yq -y -s '.[0].spec.template.spec.containers[0] += .[1] | .[0]' "$target" "$target.fragment" > "$target.tmp"
      mv "$target.tmp" "$target"
      rm "$target.fragment"
    done
    ;;
  safesubst)
    safesubst=$4
    for app_yaml in "$tenant"/apps/*.yaml; do
      app=${app_yaml##*/}
      app=${app%.yaml}
      "$safesubst" render -m "$tenant/manifest.yaml" --values "$tenant/dev.env" --set "APP=$app" \
        -o "$out/$app.yaml" "$app_yaml"
    done
    ;;
  tenant)
    "$4" render -m "$tenant/manifest.yaml" --values "$tenant/dev.env" --set-from-filename APP \
      --out-dir "$out" "$tenant"/apps/*.yaml
    ;;
  *)
    echo "usage: pipelines.sh seed|safesubst|tenant TENANT_DIR OUT_DIR [SAFESUBST]" >&2
    exit 2
    ;;
esac
