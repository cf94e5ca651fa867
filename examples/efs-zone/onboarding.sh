#!/bin/sh
# Renders every app of one tenant, as onboarding-v6.sh did with
#   envsubst < app.yaml > app.yaml.tmp; sed ... efs-zone-command.yaml | yq eval '... += load(...)'; yq eval 'del(...)'
# Here one safesubst call per app substitutes, validates, merges the zone
# wrapper and deletes hostAliases (manifest.yaml, steps), or fails without
# writing anything.
#
# usage: onboarding.sh PROFILE OUT_DIR     e.g. onboarding.sh dev /tmp/tenant-a
set -eu
here=$(cd "$(dirname "$0")" && pwd)
profile=${1:?usage: onboarding.sh PROFILE OUT_DIR}
out=${2:?usage: onboarding.sh PROFILE OUT_DIR}
safesubst=${SAFESUBST:-safesubst}
mkdir -p "$out"
for template in "$here"/apps/*.yaml; do
  app=$(basename "$template" .yaml)
  "$safesubst" render -m "$here/manifest.yaml" --values "$here/values/$profile.env" --set "APP=$app" \
    -o "$out/$app.yaml" "$template"
  echo "rendered $app -> $out/$app.yaml"
done
