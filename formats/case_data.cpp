#include "case_data.hpp"

namespace convcheck::vectors {

namespace {

std::string dims_text(const std::vector<std::int64_t>& dims) {
    std::string s = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
    return s + "]";
}

}  // namespace

npy::Array load_role(const VectorSet& set, const VectorCase& c, const char* role, std::string_view dtype,
                     const std::vector<std::int64_t>& dims) {
    const ArrayEntry* entry = c.array(role);
    const std::string where = "manifest: " + set.name + "/" + c.name + ": arrays." + role;
    if (!entry) throw ManifestError(where + ": the array is missing");
    if (entry->dtype != dtype)
        throw ManifestError(where + ": dtype = " + entry->dtype + ": the descriptor needs " + std::string(dtype));
    if (entry->shape != dims)
        throw ManifestError(where + ": shape = " + dims_text(entry->shape) + ": the descriptor needs " + dims_text(dims));
    return load_array(set, c, *entry);
}

CaseData load_case_data(const VectorSet& set, const VectorCase& c) {
    if (c.expect_error_attribute)
        throw ManifestError("manifest: " + set.name + "/" + c.name + ": an expect_error case has no data");
    CaseData data;
    data.descriptor = parse_descriptor(c.descriptor);
    const ConvDescriptor& d = data.descriptor;
    const std::string dt(to_string(d.dtype));
    if (c.dtype != dt)
        throw ManifestError("manifest: " + set.name + "/" + c.name + ": dtype = " + c.dtype + ": the descriptor says " + dt);
    std::vector<std::int64_t> ncx_dst{d.batch, d.out_channels};
    for (int a = 0; a < d.rank; ++a) ncx_dst.push_back(d.output_size(a));
    data.src = load_role(set, c, "src", dt, d.src_dims());
    data.weights = load_role(set, c, "weights", dt, d.weights_dims());
    if (d.has_bias) data.bias = load_role(set, c, "bias", dt, {d.out_channels});
    else if (c.array("bias"))
        throw ManifestError("manifest: " + set.name + "/" + c.name + ": arrays.bias: the descriptor has bias=0");
    data.dst = load_role(set, c, "dst", dt, d.dst_dims());
    data.dst_f64 = load_role(set, c, "dst_f64", "f64", ncx_dst);
    data.magnitude = load_role(set, c, "magnitude", "f64", ncx_dst);
    data.terms = load_role(set, c, "terms", "i64", ncx_dst);
    return data;
}

}  // namespace convcheck::vectors
