#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Renders every app of one tenant, as onboarding-v6.sh did with, per app,
#   envsubst < app.yaml > app.yaml.tmp; sed ... efs-zone-command.yaml | yq eval '... += load(...)'; yq eval 'del(...)'
# Here one safesubst call renders the whole tenant: each app's APP is its
# file name (--set-from-filename), and the manifest's steps merge the zone
# wrapper and delete hostAliases. An app that fails is reported and not
# written; the others are, and the script fails.
#
# usage: onboarding.sh PROFILE OUT_DIR     e.g. onboarding.sh dev /tmp/tenant-a
set -eu
here=$(cd "$(dirname "$0")" && pwd)
profile=${1:?usage: onboarding.sh PROFILE OUT_DIR}
out=${2:?usage: onboarding.sh PROFILE OUT_DIR}
safesubst=${SAFESUBST:-safesubst}
mkdir -p "$out"
"$safesubst" render -m "$here/manifest.yaml" --values "$here/values/$profile.env" --set-from-filename APP \
  --out-dir "$out" "$here"/apps/*.yaml
for template in "$here"/apps/*.yaml; do
  app=$(basename "$template" .yaml)
  echo "rendered $app -> $out/$app.yaml"
done
