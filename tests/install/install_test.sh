#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the current build into a temporary prefix and builds the example
# consumer (examples/consumer/) against what was installed, four ways:
#   CMake, shared (default)      find_package(safesubst) -> libsafesubst.so
#   CMake, static                -DSAFESUBST_USE_STATIC_LIBS=ON -> libsafesubst.a + yaml-cpp + re2 + libfyaml
#   pkg-config, shared           pkg-config --cflags --libs safesubst
#   pkg-config, static           pkg-config --static --libs safesubst, libsafesubst.a
# and runs each binary, checking its output; and the README's library example
# (RenderString) the pkg-config way, so that the README cannot drift. Also checks the installed tree
# (headers, man page, completions, the kubectl-safesubst link) and that the
# installed program runs under both names.
#
# usage: install_test.sh BUILD_DIR SOURCE_DIR
# environment: CMAKE (default cmake), CXX (default c++), KEEP_INSTALL_TEST_DIR=1 keeps the temp dir.
# Literal ${NAME} and $NAME in single quotes are the point of this test.
# shellcheck disable=SC2016
set -eu

build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
# The shared library's ABI version: libsafesubst.so.N (CMakeLists.txt).
soversion=$(sed -n 's/^set(SAFESUBST_SOVERSION \([0-9]*\))$/\1/p' "$source_dir/CMakeLists.txt")
[ -n "$soversion" ] || { echo "FAIL: no set(SAFESUBST_SOVERSION N) in CMakeLists.txt" >&2; exit 1; }
cmake=${CMAKE:-cmake}
cxx=${CXX:-c++}

