#include "convcheck/formats/case_data.hpp"

#include <algorithm>

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

void require_data(const VectorSet& set, const VectorCase& c, const std::string& dt) {
    if (c.expect_error_attribute)
        throw ManifestError("manifest: " + set.name + "/" + c.name + ": an expect_error case has no data");
    if (c.dtype != dt)
        throw ManifestError("manifest: " + set.name + "/" + c.name + ": dtype = " + c.dtype + ": the descriptor says " + dt);
}

void refuse_other_arrays(const VectorSet& set, const VectorCase& c, const std::vector<std::string>& known,
                         const std::string& layer) {
    for (const ArrayEntry& e : c.arrays)
        if (std::find(known.begin(), known.end(), e.role) == known.end())
            throw ManifestError("manifest: " + set.name + "/" + c.name + ": arrays." + e.role + ": the layer " + layer +
                                " has no such array");
}

OutputArrays load_output_arrays(const VectorSet& set, const VectorCase& c, const std::string& dt, const OutputDims& dims) {
    OutputArrays a;
    a.src = load_role(set, c, "src", dt, dims.src);
    a.weights = load_role(set, c, "weights", dt, dims.weights);
    if (dims.bias_elements > 0) a.bias = load_role(set, c, "bias", dt, {dims.bias_elements});
    a.dst = load_role(set, c, "dst", dt, dims.dst);
    a.dst_f64 = load_role(set, c, "dst_f64", "f64", dims.dst_ncx);
    a.magnitude = load_role(set, c, "magnitude", "f64", dims.dst_ncx);
    a.terms = load_role(set, c, "terms", "i64", dims.dst_ncx);
    std::vector<std::string> known{"src", "weights", "dst", "dst_f64", "magnitude", "terms"};
    if (dims.bias_elements > 0) known.push_back("bias");
    refuse_other_arrays(set, c, known, c.descriptor);
    return a;
}

CaseData load_case_data(const VectorSet& set, const VectorCase& c) {
    if (c.expect_error_attribute)  // before the descriptor: an expect_error case's descriptor may be refused
        throw ManifestError("manifest: " + set.name + "/" + c.name + ": an expect_error case has no data");
    CaseData data;
    data.descriptor = parse_descriptor(c.descriptor);
    const ConvDescriptor& d = data.descriptor;
    const std::string dt(to_string(d.dtype));
    require_data(set, c, dt);
    std::vector<std::int64_t> ncx_dst{d.batch, d.out_channels};
    for (int a = 0; a < d.rank; ++a) ncx_dst.push_back(d.output_size(a));
    static_cast<OutputArrays&>(data) = load_output_arrays(
        set, c, dt, {d.src_dims(), d.weights_dims(), d.dst_dims(), ncx_dst, d.has_bias ? d.out_channels : 0});
    return data;
}

}  // namespace convcheck::vectors
