#!/usr/bin/env zsh
# SPDX-License-Identifier: Apache-2.0
# Checks the zsh completion (packaging/_safesubst) through zsh's real
# completion system: an interactive zsh runs in a pseudo-terminal (zsh/zpty)
# with compinit and the completion in $fpath, a command line is typed with a
# TAB, and the line as completed is read back through a widget. Each case is
# a prefix with a single completion, so the line shows what was offered.
#
# usage: zsh -f zsh_completion_test.zsh SAFESUBST_BINARY COMPLETION_FILE
emulate -L zsh
setopt err_return no_unset

binary=${1:A}
completion=${2:A}
work=$(mktemp -d "${TMPDIR:-/tmp}/safesubst-zsh-test.XXXXXX")
trap 'zpty -d shell 2>/dev/null; rm -rf $work' EXIT
mkdir $work/fpath $work/bin $work/outdir
cp $completion $work/fpath/_safesubst
ln -s $binary $work/bin/safesubst
ln -s safesubst $work/bin/kubectl-safesubst
touch $work/manifest.yaml

zmodload zsh/zpty
zpty -b shell "cd ${(q)work} && env -i HOME=${(q)work} TERM=dumb PATH=${(q)work}/bin:/usr/bin:/bin zsh -f -i"
zpty -w shell 'PS1="> "; fpath=(./fpath $fpath); autoload -Uz compinit; compinit -u -D'
zpty -w shell 'dump() { print -r -- "$BUFFER" >| ./buffer.txt; }; zle -N dump; bindkey "^T" dump'
zpty -w shell 'print -r -- READY""READY'
zpty -r -m shell ready '*READYREADY*' || { print -u2 "FAIL: zsh did not start"; exit 1 }

failures=0
checks=0
# expect TYPED COMPLETED: types TYPED, TAB, then dumps and clears the line.
expect() {
  local typed=$1 completed=$2 got="" i
  rm -f $work/buffer.txt
  zpty -n -w shell "$typed"$'\t\x14\x15'
  for i in {1..100}; do [[ -s $work/buffer.txt ]] && break; sleep 0.05; done
  [[ -s $work/buffer.txt ]] && got=$(<$work/buffer.txt)
  (( checks += 1 ))
  if [[ $got != $completed ]]; then
    print -u2 -r -- "FAIL: '$typed<TAB>' gave '$got', expected '$completed'"
    (( failures += 1 ))
  fi
  return 0
}

expect 'safesubst ren' 'safesubst render '
expect 'safesubst au' 'safesubst audit '
expect 'safesubst render --col' 'safesubst render --color='
expect 'safesubst render --color=al' 'safesubst render --color=always '
expect 'safesubst render --color n' 'safesubst render --color never '
expect 'safesubst vars --format j' 'safesubst vars --format json '
expect 'safesubst render -m mani' 'safesubst render -m manifest.yaml '
expect 'safesubst render --out-dir ou' 'safesubst render --out-dir outdir/'
expect 'safesubst render --allow-un' 'safesubst render --allow-undeclared '
expect 'safesubst render --max-al' 'safesubst render --max-aliases='
expect 'safesubst init --fo' 'safesubst init --force '
expect 'safesubst explain mani' 'safesubst explain manifest.yaml '
expect 'safesubst --vers' 'safesubst --version '
expect 'kubectl-safesubst va' 'kubectl-safesubst vars '
expect 'safesubst lint --disable etc' 'safesubst lint --disable etc-hosts-write '
expect 'safesubst lint --istio' 'safesubst lint --istio-namespace '
expect 'safesubst render --lint-disable=fsg' 'safesubst render --lint-disable=fsgroup-recursive-chown '

print "zsh completion: $checks checks, $failures failed"
(( failures == 0 ))
