#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds the Debian packages from a build directory with cpack (safesubst,
# libsafesubstN, libsafesubst-dev: cmake/SafesubstDebian.cmake), checks their
# fields and files, installs them one at a time with dpkg -i, checking after
# each what it alone brings, and removes them again (dpkg -P, so that nothing
# is left). Needs root (CI runs as root on a fresh Debian machine), a finished
# build (`cmake --build BUILD_DIR`), and for the consumer checks the build
# dependencies (g++, pkg-config, libyaml-cpp-dev, libre2-dev, libfyaml-dev).
#
# usage: packaging/test-deb.sh [BUILD_DIR]     (default: build)
# environment: KEEP_DEB_DIR=DIR copies the .debs there.
set -eu

build_dir=$(cd "${1:-build}" && pwd)
source_dir=$(cd "$(dirname "$0")/.." && pwd)
# N, the shared library's ABI version, as CMakeLists.txt sets it.
soversion=$(sed -n 's/^set(SAFESUBST_SOVERSION \([0-9]*\))$/\1/p' "$source_dir/CMakeLists.txt")
[ -n "$soversion" ] || { echo "FAIL: no set(SAFESUBST_SOVERSION N) in CMakeLists.txt" >&2; exit 1; }
library=libsafesubst$soversion
packages="safesubst $library libsafesubst-dev"
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
check() {  # check DESCRIPTION COMMAND...
  description=$1
  shift
  if "$@"; then echo "ok: $description"; else fail "$description"; fi
}

if [ "$(id -u)" -ne 0 ]; then
  echo "test-deb.sh installs packages: run it as root" >&2
  exit 2
fi
for package in $packages; do
  if dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    echo "$package is already installed (dpkg); remove it first (dpkg -r $package)" >&2
    exit 2
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/safesubst-deb-test.XXXXXX")
installed=""
cleanup() {
  for package in $installed; do  # most recently installed first: dependents go before what they need
    dpkg -P "$package" >"$work/remove.log" 2>&1 || cat "$work/remove.log" >&2
  done
  rm -rf "$work"
}
trap cleanup EXIT

echo "== cpack"
start=$(date +%s)
if ! cpack --config "$build_dir/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log" >&2
  echo "FAIL: cpack" >&2
  exit 1
fi
deb_of() { find "$work/out" -maxdepth 1 -name "$1_*.deb" | head -n 1; }
for package in $packages; do
  deb=$(deb_of "$package")
  [ -n "$deb" ] || { cat "$work/cpack.log" >&2; echo "FAIL: cpack made no ${package}_*.deb" >&2; exit 1; }
  echo "built $(basename "$deb"): $(du -k "$deb" | cut -f1) KiB"
  if [ -n "${KEEP_DEB_DIR:-}" ]; then cp "$deb" "$KEEP_DEB_DIR/"; fi
done
echo "cpack took $(($(date +%s) - start)) s"
check "cpack made exactly three packages" test "$(find "$work/out" -maxdepth 1 -name '*.deb' | wc -l)" -eq 3

echo "== package fields"
field() { dpkg-deb -f "$(deb_of "$1")" "$2"; }
depends_on() { field "$1" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep -qx "$2"; }
for package in $packages; do
  dpkg-deb -f "$(deb_of "$package")" | sed "s/^/$package: /" | grep -v '^[^:]*: \( \|Description\)'
  check "$package: Package is $package" test "$(field "$package" Package)" = "$package"
  # Debian policy 5.6.2: a name and an address (SAFESUBST_DEB_MAINTAINER).
  check "$package: Maintainer is 'Name <address>'" \
    sh -c "dpkg-deb -f '$(deb_of "$package")' Maintainer | grep -Eqx '[^<>]+ <[^<>@ ]+@[^<>@ ]+\.[a-z]+>'"
  check "$package: has a description" test -n "$(field "$package" Description)"
done
check "safesubst: Section is utils" test "$(field safesubst Section)" = utils
check "$library: Section is libs" test "$(field "$library" Section)" = libs
check "libsafesubst-dev: Section is libdevel" test "$(field libsafesubst-dev Section)" = libdevel
for dependency in libyaml-cpp0.7 libre2-9 libfyaml0 libstdc++6 libc6; do
  check "safesubst Depends on $dependency" depends_on safesubst "$dependency"
  check "$library Depends on $dependency" depends_on "$library" "$dependency"
