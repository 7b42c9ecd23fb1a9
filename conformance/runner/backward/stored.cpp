// A stored backward-pass vector as the backward check's inputs and truth (case_pipeline.hpp): the
// arrays converted to canonical order by the reference's edge functions, the truth read as stored.
#include "operation.hpp"
#include "convcheck/reference/convolution.hpp"
#include "convcheck/formats/gradient_case_data.hpp"

namespace convcheck::runner::detail {

StoredBackward stored_backward_data(const Case& c) {
    const ConvDescriptor& d = c.conv;
    const vectors::VectorSet set = vectors::load_vector_set(c.vector_dir);
    const vectors::BackwardCaseData data = vectors::load_backward_case_data(set, stored_case(set, c));
    if (!(data.descriptor == d))
        throw std::invalid_argument("stored vector " + c.vector_case + " is " + to_string(data.descriptor) + ", not " +
                                    to_string(d));
    StoredBackward s;
    s.in.diff_dst = reference::dst_to_ncx(d, data.diff_dst.data.data());
    if (d.pass == Pass::backward_data) s.in.weights = reference::weights_to_oix(d, data.weights.data.data());
    else s.in.src = reference::src_to_ncx(d, data.src.data.data());
    for (const vectors::StoredGradient& g : data.gradients) {
        const auto values = f64_values(g.f64), magnitude = f64_values(g.magnitude), terms = f64_values(g.terms);
        s.values.insert(s.values.end(), values.begin(), values.end());
        s.magnitude.insert(s.magnitude.end(), magnitude.begin(), magnitude.end());
        for (double t : terms) s.terms.push_back(static_cast<std::int64_t>(t));
    }
    return s;
}

}  // namespace convcheck::runner::detail
