// PyTorch nn.Conv1d/2d/3d and F.conv*d: padding int / tuple (symmetric), 'same', 'valid'.
//
//   int/tuple p: out = floor((in + 2p - K) / s) + 1; "Kernel size can't be greater than actual input size"
//   'valid':     p = 0
//   'same':      every stride must be 1; t = d*(k-1), left = t // 2, the odd extra on the right
// Data NCX, weights OIX ([O][I/groups][k...]).
#pragma once

#include "convcheck/reference/dialects/dialect.hpp"

namespace convcheck::reference::dialects::pytorch {

struct ConvAttributes {
    ConvShapes shapes;                 // kernel_size
    std::vector<std::int64_t> stride;  // 1 or rank values; empty: 1
    std::string padding_mode_string;   // "same" / "valid" / "" (use padding)
    std::vector<std::int64_t> padding; // 1 or rank values; empty: 0
    std::vector<std::int64_t> dilation;
    std::int64_t groups = 1;
    std::string padding_mode = "zeros";  // the only mode that is a convolution with zero padding
};

DialectResult conv(const ConvAttributes& attributes);
// Text keys: n c o in k (or kernel_size), stride, padding (int, AxB, same, valid), dilation, groups, padding_mode.
DialectResult read(const AttributeSet& attributes);
std::optional<AttributeSet> spell(const Request& request, std::string* why_not);

}  // namespace convcheck::reference::dialects::pytorch
