#include "convcheck/formats/cc_backward_case_data.hpp"

namespace convcheck::vectors {

namespace {

[[noreturn]] void refuse(const VectorSet& set, const VectorCase& c, const std::string& what) {
    throw ManifestError("manifest: " + set.name + "/" + c.name + ": " + what);
}

StoredCcGradient gradient(const VectorSet& set, const VectorCase& c, const std::string& role,
                          const std::vector<std::int64_t>& dims) {
    StoredCcGradient g;
    static_cast<StoredGradient&>(g) = load_stored_gradient(set, c, role, "f32", dims, dims);
    g.bound = load_role(set, c, (role + "_bound").c_str(), "f64", dims);
    return g;
}

}  // namespace

CcBackwardCaseData load_cc_backward_case_data(const VectorSet& set, const VectorCase& c) {
    const CcPassText pass = split_cc_pass(c.descriptor);
    if (c.descriptor.rfind("cc:", 0) != 0 || !pass.backward) refuse(set, c, "not a CC backward descriptor (cc:...,dir=bwd)");
    CcBackwardCaseData data;
    data.descriptor = parse_cc_descriptor(pass.layer);
    const CcDescriptor& d = data.descriptor;
    require_data(set, c, "f32");
    const bool net = d.kernel == CcKernel::internal_net;
    data.src = load_role(set, c, "src", "f32", d.src_dims());
    data.diff_dst = load_role(set, c, "diff_dst", "f32", d.dst_dims());
    data.distances = load_role(set, c, "distances", "f64", {d.neighbours(), 2, d.output_size[0], d.output_size[1]});
    if (net) data.theta = load_role(set, c, "theta", "f32", {d.theta_elements()});
    data.gradients.push_back(gradient(set, c, "diff_src", d.src_dims()));
    if (net) data.gradients.push_back(gradient(set, c, "diff_theta", {d.theta_elements()}));
    if (d.has_bias) data.gradients.push_back(gradient(set, c, "diff_bias", {d.out_channels}));
    // every stored array is one of these (a stray one, e.g. diff_theta of an analytic kernel, would be
    // read as nothing; refuse it)
    std::vector<std::string> known{"src", "diff_dst", "distances"};
    if (net) known.push_back("theta");
    for (const StoredCcGradient& g : data.gradients)
        for (const char* suffix : {"", "_f64", "_magnitude", "_terms", "_bound"}) known.push_back(g.role + suffix);
    refuse_other_arrays(set, c, known, to_string(d));
    return data;
}

}  // namespace convcheck::vectors
