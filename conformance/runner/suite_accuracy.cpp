// The accuracy suite (docs/accuracy.md): stress mode (s) on cases with enough outputs for the
// statistics (T >= 1000) over a range of reduction lengths n, and precision mode (r) cases whose
// exact results need every significand bit of the inputs.
#include "suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> accuracy_suite() {
    return {
        // ---- stress: every data kind, per-output bound and statistics
        {"c=4,o=4,in=32x32,k=1x1", "s", "stress/pointwise_n4"},
        {"c=3,o=8,in=20x20,k=3x3,pb=1x1,pe=1x1,bias=1", "s", "stress/n28_bias"},
        {"c=16,o=8,in=12x12,k=3x3,pb=1x1,pe=1x1,data=nxc,wei=xio", "s", "stress/n144_nxc_xio"},
        {"c=16,o=16,g=16,in=16x16,k=3x3,pb=1x1,pe=1x1", "s", "stress/depthwise"},
        {"n=2,c=8,o=8,in=100,k=5,pb=2,pe=2", "s", "stress/1d"},
        {"c=2,o=4,in=8x8x8,k=3x3x3,pb=1x1x1,pe=1x1x1", "s", "stress/3d"},
        {"c=4,o=8,in=16x16,k=3x3,pb=1x1,pe=1x1,dt=f16", "s", "stress/f16"},
        {"c=4,o=8,in=16x16,k=3x3,pb=1x1,pe=1x1,dt=bf16,bias=1", "s", "stress/bf16"},
        // n = 2304 f16 terms: vacuous per-output bound under f16 accumulation (gamma_n(2^-11) = inf)
        {"c=256,o=16,in=8x8,k=3x3,pb=1x1,pe=1x1,dt=f16", "bs", "stress/long_f16"},
        // ---- precision: a backend that rounds inputs to TF32 or bf16 inside fails, named
        {"c=2,o=4,in=8x8,k=3x3,pb=1x1,pe=1x1", "r", "precision/2d"},
        {"c=4,o=6,in=10,k=3,data=nxc", "r", "precision/1d_nxc"},
        {"c=2,o=2,in=5x5x5,k=2x2x2,data=nxc,wei=xio", "r", "precision/3d_nxc_xio"},
        {"c=4,o=4,g=4,in=9x9,k=3x3,pb=1x1,pe=1x1", "r", "precision/depthwise"},
        {"c=3,o=4,in=9x9,k=3x3,dt=f16", "r", "precision/f16"},
    };
}

}  // namespace convcheck::runner
