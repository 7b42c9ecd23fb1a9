// The memory of a benchdnn case's tensors (benchdnn_memory.hpp): tags and strides as formats and memory strides.
#include "convcheck/formats/benchdnn_memory.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "convcheck/core/memory_layout.hpp"

namespace convcheck {

namespace {

// A tag's letters when it is a plain (non-blocked) oneDNN tag: "abx"/"axb" expanded for `ndims`, a named
// tag (nchw, hwio, ...) spelled in letters; empty when blocked or unknown.
std::string plain_letters(const std::string& tag, int ndims) {
    static const char* const named[][2] = {
        {"ncw", "abc"},     {"nwc", "acb"},     {"nchw", "abcd"},     {"nhwc", "acdb"},    {"ncdhw", "abcde"},
        {"ndhwc", "acdeb"}, {"oiw", "abc"},     {"wio", "cba"},       {"oihw", "abcd"},    {"hwio", "cdba"},
        {"oidhw", "abcde"}, {"dhwio", "cdeba"}, {"goiw", "abcd"},     {"wigo", "dcab"},    {"goihw", "abcde"},
        {"hwigo", "decab"}, {"goidhw", "abcdef"}, {"dhwigo", "defcab"}, {"owi", "acb"},
        {"ohwi", "acdb"},  {"odhwi", "acdeb"}, {"iow", "bac"},     {"iohw", "bacd"},     {"iodhw", "bacde"},
        {"giow", "acbd"},  {"giohw", "acbde"}, {"giodhw", "acbdef"}};
    for (const auto& n : named)
        if (tag == n[0]) return n[1];
    const bool letters = !tag.empty() && std::all_of(tag.begin(), tag.end(), [](char c) { return (c >= 'a' && c <= 'f') || c == 'x'; });
    if (!letters || std::count(tag.begin(), tag.end(), 'x') > 1) return {};
    // oneDNN's `x` stands for the dims the other letters do not name, in order: abx, axb, xba, xcab
    const int named_dims = static_cast<int>(tag.size()) - (tag.find('x') == std::string::npos ? 0 : 1);
    std::string x;
    for (int i = named_dims; i < ndims; ++i) x += static_cast<char>('a' + i);
    std::string out;
    for (char c : tag) out += c == 'x' ? x : std::string(1, c);
    return out;
}

bool blocked(const std::string& tag) {
    return std::any_of(tag.begin(), tag.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c)); });
}

// A data tensor's tag -> "ncx", "nxc", "any", the letters of another plain layout, or "" with *reason set.
std::string data_layout(const std::string& option, const std::string& tag, int ndims, std::string* reason) {
    if (tag == "any") return "any";
    if (blocked(tag)) return *reason = option + ": a blocked layout (e.g. nChw16c); convcheck has ncx and nxc", "";
    const std::string letters = plain_letters(tag, ndims);
    if (letters.empty()) return *reason = option + ": an unknown memory format tag", "";
    if (static_cast<int>(letters.size()) != ndims)
        return *reason = option + ": a tag for another rank than the problem's tensors (benchdnn fails the case)", "";
    if (letters == plain_letters("abx", ndims)) return "ncx";
    if (letters == plain_letters("axb", ndims)) return "nxc";
    return letters;
}

// The weights' tag -> "oix", "xio", "any", the letters of another plain layout (conv driver), or "" with *reason
// set. Grouped weights (g given) have one more dim. Both drivers' weights are {[G,] OC/G, IC/G, k...} (letters a,
// b, c...), OC the output channels; convcheck's oix and xio are the forward convolution's, so for the deconv
// driver (whose forward transposes OC and IC) they are other letters: oix = [G][IC/G][OC/G][k...],
// xio = [k...][OC/G][G][IC/G].
std::string weights_layout(const std::string& tag, int ndims, bool grouped, BenchdnnDriver driver, std::string* reason) {
    const std::string option = "--wtag";
    if (tag == "any") return "any";
    if (blocked(tag)) return *reason = option + ": a blocked layout (e.g. OIhw16i16o); convcheck has oix and xio", "";
    const std::string letters = plain_letters(tag, ndims);
    if (letters.empty()) return *reason = option + ": an unknown memory format tag", "";
    if (static_cast<int>(letters.size()) != ndims)
        return *reason = option + ": a tag for another rank than the problem's weights (benchdnn fails the case)", "";
    const int first_spatial = grouped ? 3 : 2;
    std::string spatial;
    for (int i = first_spatial; i < ndims; ++i) spatial += static_cast<char>('a' + i);
    const bool conv = driver == BenchdnnDriver::conv;
    // conv: oix = abx; xio = [spatial][I/G][O] = (spatial, i, o) plain, (spatial, i, g, o/g) grouped: hwio, hwigo
    const std::string oix = conv ? plain_letters("abx", ndims) : (grouped ? "acb" : "ba") + spatial;
    const std::string xio = spatial + (conv ? (grouped ? "cab" : "ba") : (grouped ? "bac" : "ab"));
    if (letters == oix) return "oix";
    if (letters == xio) return "xio";
    if (conv) return letters;  // memory strides over oix (apply_benchdnn_memory)
    return *reason = option + ": a plain weights layout convcheck does not have for the deconv driver's {OC, IC, k...} "
                              "weights (it has iox and xoi)", "";
}

