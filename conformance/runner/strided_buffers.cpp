#include "convcheck/runner/strided_buffers.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace convcheck::runner {

namespace {

bool all_fill(const unsigned char* p, std::size_t bytes) {
    return std::all_of(p, p + bytes, [](unsigned char b) { return b == 0xFF; });
}

}  // namespace

std::size_t layout_bytes(const ConvDescriptor& d, TensorRole role) {
    return static_cast<std::size_t>(layout_of(d, role).span()) * static_cast<std::size_t>(size_of(dtype_of(d, role)));
}

void fill_gaps(const ConvDescriptor& d, TensorRole role, void* data) {
    const MemoryLayout l = layout_of(d, role);
    std::int64_t elements = 1;
    for (auto v : l.dims) elements *= v;
    if (l.span() == elements) return;  // as many elements as the span: no gaps
    const std::size_t e = static_cast<std::size_t>(size_of(dtype_of(d, role)));
    const auto gaps = gap_map(d, role);
    auto* p = static_cast<unsigned char*>(data);
    for (std::size_t i = 0; i < gaps.size(); ++i)
        if (gaps[i]) std::memset(p + i * e, 0xFF, e);
}

std::string written_gaps(const ConvDescriptor& d, const void* dst) {
    if (strides_of(d, TensorRole::dst).empty()) return "";
    const std::size_t e = static_cast<std::size_t>(size_of(d.dst_dtype()));
    const auto gaps = gap_map(d, TensorRole::dst);
    const auto* p = static_cast<const unsigned char*>(dst);
    std::int64_t total = 0, written = 0, first = -1;
    for (std::size_t i = 0; i < gaps.size(); ++i) {
        if (!gaps[i]) continue;
        ++total;
        if (all_fill(p + i * e, e)) continue;
        if (written++ == 0) first = static_cast<std::int64_t>(i);
    }
    if (written == 0) return "";
    return "the plugin wrote " + std::to_string(written) + " of the " + std::to_string(total) +
           " gap elements between dst's elements (ds=" + strides_text(d.dst_strides) + "), first at element offset " +
           std::to_string(first) + ": dst's gaps are not the plugin's to write";
}

namespace {

// Elements of `Word` in [p, p + count) whose bytes are all 0xFF.
template <class Word>
std::int64_t filled_words(const unsigned char* p, std::int64_t count) {
    std::int64_t filled = 0;
    for (std::int64_t i = 0; i < count; ++i) {
        Word w;
        std::memcpy(&w, p + i * static_cast<std::int64_t>(sizeof(Word)), sizeof(Word));
        filled += w == static_cast<Word>(~Word{0});
    }
    return filled;
}

}  // namespace

std::int64_t unwritten_dst_elements(const ConvDescriptor& d, const void* dst) {
    const std::size_t e = static_cast<std::size_t>(size_of(d.dst_dtype()));
    const auto* p = static_cast<const unsigned char*>(dst);
    // no gaps (every offset of the span holds an element): a count in memory order is the same count
    if (strides_of(d, TensorRole::dst).empty()) {
        const std::int64_t elements = d.dst_elements();
        switch (e) {
            case 1: return filled_words<std::uint8_t>(p, elements);
            case 2: return filled_words<std::uint16_t>(p, elements);
            case 4: return filled_words<std::uint32_t>(p, elements);
            case 8: return filled_words<std::uint64_t>(p, elements);
        }
    }
    std::int64_t count = 0;
    for_each_element(d, TensorRole::dst, [&](std::int64_t, std::int64_t at) { count += all_fill(p + at * e, e); });
    return count;
}

std::string layout_unclaimed(const PluginInfo& info, const ConvDescriptor& d) {
    const bool old_abi = info.abi_major == 1 && info.abi_minor < 2;
    const std::string built = "the plugin was built against ABI " + std::to_string(info.abi_major) + "." +
                              std::to_string(info.abi_minor) + ", which has no ";
    if (old_abi && d.filter_format == FilterFormat::oxi) return built + "OXI filter format (ABI 1.2)";
    for (TensorRole role : {TensorRole::src, TensorRole::weights, TensorRole::dst}) {
        if (strides_of(d, role).empty()) continue;
        const std::string tensor(to_string(role));
        if (old_abi) return built + "memory strides (ABI 1.2): its " + tensor + " would be read dense";
        if (!(info.strided_tensors & CONVCHECK_BIT(static_cast<int>(role))))
            return "the plugin does not claim strided " + tensor + " (plugin_info.strided_tensors)";
    }
    return "";
}

}  // namespace convcheck::runner
