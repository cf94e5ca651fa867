// Placeholder until the conformance runner lands: reports itself skipped.
#include <cstdio>
int main() { std::puts("conformance runner not written yet"); return 77; }
