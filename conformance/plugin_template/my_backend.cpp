// A convcheck backend plugin template: copy this folder, rename my_backend, and call your library
// where the direct loop below stands. It builds against the installed header alone
// (find_package(convcheck)); the ABI is documented in the header and in docs/plugin-abi.md.
//
// What it shows:
//   - the one entry point, convcheck_get_api, returning a table that lives as long as the library;
//   - describe: what the backend claims (here f32, NCX data, OIX weights, ranks 1-3);
//   - query: decline what it cannot do, with a reason (the runner records "unsupported");
//   - execute: compute on the runner's buffers (inputs are read-only, dst is exactly dst-sized);
//   - errors as values, and no C++ exception ever crossing the C boundary.
#include <convcheck/plugin.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>

struct convcheck_error {
    std::string message;
};

namespace {

struct Instance {
    int threads = 0;
};

convcheck_error* error(const std::string& message) { return new (std::nothrow) convcheck_error{message}; }

template <typename Body>
convcheck_error* guarded(Body&& body) noexcept {
    try {
        return body();
    } catch (const std::exception& e) {
        return error(e.what());
    } catch (...) {
        return error("unknown exception");
    }
}

long long output_size(const convcheck_conv_desc& d, int a) {
    const long long extent = (d.kernel_size[a] - 1) * d.dilations[a] + 1;
    return (d.input_size[a] + d.pads_begin[a] + d.pads_end[a] - extent) / d.strides[a] + 1;
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return guarded([&]() -> convcheck_error* {
        auto* instance = new Instance{};
        if (args && args->struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_create_args, num_threads))
            instance->threads = args->num_threads;
        // ABI 1.1: options ("key=value,..."). This template takes none.
        if (args && args->struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_create_args, options) && args->options &&
            *args->options) {
            delete instance;
            return error(std::string("my_backend takes no options, got '") + args->options + "'");
        }
        *out = reinterpret_cast<convcheck_plugin*>(instance);
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    if (!info || info->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_plugin_info, accumulation_dtype))
        return error("describe: the runner's convcheck_plugin_info is too small");
    info->name = "my_backend";
    info->version = "0.1.0";
    info->operations = CONVCHECK_OP_CONV;
    info->dtypes = CONVCHECK_BIT(CONVCHECK_F32);
    info->ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    info->data_formats = CONVCHECK_BIT(CONVCHECK_NCX);
    info->filter_formats = CONVCHECK_BIT(CONVCHECK_OIX);
    info->accumulation_dtype = CONVCHECK_F32;
    return nullptr;
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* d, convcheck_support* out) {
    out->supported = 0;
    if (d->dtype != CONVCHECK_F32) std::snprintf(out->reason, sizeof(out->reason), "only f32");
    else if (d->data_format != CONVCHECK_NCX || d->filter_format != CONVCHECK_OIX)
        std::snprintf(out->reason, sizeof(out->reason), "only NCX data and OIX weights");
    else out->supported = 1;
    return nullptr;
}

// dst(n, g*OCg+oc, o) = bias + sum_{ic,k} src(n, g*ICg+ic, o*s - pb + k*d) * wei(g*OCg+oc, ic, k),
// spatial axes lifted to three so that one loop nest serves every rank.
convcheck_error* conv_execute(convcheck_plugin*, const convcheck_conv_desc* d, const convcheck_conv_args* a) {
    return guarded([&]() -> convcheck_error* {
        long long in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pb[3] = {0, 0, 0},
                  out[3] = {1, 1, 1};
        const int shift = 3 - d->rank;
        for (int i = 0; i < d->rank; ++i) {
            in[shift + i] = d->input_size[i], k[shift + i] = d->kernel_size[i], s[shift + i] = d->strides[i];
            dl[shift + i] = d->dilations[i], pb[shift + i] = d->pads_begin[i], out[shift + i] = output_size(*d, i);
        }
        const float* src = static_cast<const float*>(a->src);
        const float* wei = static_cast<const float*>(a->weights);
        const float* bias = static_cast<const float*>(a->bias);
        float* dst = static_cast<float*>(a->dst);
        const long long G = d->groups, ICg = d->in_channels / G, OCg = d->out_channels / G;
        long long o_index = 0;
        for (long long n = 0; n < d->batch; ++n)
            for (long long oc = 0; oc < d->out_channels; ++oc)
                for (long long od = 0; od < out[0]; ++od)
                    for (long long oh = 0; oh < out[1]; ++oh)
                        for (long long ow = 0; ow < out[2]; ++ow) {
                            float sum = d->has_bias ? bias[oc] : 0.0f;
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
                                            sum += src[(((n * d->in_channels + c) * in[0] + id) * in[1] + ih) * in[2] + iw] *
                                                   wei[(((oc * ICg + ic) * k[0] + kd) * k[1] + kh) * k[2] + kw];
                                        }
                            dst[o_index++] = sum;
                        }
        if (a->struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_args, implementation_capacity) && a->implementation &&
            a->implementation_capacity > 0)
            std::snprintf(a->implementation, a->implementation_capacity, "direct_loops");
        return nullptr;
    });
}

const char* error_message(const convcheck_error* e) { return e ? e->message.c_str() : "out of memory"; }
void error_destroy(convcheck_error* e) { delete e; }

const convcheck_api api = {
    sizeof(convcheck_api), CONVCHECK_ABI_MAJOR, CONVCHECK_ABI_MINOR,
    create, destroy, describe, conv_query, conv_execute,
    nullptr, nullptr,  // no continuous convolution
    error_message, error_destroy,
};

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
