// The dialects suite: the same requests (same-padding both ways, valid, explicit asymmetric pads,
// with strides and dilations, ranks 1 to 3) spelled in every framework's own attributes by the
// dialect front ends (reference/dialects), read back as that framework computes them, and run as
// canonical cases. A framework that cannot say a request (PyTorch 'same' with a stride, ...) or
// refuses it (its own error) contributes no case for it; locally connected results are skipped, and
// so are the versioned dialects (name@release: an older release's reading, see docs/errata.md).
#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/runner/suites.hpp"

#include <set>

namespace convcheck::runner {

namespace {

using reference::dialects::PaddingRequest;
using reference::dialects::Request;

Request request(int rank, std::int64_t c, std::int64_t o, std::int64_t in, std::int64_t k, std::int64_t s,
                std::int64_t d, PaddingRequest padding, std::int64_t groups = 1) {
    Request r;
    r.rank = rank;
    r.in_channels = c;
    r.out_channels = o;
    r.groups = groups;
    r.padding = padding;
    for (int a = 0; a < rank; ++a) {
        r.input_size[a] = in + a;  // non-square, so that swapped axes show
        r.kernel_size[a] = k;
        r.strides[a] = s;
        r.dilations[a] = d;
    }
    return r;
}

}  // namespace

std::vector<SuiteEntry> dialects_suite() {
    std::vector<Request> requests{
        request(2, 3, 4, 7, 3, 2, 1, PaddingRequest::same_upper),
        request(2, 3, 4, 7, 3, 2, 1, PaddingRequest::same_lower),
        request(2, 2, 2, 9, 4, 1, 1, PaddingRequest::same_upper),
        request(2, 2, 2, 9, 4, 1, 1, PaddingRequest::same_lower),
        request(2, 2, 3, 10, 3, 1, 2, PaddingRequest::same_upper),
        request(2, 4, 4, 10, 3, 3, 1, PaddingRequest::same_upper, 4),
        request(2, 3, 2, 11, 3, 3, 1, PaddingRequest::valid),
        request(2, 2, 2, 8, 3, 1, 3, PaddingRequest::valid),
        request(1, 2, 3, 10, 4, 3, 1, PaddingRequest::same_upper),
        request(1, 2, 3, 10, 4, 3, 1, PaddingRequest::same_lower),
        request(3, 2, 2, 5, 3, 2, 1, PaddingRequest::same_lower),
        request(3, 2, 2, 6, 2, 1, 2, PaddingRequest::valid),
    };
    Request asymmetric = request(2, 2, 3, 8, 3, 2, 1, PaddingRequest::explicit_pads);
    asymmetric.pads_begin = {1, 0, 0};
    asymmetric.pads_end = {2, 1, 0};
    requests.push_back(asymmetric);

    std::vector<SuiteEntry> entries;
    std::set<std::string> seen;  // a framework may spell two requests alike (TF has one SAME): keep the first
    for (const auto& dialect : reference::dialects::all_dialects()) {
        // a versioned dialect (name@release) reads an older release; the suite runs the current readings
        if (dialect.name.find('@') != std::string_view::npos) continue;
        for (std::size_t i = 0; i < requests.size(); ++i) {
            std::string why_not;
            const auto attributes = dialect.spell(requests[i], &why_not);
            if (!attributes) continue;
            const auto result = dialect.read(*attributes);
            if (!result.ok()) continue;
            bool shared = true;
            for (bool s : result.weights_shared) shared = shared && s;
            const std::string name = std::string(dialect.name) + "/" + reference::dialects::to_string(*attributes);
            if (!shared || !seen.insert(name).second) continue;
            SuiteEntry e(to_string(result.descriptor), "bp", name);
            e.dialect = std::string(dialect.name);
            e.padding = std::string(reference::dialects::to_string(requests[i].padding));
            entries.push_back(std::move(e));
        }
    }
    return entries;
}

}  // namespace convcheck::runner
