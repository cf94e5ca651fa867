#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# libsafesubst.so exports the public API and nothing else (issue 28):
# every dynamic symbol it defines is in namespace safesubst, none in
# safesubst::detail, and the list equals tests/install/exported-symbols.txt,
# so that a change of the API shows up as a diff of that file in review.
# What is exported is decided by SAFESUBST_API (safesubst/export.h), hidden
# visibility and cmake/libsafesubst.map; a function declared in a public
# header (INCLUDE_DIR/safesubst/*.h, at namespace scope) without
# SAFESUBST_API would be missing from the library, and fails the test too.
# The public headers are those of INCLUDE_DIR/safesubst: each must stand
# alone once installed (no internal header of src/ included), and the
# umbrella header safesubst.h must include every one of them.
#
# usage: exported_symbols_test.sh LIBRARY EXPECTED_LIST INCLUDE_DIR
# After an intended API change, write the new list with
#   nm -D --defined-only -C LIBRARY | sed 's/^[0-9a-f]* *[A-Za-z] //' | LC_ALL=C sort -u
set -eu
library=$1
expected=$2
include_dir=$3

command -v nm >/dev/null 2>&1 || { echo "FAIL: nm (binutils) is not installed" >&2; exit 1; }
[ -f "$library" ] || { echo "FAIL: no library $library" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/safesubst-symbols-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Demangled names of the defined dynamic symbols, without address and type.
nm -D --defined-only -C "$library" | sed 's/^[0-9a-f]* *[A-Za-z] //' | LC_ALL=C sort -u >"$work/actual"
count=$(wc -l <"$work/actual")
[ "$count" -gt 0 ] || { echo "FAIL: nm lists no symbols in $library" >&2; exit 1; }

failures=0
grep -v '^safesubst::' "$work/actual" >"$work/foreign" || true
if [ -s "$work/foreign" ]; then
  echo "FAIL: $(wc -l <"$work/foreign") exported symbols outside namespace safesubst (std::, YAML::, re2:: instantiations?):" >&2
  head -n 20 "$work/foreign" >&2
  failures=$((failures + 1))
fi
grep -e '^safesubst::detail::' -e '^safesubst::[^(]*::detail::' "$work/actual" >"$work/internal" || true
if [ -s "$work/internal" ]; then
  echo "FAIL: $(wc -l <"$work/internal") exported symbols in safesubst::detail:" >&2
  head -n 20 "$work/internal" >&2
  failures=$((failures + 1))
fi
# Declarations start in column 0 inside `namespace safesubst {`; inline and
# constexpr functions need no export.
grep -nE '^[A-Za-z].*\(' "$include_dir"/safesubst/*.h |
  grep -vE '^[^:]*:[0-9]+:(SAFESUBST_API |namespace|enum|struct|class|template|inline|constexpr|using|static|#|//)' \
  >"$work/unmarked" || true
if [ -s "$work/unmarked" ]; then
  echo "FAIL: public functions declared without SAFESUBST_API (not exported from libsafesubst.so):" >&2
  cat "$work/unmarked" >&2
  failures=$((failures + 1))
fi
# The public headers stand alone once installed: they include only each
# other and the standard library, never an internal header of src/.
grep -nE '^#include "' "$include_dir"/safesubst/*.h | grep -vE ':#include "safesubst/[a-z_]+\.h"' \
  >"$work/internal_includes" || true
if [ -s "$work/internal_includes" ]; then
  echo "FAIL: public headers include internal headers (not installed):" >&2
  cat "$work/internal_includes" >&2
  failures=$((failures + 1))
fi
# The umbrella header includes every public header (export.h comes with them).
for header in "$include_dir"/safesubst/*.h; do
  name=$(basename "$header")
  case $name in safesubst.h | export.h) continue ;; esac
  grep -qx "#include \"safesubst/$name\"" "$include_dir/safesubst/safesubst.h" ||
    { echo "FAIL: safesubst/safesubst.h does not include safesubst/$name" >&2; failures=$((failures + 1)); }
done
if ! diff -u "$expected" "$work/actual" >"$work/diff"; then
  echo "FAIL: the exported symbols differ from $expected (- expected, + exported):" >&2
  cat "$work/diff" >&2
  echo "A new public function needs SAFESUBST_API; an intended API change updates the list (see the usage above)." >&2
  failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] || exit 1
echo "libsafesubst.so exports $count symbols, all of the public API, as listed in $(basename "$expected")"
