/* A plugin as it was written against an older ABI header: compiled once against each frozen header,
 * 1.0, 1.1, 1.2, 1.3 and 1.4 (headers/<version>/
 * convcheck/plugin.h, copied from git history), never against the current one. The runner of today must
 * load each and run them as
 * before: it reads no table entry and no struct field the plugin's version does not have.
 *
 * The backend is a direct loop: f32, NCX data, OIX weights, ranks 1-3. Written in C, as a vendor
 * could have written it. Its function table is followed in memory by bytes that are not NULL, so a
 * runner reading entries past the table's struct_size would call garbage and crash.
 */
#include <convcheck/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef OLD_ABI_PLUGIN_NAME
#error "OLD_ABI_PLUGIN_NAME must be set"
#endif

struct convcheck_error {
    char message[256];
};
struct convcheck_plugin {
    int num_threads;
};

static convcheck_error* make_error(const char* message) {
    convcheck_error* e = (convcheck_error*)malloc(sizeof(convcheck_error));
    if (e != NULL) snprintf(e->message, sizeof(e->message), "%s", message);
    return e;
}
static const char* error_message(const convcheck_error* e) { return e ? e->message : "out of memory"; }
static void error_destroy(convcheck_error* e) { free(e); }

static convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    convcheck_plugin* p;
#if CONVCHECK_ABI_MINOR >= 1
    if (args != NULL && args->struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_create_args, options) &&
        args->options != NULL && args->options[0] != '\0')
        return make_error(OLD_ABI_PLUGIN_NAME " takes no options");
#endif
    p = (convcheck_plugin*)malloc(sizeof(convcheck_plugin));
    if (p == NULL) return make_error("out of memory");
    p->num_threads = args != NULL ? args->num_threads : 0;
    *out = p;
    return NULL;
}

static void destroy(convcheck_plugin* p) { free(p); }

static convcheck_error* describe(convcheck_plugin* p, convcheck_plugin_info* info) {
    convcheck_plugin_info mine;
    size_t size;
    (void)p;
    if (info == NULL || info->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_plugin_info, name))
        return make_error("describe: info too small");
    memset(&mine, 0, sizeof(mine));
    mine.name = OLD_ABI_PLUGIN_NAME;
    mine.version = "1.0.0";
    mine.operations = CONVCHECK_OP_CONV;
#if CONVCHECK_ABI_MINOR == 3
    /* Bit 8 means nothing in 1.3 (1.4 gives it to the CC backward pass): a 1.3 plugin that sets it has
     * no cc_backward entries, and the runner must read the bit by the plugin's version, not claim it. */
    mine.operations |= 8u;
#endif
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32);
#if CONVCHECK_ABI_MINOR == 4
    /* Bits 4 to 6 mean nothing in 1.4 (1.5 gives them to u8, s8 and s32): a 1.4 plugin that sets them knows no
     * quantization extension, and the runner must read the bits by the plugin's version. */
    mine.dtypes |= (1u << 4) | (1u << 5) | (1u << 6);
#endif
#if CONVCHECK_ABI_MINOR == 6
    /* Bits 7 and 8 mean nothing in 1.6 (1.7 gives them to f8_e4m3 and f8_e5m2): the runner must read the bits by
     * the plugin's version and send it no fp8 case. */
    mine.dtypes |= (1u << 7) | (1u << 8);
#endif
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX);
    mine.accumulation_dtype = CONVCHECK_F32;
    size = info->struct_size < sizeof(mine) ? info->struct_size : sizeof(mine);
    memcpy((char*)info + sizeof(size_t), (const char*)&mine + sizeof(size_t), size - sizeof(size_t));
    return NULL;
}

static long long output_size(const convcheck_conv_desc* d, int a) {
    const long long extent = (d->kernel_size[a] - 1) * d->dilations[a] + 1;
    const long long span = d->input_size[a] + d->pads_begin[a] + d->pads_end[a] - extent;
    return span < 0 ? 0 : span / d->strides[a] + 1;
}

static convcheck_error* conv_query(convcheck_plugin* p, const convcheck_conv_desc* d, convcheck_support* out) {
    (void)p;
    if (d == NULL || d->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, filter_format))
        return make_error("conv_desc too small");
    out->supported = d->dtype == CONVCHECK_F32 && d->data_format == CONVCHECK_NCX && d->filter_format == CONVCHECK_OIX &&
                     d->rank >= 1 && d->rank <= 3;
    snprintf(out->reason, sizeof(out->reason), "%s", out->supported ? "" : "f32, NCX, OIX, ranks 1-3 only");
