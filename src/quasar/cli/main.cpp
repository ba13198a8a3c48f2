// Placeholder entry point; the CLI proper lives in cli/.
#include <cstdio>
int main() { std::puts("quasar"); return 0; }