work=$(mktemp -d "${TMPDIR:-/tmp}/safesubst-install-test.XXXXXX")
cleanup() {
  if [ "${KEEP_INSTALL_TEST_DIR:-}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
prefix=$work/prefix
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
check() {  # check DESCRIPTION COMMAND...: runs COMMAND, records a failure when it fails
  description=$1
  shift
  if "$@"; then echo "ok: $description"; else fail "$description"; fi
}
step() { echo "== $*"; }

step "cmake --install into $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix" >"$work/install.log" 2>&1 || {
  cat "$work/install.log" >&2
  echo "FAIL: cmake --install" >&2
  exit 1
}

# The library directory (lib, or lib/<multiarch> when configured for /usr).
libdir=$(dirname "$(find "$prefix" -name 'libsafesubst.a' | head -n 1)")
[ -f "$libdir/libsafesubst.a" ] || { echo "FAIL: no libsafesubst.a installed" >&2; exit 1; }

step "installed files"
check "bin/safesubst is executable" test -x "$prefix/bin/safesubst"
check "bin/kubectl-safesubst is a symlink to safesubst" \
  test -L "$prefix/bin/kubectl-safesubst" -a "$(readlink "$prefix/bin/kubectl-safesubst")" = safesubst
for header in "$source_dir"/include/safesubst/*.h; do
  name=$(basename "$header")
  check "header $name installed unchanged" cmp -s "$header" "$prefix/include/safesubst/$name"
done
check "umbrella header safesubst.h installed" test -f "$prefix/include/safesubst/safesubst.h"
check "shared library has soname libsafesubst.so.$soversion" \
  sh -c "objdump -p '$libdir/libsafesubst.so' | grep -q 'SONAME *libsafesubst.so.$soversion\$'"
check "libsafesubst.so.$soversion exists" test -e "$libdir/libsafesubst.so.$soversion"
check "CMake package config" test -f "$libdir/cmake/safesubst/safesubst-config.cmake"
check "CMake package version file" test -f "$libdir/cmake/safesubst/safesubst-config-version.cmake"
check "pkg-config file" test -f "$libdir/pkgconfig/safesubst.pc"
check "pkg-config file names the install prefix" grep -qx "prefix=$prefix" "$libdir/pkgconfig/safesubst.pc"
check "man page" test -f "$prefix/share/man/man1/safesubst.1.gz"
check "bash completion" test -f "$prefix/share/bash-completion/completions/safesubst"
check "zsh completion" test -f "$prefix/share/zsh/vendor-completions/_safesubst"

step "installed program"
version=$(sed -n 's/^project(safesubst VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
check "safesubst --version says $version" \
  sh -c "'$prefix/bin/safesubst' --version | grep -qx 'safesubst $version'"
check "kubectl-safesubst --version says $version" \
  sh -c "'$prefix/bin/kubectl-safesubst' --version | grep -qx 'safesubst $version'"
# The program must behave the same under its plugin name (kubectl runs it by full path).
printf 'name: ${APP} # $APP\n' >"$work/template.yaml"
APP=web "$prefix/bin/safesubst" '${APP}' <"$work/template.yaml" >"$work/as-safesubst.out" 2>&1 || true
APP=web "$prefix/bin/kubectl-safesubst" '${APP}' <"$work/template.yaml" >"$work/as-plugin.out" 2>&1 || true
check "safesubst renders a SHELL-FORMAT template" grep -qx 'name: web # $APP' "$work/as-safesubst.out"
check "kubectl-safesubst renders exactly like safesubst" cmp -s "$work/as-safesubst.out" "$work/as-plugin.out"
if command -v kubectl >/dev/null 2>&1; then
  check "kubectl safesubst --help runs the plugin" \
    sh -c "PATH='$prefix/bin':\$PATH kubectl safesubst --help | grep -q 'render'"
else
  echo "note: kubectl not installed, 'kubectl safesubst' not tried"
fi

# The consumer's expected behaviour (see examples/consumer/consumer.cc).
check_consumer() {  # check_consumer LABEL BINARY
  label=$1
  binary=$2
  if ! "$binary" APP=web VERSION=1.10 >"$work/$label.out" 2>"$work/$label.err"; then
    fail "$label: consumer APP=web VERSION=1.10 failed"
    cat "$work/$label.err" >&2
    return
  fi
  check "$label: reports the library version" grep -qx "consumer: linked against safesubst $version" "$work/$label.err"
  check "$label: metadata.name substituted" grep -qx '  name: web' "$work/$label.out"
  check "$label: replicas from the manifest default" grep -qx '  replicas: 2' "$work/$label.out"
  check "$label: 1.10 stays a string" grep -qx '        version: "1.10"' "$work/$label.out"
  check "$label: runtime \$HOME kept in the script" \
    grep -qx '              echo "starting web in $HOME"' "$work/$label.out"
  if "$binary" APP=Not_A_Label >"$work/$label.bad.out" 2>"$work/$label.bad.err"; then
    fail "$label: an invalid APP was accepted"
  fi
  check "$label: invalid value gives no output" test ! -s "$work/$label.bad.out"
  check "$label: invalid value is diagnosed" grep -q 'error:.*APP' "$work/$label.bad.err"
}

links_shared_safesubst() { readelf -d "$1" | grep -q "NEEDED.*\\[libsafesubst\\.so\\.$soversion\\]"; }
# ldd shows which libsafesubst.so.$soversion the loader picks: the installed one, not another copy.
loads_installed_library() { ldd "$1" | grep "libsafesubst\\.so\\.$soversion " | grep -q "$libdir/"; }
not_links_shared_safesubst() { ! links_shared_safesubst "$1"; }

step "CMake consumer, shared library"
if "$cmake" -S "$source_dir/examples/consumer" -B "$work/cmake-shared" -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_CXX_COMPILER="$cxx" >"$work/cmake-shared.log" 2>&1 &&
   "$cmake" --build "$work/cmake-shared" >>"$work/cmake-shared.log" 2>&1; then
  check "cmake-shared: links libsafesubst.so.$soversion" links_shared_safesubst "$work/cmake-shared/consumer"
  check "cmake-shared: loads the installed libsafesubst.so.$soversion" loads_installed_library "$work/cmake-shared/consumer"
  check_consumer cmake-shared "$work/cmake-shared/consumer"
else
  cat "$work/cmake-shared.log" >&2
  fail "cmake-shared: configure or build"
fi

step "CMake consumer, static library"
if "$cmake" -S "$source_dir/examples/consumer" -B "$work/cmake-static" -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_CXX_COMPILER="$cxx" -DSAFESUBST_USE_STATIC_LIBS=ON >"$work/cmake-static.log" 2>&1 &&
   "$cmake" --build "$work/cmake-static" >>"$work/cmake-static.log" 2>&1; then
  check "cmake-static: does not link libsafesubst.so" not_links_shared_safesubst "$work/cmake-static/consumer"
  check_consumer cmake-static "$work/cmake-static/consumer"
else
  cat "$work/cmake-static.log" >&2
  fail "cmake-static: configure or build"
fi

step "pkg-config consumer, shared library"
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
if cflags=$(pkg-config --cflags safesubst) && libs=$(pkg-config --libs safesubst) &&
   pc_libdir=$(pkg-config --variable=libdir safesubst); then
  check "pkg-config: libdir is the installed one" test "$pc_libdir" = "$libdir"
  # shellcheck disable=SC2086  # flags are words
  if "$cxx" -std=c++20 -Wall -Wextra -Werror $cflags "$source_dir/examples/consumer/consumer.cc" \
       -o "$work/pkg-shared" $libs -Wl,-rpath,"$pc_libdir" 2>"$work/pkg-shared.log"; then
    check "pkg-shared: links libsafesubst.so.$soversion" links_shared_safesubst "$work/pkg-shared"
    check "pkg-shared: loads the installed libsafesubst.so.$soversion" loads_installed_library "$work/pkg-shared"
    check_consumer pkg-shared "$work/pkg-shared"
  else
    cat "$work/pkg-shared.log" >&2
    fail "pkg-shared: compile and link"
  fi
  # The README's library example (the first ```cpp block after "## Library") builds and prints what it says.
  awk '/^## Library/ { library = 1 } library && /^```cpp$/ { inside = 1; next } inside && /^```$/ { exit } inside' \
    "$source_dir/README.md" > "$work/readme_example.cc"
  # shellcheck disable=SC2086  # flags are words
  if [ -s "$work/readme_example.cc" ] &&
     "$cxx" -std=c++20 -Wall -Wextra -Werror $cflags "$work/readme_example.cc" \
       -o "$work/readme-example" $libs -Wl,-rpath,"$pc_libdir" 2>"$work/readme-example.log"; then
    check "README example: prints the render" sh -c '"$1" >"$2" && printf "name: web\nversion: \"1.10\"\n" | cmp -s - "$2"' \
      sh "$work/readme-example" "$work/readme-example.out"
  else
    cat "$work/readme-example.log" >&2
    fail "README example: extract, compile and link"
  fi
else
  fail "pkg-config does not know safesubst"
fi

step "pkg-config consumer, static library"
# --static adds Requires.private (yaml-cpp, re2, libfyaml); -l:libsafesubst.a picks the
# archive although the .so sits beside it.
if static_libs=$(pkg-config --static --libs safesubst); then
  static_libs=$(echo "$static_libs" | sed 's/-lsafesubst\b/-l:libsafesubst.a/')
  # shellcheck disable=SC2086
  if "$cxx" -std=c++20 -Wall -Wextra -Werror $cflags "$source_dir/examples/consumer/consumer.cc" \
       -o "$work/pkg-static" $static_libs 2>"$work/pkg-static.log"; then
    check "pkg-static: does not link libsafesubst.so" not_links_shared_safesubst "$work/pkg-static"
    check_consumer pkg-static "$work/pkg-static"
  else
    cat "$work/pkg-static.log" >&2
    fail "pkg-static: compile and link"
  fi
else
  fail "pkg-config --static does not resolve safesubst's Requires.private (yaml-cpp re2 libfyaml)"
fi

if [ "$failures" -ne 0 ]; then
  echo "install test: $failures check(s) failed" >&2
  exit 1
fi
echo "install test: all checks passed"
