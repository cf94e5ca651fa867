// The command-line interface. Everything here only wires library calls to
// files, streams and exit codes; the rules live in the library.
#pragma once

namespace safesubst::cli {

/// Exit codes, as SPEC's Failure behaviour says.
enum ExitCode : int { kExitOk = 0, kExitInputError = 1, kExitUsage = 2 };

int Main(int argc, char** argv);

}  // namespace safesubst::cli
