#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Checks the man page packaging/safesubst.1:
#   lint    groff renders it with no warning (-ww), and man -l formats it
#           (exit 77, reported as skipped by ctest, when groff is not installed)
#   covers  every command `safesubst --help` lists, and every long option of
#           every command, is documented in it
#
# usage: manpage_test.sh lint|covers SAFESUBST_BINARY MAN_PAGE
set -u

mode=$1
binary=$2
page=$3

case $mode in
  lint)
    if ! command -v groff >/dev/null 2>&1; then
      echo "groff is not installed (Debian: groff-base): man page not checked"
      exit 77
    fi
    warnings=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1)
    if [ -n "$warnings" ]; then
      echo "FAIL: groff warns about $page:" >&2
      echo "$warnings" >&2
      exit 1
    fi
    if command -v man >/dev/null 2>&1; then
      rendered=$(MANWIDTH=80 man -l "$page" 2>&1) || { echo "FAIL: man -l $page" >&2; exit 1; }
      for section in NAME SYNOPSIS DESCRIPTION COMMANDS "CONTEXT RULES" "MANIFEST FORMAT" "EXIT STATUS" \
                     ENVIRONMENT EXAMPLES "ENVSUBST MIGRATION"; do
        printf "%s\n" "$rendered" | grep -qx "$section" || { echo "FAIL: no section $section" >&2; exit 1; }
      done
      for variable in SAFESUBST_MANIFEST NO_COLOR; do
        printf "%s\n" "$rendered" | grep -q "^       $variable\$" || { echo "FAIL: ENVIRONMENT lacks $variable" >&2; exit 1; }
      done
    else
      echo "note: man (man-db) is not installed: man -l not tried"
    fi
    echo "man page: groff reports no warnings"
    ;;
  covers)
    # The page's text with roff's \- as -, for plain matching.
    text=$(sed 's/\\-/-/g; s/\\(aq/'"'"'/g' "$page")
    commands=$("$binary" --help | sed -n '/^Subcommands:/,/^$/s/^  \([a-z][a-z0-9-]*\).*/\1/p')
    if [ -z "$commands" ]; then
      echo "FAIL: no commands in '$binary --help'" >&2
      exit 1
    fi
    missing=""
    for command in $commands; do
      # A command is documented by a .TP entry in COMMANDS: .BR command ...
      printf "%s\n" "$text" | grep -q "^\.BR $command " || missing="$missing command:$command"
      options=$("$binary" "$command" --help | sed -n 's/^  \(-[a-zA-Z],\)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p')
      for option in $options; do
        [ "$option" = --help ] && continue
        printf "%s\n" "$text" | grep -q -- "$option\\b" || missing="$missing $command:$option"
      done
    done
    if [ -n "$missing" ]; then
      echo "FAIL: $page does not document:$missing" >&2
      echo "(add them to COMMANDS or the options sections of packaging/safesubst.1)" >&2
      exit 1
    fi
    # shellcheck disable=SC2086  # one line of words
    echo "man page documents every command and option:" $commands
    ;;
  *)
    echo "usage: $0 lint|covers SAFESUBST_BINARY MAN_PAGE" >&2
    exit 2
    ;;
esac
