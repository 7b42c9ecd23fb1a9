// The text face of the dialects: attribute parsing, unknown keys, out-of-range values, and random
// attribute sets (a small in-process fuzzer): a dialect never throws, and every result it calls ok
// is a valid canonical descriptor with the output sizes it reports.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "convcheck/reference/dialects/dialect.hpp"

using namespace convcheck;
using namespace convcheck::reference::dialects;

TEST(Attributes, ParsesCommasSpacesSemicolonsAndQuotes) {
    const AttributeSet a = parse_attributes("auto_pad=SAME_UPPER, strides=2x2;in=7x7  k='3x3'");
    EXPECT_EQ(a.at("auto_pad"), "SAME_UPPER");
    EXPECT_EQ(a.at("strides"), "2x2");
    EXPECT_EQ(a.at("in"), "7x7");
    EXPECT_EQ(a.at("k"), "3x3");
    EXPECT_EQ(to_string(a), "auto_pad=SAME_UPPER,in=7x7,k=3x3,strides=2x2");
}

TEST(Attributes, RejectsMalformedItemsAndRepeatedKeys) {
    EXPECT_THROW(parse_attributes("in=7 k"), ConvError);
    EXPECT_THROW(parse_attributes("=3"), ConvError);
    EXPECT_THROW(parse_attributes("k=3 k=5"), ConvError);
}

TEST(Attributes, EveryDialectNamesAnUnknownKey) {
    for (const Dialect& d : all_dialects()) {
        const DialectResult r = d.read(parse_attributes("in=7x7 k=3x3 bogus=1"));
        ASSERT_TRUE(r.error.has_value()) << d.name;
        EXPECT_EQ(r.error->attribute, "bogus") << d.name;
        EXPECT_FALSE(r.error->framework_wording) << d.name;
    }
}

TEST(Attributes, EveryDialectRefusesHugeValuesInItsOwnTerms) {
    for (const Dialect& d : all_dialects()) {
        for (const char* text : {"in=7x4611686018427387904 k=3x3", "in=7x7 k=3x3 c=99999999999", "in=7x7 k=3x3 o=-5",
                                 "in=7x7 k=3x3 n=0", "in=0x7 k=3x3", "in=7x7 k=x3"}) {
            const DialectResult r = d.read(parse_attributes(text));
            EXPECT_TRUE(r.error.has_value()) << d.name << " " << text;
        }
    }
}

TEST(Attributes, MissingShapesAreNamed) {
    for (const Dialect& d : all_dialects()) {
        const DialectResult r = d.read(parse_attributes("k=3x3"));
        ASSERT_TRUE(r.error.has_value()) << d.name;
        EXPECT_EQ(r.error->attribute, "in") << d.name;
    }
}

namespace {

// Values of the kinds the dialects take, small enough to reach every rule.
rc::Gen<std::string> value() {
    return rc::gen::oneOf(
        rc::gen::map(rc::gen::inRange(-3, 13), [](int v) { return std::to_string(v); }),
        rc::gen::map(rc::gen::container<std::vector<int>>(rc::gen::inRange(-2, 9)),
                     [](const std::vector<int>& v) {
                         std::string s;
                         for (std::size_t i = 0; i < v.size() && i < 8; ++i) s += (i ? "x" : "") + std::to_string(v[i]);
                         return s.empty() ? std::string("1") : s;
                     }),
        rc::gen::element<std::string>("SAME", "VALID", "EXPLICIT", "SAME_UPPER", "SAME_LOWER", "NOTSET", "same_upper",
                                      "same_lower", "valid", "explicit", "None", "same", "true", "false",
                                      "true:false", "false:true:false", "NCHW", "NHWC", "NXC", "NCX", "OIX", "XIO",
                                      "HWC", "cudnn", "TENSORFLOW_SAME_PADDING", "0", "1x1x1x1", "3:3:1", "2:1"));
}

rc::Gen<std::string> key() {
    return rc::gen::element<std::string>(
        "n", "c", "o", "k", "strides", "dilations", "padding", "explicit_paddings", "data_format", "rate", "auto_pad",
        "pads", "kernel_shape", "group", "pads_begin", "pads_end", "groups", "filter_format", "dilates", "padding_l",
        "padding_r", "weights_format", "stride", "dilation", "kernel_size", "kernel", "mapCount", "sharing",
        "autoPadding", "lowerPad", "upperPad", "imageLayout", "kernelWidth", "kernelHeight", "horizontalStride",
        "verticalStride", "zeroPadding", "input_padding_top", "input_padding_left", "subsampling_height",
        "dilation_width", "flags");
}

}  // namespace

RC_GTEST_PROP(Attributes, RandomAttributeSetsNeverThrowOkMeansValidAndSpellsBack, ()) {
    const auto dialects = all_dialects();
    const Dialect& dialect = dialects[*rc::gen::inRange<std::size_t>(0, dialects.size())];
    // start from the dialect's own words for a random request, then mutate a few values (and
    // sometimes add a key of another dialect)
    Request q;
    q.rank = *rc::gen::inRange(1, 4);
    q.padding = *rc::gen::element(PaddingRequest::explicit_pads, PaddingRequest::valid, PaddingRequest::same_upper,
                                  PaddingRequest::same_lower);
    for (int i = 0; i < q.rank; ++i) {
        q.input_size[i] = *rc::gen::inRange<std::int64_t>(1, 10);
        q.kernel_size[i] = *rc::gen::inRange<std::int64_t>(1, 6);
        q.strides[i] = *rc::gen::inRange<std::int64_t>(1, 4);
        q.dilations[i] = *rc::gen::inRange<std::int64_t>(1, 3);
        q.pads_begin[i] = *rc::gen::inRange<std::int64_t>(0, 3);
        q.pads_end[i] = *rc::gen::inRange<std::int64_t>(0, 3);
    }
    std::string why_not;
    AttributeSet a = dialect.spell(q, &why_not).value_or(AttributeSet{{"in", "5x5"}, {"k", "3x3"}});
    std::vector<std::string> keys;
    for (const auto& [k, v] : a) keys.push_back(k);
    const int mutations = *rc::gen::inRange(0, 4);
    for (int i = 0; i < mutations; ++i) {
        const bool foreign = *rc::gen::inRange(0, 5) == 0;
        a[foreign ? *key() : keys[*rc::gen::inRange<std::size_t>(0, keys.size())]] = *value();
    }
    RC_LOG() << "convcheck describe --dialect " << dialect.name << " " << to_string(a) << "\n";
    const DialectResult r = dialect.read(a);  // must not throw
    RC_ASSERT(!(r.error.has_value() && r.empty_output));
    if (r.ok()) {
        validate(r.descriptor);
        for (int i = 0; i < r.descriptor.rank; ++i) RC_ASSERT(r.descriptor.output_size(i) == r.output_size[i]);
        // the dialect's own spelling of its reading reads back as the same descriptor
        std::string why;
        const auto again = dialect.spell(r.request, &why);
        if (again) {
            RC_LOG() << "spelled back: " << to_string(*again) << "\n";
            const DialectResult back = dialect.read(*again);
            RC_ASSERT(back.ok());
            RC_ASSERT(back.descriptor == r.descriptor);
            RC_ASSERT(back.weights_shared == r.weights_shared);
        }
    }
    if (r.empty_output) {
        bool some_zero = false;
        for (auto o : r.output_size) some_zero = some_zero || o == 0;
        RC_ASSERT(some_zero);
    }
    RC_CLASSIFY(r.ok(), "ok");
    RC_CLASSIFY(r.error.has_value(), "error");
    RC_CLASSIFY(r.empty_output, "empty");
}
