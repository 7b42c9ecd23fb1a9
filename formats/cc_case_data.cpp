#include "convcheck/formats/cc_case_data.hpp"

#include "convcheck/formats/case_data.hpp"

namespace convcheck::vectors {

CcCaseData load_cc_case_data(const VectorSet& set, const VectorCase& c) {
    if (c.descriptor.rfind("cc:", 0) != 0 || split_cc_pass(c.descriptor).backward)
        throw ManifestError("manifest: " + set.name + "/" + c.name + ": not a CC forward descriptor (cc:..., no dir=bwd)");
    CcCaseData data;
    data.descriptor = parse_cc_descriptor(c.descriptor);
    const CcDescriptor& d = data.descriptor;
    require_data(set, c, "f32");
    const bool net = d.kernel == CcKernel::internal_net;
    const std::vector<std::int64_t> dst = d.dst_dims();
    data.src = load_role(set, c, "src", "f32", d.src_dims());
    if (net) data.theta = load_role(set, c, "theta", "f32", {d.theta_elements()});
    if (d.has_bias) data.bias = load_role(set, c, "bias", "f32", {d.out_channels});
    data.grid = load_role(set, c, "grid", "f64", {2, d.output_size[0], d.output_size[1]});
    data.dst = load_role(set, c, "dst", "f32", dst);
    data.dst_f64 = load_role(set, c, "dst_f64", "f64", dst);
    data.magnitude = load_role(set, c, "magnitude", "f64", dst);
    data.terms = load_role(set, c, "terms", "i64", dst);
    std::vector<std::string> known{"src", "grid", "dst", "dst_f64", "magnitude", "terms"};
    if (net) known.push_back("theta");
    if (d.has_bias) known.push_back("bias");
    refuse_other_arrays(set, c, known, to_string(d));
    return data;
}

}  // namespace convcheck::vectors
