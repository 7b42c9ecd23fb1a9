// The large suite: one tensor past 2^31 elements or 2^31 bytes in each case (src, weights or dst; f32,
// f16 and bf16; NCX and NXC), where an index or byte offset computed in 32 bits wraps. Sampled mode
// (check_sampled.cpp): the reference judges a sample of outputs that takes in both sides of every
// limit a tensor passes, and a scan of every dst element finds any left unwritten. Each name says which
// tensor passes which limit. Every case needs at most 4 GiB of buffers (docs/large.md).
#include "suites.hpp"

namespace convcheck::runner {

std::vector<SuiteEntry> large_suite() {
    return {
        // src 2,147,488,265 elements (4.0 GiB): past 2^31 elements and 2^31, 2^32 bytes; each row's every
        // 256th element is read, the rest of the tensor only addressed
        {"c=1,o=2,in=46345x46337,k=1x1,s=1x256,dt=bf16", "l", "src_bf16_past_2^31_elements_ncx"},
        // src 537,312,400 elements (2.0 GiB): past 2^31 bytes, not 2^31 elements
        {"c=16,o=4,in=5795x5795,k=3x3,s=16x16,bias=1,data=nxc", "l", "src_f32_past_2^31_bytes_nxc"},
        // weights 541,065,216 elements (2.0 GiB): a kernel of 32768 taps over one input element padded by
        // 32767 in front, so each (o, i) reads only its last tap (the others lie in the padding): output
        // channel 128's reads lie past 2^31 bytes, the rest before
        {"c=128,o=129,in=1,k=32768,pb=32767", "l", "weights_f32_past_2^31_bytes_oix"},
        // weights 1,077,936,128 elements (2.0 GiB), XIO ([k][i][o]): the last tap's block, every read, lies
        // past 2^31 bytes
        {"c=128,o=257,in=1,k=32768,pb=32767,dt=f16,wei=xio,bias=1", "l", "weights_f16_past_2^31_bytes_xio"},
        // dst exactly 2^29 elements, 2^31 bytes: the last byte is 2^31 - 1, no offset passes 2^31 (the
        // boundary itself: a 32-bit signed byte offset is right here)
        {"c=1,o=32768,in=16384,k=1", "l", "dst_f32_exactly_2^31_bytes_ncx"},
        // dst 536,903,680 elements (2.0 GiB): past 2^31 bytes
        {"c=1,o=32768,in=16385,k=1", "l", "dst_f32_past_2^31_bytes_ncx"},
        // dst 2,147,766,336 elements (4.0 GiB): past 2^31 elements and 2^31, 2^32 bytes
        {"c=1,o=64,in=5793x5793,k=1x1,dt=f16,data=nxc", "l", "dst_f16_past_2^31_elements_nxc"},
    };
}

}  // namespace convcheck::runner
