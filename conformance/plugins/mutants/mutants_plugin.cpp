// The mutants plugin (see mutants.hpp). One rank-generic loop nest (spatial axes lifted to three);
// each mutant is one marked deviation from the summation formula
//   dst(n, g*OCg+oc, o) = bias + sum_{ic,k} src(n, g*ICg+ic, o*s - pb + k*d) * wei(g*OCg+oc, ic, k)
#include <algorithm>
#include <array>
#include <barrier>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "../common/plugin_support.hpp"
#include "dtype.hpp"
#include "mutants.hpp"

namespace {

using namespace convcheck_plugin_support;
using convcheck::mutants::kMutantNames;
using convcheck::mutants::Mutant;
using Dims = std::array<long long, 3>;

struct Instance {
    Mutant mutant = Mutant::none;
};

convcheck::DataType dtype_of(const convcheck_conv_desc& d) { return static_cast<convcheck::DataType>(d.dtype); }

struct Problem {
    const convcheck_conv_desc& d;
    Mutant m;
    Dims in{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, dil{1, 1, 1}, pb{0, 0, 0}, out{1, 1, 1};
    long long N, C, O, G, ICg, OCg, in_spatial = 1, k_spatial = 1, out_spatial = 1;

    Problem(const convcheck_conv_desc& desc, Mutant mutant) : d(desc), m(mutant) {
        const int shift = 3 - d.rank;
        for (int a = 0; a < d.rank; ++a) {
            in[shift + a] = d.input_size[a];
            k[shift + a] = d.kernel_size[a];
            s[shift + a] = d.strides[a];
            dil[shift + a] = m == Mutant::dilation_ignored ? 1 : d.dilations[a];
            pb[shift + a] = d.pads_begin[a];
            if (m == Mutant::pad_off_by_one && pb[shift + a] > 0) pb[shift + a] -= 1;
            long long pe = d.pads_end[a];
            if (m == Mutant::negative_pads_clamped) pb[shift + a] = std::max(0LL, pb[shift + a]), pe = std::max(0LL, pe);
            const long long extent = (d.kernel_size[a] - 1) * d.dilations[a] + 1;
            const long long span = d.input_size[a] + d.pads_begin[a] + d.pads_end[a] - extent;
            out[shift + a] = m == Mutant::wrong_output_size ? (span + d.strides[a] - 1) / d.strides[a] + 1
                                                            : span / d.strides[a] + 1;
        }
        N = d.batch, C = d.in_channels, O = d.out_channels, G = d.groups, ICg = C / G, OCg = O / G;
        for (int a = 0; a < 3; ++a) in_spatial *= in[a], k_spatial *= k[a], out_spatial *= out[a];
    }
    long long src_index(long long n, long long c, long long x) const {
        const bool ncx = d.data_format == CONVCHECK_NCX || m == Mutant::layout_transposed;
        return ncx ? (n * C + c) * in_spatial + x : (n * in_spatial + x) * C + c;
    }
    long long weights_index(long long o, long long i, long long kx) const {
        const bool oix = d.filter_format == CONVCHECK_OIX || m == Mutant::filter_format_ignored;
        return oix ? (o * ICg + i) * k_spatial + kx : (kx * ICg + i) * O + o;
    }
    long long dst_index(long long n, long long o, long long x) const {
        return d.data_format == CONVCHECK_NCX ? (n * O + o) * out_spatial + x : (n * out_spatial + x) * O + o;
    }
};

// The partial sum of one output over the taps [tap_begin, tap_end) of its ICg * k_spatial taps.
float partial_sum(const Problem& p, const convcheck_conv_args& a, long long n, long long oc, const Dims& o,
                  long long tap_begin, long long tap_end) {
    const auto dt = dtype_of(p.d);
    const bool half = p.m == Mutant::half_accumulation && dt != convcheck::DataType::f32;
    const long long g = oc / p.OCg;
    float sum = 0.0f;
    for (long long tap = tap_begin; tap < tap_end; ++tap) {
        const long long ic = tap / p.k_spatial, kx = tap % p.k_spatial;
        const Dims kk{kx / (p.k[1] * p.k[2]), (kx / p.k[2]) % p.k[1], kx % p.k[2]};
        Dims x{};
        bool outside = false;
        for (int ax = 0; ax < 3; ++ax) {
            x[ax] = o[ax] * p.s[ax] - p.pb[ax] + kk[ax] * p.dil[ax];
            if (x[ax] < 0 || x[ax] >= p.in[ax]) {
                if (p.m == Mutant::border_tap) x[ax] = std::clamp(x[ax], 0LL, p.in[ax] - 1);
                else outside = true;
            }
        }
        if (outside) continue;
        const long long channel = p.m == Mutant::groups_mixed ? ic : g * p.ICg + ic;
        const long long xs = (x[0] * p.in[1] + x[1]) * p.in[2] + x[2];
        long long wk = kx;
        if (p.m == Mutant::kernel_flipped) wk = p.k_spatial - 1 - kx;
        const float xv = static_cast<float>(convcheck::load_as_double(a.src, dt, p.src_index(n, channel, xs)));
        const float wv = static_cast<float>(convcheck::load_as_double(a.weights, dt, p.weights_index(oc, ic, wk)));
        sum += xv * wv;
        if (p.m == Mutant::window_overread && xs + 1 < p.in_spatial)
            sum += static_cast<float>(convcheck::load_as_double(a.src, dt, p.src_index(n, channel, xs + 1))) * 0.0f;
        if (half) sum = static_cast<float>(convcheck::round_to(dt, sum));
    }
    return sum;
}

void store(const Problem& p, const convcheck_conv_args& a, long long index, float value) {
    if (p.m == Mutant::bf16_truncation && p.d.dtype == CONVCHECK_BF16) {
        std::uint32_t bits;
        std::memcpy(&bits, &value, 4);
        const std::uint16_t truncated = static_cast<std::uint16_t>(bits >> 16);
        std::memcpy(static_cast<char*>(a.dst) + index * 2, &truncated, 2);
        return;
    }
    convcheck::store_from_double(a.dst, dtype_of(p.d), index, value);
}

void compute(const Problem& p, const convcheck_conv_args& a) {
    const auto dt = dtype_of(p.d);
    const long long taps = p.ICg * p.k_spatial;
    const long long outputs = p.N * p.O * p.out_spatial;
    std::vector<float> acc(outputs, 0.0f);
    auto output_at = [&](long long flat, long long* n, long long* oc, Dims* o) {
        const long long x = flat % p.out_spatial;
        *oc = (flat / p.out_spatial) % p.O;
        *n = flat / (p.out_spatial * p.O);
        *o = {x / (p.out[1] * p.out[2]), (x / p.out[2]) % p.out[1], x % p.out[2]};
    };
    if (p.m == Mutant::racy_split) {
        // Two threads each take half of the taps and do acc += partial without synchronisation. The
        // barrier between their reads and their writes forces the losing interleaving every time.
        std::barrier sync(2);
        auto worker = [&](long long begin, long long end) {
            std::vector<float> read(outputs), part(outputs);
            for (long long f = 0; f < outputs; ++f) {
                long long n, oc;
                Dims o;
                output_at(f, &n, &oc, &o);
                part[f] = partial_sum(p, a, n, oc, o, begin, end);
                read[f] = acc[f];
            }
            sync.arrive_and_wait();
            for (long long f = 0; f < outputs; ++f)
                if (part[f] != 0.0f) acc[f] = read[f] + part[f];
        };
        std::thread t1(worker, 0, taps / 2), t2(worker, taps / 2, taps);
        t1.join();
        t2.join();
    } else {
        for (long long f = 0; f < outputs; ++f) {
            long long n, oc;
            Dims o;
            output_at(f, &n, &oc, &o);
            acc[f] = partial_sum(p, a, n, oc, o, 0, taps);
        }
    }
    for (long long f = 0; f < outputs; ++f) {
        long long n, oc;
        Dims o;
        output_at(f, &n, &oc, &o);
        float v = acc[f];
        if (p.d.has_bias && p.m != Mutant::bias_dropped) v += static_cast<float>(convcheck::load_as_double(a.bias, dt, oc));
        const long long index = p.dst_index(n, oc, f % p.out_spatial);
        store(p, a, index, v);
        if (p.m == Mutant::last_ulp && f == outputs - 1) {
            const double stored = convcheck::load_as_double(a.dst, dt, index);
            const double ulp = std::ldexp(1.0, std::ilogb(stored == 0.0 ? 1.0 : stored) -
                                                    (dt == convcheck::DataType::f32 ? 23 : dt == convcheck::DataType::f16 ? 10 : 7));
            convcheck::store_from_double(a.dst, dt, index, stored + ulp);
        }
    }
}

convcheck_error* create(const convcheck_create_args* args, convcheck_plugin** out) {
    return guarded("create", [&]() -> convcheck_error* {
        auto* instance = new Instance{};
        std::string options = CONVCHECK_HAS_FIELD(args, convcheck_create_args, options) && args->options ? args->options : "";
        if (!options.empty()) {
            bool known = false;
            for (std::size_t i = 0; i < std::size(kMutantNames); ++i)
                if (options == "mutant=" + std::string(kMutantNames[i])) {
                    instance->mutant = static_cast<Mutant>(i);
                    known = true;
                }
            if (!known) {
                delete instance;
                return make_error("mutants: unknown option '" + options + "' (want mutant=<name>, see mutants.hpp)");
            }
        }
        *out = reinterpret_cast<convcheck_plugin*>(instance);
        return nullptr;
    });
}

void destroy(convcheck_plugin* plugin) { delete reinterpret_cast<Instance*>(plugin); }

convcheck_error* describe(convcheck_plugin*, convcheck_plugin_info* info) {
    convcheck_plugin_info mine{};
    mine.struct_size = sizeof(mine);
    mine.name = "mutants";
    mine.version = "0.1.0";
    mine.operations = CONVCHECK_OP_CONV;
    mine.dtypes = CONVCHECK_BIT(CONVCHECK_F32) | CONVCHECK_BIT(CONVCHECK_F16) | CONVCHECK_BIT(CONVCHECK_BF16);
    mine.ranks = CONVCHECK_BIT(1) | CONVCHECK_BIT(2) | CONVCHECK_BIT(3);
    mine.data_formats = CONVCHECK_BIT(CONVCHECK_NCX) | CONVCHECK_BIT(CONVCHECK_NXC);
    mine.filter_formats = CONVCHECK_BIT(CONVCHECK_OIX) | CONVCHECK_BIT(CONVCHECK_XIO);
    mine.accumulation_dtype = CONVCHECK_F32;
    return fill_info(info, mine);
}

convcheck_error* conv_query(convcheck_plugin*, const convcheck_conv_desc* desc, convcheck_support* out) {
    return guarded("conv_query", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, nullptr)) return e;
        if (desc->dtype < 0 || desc->dtype > 2) return unsupported(out, std::string("dtype ") + dtype_name(desc->dtype));
        return supported(out);
    });
}

convcheck_error* conv_execute(convcheck_plugin* plugin, const convcheck_conv_desc* desc, const convcheck_conv_args* args) {
    return guarded("conv_execute", [&]() -> convcheck_error* {
        if (auto* e = check_conv_call(desc, args)) return e;
        const Problem p(*desc, reinterpret_cast<Instance*>(plugin)->mutant);
        compute(p, *args);
        write_implementation(args, "mutant_" + std::string(kMutantNames[static_cast<int>(p.m)]));
        return nullptr;
    });
}

const convcheck_api api = [] {
    convcheck_api a{};
    a.struct_size = sizeof(a);
    a.abi_major = CONVCHECK_ABI_MAJOR;
    a.abi_minor = CONVCHECK_ABI_MINOR;
    a.create = create;
    a.destroy = destroy;
    a.describe = describe;
    a.conv_query = conv_query;
    a.conv_execute = conv_execute;
    a.error_message = error_message;
    a.error_destroy = error_destroy;
    return a;
}();

}  // namespace

extern "C" CONVCHECK_EXPORT const convcheck_api* convcheck_get_api(void) { return &api; }