done
version=$(sed -n 's/^project(safesubst VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
check "libsafesubst-dev Depends on $library (= $version)" \
  sh -c "dpkg-deb -f '$(deb_of libsafesubst-dev)' Depends | grep -q '$library (= $version)'"
for dependency in libyaml-cpp-dev libre2-dev libfyaml-dev; do  # safesubst.pc's Requires.private
  check "libsafesubst-dev Depends on $dependency" depends_on libsafesubst-dev "$dependency"
done

# Which files each package holds, from the .deb itself.
for package in $packages; do
  dpkg-deb -c "$(deb_of "$package")" | sed 's/.* \.\(\/[^ ]*\).*/\1/; s/\/$//' >"$work/$package.files"
done
holds() { grep -Eqx "$2" "$work/$1.files"; }
lacks() { ! grep -Eq "$2" "$work/$1.files"; }
check "safesubst holds /usr/bin/safesubst" holds safesubst /usr/bin/safesubst
check "safesubst holds /usr/bin/kubectl-safesubst" holds safesubst /usr/bin/kubectl-safesubst
check "safesubst holds the man page" holds safesubst /usr/share/man/man1/safesubst.1.gz
check "safesubst holds the bash completion" holds safesubst /usr/share/bash-completion/completions/safesubst
check "safesubst holds the zsh completion" holds safesubst /usr/share/zsh/vendor-completions/_safesubst
check "safesubst holds no library or header" lacks safesubst '/usr/(include|lib)/'
check "$library holds libsafesubst.so.$soversion" holds "$library" "/usr/lib/([^/]+/)?libsafesubst\\.so\\.$soversion"
check "$library holds nothing else but its docs" \
  sh -c "! grep -Ev '^/usr(/lib(/[^/]+)?(/libsafesubst\.so\.$soversion(\.[0-9.]+)?)?|/share(/doc(/$library(/copyright)?)?)?)?\$' '$work/$library.files' | grep -q ."
check "libsafesubst-dev holds the umbrella header" holds libsafesubst-dev /usr/include/safesubst/safesubst.h
check "libsafesubst-dev holds every public header" \
  test "$(grep -c '^/usr/include/safesubst/.*\.h$' "$work/libsafesubst-dev.files")" -eq "$(find "$source_dir/include/safesubst" -name '*.h' | wc -l)"
check "libsafesubst-dev holds the CMake package" holds libsafesubst-dev '/usr/lib/([^/]+/)?cmake/safesubst/safesubst-config.cmake'
check "libsafesubst-dev holds the pkg-config file" holds libsafesubst-dev '/usr/lib/([^/]+/)?pkgconfig/safesubst.pc'
check "libsafesubst-dev holds the static library" holds libsafesubst-dev '/usr/lib/([^/]+/)?libsafesubst\.a'
check "libsafesubst-dev holds the libsafesubst.so link" holds libsafesubst-dev '/usr/lib/([^/]+/)?libsafesubst\.so'
check "libsafesubst-dev holds no libsafesubst.so.$soversion" lacks libsafesubst-dev 'libsafesubst\.so\.'

install_package() {  # install_package NAME: dpkg -i its .deb, or stop
  if ! dpkg -i "$(deb_of "$1")" >"$work/install.log" 2>&1; then
    cat "$work/install.log" >&2
    echo "FAIL: dpkg -i $1 (are the packages it Depends on installed?)" >&2
    exit 1
  fi
  installed="$1 $installed"
}
copyright_ok() {  # the machine-readable format, naming the licence Debian ships
  file=/usr/share/doc/$1/copyright
  head -n 1 "$file" | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' &&
    grep -qx 'License: Apache-2.0' "$file" && grep -q '/usr/share/common-licenses/Apache-2.0' "$file"
}

echo "== dpkg -i safesubst (alone)"
install_package safesubst
check "/usr/share/doc/safesubst/copyright is a Debian copyright file" copyright_ok safesubst
check "kubectl-safesubst is a symlink to safesubst" test "$(readlink /usr/bin/kubectl-safesubst)" = safesubst
check "safesubst --version" sh -c "/usr/bin/safesubst --version | grep -qx 'safesubst $version'"
check "kubectl-safesubst --version" sh -c "/usr/bin/kubectl-safesubst --version | grep -qx 'safesubst $version'"
check "the command renders" sh -c "echo 'a: \${APP}' | APP=web /usr/bin/safesubst '\${APP}' | grep -qx 'a: web'"
check "no safesubst.pc without libsafesubst-dev" sh -c '! pkg-config --exists safesubst'
if command -v kubectl >/dev/null 2>&1; then
  check "kubectl safesubst --help" sh -c "kubectl safesubst --help | grep -q '^Usage: kubectl safesubst'"
else
  echo "note: kubectl not installed, 'kubectl safesubst --help' not tried"
fi

echo "== man page"
page=/usr/share/man/man1/safesubst.1.gz
if [ ! -f "$page" ]; then
  # Minimal Debian images exclude /usr/share/man from dpkg (path-exclude):
  # the page is listed but not on disk. Check the one inside the package.
  echo "note: $page is not on disk (dpkg path-exclude?); checking the copy in the .deb"
  dpkg-deb -x "$(deb_of safesubst)" "$work/extracted"
  page=$work/extracted/usr/share/man/man1/safesubst.1.gz
fi
if command -v man >/dev/null 2>&1; then
  check "man -l shows the page" sh -c "MANWIDTH=80 man -l '$page' 2>&1 | grep -q '^ENVSUBST MIGRATION'"
  if [ -f /usr/share/man/man1/safesubst.1.gz ]; then
    check "man safesubst finds the page" sh -c "MANWIDTH=80 man safesubst 2>&1 | grep -q '^SYNOPSIS'"
  fi
else
  fail "man is not installed (Debian: man-db): the man page was not checked"
fi

echo "== dpkg -i $library"
install_package "$library"
check "/usr/share/doc/$library/copyright is a Debian copyright file" copyright_ok "$library"
check "the loader finds libsafesubst.so.$soversion (ldconfig trigger)" sh -c "ldconfig -p | grep -q 'libsafesubst.so.$soversion '"
check "still no safesubst.pc without libsafesubst-dev" sh -c '! pkg-config --exists safesubst'

echo "== dpkg -i libsafesubst-dev: pkg-config and the consumer work now"
install_package libsafesubst-dev
check "/usr/share/doc/libsafesubst-dev/copyright is a Debian copyright file" copyright_ok libsafesubst-dev
pc=$(grep -E '/pkgconfig/safesubst.pc$' "$work/libsafesubst-dev.files" | head -n 1)
check "safesubst.pc names prefix /usr" grep -qx 'prefix=/usr' "$pc"
check "pkg-config --cflags --libs safesubst" sh -c "pkg-config --cflags --libs safesubst >'$work/pkg-config.out'"
echo "   pkg-config --cflags --libs safesubst: $(cat "$work/pkg-config.out")"
cxx=${CXX:-c++}
# shellcheck disable=SC2046  # flags are words
if "$cxx" -std=c++20 "$source_dir/examples/consumer/consumer.cc" -o "$work/consumer-static" \
     $(pkg-config --cflags safesubst) \
     $(pkg-config --static --libs safesubst | sed 's/-lsafesubst\b/-l:libsafesubst.a/') 2>"$work/static.log"; then
  check "static consumer renders" sh -c "'$work/consumer-static' APP=web | grep -qx '  name: web'"
else
  cat "$work/static.log" >&2
  fail "building examples/consumer against the packaged libsafesubst.a"
fi
# shellcheck disable=SC2046
if "$cxx" -std=c++20 "$source_dir/examples/consumer/consumer.cc" -o "$work/consumer-shared" \
     $(pkg-config --cflags --libs safesubst) 2>"$work/shared.log"; then
  check "shared consumer renders" sh -c "'$work/consumer-shared' APP=web | grep -qx '  name: web'"
  check "shared consumer loads the packaged libsafesubst.so.$soversion" \
    sh -c "ldd '$work/consumer-shared' | grep -Eq 'libsafesubst.so.$soversion => /(usr/)?lib/'"
else
  cat "$work/shared.log" >&2
  fail "building examples/consumer against the packaged libsafesubst.so"
fi

if [ "$failures" -ne 0 ]; then
  echo "test-deb: $failures check(s) failed" >&2
  exit 1
fi
echo "test-deb: all checks passed"