// "903168x1x4032x9" -> its integers; false when a part is not one.
bool parse_strides(const std::string& text, std::vector<std::int64_t>* out) {
    for (const std::string& part : split_benchdnn_list(text, 'x')) {
        long long v = 0;
        if (!read_benchdnn_integer(part, &v)) return false;
        out->push_back(v);
    }
    return true;
}

// Dense strides of a tensor whose memory holds its logical dims in the order of `letters` (outermost first).
std::vector<std::int64_t> strides_of_letters(const std::string& letters, const std::vector<std::int64_t>& dims) {
    std::vector<std::int64_t> strides(dims.size(), 1);
    std::int64_t step = 1;
    for (std::size_t i = letters.size(); i-- > 0;) {
        const std::size_t dim = static_cast<std::size_t>(letters[i] - 'a');
        strides[dim] = step;
        step *= dims[dim];
    }
    return strides;
}

// A tensor's logical-order strides from its memory: given, or its plain tag's (none for a named format).
std::vector<std::int64_t> logical_strides(const BenchdnnTensorMemory& t, const std::vector<std::int64_t>& dims) {
    if (!t.strides.empty()) return t.strides;
    if (!t.letters.empty()) return strides_of_letters(t.letters, dims);
    return {};
}

}  // namespace

std::optional<BenchdnnMemory> benchdnn_memory(const std::string& stag, const std::string& wtag, const std::string& dtag,
                                              const std::string& strides, BenchdnnDriver driver, int ndims,
                                              bool grouped, std::string* reason) {
    const bool conv = driver == BenchdnnDriver::conv;
    const std::string src = data_layout("--stag", stag, ndims, reason);
    if (src.empty()) return std::nullopt;
    const std::string dst = data_layout("--dtag", dtag, ndims, reason);
    if (dst.empty()) return std::nullopt;
    const int wei_ndims = ndims + (grouped ? 1 : 0);
    const std::string wei = weights_layout(wtag, wei_ndims, grouped, driver, reason);
    if (wei.empty()) return std::nullopt;

    // --strides=SRC:WEI:DST (bench_conv.cpp verify_input): two colons, and no tensor with both a tag and strides
    std::array<std::vector<std::int64_t>, 3> given;
    if (!strides.empty()) {
        const auto parts = split_benchdnn_list(strides, ':');
        if (parts.size() != 3)
            return *reason = "--strides: needs SRC:WEI:DST (two colons); benchdnn refuses others", std::nullopt;
        const std::string tags[3] = {stag, wtag, dtag};
        const int dims[3] = {ndims, wei_ndims, ndims};
        const char* names[3] = {"src", "weights", "dst"};
        for (int i = 0; i < 3; ++i) {
            if (parts[i].empty()) continue;
            if (tags[i] != "any")
                return *reason = "--strides with a tag for " + std::string(names[i]) +
                                 ": benchdnn refuses both knobs for one tensor",
                       std::nullopt;
            if (!parse_strides(parts[i], &given[i]))
                return *reason = "--strides: " + std::string(names[i]) + "'s are not integers", std::nullopt;
            if (static_cast<int>(given[i].size()) != dims[i])
                return *reason = "--strides: " + std::string(names[i]) + "'s have " + std::to_string(given[i].size()) +
                                 " values for a tensor of " + std::to_string(dims[i]) + " dims (benchdnn fails the case)",
                       std::nullopt;
        }
    }

    BenchdnnMemory m;
    const auto named = [](const std::string& l) { return l == "ncx" || l == "nxc" || l == "any"; };
    const bool data_named = given[0].empty() && given[2].empty() && named(src) && named(dst) &&
                            (src == "any" || dst == "any" || src == dst);
    if (data_named) {
        // `any` lets the library choose; a plain tag on the other tensor (or benchdnn's own abx) is one choice
        m.src.format = m.dst.format = src != "any" ? src : dst != "any" ? dst : "ncx";
    } else {
        if (!conv)
            return *reason = src != dst && named(src) && named(dst)
                                 ? "--stag/--dtag: src and dst in different layouts; convcheck's transposed convolution has "
                                   "one layout for both"
                                 : "--stag/--dtag: a plain layout convcheck's transposed convolution does not have (it has "
                                   "ncx and nxc)",
                   std::nullopt;
        // memory strides over ncx (logical order); `any` takes the other data tensor's tag, else dense ncx
        const auto letters = [&](const std::string& l, const std::string& other) {
            const std::string chosen = l != "any" ? l : other != "any" ? other : "ncx";
            return chosen == "ncx" ? std::string() : chosen == "nxc" ? plain_letters("axb", ndims) : chosen;
        };
        m.src.strides = given[0];
        if (given[0].empty()) m.src.letters = letters(src, given[2].empty() ? dst : "any");
        m.dst.strides = given[2];
        if (given[2].empty()) m.dst.letters = letters(dst, given[0].empty() ? src : "any");
    }
    if (!given[1].empty()) m.weights.strides = given[1];
    else if (wei == "any" || wei == "oix" || wei == "xio") m.weights.format = wei == "any" ? "oix" : wei;
    else m.weights.letters = wei;
    return m;
}

