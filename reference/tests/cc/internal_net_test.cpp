// The Internal-Net K_theta: the 2 -> h1 -> h2 -> Cin*Cout 1x1-conv stack, theta order, seeded
// initialisation, and the parameter file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "convcheck/reference_tests/cc_fixtures.hpp"
#include "convcheck/reference/cc/internal_net.hpp"

using namespace convcheck;
using namespace convcheck::reference::cc;

namespace {

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("convcheck_cc_" + std::to_string(::getpid()) + "_" + name)).string();
}

void expect_load_error(const CcDescriptor& d, const std::string& path, const std::string& attribute_part) {
    try {
        load_internal_net(d, path);
        ADD_FAILURE() << "loaded " << path;
    } catch (const ConvError& e) {
        EXPECT_NE(e.attribute().find(attribute_part), std::string::npos) << e.what();
        EXPECT_FALSE(e.rule().empty());
    }
}

}  // namespace

TEST(InternalNet, ComputesTheLayersByHand) {
    // Cin = 1, Cout = 2, h1 = 2, h2 = 1, slope 0.1
    const CcDescriptor d = parse_cc_descriptor("cin=1,cout=2,in=4,hidden=2x1,slope=0.1");
    // theta: W1[2][2], b1[2], W2[1][2], b2[1], W3[2][1], b3[2]
    const std::vector<double> theta{1, 0, 0, -1,  // W1: a1 = (dy, -dx)
                                    0, 0.5,       // b1
                                    2, 3,         // W2
                                    -1,           // b2
                                    4, -2,        // W3
                                    0.25, 1};     // b3
    const InternalNet net = internal_net_from_theta(d, theta);
    std::vector<double> out(2);
    // (dy, dx) = (0.5, 1): a1 = LReLU(0.5, -1 + 0.5) = (0.5, -0.05); a2 = LReLU(1 - 0.15 - 1) = -0.015
    net.evaluate(0.5, 1.0, out);
    EXPECT_DOUBLE_EQ(out[0], 4 * -0.015 + 0.25);
    EXPECT_DOUBLE_EQ(out[1], -2 * -0.015 + 1);
    // (dy, dx) = (2, -1): a1 = (2, 1.5); a2 = 4 + 4.5 - 1 = 7.5 (no activation effect)
    net.evaluate(2.0, -1.0, out);
    EXPECT_DOUBLE_EQ(out[0], 30.25);
    EXPECT_DOUBLE_EQ(out[1], -14.0);
    EXPECT_EQ(net.theta(), theta);
}

