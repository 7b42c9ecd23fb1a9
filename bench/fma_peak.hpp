// The machine's measured f32 FMA peak: a register-resident FMA loop (no memory traffic) run on
// `threads` threads at once. AVX-512 when the CPU has it, else AVX2.
#pragma once

namespace convcheck::bench {

// GFLOP/s (2 flops per FMA lane) of `threads` concurrent FMA loops.
double measured_fma_peak_gflops(int threads);

}  // namespace convcheck::bench
