#pragma once
// QUASAR_CPU_CLONES before a CPU function with hot loops: GCC compiles it for x86-64-v4 (AVX-512),
// x86-64-v3 (AVX2, FMA) and the baseline, and the loader picks the best the machine runs, so that a
// portable build still uses wide vectors. The clones may round differently (FMA), so results agree
// to rounding across machines and are the same bits on one. Empty elsewhere (other compilers and
// architectures, sanitizer builds).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__CUDACC__) && \
    !defined(__SANITIZE_ADDRESS__)
#define QUASAR_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define QUASAR_CPU_CLONES
#endif