bool apply_benchdnn_memory(const BenchdnnMemory& m, ConvDescriptor& d, std::string* reason) {
    d.data_format = m.src.format == "nxc" ? DataFormat::nxc : DataFormat::ncx;
    d.filter_format = m.weights.format == "xio" ? FilterFormat::xio : FilterFormat::oix;
    // logical dims: data {N, C, spatial...}; weights {[G,] OC/G, IC/G, k...}
    std::vector<std::int64_t> src_dims{d.batch, d.in_channels}, dst_dims{d.batch, d.out_channels};
    std::vector<std::int64_t> wei_dims{d.out_channels_per_group(), d.in_channels_per_group()};
    const bool grouped = !m.weights.strides.empty() ? m.weights.strides.size() == static_cast<std::size_t>(d.rank + 3)
                                                    : m.weights.letters.size() == static_cast<std::size_t>(d.rank + 3);
    if (grouped) wei_dims.insert(wei_dims.begin(), d.groups);
    for (int a = 0; a < d.rank; ++a) {
        src_dims.push_back(d.input_size[a]);
        dst_dims.push_back(d.output_size(a));
        wei_dims.push_back(d.kernel_size[a]);
    }
    d.src_strides = logical_strides(m.src, src_dims);
    d.dst_strides = logical_strides(m.dst, dst_dims);
    std::vector<std::int64_t> w = logical_strides(m.weights, wei_dims);
    if (grouped && !w.empty()) {
        // G and OC/G as convcheck's one O dim (o = g * OC/G + oc): stride(G) = OC/G * stride(OC/G), unless one is 1
        const std::int64_t G = d.groups, OCg = d.out_channels_per_group();
        if (G > 1 && OCg > 1 && w[0] != OCg * w[1])
            return *reason = "--wtag/--strides: grouped weights whose groups and output channels are not one dim in "
                             "memory (stride(G) = OC/G x stride(OC/G)); convcheck's weights have one O dim",
                   false;
        const std::int64_t o = OCg > 1 ? w[1] : w[0];
        w.erase(w.begin());
        w[0] = o;
    }
    d.weights_strides = w;
    // a dense list is no list: the descriptor's canonical form gives none
    for (auto* s : {&d.src_strides, &d.weights_strides, &d.dst_strides})
        if (!s->empty() && *s == dense_strides(s == &d.weights_strides ? d.weights_dims()
                                               : s == &d.src_strides   ? d.src_dims()
                                                                       : d.dst_dims()))
            s->clear();
    try {
        for (TensorRole r : {TensorRole::src, TensorRole::weights, TensorRole::dst}) validate_strides(d, r);
    } catch (const ConvError& e) {
        return *reason = "--strides/--stag/--wtag/--dtag: " + e.attribute() + "=" + e.value() + ": " + e.rule() +
                         " (memory_layout.hpp: convcheck lays out no such tensor)",
               false;
    }
    return true;
}

}  // namespace convcheck
