#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every source file of the project names its licence (issue 27): C++ sources
# and headers, shell scripts and CMake files carry an SPDX-License-Identifier
# line near their top. Prints the files that lack it and fails.
#
# usage: spdx_test.sh SOURCE_DIR
set -eu
cd "$1"
missing=$(find src include tests fuzz bench cmake packaging examples .ci CMakeLists.txt \
    -path tests/data -prune -o -path tests/golden -prune -o -path tests/regression -prune -o \
    -type f \( -name '*.cc' -o -name '*.h' -o -name '*.sh' -o -name '*.cmake' -o -name CMakeLists.txt \
    -o -path '.ci/*' \) -print |
  while read -r file; do
    head -n 3 "$file" | grep -q 'SPDX-License-Identifier: Apache-2.0' || echo "$file"
  done)
if [ -n "$missing" ]; then
  echo "no SPDX-License-Identifier line in the first 3 lines of:" >&2
  echo "$missing" >&2
  exit 1
fi
echo "every source file names its licence"
