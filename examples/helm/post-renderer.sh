#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A Helm post-renderer: Helm writes the chart's rendered manifests to its
# standard input as one multi-document stream (`---` separators, `# Source:`
# comments) and installs what it prints. safesubst renders the deploy-time
# variables left in them, with the manifest's rules and steps; any error
# makes it exit 1 with nothing printed, and Helm stops.
#
#   SAFESUBST_MANIFEST=vars.yaml SAFESUBST_VALUES=prod.env \
#     helm install web ./chart --post-renderer examples/helm/post-renderer.sh
#
# SAFESUBST_MANIFEST (required) and SAFESUBST_VALUES (optional) name the
# manifest and a values file; --post-renderer-args are passed on (--set ...).
# $SAFESUBST names the command (default: safesubst on PATH).
set -eu
: "${SAFESUBST_MANIFEST:?set SAFESUBST_MANIFEST to the variable manifest}"
if [ -n "${SAFESUBST_VALUES:-}" ]; then set -- --values "$SAFESUBST_VALUES" "$@"; fi
exec "${SAFESUBST:-safesubst}" render -m "$SAFESUBST_MANIFEST" "$@"
