#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The exec KRM function kustomize runs: the ResourceList on stdin, the
# rendered one on stdout, diagnostics on stderr and in its `results`.
# $SAFESUBST names the command (default: safesubst on PATH).
set -eu
exec "${SAFESUBST:-safesubst}" krm -m "$(dirname "$0")/manifest.yaml"
