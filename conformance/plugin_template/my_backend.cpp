// A convcheck backend plugin template: copy this folder, rename my_backend, and call your library
// where the direct loop below stands. It builds against the installed SDK alone
// (find_package(convcheck)): the C ABI header <convcheck/plugin.h> and its C++ helper
// <convcheck/plugin_support.hpp>; the ABI is documented in the header and in docs/plugin-abi.md.
//
// What it shows:
//   - the one entry point, convcheck_get_api, returning a table that lives as long as the library;
//     basic_api and add_conv fill the entries every plugin shares;
//   - describe: what the backend claims (here f32, NCX data, OIX weights, ranks 1-3);
//   - query: decline what it cannot do, with a reason (the runner records "unsupported");
//   - prepare once, execute many (ABI 1.2): prepare does the work that depends on the descriptor
//     (and the weights, when they come with it); execute computes on the runner's buffers (inputs
//     are read-only, dst is exactly dst-sized); the one-shot conv_execute is prepare + execute;
//   - errors as values with a code, and no C++ exception ever crossing the C boundary (the
//     helpers' guarded() turns one into an error value).
// No thread may start before create (plugin.h, "Processes and threads"): the runner forks.
#include <convcheck/plugin.h>
#include <convcheck/plugin_support.hpp>

#include <memory>
#include <string>

namespace {

namespace support = convcheck_plugin_support;

struct Instance {
    int threads = 0;  // 0: the backend's default
};

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return support::guarded("my_backend create", [&]() -> convcheck_error* {
        auto instance = std::make_unique<Instance>();
        // num_threads, and the options (ABI 1.1): this template takes none, so any is refused.
        if (auto* e = support::read_create_args(args, &instance->threads)) return e;
        *out = reinterpret_cast<convcheck_plugin*>(instance.release());
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "my_backend";  // static strings: they must live until destroy
    mine.version = "0.1.0";
    mine.operations = CONVCHECK_OP_CONV;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32);
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX);
    mine.accumulation_dtype = CONVCHECK_F32;
    return support::fill_info(info, mine);  // writes only what the runner's struct_size covers
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* d, convcheck_support* out) {
    return support::guarded("my_backend conv_query", [&]() -> convcheck_error* {
        if (auto* e = support::check_conv_call(d, nullptr)) return e;  // a descriptor shorter than ABI 1.0's
        if (d->dtype != CONVCHECK_F32) return support::unsupported(out, "only f32");
        if (d->data_format != CONVCHECK_NCX || d->filter_format != CONVCHECK_OIX)
            return support::unsupported(out, "only NCX data and OIX weights");
        if (d->rank < 1 || d->rank > 3) return support::unsupported(out, "ranks 1-3 only");
        return support::supported(out);
    });
}

// The plan: the descriptor lifted to three spatial axes, so that one loop nest serves every rank.
// A real backend builds its kernel or primitive here, and packs the weights when prepare has them.
struct Plan : convcheck_conv_plan {
    explicit Plan(const convcheck_conv_desc& d) : convcheck_conv_plan(d) {
        if (d.dtype != CONVCHECK_F32 || d.data_format != CONVCHECK_NCX || d.filter_format != CONVCHECK_OIX ||
            d.rank < 1 || d.rank > 3)
            throw support::PluginError(CONVCHECK_ERROR_UNIMPLEMENTED, "my_backend: a case its query declines");
        const int shift = 3 - d.rank;
        for (int i = 0; i < d.rank; ++i) {
            in[shift + i] = d.input_size[i], k[shift + i] = d.kernel_size[i], s[shift + i] = d.strides[i];
            dl[shift + i] = d.dilations[i], pb[shift + i] = d.pads_begin[i], out[shift + i] = support::output_size(d, i);
        }
    }

    // dst(n, g*OCg+oc, o) = bias + sum_{ic,k} src(n, g*ICg+ic, o*s - pb + k*d) * wei(g*OCg+oc, ic, k)
    convcheck_error* execute(const convcheck_conv_args& a) override {
        const convcheck_conv_desc& d = desc;
        const float* src = static_cast<const float*>(a.src);
        const float* wei = static_cast<const float*>(a.weights);
        const float* bias = static_cast<const float*>(a.bias);
        float* dst = static_cast<float*>(a.dst);
        const long long G = d.groups, ICg = d.in_channels / G, OCg = d.out_channels / G;
        long long o_index = 0;
        for (long long n = 0; n < d.batch; ++n)
            for (long long oc = 0; oc < d.out_channels; ++oc)
                for (long long od = 0; od < out[0]; ++od)
                    for (long long oh = 0; oh < out[1]; ++oh)
                        for (long long ow = 0; ow < out[2]; ++ow) {
                            float sum = d.has_bias ? bias[oc] : 0.0f;
                            const long long g = oc / OCg;
                            for (long long ic = 0; ic < ICg; ++ic)
                                for (long long kd = 0; kd < k[0]; ++kd)
                                    for (long long kh = 0; kh < k[1]; ++kh)
                                        for (long long kw = 0; kw < k[2]; ++kw) {
                                            const long long id = od * s[0] - pb[0] + kd * dl[0];
                                            const long long ih = oh * s[1] - pb[1] + kh * dl[1];
                                            const long long iw = ow * s[2] - pb[2] + kw * dl[2];
                                            if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] || iw < 0 || iw >= in[2])
                                                continue;
                                            const long long c = g * ICg + ic;
                                            sum += src[(((n * d.in_channels + c) * in[0] + id) * in[1] + ih) * in[2] + iw] *
                                                   wei[(((oc * ICg + ic) * k[0] + kd) * k[1] + kh) * k[2] + kw];
                                        }
                            dst[o_index++] = sum;
                        }
        support::write_implementation(&a, "direct_loops");
        return nullptr;
    }

    long long in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pb[3] = {0, 0, 0},
              out[3] = {1, 1, 1};
};

std::unique_ptr<convcheck_conv_plan> prepare(convcheck_plugin*, const convcheck_conv_desc& d,
                                             const support::PrepareInputs&) {
    return std::make_unique<Plan>(d);
}

const convcheck_api api = [] {
    convcheck_api a = support::basic_api(create, destroy, describe);
    support::add_conv<prepare>(a, conv_query);  // no continuous convolution: cc_query/cc_execute stay NULL
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
