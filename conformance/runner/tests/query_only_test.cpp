// A query alone (create, the query, destroy: ConvExecution::query_only, as sampled mode asks before it writes a case's
// tensors of GiBs) maps none of the case's buffers in: in the child, where a page mapped in is a page of shared
// memory allocated and zeroed, a case the backend declines costs no memory. A case it runs has every page mapped in.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "convcheck/abi/abi_descriptor.hpp"
#include "convcheck/core/descriptor.hpp"
#include "convcheck/runner/operation_calls.hpp"
#include "convcheck/runner/session.hpp"

namespace convcheck::runner {
namespace {

TEST(QueryOnly, MapsNoPageOfTheCasesBuffersIn) {
    const auto session = open_backend("reference", {}, 1, "none", 30.0);
    const ConvDescriptor d = parse_descriptor("conv:n=1,c=16,o=16,in=64x64,k=3x3,pb=1x1,pe=1x1");  // 256 KiB each
    constexpr auto untouched = GuardedBuffer::Pages::untouched;
    for (const bool query_only : {true, false}) {
        SCOPED_TRACE(query_only ? "the query alone" : "the case run");
        GuardedBuffer src(static_cast<std::size_t>(d.src_elements()) * 4, untouched),
            weights(static_cast<std::size_t>(d.weights_elements()) * 4, untouched),
            dst(static_cast<std::size_t>(d.dst_elements()) * 4, untouched);
        ConvExecution e;
        e.desc = to_abi(d);
        e.src = &src, e.weights = &weights, e.dst = &dst;
        e.query_only = query_only;
        const ChildOutcome o = execute_conv(*session->backend.plugin, session->backend.options, e);
        ASSERT_EQ(o.kind, ChildOutcome::Kind::ok) << o.reason;
        const long page = sysconf(_SC_PAGESIZE);
        for (const GuardedBuffer* b : {&src, &weights, &dst}) {
            const long pages = (static_cast<long>(b->bytes()) + page - 1) / page;
            const std::vector<unsigned char> resident = b->residency();
            ASSERT_EQ(static_cast<long>(resident.size()), pages) << "mincore answered for every page";
            EXPECT_EQ(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; }),
                      query_only ? 0 : pages);
        }
    }
}

}  // namespace
}  // namespace convcheck::runner
