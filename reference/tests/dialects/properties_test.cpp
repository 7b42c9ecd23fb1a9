// Properties across dialects: SAME-style dialects give ceil(in/s) wherever they define a result, and
// dialects agree wherever their specs agree (explicit pads; SAME_UPPER; SAME_LOWER), and where they
// do not, they differ exactly as documented (CNTK's unclamped auto pad).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "convcheck/reference/dialects/dialect.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;

namespace {

std::string spatial(const SpatialDims& v, int rank) {
    std::string s;
    for (int a = 0; a < rank; ++a) s += (a ? "x" : "") + std::to_string(v[a]);
    return s;
}

// A random request: small sizes, any rank (2 when `rank2`).
Request random_request(PaddingRequest padding, bool rank2 = false) {
    Request q;
    q.rank = rank2 ? 2 : *rc::gen::inRange(1, 4);
    q.in_channels = *rc::gen::inRange<std::int64_t>(1, 3);
    q.out_channels = *rc::gen::inRange<std::int64_t>(1, 3);
    q.padding = padding;
    for (int a = 0; a < q.rank; ++a) {
        q.input_size[a] = *rc::gen::inRange<std::int64_t>(1, 13);
        q.kernel_size[a] = *rc::gen::inRange<std::int64_t>(1, 6);
        q.strides[a] = *rc::gen::inRange<std::int64_t>(1, 5);
        q.dilations[a] = *rc::gen::inRange<std::int64_t>(1, 4);
        if (padding == PaddingRequest::explicit_pads) {
            q.pads_begin[a] = *rc::gen::inRange<std::int64_t>(0, 4);
            q.pads_end[a] = *rc::gen::inRange<std::int64_t>(0, 4);
        }
    }
    return q;
}

std::string show(const Request& q) {
    return "in=" + spatial(q.input_size, q.rank) + " k=" + spatial(q.kernel_size, q.rank) +
           " s=" + spatial(q.strides, q.rank) + " d=" + spatial(q.dilations, q.rank) + " pb=" +
           spatial(q.pads_begin, q.rank) + " pe=" + spatial(q.pads_end, q.rank) + " padding=" +
           std::string(to_string(q.padding));
}

bool any_above_one(const SpatialDims& v, int rank) {
    for (int a = 0; a < rank; ++a)
        if (v[a] > 1) return true;
    return false;
}

// The framework rules that refuse a SAME-style request (each documented in the dialect's header).
bool same_refusal_expected(std::string_view dialect, const Request& q) {
    if (dialect == "tf_convolution") return any_above_one(q.strides, q.rank) && any_above_one(q.dilations, q.rank);
    if (dialect == "onednn_graph@<3.2") return any_above_one(q.dilations, q.rank);
    if (dialect == "pytorch") return any_above_one(q.strides, q.rank);
    if (dialect == "cntk") {
        for (int a = 0; a < q.rank; ++a)
            if (q.kernel_size[a] > q.input_size[a]) return true;  // "kernel dim <= input dim"
    }
    return false;
}

}  // namespace

RC_GTEST_PROP(DialectProperties, SameStyleDialectsGiveCeilOfInputOverStride, ()) {
    const bool rank2 = *rc::gen::arbitrary<bool>();
    const Request q = random_request(*rc::gen::element(PaddingRequest::same_upper, PaddingRequest::same_lower), rank2);
    RC_LOG() << show(q) << "\n";
    int checked = 0;
    for (const Dialect& dialect : all_dialects()) {
        std::string why_not;
        const auto attributes = dialect.spell(q, &why_not);
        if (!attributes) continue;  // e.g. the oneDNN primitive has no auto padding
        const DialectResult r = dialect.read(*attributes);
        RC_LOG() << dialect.name << ": " << to_string(*attributes) << "\n";
        if (r.error) {
            RC_ASSERT(same_refusal_expected(dialect.name, q));
            continue;
        }
        RC_ASSERT(!same_refusal_expected(dialect.name, q));
        RC_ASSERT(!r.empty_output);
        for (int a = 0; a < q.rank; ++a) RC_ASSERT(r.output_size[a] == (q.input_size[a] + q.strides[a] - 1) / q.strides[a]);
        ++checked;
    }
    RC_ASSERT(checked >= 2);  // ONNX and OpenVINO define SAME for every stride and dilation
}

