#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Differential check of the Flux/clusterctl dialect against the real engine.
#
#   DIALECT_ENGINE=/path/to/envsubst-binary tests/dialect_differential.sh build/safesubst
#
# DIALECT_ENGINE is a program that renders its stdin with github.com/drone/envsubst
# (what `clusterctl generate cluster` uses) or github.com/fluxcd/pkg/envsubst
# (Flux's fork), taking variables from the environment: a ten-line main around
# envsubst.EvalEnv, built offline with Debian's golang-go from a snapshot of the
# repository kept outside this one. Not part of ctest: the unit tests
# (string_operations_test.cc, render_test.cc) hold the expected values, measured
# with this script.
#
# For each value and form, safesubst must write what the engine writes, or
# refuse the form (where bash reads it differently); it must never write
# anything else. Exit status 1 on any difference.
set -u
safesubst=${1:?usage: DIALECT_ENGINE=... $0 path/to/safesubst}
engine=${DIALECT_ENGINE:?set DIALECT_ENGINE to a built drone/envsubst or Flux envsubst program}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'variables:\n  X: string\n  U: string\n  Y: string\n' > "$work/vars.yaml"

same=0 refused=0 different=0
# compare VALUE FORM SAFESUBST-ARGUMENTS...: renders `v: |` holding [FORM]
# with the engine (X=VALUE, Y=why) and with safesubst and counts the outcome.
compare() {
  value=$1 form=$2
  shift 2
  template=$(printf 'v: |\n  [%s]\n' "$form")
  expected=$(printf '%s' "$template" | env -i X="$value" Y=why "$engine" 2>/dev/null) || expected='<error>'
  if actual=$(printf '%s' "$template" | env -i "$safesubst" render "$@" --set "X=$value" --set Y=why 2>/dev/null); then
    if [ "$actual" = "$expected" ]; then
      same=$((same + 1))
    else
      different=$((different + 1))
      printf 'DIFFERENT %s X=%s %s\n  engine:    %s\n  safesubst: %s\n' "$*" "$value" "$form" "$expected" "$actual"
    fi
  else
    refused=$((refused + 1))
    printf 'refused   %s X=%s %s (engine: %s)\n' "$*" "$value" "$form" "$expected"
  fi
}

for value in 'v1.2.3' 'registry.example.com/team/app:v1.2' 'Hello-World' 'aaaa' 'a/b/c' '' 'x' 'UPPER lower'; do
  for form in '${X%.*}' '${X%%.*}' '${X#v}' '${X##*/}' '${X#*/}' '${X%/*}' '${X%%/*}' '${X#?}' '${X%?}' \
              '${X##*.}' '${X%%:*}' '${X#*.}' '${X%.*.*}' '${X##a*}' '${X%*c}' '${X#a}' '${X%%a}' \
              '${X/./-}' '${X//./-}' '${X/#v/V}' '${X/%2/9}' '${X/e/}' '${X//l/}' '${X//a/bb}' '${X/\//-}' \
              '${X,,}' '${X^^}' '${X,}' '${X^}' '${X:1}' '${X:0:3}' '${X:2:100}' '${X:100}' '${X:0:0}' '${#X}' \
              '${X:-d}' '${X:=d}' '${U:-d}' '${U:=d}' '${U:=${Y}-d}' '${U:=""}' '${U:="a,b"}' '${X}' \
              '${X/*/z}' '${X%[a-z]}' '${X: -2}' '${X#*}' '${X/a}' '${X/#a/}'; do
    compare "$value" "$form" -m "$work/vars.yaml"
  done
done
printf '%d the same, %d refused, %d different\n' "$same" "$refused" "$different"

# --flavor flux: the same forms, and Flux's own ($$, bare names, quirks),
# with the undeclared U blanked as Flux blanks it.
for value in 'v1.2.3' 'a/b/c' '' 'UPPER lower'; do
  for form in '${X%.*}' '${X#v}' '${X/./-}' '${X,,}' '${X:1}' '${#X}' '${X:-d}' '${U:-d}' '${U:=${Y}-d}' \
              '${U:?m}' '${U:+p}' '${X:+p}' '${U=d}' '${X=d}' '${U}' '$X' '$$' '$$x' '$${X}' '$$(X)' '$(X)' '$1' '${X-d}' '${x[0]}' \
              '$${U:=$${X}}' '$${U:=${X}}' '$${X:-${Y}}' '$${U:-$X}' '$${U:-$$X}' '$${U:=${U:-d}}' '$${U:-$${Y:-$${X}}}' \
              '$${U:=$}' '$${U:=$$}' 'x$${U:=${X}}y${X}' '$${U:-${X}-${Y}}' '$${X}$' '$$$${X}' '$$${X}' \
              '${U:-$${X}}' '${U:-$$X}' '${U:-$}${X}' '${U:-$$}' '${U:-a$$(b)}' '${U:-{x}}' '${X:-{x}}' '${X/a/$${Y}}'; do
    compare "$value" "$form" --flavor flux
  done
done
printf 'with --flavor flux too: %d the same, %d refused, %d different\n' "$same" "$refused" "$different"
[ "$different" -eq 0 ]