TEST(InternalNet, OutputChannelIsCoutTimesCinPlusCin) {
    // W3 = 0 and b3[c] = c: the weight for (cout, cin) is cout*Cin + cin
    const CcDescriptor d = parse_cc_descriptor("cin=3,cout=2,in=4,hidden=1x1");
    std::vector<double> theta(static_cast<std::size_t>(d.theta_elements()), 0.0);
    for (int c = 0; c < 6; ++c) theta[theta.size() - 6 + c] = c;
    const ContinuousKernel k = ContinuousKernel::for_descriptor(d, theta);
    std::vector<double> w(6);
    k.evaluate(0.3, -0.7, w);
    EXPECT_EQ(w, (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(InternalNet, ThetaOfTheWrongLengthIsAnError) {
    const CcDescriptor d = parse_cc_descriptor("cin=2,cout=3,in=4");
    EXPECT_THROW(internal_net_from_theta(d, std::vector<double>(d.theta_elements() - 1)), ConvError);
    EXPECT_THROW(internal_net_from_theta(parse_cc_descriptor("cin=2,cout=3,in=4,kernel=linear"), {}), ConvError);
    EXPECT_THROW(ContinuousKernel::for_descriptor(parse_cc_descriptor("cin=1,cout=1,in=4,kernel=cubic"),
                                                  std::vector<double>{1.0}),
                 ConvError);
}

TEST(InternalNet, InitialisationIsDeterministicAndDocumented) {
    const CcDescriptor d = parse_cc_descriptor("cin=32,cout=32,in=8,support=3x3");
    const InternalNet a = initialise_internal_net(d, 7), b = initialise_internal_net(d, 7), c = initialise_internal_net(d, 8);
    EXPECT_EQ(a.theta(), b.theta());
    EXPECT_NE(a.theta(), c.theta());
    auto within = [](const std::vector<double>& v, double bound) {
        for (double x : v)
            if (std::fabs(x) > bound) return false;
        return true;
    };
    EXPECT_TRUE(within(a.W1, 1 / std::sqrt(2.0)));
    EXPECT_TRUE(within(a.W2, 0.25));  // 1/sqrt(h1), h1 = 16
    EXPECT_TRUE(within(a.W3, 0.25));
    // b3 ~ Normal(0, 1/(3 * Cin * 3 * 3)): 1024 samples, variance within 15% of 1/864
    double mean = 0, var = 0;
    for (double x : a.b3) mean += x;
    mean /= static_cast<double>(a.b3.size());
    for (double x : a.b3) var += (x - mean) * (x - mean);
    var /= static_cast<double>(a.b3.size() - 1);
    EXPECT_NEAR(var, 1.0 / 864.0, 0.15 / 864.0) << "seed 7";
    EXPECT_NEAR(mean, 0.0, 4.0 * std::sqrt(1.0 / 864.0 / 1024.0)) << "seed 7";
    EXPECT_FALSE(within(a.b3, 1e-12));  // b3 is drawn, not left at zero
}

TEST(InternalNet, ParameterFileRoundTrip) {
    const CcDescriptor d = parse_cc_descriptor("cin=2,cout=3,in=4,hidden=5x4,slope=0.2");
    const InternalNet net = initialise_internal_net(d, 1234);
    const std::string path = temp_path("roundtrip.json");
    save_internal_net(net, path);
    const InternalNet back = load_internal_net(d, path);
    EXPECT_EQ(back.theta(), net.theta());  // bit-exact: JSON doubles are written round-trip
    EXPECT_EQ(back.leaky_relu_slope, 0.2);
    // a descriptor of another shape refuses the file
    expect_load_error(parse_cc_descriptor("cin=3,cout=3,in=4,hidden=5x4"), path, "in_channels");
    expect_load_error(parse_cc_descriptor("cin=2,cout=3,in=4,hidden=5x5"), path, "hidden_widths[1]");
    expect_load_error(parse_cc_descriptor("cin=2,cout=3,in=4,hidden=5x4,kernel=linear"), path, "kernel");
    std::remove(path.c_str());
}

TEST(InternalNet, ParameterFileWithWrongShapesIsAnError) {
    const CcDescriptor d = parse_cc_descriptor("cin=2,cout=3,in=4,hidden=5x4");
    const std::string good = temp_path("good.json");
    save_internal_net(initialise_internal_net(d, 1), good);
    nlohmann::json base;
    std::ifstream(good) >> base;
    std::remove(good.c_str());
    auto with = [&](const std::string& name, auto edit, const std::string& attribute_part) {
        nlohmann::json j = base;
        edit(j);
        const std::string path = temp_path(name + ".json");
        std::ofstream(path) << j.dump();
        expect_load_error(d, path, attribute_part);
        std::remove(path.c_str());
    };
    with("w1_rows", [](nlohmann::json& j) { j["W1"].erase(0); }, "W1");
    with("w2_cols", [](nlohmann::json& j) { j["W2"][1].push_back(0.5); }, "W2");
    with("w3_flat", [](nlohmann::json& j) { j["W3"] = j["b3"]; }, "W3");
    with("b3_short", [](nlohmann::json& j) { j["b3"].erase(0); }, "b3");
    with("b1_missing", [](nlohmann::json& j) { j.erase("b1"); }, "b1");
    with("b2_text", [](nlohmann::json& j) { j["b2"][0] = "x"; }, "b2");
    with("format", [](nlohmann::json& j) { j["format"] = "other"; }, "format");
    with("version", [](nlohmann::json& j) { j["version"] = 2; }, "version");
    with("cout", [](nlohmann::json& j) { j["out_channels"] = 4; }, "out_channels");
    // not JSON at all, and a missing file
    const std::string junk = temp_path("junk.json");
    std::ofstream(junk) << "{ not json";
    expect_load_error(d, junk, "parameter file");
    std::remove(junk.c_str());
    expect_load_error(d, temp_path("does_not_exist.json"), "parameter file");
}