#if CONVCHECK_ABI_MINOR >= 2
    /* The 1.2 rule: a plugin declines a chain whose tags it does not know; this one knows none (a 1.7 build is sent
     * the scales extension of a float convolution, which 1.7 defines). */
    if (out->supported && d->struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, next) && d->next != NULL) {
        out->supported = 0;
        snprintf(out->reason, sizeof(out->reason), "an extension this plugin does not know: tag %d", (int)d->next->tag);
    }
#endif
    return NULL;
}

static convcheck_error* conv_execute(convcheck_plugin* p, const convcheck_conv_desc* d, const convcheck_conv_args* a) {
    long long in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, dl[3] = {1, 1, 1}, pb[3] = {0, 0, 0}, o[3] = {1, 1, 1};
    long long n, oc, x0, x1, x2, ic, k0, k1, k2, index = 0, groups, icg, ocg;
    const float *src, *wei, *bias;
    float* dst;
    int i, shift;
    (void)p;
    if (d == NULL || d->struct_size < CONVCHECK_STRUCT_SIZE(convcheck_conv_desc, filter_format) || a == NULL ||
        a->src == NULL || a->weights == NULL || a->dst == NULL || (d->has_bias && a->bias == NULL))
        return make_error("conv_execute: descriptor or buffers missing");
    shift = 3 - d->rank;
    for (i = 0; i < d->rank; ++i) {
        in[shift + i] = d->input_size[i], k[shift + i] = d->kernel_size[i], s[shift + i] = d->strides[i];
        dl[shift + i] = d->dilations[i], pb[shift + i] = d->pads_begin[i], o[shift + i] = output_size(d, i);
    }
    src = (const float*)a->src, wei = (const float*)a->weights, bias = (const float*)a->bias, dst = (float*)a->dst;
    groups = d->groups, icg = d->in_channels / groups, ocg = d->out_channels / groups;
    for (n = 0; n < d->batch; ++n)
        for (oc = 0; oc < d->out_channels; ++oc)
            for (x0 = 0; x0 < o[0]; ++x0)
                for (x1 = 0; x1 < o[1]; ++x1)
                    for (x2 = 0; x2 < o[2]; ++x2) {
                        float sum = d->has_bias ? bias[oc] : 0.0f;
                        for (ic = 0; ic < icg; ++ic)
                            for (k0 = 0; k0 < k[0]; ++k0)
                                for (k1 = 0; k1 < k[1]; ++k1)
                                    for (k2 = 0; k2 < k[2]; ++k2) {
                                        const long long i0 = x0 * s[0] - pb[0] + k0 * dl[0];
                                        const long long i1 = x1 * s[1] - pb[1] + k1 * dl[1];
                                        const long long i2 = x2 * s[2] - pb[2] + k2 * dl[2];
                                        const long long c = (oc / ocg) * icg + ic;
                                        if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2]) continue;
                                        sum += src[(((n * d->in_channels + c) * in[0] + i0) * in[1] + i1) * in[2] + i2] *
                                               wei[(((oc * icg + ic) * k[0] + k0) * k[1] + k1) * k[2] + k2];
                                    }
                        dst[index++] = sum;
                    }
    if (a->struct_size >= CONVCHECK_STRUCT_SIZE(convcheck_conv_args, implementation_capacity) && a->implementation &&
        a->implementation_capacity > 0)
        snprintf(a->implementation, a->implementation_capacity, "%s", OLD_ABI_PLUGIN_NAME "_direct_loops");
    return NULL;
}

/* The table, then bytes a runner must never read as table entries. */
static const struct {
    convcheck_api api;
    unsigned char beyond[256];
} table = {
    {sizeof(convcheck_api), CONVCHECK_ABI_MAJOR, CONVCHECK_ABI_MINOR, create, destroy, describe, conv_query, conv_execute,
     NULL, NULL, error_message, error_destroy
#if CONVCHECK_ABI_MINOR >= 2
     , NULL, NULL, NULL, NULL, NULL /* 1.2's error_code and plan entries: none (their documented defaults) */
#endif
#if CONVCHECK_ABI_MINOR >= 3
     , NULL, NULL /* 1.3's transposed convolution: none */
#endif
#if CONVCHECK_ABI_MINOR >= 4
     , NULL, NULL /* 1.4's CC backward pass: none */
#endif
    },
    {0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5,
     0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5,
     0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5,
     0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5, 0xA5}};

CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &table.api; }
