# SPDX-License-Identifier: Apache-2.0
# CPack settings for the Debian packages of safesubst (included from
# packaging/CMakeLists.txt), split as Debian splits a library:
#
#   safesubst          the command, its kubectl plugin link, man page, completions
#   libsafesubstN      the shared library libsafesubst.so.N (N: SAFESUBST_SOVERSION)
#   libsafesubst-dev   headers, static library, .so link, CMake package, safesubst.pc
#
# Each package is an install component of packaging/CMakeLists.txt. Build them with
#   cpack --config <build>/CPackConfig.cmake -B <outdir>
# or run packaging/test-deb.sh, which also installs and checks them.

set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "safesubst")
set(CPACK_PACKAGE_VENDOR "safesubst maintainers")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# The Maintainer field of the packages: whoever builds packages for
# distribution sets it to the person or team who answers for them
# (-DSAFESUBST_DEB_MAINTAINER="Name <address>").
set(SAFESUBST_DEB_MAINTAINER "safesubst maintainers <maintainers@users.noreply.a-seed-f3c0b0f7.example>"
    CACHE STRING "Maintainer field of the Debian packages: Name <address>")
if(NOT SAFESUBST_DEB_MAINTAINER MATCHES "^[^<>]+ <[^<>@ ]+@[^<>@ ]+\\.[^<>@ ]+>$")
  message(FATAL_ERROR "SAFESUBST_DEB_MAINTAINER is '${SAFESUBST_DEB_MAINTAINER}'; Debian wants 'Name <address>'")
endif()
set(CPACK_PACKAGE_CONTACT "${SAFESUBST_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "YAML-context-aware replacement for envsubst in Kubernetes deploys")
set(SAFESUBST_DEB_ABOUT
    "safesubst renders Kubernetes YAML templates the way envsubst does in deploy\n"
    "scripts, without its damage: it substitutes only the variables a manifest\n"
    "declares, knows the YAML context of every $ (comments, block scalars,\n"
    "container command/args scripts are left alone), validates and encodes each\n"
    "value for where it lands, checks that the rendered document kept the\n"
    "template's structure, and merges common fragments after substitution.\n"
    "\n")
string(REPLACE ";" "" SAFESUBST_DEB_ABOUT "${SAFESUBST_DEB_ABOUT}")

# The DEB generator installs with CMAKE_INSTALL_PREFIX=/usr into a staging
# DESTDIR, so files written at install time (safesubst.pc) name /usr. Do not
# set CPACK_SET_DESTDIR: it would package the configure-time prefix (/usr/local).
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)

# One .deb per component, each named <package>_<version>_<arch>.deb.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_COMPONENTS_ALL command development)
if(SAFESUBST_SHARED_LIBRARY)
  list(APPEND CPACK_COMPONENTS_ALL library)
endif()

set(CPACK_DEBIAN_COMMAND_PACKAGE_NAME "safesubst")
set(CPACK_DEBIAN_COMMAND_PACKAGE_SECTION "utils")
set(CPACK_COMPONENT_COMMAND_DESCRIPTION
    "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}\n${SAFESUBST_DEB_ABOUT}"
    "This package holds the safesubst command (also the kubectl plugin\n"
    "kubectl-safesubst), its man page and its bash and zsh completions.")

set(CPACK_DEBIAN_LIBRARY_PACKAGE_NAME "libsafesubst${SAFESUBST_SOVERSION}")
set(CPACK_DEBIAN_LIBRARY_PACKAGE_SECTION "libs")
set(CPACK_COMPONENT_LIBRARY_DESCRIPTION
    "C++ library of safesubst, a YAML-context-aware envsubst\n${SAFESUBST_DEB_ABOUT}"
    "This package holds the shared library.")
# A shlibs file for the packages linked against it, and an ldconfig trigger.
set(CPACK_DEBIAN_LIBRARY_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME "libsafesubst-dev")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION "libdevel")
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION
    "C++ library of safesubst, a YAML-context-aware envsubst (development files)\n${SAFESUBST_DEB_ABOUT}"
    "This package holds the headers, the static library, the CMake package\n"
    "(find_package(safesubst CONFIG)) and the pkg-config file (safesubst.pc).")
# safesubst.pc names yaml-cpp, re2 and libfyaml in Requires.private, which
# pkg-config reads even without --static; the static library needs them to link.
set(SAFESUBST_DEB_DEV_DEPENDS "libyaml-cpp-dev, libre2-dev, libfyaml-dev")
if(SAFESUBST_SHARED_LIBRARY)
  string(PREPEND SAFESUBST_DEB_DEV_DEPENDS "libsafesubst${SAFESUBST_SOVERSION} (= ${PROJECT_VERSION}), ")
endif()
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "${SAFESUBST_DEB_DEV_DEPENDS}")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SUGGESTS "pkg-config, cmake")
foreach(component IN ITEMS COMMAND LIBRARY DEVELOPMENT)
  string(REPLACE ";" "" CPACK_COMPONENT_${component}_DESCRIPTION "${CPACK_COMPONENT_${component}_DESCRIPTION}")
endforeach()

# Runtime dependencies: computed by dpkg-shlibdeps (package dpkg-dev) when it
# is there; otherwise the list it computed on Debian 12 (bookworm) for the
# program and the shared library, which link the same libraries.
find_program(SAFESUBST_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(SAFESUBST_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(SAFESUBST_DEB_RUNTIME_DEPENDS
      "libc6 (>= 2.34), libfyaml0 (>= 0.7.12), libgcc-s1 (>= 3.0), libre2-9 (>= 20160901), libstdc++6 (>= 11), libyaml-cpp0.7 (>= 0.7.0)")
  set(CPACK_DEBIAN_COMMAND_PACKAGE_DEPENDS "${SAFESUBST_DEB_RUNTIME_DEPENDS}")
  set(CPACK_DEBIAN_LIBRARY_PACKAGE_DEPENDS "${SAFESUBST_DEB_RUNTIME_DEPENDS}")
endif()

# Keep build trees and editor files out of a source package (cpack --config CPackSourceConfig.cmake).
set(CPACK_SOURCE_GENERATOR "TGZ")
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "~$")

include(CPack)
