// PyTorch conv: pads and shapes derived by hand from nn.Conv / F.conv (padding int, tuple, 'same', 'valid').
#include "case_table.hpp"
#include "convcheck/reference/dialects/pytorch.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;
using cases::check_table;

TEST(PytorchDialect, ByHand) {
    check_table("pytorch", {
        // 'same', even kernel: total = 1*(4-1) = 3, left = 3 // 2 = 1, the extra on the right
        {"padding=same in=7 k=4", "pb=1 pe=2 out=7"},
        // 'same' with dilation: total = 2*(4-1) = 6 -> 3/3
        {"padding=same in=9 k=4 dilation=2", "pb=3 pe=3 out=9 d=2"},
        // 'valid': floor((7 - 3) / 2) + 1 = 3
        {"padding=valid in=7 k=3 stride=2", "pb=0 pe=0 out=3"},
        // int padding is symmetric: floor((5 + 2 - 3) / 2) + 1 = 3
        {"padding=1 in=5 k=3 stride=2", "pb=1 pe=1 out=3"},
        // tuple padding: H 1, W 2 -> 5, 7
        {"padding=1x2 in=5x5 k=3x3", "pb=1x2 pe=1x2 out=5x7"},
        {"kernel_size=3 in=5x5", "k=3x3 out=3x3"},
        {"padding='same' in=5 k=3", "out=5"},
    });
}

TEST(PytorchDialect, RejectsWhatPytorchRejects) {
    check_table("pytorch", {
        {"padding=same stride=2 in=7 k=3", "error padding='same' is not supported for strided convolutions"},
        {"padding=full in=7 k=3", "error Invalid padding string 'full', should be one of {'valid', 'same'}"},
        {"padding=-1 in=7 k=3", "error negative padding is not supported"},
        {"stride=0 in=7 k=3", "error non-positive stride is not supported"},
        {"dilation=0 in=7 k=3", "error dilation should be greater than zero"},
        {"groups=3 c=4 o=6 in=7 k=3", "error in_channels must be divisible by groups"},
        {"padding=1x1x1 in=7x7 k=3x3",
         "error expected padding to be a single integer value or a list of 2 values to match the convolution dimensions, but got padding=[1, 1, 1]"},
        // K = 3 > 2: the padded size and the (dilated) kernel size per axis
        {"in=2x4 k=3x3", "error Calculated padded input size per channel: (2 x 4). Kernel size: (3 x 3). Kernel size can't be greater than actual input size"},
        {"padding_mode=reflect in=7 k=3", "ours only padding_mode='zeros'"},
    });
}
