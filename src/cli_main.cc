#include "cli.h"

#include <cstdio>

namespace safesubst::cli {

int Main(int, char**) {
  std::fputs("safesubst " SAFESUBST_VERSION "\n", stdout);
  return kExitOk;
}

}  // namespace safesubst::cli
