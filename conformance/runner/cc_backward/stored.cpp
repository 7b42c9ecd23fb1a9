// A stored CC backward golden vector as a case's data (the cc_backward set, docs/vectors.md): its src, theta
// and diff_dst (checksummed, checked against the layer by load_cc_backward_case_data). The truth is the CC
// backward reference on these inputs, as for drawn data: ctest checks that the reference reproduces every
// stored gradient, magnitude, term count and bound (vectors_reference_vectors_test).
#include <stdexcept>

#include "convcheck/formats/cc_backward_case_data.hpp"
#include "operation.hpp"

namespace convcheck::runner::detail {

CcData stored_cc_backward_data(const Case& c, const CcDescriptor& d, std::vector<float>& diff_dst) {
    const vectors::VectorSet set = vectors::load_vector_set(c.vector_dir);
    const vectors::CcBackwardCaseData stored = vectors::load_cc_backward_case_data(set, stored_case(set, c));
    if (!(stored.descriptor == d))
        throw std::invalid_argument("stored vector " + c.vector_case + " is " + to_string(stored.descriptor) + ", not " + to_string(d));
    CcData data;
    data.src = stored_floats(stored.src);
    data.theta = stored_floats(stored.theta);
    diff_dst = stored_floats(stored.diff_dst);
    return data;
}

}  // namespace convcheck::runner::detail
