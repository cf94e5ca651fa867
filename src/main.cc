// The safesubst command: a thin layer over the library (see src/cli_*.cc).
#include "cli.h"

int main(int argc, char** argv) { return safesubst::cli::Main(argc, argv); }
