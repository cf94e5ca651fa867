# CPack settings for the Debian package `safesubst` (included from
# packaging/CMakeLists.txt). Build it with
#   cpack --config <build>/CPackConfig.cmake -B <outdir>
# or run packaging/test-deb.sh, which also installs and checks it.

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "safesubst")
set(CPACK_PACKAGE_VENDOR "safesubst maintainers")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "safesubst maintainers <maintainers@users.noreply.a-seed-f3c0b0f7.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "YAML-context-aware replacement for envsubst in Kubernetes deploys")
set(CPACK_PACKAGE_DESCRIPTION
    "safesubst renders Kubernetes YAML templates the way envsubst does in deploy scripts, without\n"
    "its damage: it substitutes only the variables a manifest declares, knows the YAML context\n"
    "of every $ (comments, block scalars, container command/args scripts are left alone),\n"
    "validates and encodes each value for where it lands, checks that the rendered document kept\n"
    "the template's structure, and merges common fragments after substitution.\n"
    "\n"
    "The package holds the safesubst command (also as the kubectl plugin kubectl-safesubst),\n"
    "its man page and shell completions, and the C++ library with headers, a CMake package\n"
    "and a pkg-config file.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")

# The DEB generator installs with CMAKE_INSTALL_PREFIX=/usr into a staging
# DESTDIR, so files written at install time (safesubst.pc) name /usr. Do not
# set CPACK_SET_DESTDIR: it would package the configure-time prefix (/usr/local).
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # safesubst_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_SECTION "utils")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# The shared library ships in this package: a shlibs file and an ldconfig trigger.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# Development files of the library's private dependencies: needed to link the
# static library, and by pkg-config for Requires.private.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libyaml-cpp-dev, libre2-dev, pkg-config, cmake")

# Runtime dependencies: computed by dpkg-shlibdeps (package dpkg-dev) when it
# is there; otherwise the list it computed on Debian 12 (bookworm) for this package.
find_program(SAFESUBST_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(SAFESUBST_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6 (>= 2.34), libgcc-s1 (>= 3.0), libre2-9 (>= 20160901), libstdc++6 (>= 11), libyaml-cpp0.7 (>= 0.7.0)")
endif()

# Keep build trees and editor files out of a source package (cpack --config CPackSourceConfig.cmake).
set(CPACK_SOURCE_GENERATOR "TGZ")
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "~$")

include(CPack)
