#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds the seed corpora of the fuzz targets into OUT/<target>/ from the
# repository's test data and examples and, when it is there, the YAML test
# suite (../shared/yaml-test-suite, or $YAML_TEST_SUITE_DIR). Files are named
# by content hash, so running it twice gives the same corpus.
#
# Usage: fuzz/make_corpus.sh OUT
# shellcheck disable=SC2016 # the templates below hold literal ${...} placeholders
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUT" >&2; exit 2; }
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
suite=${YAML_TEST_SUITE_DIR:-$root/../shared/yaml-test-suite}

# add TARGET FILE...: copies each file into OUT/TARGET under its hash.
add() {
  target=$1; shift
  mkdir -p "$out/$target"
  for file in "$@"; do
    [ -f "$file" ] || continue
    hash=$(sha1sum < "$file" | cut -c1-40)
    cp "$file" "$out/$target/$hash"
  done
}

# add_text TARGET TEXT: a seed written here (printf %b: \n is a line break).
add_text() {
  scratch=$(mktemp)
  printf '%b' "$2" > "$scratch"
  add "$1" "$scratch"
  rm -f "$scratch"
}

yaml_files=$(find "$root/tests/data" "$root/examples" -type f \( -name '*.yaml' -o -name '*.yml' \) | sort)
suite_files=""
if [ -d "$suite" ]; then
  suite_files=$(find "$suite" -name in.yaml | sort)
else
  echo "make_corpus: no YAML test suite at $suite; seeding from the repository only" >&2
fi

# shellcheck disable=SC2086,SC2046 # word splitting of the file lists is intended (no blanks in the paths)
{
  add tokenizer $yaml_files $suite_files
  add lint $yaml_files $suite_files
  add steps $yaml_files $suite_files
  add render $yaml_files $suite_files
  add manifest $(find "$root/tests/data/manifest" "$root/examples" -type f \( -name '*.yaml' -o -name '*.env' \) | sort) \
    $suite_files
  add shell $(find "$root/tests/data/shell" -type f -name '*.sh' | sort) \
    $(find "$root/tests/data/k8s" "$root/examples" -type f -name '*.yaml' | sort)
}

# Render: values (dotenv or YAML) before the separator line %%, the template after.
add_text render 'S=a b\nI=7\nB=on\nLIST=a,b\nY="[1, {a: b}]"\n%%\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-${LABEL}\n  labels: {app: ${LABEL}, tier: "${E}"}\ndata:\n  s: ${S}\n  i: ${I}\n  b: ${B}\n  q: "${S} and ${P}"\n  sq: '"'"'${S}'"'"'\n  y: ${Y}\n  block: |\n    ${S}\n    ${LIST}\n  folded: >\n    ${S} ${D}\n  secret: ${SECRET}\n  escaped: $${S}\n  k8s: $(NODE_IP)\n  run: |\n    echo $NODE_IP ${IP}\n  script: |\n    #!/bin/sh\n    echo "${S}" '"'"'${S}'"'"' ${LABEL} ${RAW} $((${I} + 1))\n    cat <<EOF\n    ${S}\n    EOF\n# ${UNDECLARED} in a comment\n'
add_text render 'S: "x\\ny"\nY:\n  a: [1, 2]\n%%\nspec:\n  containers:\n  - name: app\n    command: ["/bin/sh", "-c"]\n    args:\n    - |\n      echo ${S} "$HOME" > /tmp/${LABEL}\n    - "${S}"\n    env: [{name: A, value: ${S}}]\n    resources: ${Y}\n'
add_text render 'S=${SECRET}\n%%\n${S}: ${SECRET}\n? ${SECRET}\n: [${SECRET}, "${SECRET}"]\n'
add_text shell '#!/bin/sh\nA="${X}" B='"'"'$Y'"'"' C=$Z\ncase $V in ${P}) ;; esac\necho $(( $N + 1 )) `echo $Q "$R"`\ncat <<-EOF\n\t$H ${I}\nEOF\n# $C\n%%\nvalue with '"'"' and " and $ and `'
add_text shell 'x=${a:-"${b}"} ; y=$'"'"'\\n$c'"'"' ; echo "${d#$e}" ${f/$g/$h}\n%%\nv'
add_text manifest 'variables:\n  A: {type: enum, values: [x, y]}\n  B: {type: string, pattern: "(a|b)*c{2,3}", default: acc}\n  C: {type: list, default: "x, y"}\n  D: yaml\n  E: {sensitive: true, required: true}\nruntime: [HOME]\nscripts: [.data.run]\nshell: [.data.sh]\nsteps:\n  - set: .metadata.labels["app.kubernetes.io/name"]\n    value: x\n    when: [{var: A, equals: x}, {var: C, in: C}, {var: E, set: true}]\n    match: {kind: Deployment, name: n, labels: {a: b}}\n  - merge: f.yaml\n    into: .spec[*][name=app]\n    append: true\n  - delete: ."a.b"[0]\n    optional: true\n'
add_text manifest 'export A="x\\n$y"\nB='"'"'lit'"'"'\nC=plain # comment\n\n# note\nD="multi\nline"\n'

for target in "$out"/*/; do
  echo "make_corpus: $(basename "$target"): $(find "$target" -type f | wc -l) seeds" >&2
done
