#include "convcheck/formats/gradient_case_data.hpp"

namespace convcheck::vectors {

std::vector<std::int64_t> ncx_dims(std::int64_t n, std::int64_t c, const SpatialDims& sizes, int rank) {
    std::vector<std::int64_t> dims{n, c};
    for (int a = 0; a < rank; ++a) dims.push_back(sizes[a]);
    return dims;
}

StoredGradient load_stored_gradient(const VectorSet& set, const VectorCase& c, const std::string& role, const std::string& dt,
                                    const std::vector<std::int64_t>& stored_dims,
                                    const std::vector<std::int64_t>& canonical_dims) {
    StoredGradient g;
    g.role = role;
    g.stored = load_role(set, c, role.c_str(), dt, stored_dims);
    g.f64 = load_role(set, c, (role + "_f64").c_str(), "f64", canonical_dims);
    g.magnitude = load_role(set, c, (role + "_magnitude").c_str(), "f64", canonical_dims);
    g.terms = load_role(set, c, (role + "_terms").c_str(), "i64", canonical_dims);
    return g;
}

namespace {

// Every stored array of a backward case is diff_dst, the pass's other input, or one of its gradients' four.
void refuse_other_backward_arrays(const VectorSet& set, const VectorCase& c, const BackwardCaseData& data,
                                  const char* input) {
    std::vector<std::string> known{"diff_dst", input};
    for (const StoredGradient& g : data.gradients)
        for (const char* suffix : {"", "_f64", "_magnitude", "_terms"}) known.push_back(g.role + suffix);
    refuse_other_arrays(set, c, known, c.descriptor);
}

}  // namespace

BackwardCaseData load_backward_case_data(const VectorSet& set, const VectorCase& c) {
    BackwardCaseData data;
    data.descriptor = parse_descriptor(c.descriptor);
    const ConvDescriptor& d = data.descriptor;
    const std::string dt(to_string(d.dtype));
    require_data(set, c, dt);
    data.diff_dst = load_role(set, c, "diff_dst", dt, d.dst_dims());
    if (d.pass == Pass::backward_data) {
        data.weights = load_role(set, c, "weights", dt, d.weights_dims());
        data.gradients.push_back(load_stored_gradient(set, c, "diff_src", dt, d.src_dims(),
                                                      ncx_dims(d.batch, d.in_channels, d.input_size, d.rank)));
        refuse_other_backward_arrays(set, c, data, "weights");
        return data;
    }
    if (d.pass != Pass::backward_weights)
        throw ManifestError("manifest: " + set.name + "/" + c.name + ": not a backward descriptor (dir=bwd_d or dir=bwd_w)");
    data.src = load_role(set, c, "src", dt, d.src_dims());
    data.gradients.push_back(load_stored_gradient(set, c, "diff_weights", dt, d.weights_dims(),
                                                  ncx_dims(d.out_channels, d.in_channels_per_group(), d.kernel_size, d.rank)));
    if (d.has_bias) data.gradients.push_back(load_stored_gradient(set, c, "diff_bias", dt, {d.out_channels}, {d.out_channels}));
    refuse_other_backward_arrays(set, c, data, "src");
    return data;
}

TransposedCaseData load_transposed_case_data(const VectorSet& set, const VectorCase& c) {
    TransposedCaseData data;
    data.descriptor = parse_transposed_descriptor(c.descriptor);
    const TransposedDescriptor& t = data.descriptor;
    const std::string dt(to_string(t.dtype));
    require_data(set, c, dt);
    SpatialDims out{};
    for (int a = 0; a < t.rank; ++a) out[a] = t.output_size(a);
    static_cast<OutputArrays&>(data) = load_output_arrays(
        set, c, dt, {t.src_dims(), t.forward().weights_dims(), t.dst_dims(), ncx_dims(t.batch, t.out_channels, out, t.rank),
                     t.has_bias ? t.out_channels : 0});
    return data;
}

}  // namespace convcheck::vectors
