// The option table of docs/benchdnn.md: each benchdnn conv or deconv driver option value (current oneDNN's or
// v3.7.1's, BenchdnnSetup::version) mapped exactly onto the canonical descriptor, or the reason it is skipped.
#include "convcheck/formats/benchdnn_mapping.hpp"

#include "convcheck/core/memory_layout.hpp"
#include "convcheck/formats/benchdnn_memory.hpp"
#include "convcheck/formats/benchdnn_post_ops.hpp"
#include "convcheck/formats/benchdnn_quantized.hpp"

#include <algorithm>
#include <cctype>
#include <strings.h>

namespace convcheck {

namespace {

bool equal_nocase(const std::string& a, const char* b) { return strcasecmp(a.c_str(), b) == 0; }

// str2dt: the names benchdnn knows (with or without the "dnnl_" prefix): v3.7.1 has f4_e3m0, current oneDNN s64.
std::string dt_name(const std::string& written, BenchdnnVersion version) {
    static const char* const names[] = {"f16", "bf16", "f32", "s32", "s8", "u8", "f64", "boolean", "f8_e5m2",
                                        "f8_e4m3", "s4", "u4", "e8m0", "f4_e2m1", "undef"};
    const std::string name = written.starts_with("dnnl_") ? written.substr(5) : written;
    for (const char* n : names)
        if (name == n) return n;
    if (name == (version == BenchdnnVersion::current ? "s64" : "f4_e3m0")) return name;
    return {};
}

// v3.3's handle_legacy_cfg: a --cfg name (any case) -> its --dt value.
std::string cfg_to_dt(const std::string& cfg) {
    static const char* const plain[][2] = {{"f32", "f32"}, {"f32_wino", "f32"}, {"bf16bf16bf16", "bf16"},
                                           {"f16", "f16"}, {"f64", "f64"}};
    for (const auto& p : plain)
        if (equal_nocase(cfg, p[0])) return p[1];
    // the rest are three names run together, SRC WEI DST: u8s8f32 -> u8:s8:f32
    static const char* const mixed[] = {"u8s8f32",     "u8s8f16",     "u8s8bf16",    "u8s8s32",     "u8s8s8",
                                        "u8s8u8",      "s8s8f32",     "s8s8f16",     "s8s8bf16",    "s8s8s32",
                                        "s8s8s8",      "s8s8u8",      "f16f16f32",   "f16f16s8",    "f16f16u8",
                                        "bf16bf16f32", "bf16bf16f16", "bf16bf16s8",  "bf16bf16u8",  "f32bf16bf16",
                                        "f32f32s8",    "f32f32u8",    "bf16f32bf16", "f32f16f16",   "f16f32f16"};
    for (const char* m : mixed) {
        if (!equal_nocase(cfg, m)) continue;
        std::string out, rest = m;
        for (int i = 0; i < 3; ++i) {
            for (const char* n : {"bf16", "f16", "f32", "s32", "s8", "u8"})
                if (rest.starts_with(n)) {
                    out += (i ? ":" : "") + std::string(n);
                    rest = rest.substr(std::string(n).size());
                    break;
                }
        }
        return out;
    }
    return {};
}

std::string dt_reason(const std::array<std::string, 3>& t, const std::string& written) {
    auto any_of = [&](std::initializer_list<const char*> names) {
        return std::any_of(t.begin(), t.end(), [&](const std::string& x) {
            return std::any_of(names.begin(), names.end(), [&](const char* n) { return x == n; });
        });
    };
    const std::string option = "--dt=" + written;
    if (any_of({"s8", "u8", "s32", "s64", "s4", "u4", "boolean"}))
        return "--dt: integer (int8) data types; convcheck models f32, f16, bf16 and fp8 only";
    if (any_of({"f4_e2m1", "f4_e3m0", "e8m0"}))
        return "--dt: 4-bit and e8m0 data types; convcheck models f32, f16, bf16 and fp8 only";
    if (any_of({"f64"})) return "--dt: f64; convcheck models f32, f16, bf16 and fp8 only";
    if (any_of({"undef"})) return "--dt: undef; benchdnn cannot run it";
    return "--dt: a data type convcheck does not model (it models f32, f16, bf16, f8_e4m3 and f8_e5m2, each tensor its own)";
}

bool is_default_attr(BenchdnnAttr a, const std::string& v) {
    switch (a) {
        case BenchdnnAttr::scratchpad: return v.empty() || v == "library" || v == "user";
        case BenchdnnAttr::fpmath: return v.empty() || v == "strict" || v == "strict:false";
        case BenchdnnAttr::acc_mode: return v.empty() || v == "strict";
        case BenchdnnAttr::deterministic: return v.empty() || v == "false" || v == "true";
        default: return v.empty();
    }
}

std::string attr_reason(BenchdnnAttr a) {
    const std::string option = std::string("--") + benchdnn_attr_option(a);
    switch (a) {
        case BenchdnnAttr::scales: return option + ": scales are not modelled by convcheck";
        case BenchdnnAttr::zero_points: return option + ": zero points are not modelled by convcheck";
        case BenchdnnAttr::scratchpad: return option + ": an unknown scratchpad mode";
        case BenchdnnAttr::fpmath: return option + ": a non-strict fpmath mode lets the library compute in lower precision; not modelled";
        case BenchdnnAttr::acc_mode: return option + ": a non-strict accumulation mode is not modelled by convcheck";
        case BenchdnnAttr::dropout: return option + ": dropout is not modelled by convcheck";
        case BenchdnnAttr::rounding_mode:  // dst:stochastic, oneDNN's one other mode (fp8 and bf16/f16 dst)
            return option + ": stochastic rounding of dst draws each rounding direction from random bits (a seed "
                            "the library holds); its result is not one value, and convcheck judges results exactly "
                            "or by a rounding-to-nearest bound";
        default: return option + ": not modelled";
    }
}

}  // namespace

std::string benchdnn_dir_name(const std::string& written) {
    for (const char* n : {"FWD_D", "FWD_I", "FWD_B", "BWD_D", "BWD_W", "BWD_WB", "BWD_DW"})
        if (equal_nocase(written, n)) return n;
    return {};
}

std::string benchdnn_alg_name(const std::string& written) {
    static const char* const names[][2] = {{"auto", "auto"}, {"convolution_auto", "auto"}, {"direct", "direct"},
                                           {"convolution_direct", "direct"}, {"wino", "wino"},
                                           {"convolution_wino", "wino"}};
    for (const auto& n : names)
        if (equal_nocase(written, n[0])) return n[1];
    return {};
}

std::string benchdnn_dt_name(const std::string& written, BenchdnnVersion version) { return dt_name(written, version); }

std::optional<std::array<std::string, 3>> benchdnn_data_types(const std::string& dt, const std::string& cfg,
                                                              std::string* reason, BenchdnnVersion version) {
    std::string value = dt;
    if (!cfg.empty()) {
        if (dt != "f32") return *reason = "--cfg with --dt: benchdnn refuses both at once", std::nullopt;
        value = cfg_to_dt(cfg);
        if (value.empty()) return *reason = "--cfg: a configuration benchdnn v3.3 does not know", std::nullopt;
    }
    const auto parts = split_benchdnn_list(value, ':');
    if (parts.size() != 1 && parts.size() != 3)
        return *reason = "--dt: needs one data type or three (SRC:WEI:DST); benchdnn refuses others", std::nullopt;
    std::array<std::string, 3> t;
    for (std::size_t i = 0; i < 3; ++i) {
        t[i] = dt_name(parts[parts.size() == 1 ? 0 : i], version);
        if (t[i].empty()) return *reason = "--dt: a data type benchdnn does not know", std::nullopt;
    }
    return t;
}

namespace {

// What one setup sets in a descriptor, whichever driver's; or the skip reason.
struct Chosen {
    Pass pass = Pass::forward;
    bool has_bias = true;
    DataType dtype = DataType::f32;                       // src's
    ConvDescriptor::DtypeOverrides dtype_overrides;       // weights, bias and dst where they differ from src's
    BenchdnnMemory memory;  // formats, and memory strides (conv driver)
    long long batch = 0;  // 0 keeps the problem's
};

// prb_t's bia_dt, or "undef" for no bias; empty with *reason set when benchdnn does not know the --bia-dt name.
// current (bench_conv.cpp check_correctness): FWD_B and BWD_WB (FLAG_BIA) ignore --bia-dt and take f64 when the
// single data type or the weights' is f64, else f32; the other directions take --bia-dt (undef: no bias).
// v3.7.1 (conv.hpp bia_dt()): FWD_B and BWD_WB only, of the weights' type (f32 for integer weights).
std::string bias_dt(const BenchdnnSetup& s, const std::string& dir, const std::array<std::string, 3>& t,
                    std::string* reason) {
    const bool flag_bia = dir == "FWD_B" || dir == "BWD_WB";
    if (s.version == BenchdnnVersion::v3_7_1) {
        if (!flag_bia) return "undef";
        const bool integral = t[1] == "s8" || t[1] == "u8" || t[1] == "s32" || t[1] == "s4" || t[1] == "u4";
        return integral ? "f32" : t[1];
    }
    const std::string written = dt_name(s.bia_dt, s.version);
    if (written.empty()) return *reason = "--bia-dt: a data type benchdnn does not know", "";
    if (!flag_bia) return written;
    return t[1] == "f64" ? "f64" : "f32";  // the three types are broadcast from one: t[1] is the single one then
}

std::optional<Chosen> choose(const BenchdnnSetup& s, BenchdnnDriver driver, int rank, bool has_groups,
                             std::string* reason_out) {
    std::string& reason = *reason_out;
    Chosen c;
    const bool conv = driver == BenchdnnDriver::conv;
    const std::string dir = benchdnn_dir_name(s.dir);
    if (dir.empty()) return reason = "--dir: a value benchdnn does not know", std::nullopt;
    if (!conv && dir.starts_with("BWD"))  // deconv.cpp: deconvolution_backward_data / _backward_weights
        return reason = "--dir=" + dir + ": the backward " +
                        (dir == "BWD_D"    ? std::string("data")
                         : dir == "BWD_DW" ? std::string("data and weights")
                         : dir == "BWD_WB" ? std::string("weights and bias")
                                           : std::string("weights")) +
                        " pass of a transposed convolution (benchdnn's deconv driver); convcheck has no backward "
                        "pass of transposed convolution yet",
               std::nullopt;
    // docs/passes.md: BWD_D is dir=bwd_d, BWD_W dir=bwd_w without the bias gradient, BWD_WB dir=bwd_w with it
    // (benchdnn's prb_t has a bias only for FWD_B and BWD_WB); BWD_DW asks for both gradients of one call
    if (dir == "BWD_DW")
        return reason = "--dir=BWD_DW: backward data and weights in one call; convcheck runs each backward pass on "
                        "its own (BWD_D, BWD_W, BWD_WB)",
               std::nullopt;
    c.pass = dir == "BWD_D" ? Pass::backward_data : dir.starts_with("BWD_W") ? Pass::backward_weights : Pass::forward;

    const auto types = benchdnn_data_types(s.dt, s.cfg, &reason, s.version);
    if (!types) return std::nullopt;
    const auto& t = *types;
    const std::string bias = bias_dt(s, dir, t, &reason);
    if (bias.empty()) return std::nullopt;
    // each tensor its own float type (benchdnn's --dt=src:wei:dst; the bias: bias_dt above); anything else is
    // skipped with dt_reason's words
    DataType tensor_types[3];
    for (int i = 0; i < 3; ++i)
        if (!parse_data_type(t[i], &tensor_types[i])) return reason = dt_reason(t, s.cfg.empty() ? s.dt : s.cfg), std::nullopt;
    c.dtype = tensor_types[0];
    if (tensor_types[1] != tensor_types[0]) c.dtype_overrides.weights = tensor_types[1];
    if (tensor_types[2] != tensor_types[0]) c.dtype_overrides.dst = tensor_types[2];
    // BWD_D's primitive takes no bias whatever its type (conv.cpp init_pd), so dir=bwd_d has none
    c.has_bias = bias != "undef" && dir != "BWD_D";
    if (c.has_bias) {
        DataType bias_type;
        if (!parse_data_type(bias, &bias_type))
            return reason = "--bia-dt: a " + bias + " bias (" +
                            (dir == "FWD_B" || dir == "BWD_WB" ? "benchdnn's for --dir=" + dir + " with " + t[1] +
                                                                     " weights"
                                                               : std::string("--bia-dt")) +
                            "); convcheck models f32, f16, bf16 and fp8 only",
                   std::nullopt;
        if (bias_type != tensor_types[0]) c.dtype_overrides.bias = bias_type;
    }
    const bool any_f64 = std::any_of(t.begin(), t.end(), [](const std::string& x) { return x == "f64"; }) ||
                         (c.has_bias && bias == "f64");
    const bool mixed = c.dtype_overrides.weights || c.dtype_overrides.dst || c.dtype_overrides.bias;
    if (any_f64 && mixed)
        return reason = "--dt/--bia-dt: f64 mixed with another type; convcheck's f64 is the type of every tensor "
                        "(docs/accuracy.md, f64 cases)",
               std::nullopt;

    const auto memory = benchdnn_memory(s.stag, s.wtag, s.dtag, s.strides, driver, rank + 2, has_groups, &reason);
    if (!memory) return std::nullopt;
    c.memory = *memory;

    const std::string alg = benchdnn_alg_name(s.alg);
    if (alg.empty()) return reason = "--alg: a value benchdnn does not know", std::nullopt;
    if (!conv && alg == "auto")  // deconv_aux.cpp str2alg: direct and wino only (auto asserts)
        return reason = "--alg=auto: not an algorithm of benchdnn's deconv driver (it has direct and wino)", std::nullopt;
    if (alg == "wino")
        return reason = "--alg=wino: asks for the Winograd algorithm; convcheck cannot choose a backend's algorithm",
               std::nullopt;

    // post-ops and fpmath: each mapping's own (benchdnn_post_ops, benchdnn_fpmath)
    for (int a = 0; a < kBenchdnnAttrCount; ++a)
        if (a != static_cast<int>(BenchdnnAttr::post_ops) && a != static_cast<int>(BenchdnnAttr::fpmath) &&
            !(conv && a == static_cast<int>(BenchdnnAttr::scales)) &&  // the conv driver's: benchdnn_float_scales
            !is_default_attr(static_cast<BenchdnnAttr>(a), s.attr[a]))
            return reason = attr_reason(static_cast<BenchdnnAttr>(a)), std::nullopt;
    if (!s.ctx_init.empty() || !s.ctx_exe.empty())
        return reason = "--ctx-init/--ctx-exe: a threading context; convcheck sets threads per run (--threads)",
               std::nullopt;

    // --mb: stoll_safe; 0 keeps the problem's mb
    try {
        std::size_t used = 0;
        c.batch = std::stoll(s.mb, &used);
        if (used != s.mb.size() || std::to_string(c.batch) != s.mb) throw std::invalid_argument(s.mb);
    } catch (const std::exception&) {
        return reason = "--mb: not an integer; benchdnn refuses it", std::nullopt;
    }
    if (c.batch < 0) return reason = "--mb: negative; benchdnn's primitive creation fails", std::nullopt;
    return c;
}

// The fields both descriptors share (the transposed one has formats only: benchdnn_memory gives the deconv driver
// no strides).
template <class Descriptor>
void apply(const Chosen& c, Descriptor& d) {
    d.has_bias = c.has_bias;
    d.dtype = c.dtype;
    d.data_format = c.memory.src.format == "nxc" ? DataFormat::nxc : DataFormat::ncx;
    d.filter_format = c.memory.weights.format == "xio" ? FilterFormat::xio : FilterFormat::oix;
    if (c.batch > 0) d.batch = c.batch;
    validate(d);
}

}  // namespace

bool benchdnn_fpmath(const std::string& written, FpMath* mode, bool* apply_to_int, std::string* reason) {
    // MODE[:APPLY_TO_INT] (benchdnn's attr parser: str2fpmath_mode, then "true"/"false")
    const std::size_t colon = written.find(':');
    const std::string name = written.substr(0, colon), flag = colon == std::string::npos ? "" : written.substr(colon + 1);
    if (flag != "" && flag != "true" && flag != "false")
        return *reason = "--attr-fpmath=" + written + ": APPLY_TO_INT is true or false (benchdnn refuses it)", false;
    *apply_to_int = flag == "true";
    if (name.empty() || name == "strict") return *mode = FpMath::strict, true;
    if (name == "tf32") return *mode = FpMath::tf32, true;
    if (name == "bf16") return *mode = FpMath::bf16, true;
    if (name == "f16")
        return *reason = "--attr-fpmath=f16: f32 inputs rounded to f16 also leave f32's exponent range (overflow past "
                         "65504, subnormals below 2^-14), which is not a rounding of the significand; convcheck's fpmath "
                         "is tf32 or bf16",
               false;
    if (name == "any")
        return *reason = "--attr-fpmath=any: any lower precision the library picks (bf16 or f16); convcheck's fpmath "
                         "names one (tf32 or bf16)",
               false;
    return *reason = "--attr-fpmath=" + written + ": a mode benchdnn does not know", false;
}

BenchdnnMapping map_benchdnn_case(const BenchdnnSetup& s, const BenchdnnProblem& problem) {
    BenchdnnMapping m;
    std::string unused;
    if (const auto types = benchdnn_data_types(s.dt, s.cfg, &unused, s.version); types && benchdnn_integer_types(*types))
        return map_benchdnn_int8_case(s, problem, *types);  // benchdnn_quantized.hpp
    const auto chosen = choose(s, BenchdnnDriver::conv, problem.descriptor.rank, problem.has_groups, &m.skip_reason);
    if (!chosen) return m;
    ConvDescriptor d = problem.descriptor;
    d.pass = chosen->pass;
    d.dtype_overrides = chosen->dtype_overrides;
    apply(*chosen, d);
    if (!apply_benchdnn_memory(chosen->memory, d, &m.skip_reason)) return m;
    const std::string& post_ops = s.attr[static_cast<int>(BenchdnnAttr::post_ops)];
    if (!post_ops.empty() && d.pass != Pass::forward) {
        m.skip_reason = "--attr-post-ops on --dir=" + benchdnn_dir_name(s.dir) +
                        ": oneDNN's post-ops apply to forward propagation only";
        return m;
    }
    if (!benchdnn_post_ops(post_ops, d, &d.post_ops, &m.skip_reason)) return m;  // benchdnn_post_ops.hpp
    if (d.pass != Pass::forward && d.has_fp8()) {
        m.skip_reason = "--dt: fp8 (f8_e4m3, f8_e5m2) on --dir=" + benchdnn_dir_name(s.dir) +
                        "; convcheck checks fp8 on the forward pass only (docs/fp8.md)";
        return m;
    }
    if (const std::string& scales = s.attr[static_cast<int>(BenchdnnAttr::scales)]; !scales.empty()) {
        if (d.pass != Pass::forward) {
            m.skip_reason = "--attr-scales on --dir=" + benchdnn_dir_name(s.dir) +
                            "; convcheck checks scales on the forward pass only (docs/scales.md)";
            return m;
        }
        if (!benchdnn_float_scales(scales, d, &m.skip_reason)) return m;  // benchdnn_quantized.hpp
    }
    bool apply_to_int = false;  // no integer primitive here: the fpmath mode applies to this f32 convolution either way
    if (!benchdnn_fpmath(s.attr[static_cast<int>(BenchdnnAttr::fpmath)], &d.fpmath, &apply_to_int, &m.skip_reason)) return m;
    if (d.fpmath != FpMath::strict && d.dtype == DataType::f64) {
        m.skip_reason = "--attr-fpmath=" + s.attr[static_cast<int>(BenchdnnAttr::fpmath)] +
                        " on --dt=f64: convcheck's fpmath modes round f32 inputs; an f64 case runs strictly "
                        "(docs/accuracy.md, f64 cases)";
        return m;
    }
    if (d.pass != Pass::forward && has_strides(d)) {
        m.skip_reason = "--stag/--wtag/--dtag/--strides: memory strides on a backward pass; convcheck's backward "
                        "passes take dense tensors in ncx/nxc and oix/xio (docs/passes.md)";
        return m;
    }
    m.descriptor = d;
    return m;
}

BenchdnnMapping map_benchdnn_case(const BenchdnnSetup& s, const BenchdnnDeconvProblem& problem) {
    BenchdnnMapping m;
    const auto chosen = choose(s, BenchdnnDriver::deconv, problem.descriptor.rank, problem.has_groups, &m.skip_reason);
    if (!chosen) return m;
    const auto& mix = chosen->dtype_overrides;
    if (mix.weights || mix.bias || mix.dst) {
        m.skip_reason = "--dt/--bia-dt: mixed per-tensor data types of a transposed convolution (benchdnn's deconv "
                        "driver); convcheck's transposed convolution has one data type for src, weights, bias and dst";
        return m;
    }
    if (!s.attr[static_cast<int>(BenchdnnAttr::post_ops)].empty()) {
        m.skip_reason = "--attr-post-ops: post-ops of a transposed convolution (benchdnn's deconv driver); convcheck's "
                        "post-ops are on the forward convolution";
        return m;
    }
    if (is_fp8(chosen->dtype)) {
        m.skip_reason = "--dt: fp8 (f8_e4m3, f8_e5m2) of a transposed convolution (benchdnn's deconv driver); "
                        "convcheck checks fp8 on the forward convolution only";
        return m;
    }
    if (!is_default_attr(BenchdnnAttr::fpmath, s.attr[static_cast<int>(BenchdnnAttr::fpmath)])) {
        m.skip_reason = "--attr-fpmath: an fpmath mode on a transposed convolution (benchdnn's deconv driver); "
                        "convcheck's fpmath is on the discrete convolution";
        return m;
    }
    TransposedDescriptor t = problem.descriptor;
    apply(*chosen, t);  // chosen->pass is forward: choose() skipped every backward direction
    m.transposed = t;
    return m;
}

}  // namespace convcheck