RC_GTEST_PROP(DialectProperties, ExplicitPadsAgreeInEveryDialectThatHasThem, ()) {
    const Request q = random_request(PaddingRequest::explicit_pads, *rc::gen::arbitrary<bool>());
    for (int a = 0; a < q.rank; ++a)
        RC_PRE(q.input_size[a] + q.pads_begin[a] + q.pads_end[a] >= (q.kernel_size[a] - 1) * q.dilations[a] + 1);
    RC_LOG() << show(q) << "\n";
    int agreeing = 0;
    for (const Dialect& dialect : all_dialects()) {
        std::string why_not;
        const auto attributes = dialect.spell(q, &why_not);
        if (!attributes) {
            // only these cannot say explicit pads: atrous (SAME/VALID only), tf.nn.convolution (SAME/VALID
            // only), PyTorch (symmetric only), XNNPACK (2-D only), TOSA (2-D and 3-D only), TFLite (SAME/VALID,
            // 2-D, groups 1 or depthwise)
            const std::string_view n = dialect.name;
            RC_ASSERT(n == "atrous" || n == "tf_convolution" || n == "pytorch" || n.substr(0, 7) == "xnnpack" ||
                      (n == "tosa" && q.rank == 1) || n == "tflite_f32");
            continue;
        }
        const DialectResult r = dialect.read(*attributes);
        RC_LOG() << dialect.name << ": " << to_string(*attributes) << "\n";
        if (r.error) {
            const bool cntk = dialect.name == "cntk" && r.error->message.find("fills the entire space") != std::string::npos;
            // TOSA's ERROR_IF: the padded extent minus the dilated kernel must divide by the stride
            const bool tosa = dialect.name == "tosa" && r.error->message.find("idiv_check") != std::string::npos;
            RC_ASSERT(cntk || tosa);
            continue;
        }
        RC_ASSERT(r.ok());
        for (int a = 0; a < q.rank; ++a) {
            RC_ASSERT(r.descriptor.pads_begin[a] == q.pads_begin[a]);
            RC_ASSERT(r.descriptor.pads_end[a] == q.pads_end[a]);
            RC_ASSERT(r.descriptor.dilations[a] == q.dilations[a]);
            const std::int64_t K = (q.kernel_size[a] - 1) * q.dilations[a] + 1;
            RC_ASSERT(r.output_size[a] == (q.input_size[a] + q.pads_begin[a] + q.pads_end[a] - K) / q.strides[a] + 1);
        }
        ++agreeing;
    }
    RC_ASSERT(agreeing >= 6);  // TF's Conv2D op, ONNX, OpenVINO, oneDNN, oneDNN Graph, StableHLO never refuse these
}

RC_GTEST_PROP(DialectProperties, SameUpperAndSameLowerAgreeWhereTheSpecsAgree, ()) {
    const PaddingRequest mode = *rc::gen::element(PaddingRequest::same_upper, PaddingRequest::same_lower);
    const Request q = random_request(mode, *rc::gen::arbitrary<bool>());
    RC_LOG() << show(q) << "\n";
    auto read = [&](std::string_view name) {
        std::string why_not;
        return find_dialect(name)->read(*find_dialect(name)->spell(q, &why_not));
    };
    const DialectResult onnx = read("onnx");
    RC_ASSERT(onnx.ok());
    // the same pads as ONNX: OpenVINO and oneDNN Graph (v3.2+) always; TF's Conv2D op and XNNPACK for
    // SAME_UPPER (their one SAME), tf.nn.convolution too where it accepts; oneDNN Graph before v3.2
    // where it defines SAME (dilation 1) and its unclamped total pad is >= 0
    std::vector<std::string_view> same_as_onnx{"openvino", "onednn_graph"};
    if (mode == PaddingRequest::same_upper) {
        same_as_onnx.push_back("tensorflow");
        if (!(any_above_one(q.strides, q.rank) && any_above_one(q.dilations, q.rank))) same_as_onnx.push_back("tf_convolution");
        if (q.rank == 2) same_as_onnx.push_back("xnnpack");
        if (q.rank == 2 && (q.groups == 1 || q.groups == q.in_channels)) same_as_onnx.push_back("tflite_f32");
    }
    bool graph_defined = !any_above_one(q.dilations, q.rank);
    for (int a = 0; a < q.rank; ++a) {
        const std::int64_t out = (q.input_size[a] + q.strides[a] - 1) / q.strides[a];
        if ((out - 1) * q.strides[a] + q.kernel_size[a] - q.input_size[a] < 0) graph_defined = false;
    }
    if (graph_defined) same_as_onnx.push_back("onednn_graph@<3.2");
    for (auto name : same_as_onnx) {
        const DialectResult r = read(name);
        RC_LOG() << name << "\n";
        RC_ASSERT(r.ok());
        for (int a = 0; a < q.rank; ++a) {
            RC_ASSERT(r.descriptor.pads_begin[a] == onnx.descriptor.pads_begin[a]);
            RC_ASSERT(r.descriptor.pads_end[a] == onnx.descriptor.pads_end[a]);
        }
    }
}

RC_GTEST_PROP(DialectProperties, CntkAutoPaddingIsTensorflowSameUnclampedAndPlacedByTheCentre, ()) {
    Request q = random_request(PaddingRequest::same_upper);
    for (int a = 0; a < q.rank; ++a) {
        q.dilations[a] = 1;  // so that TF accepts any stride
        RC_PRE(q.kernel_size[a] <= q.input_size[a]);
    }
    RC_LOG() << show(q) << "\n";
    std::string why_not;
    const DialectResult tf = find_dialect("tensorflow")->read(*find_dialect("tensorflow")->spell(q, &why_not));
    const DialectResult cntk = find_dialect("cntk")->read(*find_dialect("cntk")->spell(q, &why_not));
    RC_ASSERT(tf.ok());
    RC_ASSERT(cntk.ok());
    for (int a = 0; a < q.rank; ++a) {
        const std::int64_t K = q.kernel_size[a], e = (q.input_size[a] - 1) % q.strides[a];
        const std::int64_t cntk_total = cntk.descriptor.pads_begin[a] + cntk.descriptor.pads_end[a];
        const std::int64_t tf_total = tf.descriptor.pads_begin[a] + tf.descriptor.pads_end[a];
        RC_ASSERT(cntk_total == K - 1 - e);                          // not clamped
        RC_ASSERT(tf_total == std::max<std::int64_t>(0, K - 1 - e));  // clamped at 0
        RC_ASSERT(cntk.output_size[a] == tf.output_size[a]);
        // an odd total: TF puts the extra at the end; CNTK centres the windows on floor(e/2), which puts
        // it at the beginning when e is odd and at the end when e is even
        if (cntk_total == tf_total && cntk_total % 2 == 1)
            RC_ASSERT(cntk.descriptor.pads_begin[a] == tf.descriptor.pads_begin[a] + e % 2);
    }
}
