// The Internal-Net parameter file: JSON, written and read with nlohmann_json (header-only).
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "convcheck/reference/cc/internal_net.hpp"

namespace convcheck::reference::cc {

namespace {

constexpr const char* kFormat = "convcheck-cc-internal-net";
constexpr int kVersion = 1;

nlohmann::json matrix(const std::vector<double>& v, std::int64_t rows, std::int64_t cols) {
    nlohmann::json m = nlohmann::json::array();
    for (std::int64_t r = 0; r < rows; ++r)
        m.push_back(std::vector<double>(v.begin() + r * cols, v.begin() + (r + 1) * cols));
    return m;
}

std::string shape_of(const nlohmann::json& j) {
    if (!j.is_array()) return std::string("a JSON ") + j.type_name();
    std::string s = "[" + std::to_string(j.size()) + "]";
    if (!j.empty() && j[0].is_array()) s += "[" + std::to_string(j[0].size()) + "]";
    return s;
}

class Reader {
public:
    Reader(const nlohmann::json& root, std::string path) : root_(root), path_(std::move(path)) {}

    [[noreturn]] void fail(const std::string& entry, const std::string& found, const std::string& rule) const {
        throw ConvError("parameter file " + path_ + ": " + entry, found, rule);
    }
    const nlohmann::json& entry(const char* key) const {
        if (!root_.contains(key)) fail(key, "(missing)", "the entry is required");
        return root_.at(key);
    }
    std::int64_t integer(const char* key) const {
        const auto& j = entry(key);
        if (!j.is_number_integer()) fail(key, j.dump(), "must be an integer");
        return j.get<std::int64_t>();
    }
    double number(const nlohmann::json& j, const char* key) const {
        if (!j.is_number() || !std::isfinite(j.get<double>())) fail(key, j.dump(), "every value must be a finite number");
        return j.get<double>();
    }
    // A vector [n] into out.
    void vector(const char* key, std::int64_t n, const char* rule, std::vector<double>* out) const {
        const auto& j = entry(key);
        if (!j.is_array() || static_cast<std::int64_t>(j.size()) != n || (n > 0 && j[0].is_array()))
            fail(key, "shape " + shape_of(j), std::string("must be ") + rule + " = [" + std::to_string(n) + "]");
        out->clear();
        for (const auto& v : j) out->push_back(number(v, key));
    }
    // A matrix [rows][cols] into out, row-major.
    void matrix(const char* key, std::int64_t rows, std::int64_t cols, const char* rule, std::vector<double>* out) const {
        const auto& j = entry(key);
        const std::string required =
            std::string("must be ") + rule + " = [" + std::to_string(rows) + "][" + std::to_string(cols) + "]";
        if (!j.is_array() || static_cast<std::int64_t>(j.size()) != rows) fail(key, "shape " + shape_of(j), required);
        out->clear();
        for (const auto& row : j) {
            if (!row.is_array() || static_cast<std::int64_t>(row.size()) != cols)
                fail(key, "a row of shape " + shape_of(row), required);
            for (const auto& v : row) out->push_back(number(v, key));
        }
    }

private:
    const nlohmann::json& root_;
    std::string path_;
};

}  // namespace

void save_internal_net(const InternalNet& net, const std::string& path) {
    const std::int64_t c = net.in_channels * net.out_channels;
    nlohmann::json j;
    j["format"] = kFormat;
    j["version"] = kVersion;
    j["in_channels"] = net.in_channels;
    j["out_channels"] = net.out_channels;
    j["hidden_widths"] = {net.h1, net.h2};
    j["W1"] = matrix(net.W1, net.h1, 2);
    j["b1"] = net.b1;
    j["W2"] = matrix(net.W2, net.h2, net.h1);
    j["b2"] = net.b2;
    j["W3"] = matrix(net.W3, c, net.h2);
    j["b3"] = net.b3;
    std::ofstream file(path);
    if (!file) throw ConvError("parameter file", path, "cannot be opened for writing");
    file << j.dump(1) << '\n';  // nlohmann writes doubles with round-trip precision
    if (!file) throw ConvError("parameter file", path, "writing failed");
}

InternalNet load_internal_net(const CcDescriptor& d, const std::string& path) {
    std::ifstream file(path);
    if (!file) throw ConvError("parameter file", path, "cannot be opened for reading");
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(file);
    } catch (const nlohmann::json::exception& e) {
        throw ConvError("parameter file", path, std::string("is not valid JSON: ") + e.what());
    }
    if (!root.is_object()) throw ConvError("parameter file", path, "must hold a JSON object");
    const Reader read(root, path);
    if (!root.contains("format") || root["format"] != kFormat)
        read.fail("format", root.value("format", nlohmann::json("(missing)")).dump(), std::string("must be \"") + kFormat + "\"");
    if (read.integer("version") != kVersion) read.fail("version", root["version"].dump(), "must be 1");
    if (d.kernel != CcKernel::internal_net)
        throw ConvError("kernel", std::string(to_string(d.kernel)), "a parameter file holds an Internal-Net: kernel=net");
    auto expect = [&](const char* key, std::int64_t found, std::int64_t wanted, const char* what) {
        if (found != wanted)
            read.fail(key, std::to_string(found), std::string("must equal the descriptor's ") + what + " = " + std::to_string(wanted));
    };
    expect("in_channels", read.integer("in_channels"), d.in_channels, "cin");
    expect("out_channels", read.integer("out_channels"), d.out_channels, "cout");
    const auto& hidden = read.entry("hidden_widths");
    if (!hidden.is_array() || hidden.size() != 2 || !hidden[0].is_number_integer() || !hidden[1].is_number_integer())
        read.fail("hidden_widths", hidden.dump(), "must be [h1, h2]");
    expect("hidden_widths[0]", hidden[0].get<std::int64_t>(), d.hidden_widths[0], "hidden h1");
    expect("hidden_widths[1]", hidden[1].get<std::int64_t>(), d.hidden_widths[1], "hidden h2");

    // the shapes come from the descriptor; every value is read below
    InternalNet net = internal_net_from_theta(d, std::vector<double>(static_cast<std::size_t>(d.theta_elements()), 0.0));
    const std::int64_t c = d.in_channels * d.out_channels;
    read.matrix("W1", net.h1, 2, "[h1][2]", &net.W1);
    read.vector("b1", net.h1, "[h1]", &net.b1);
    read.matrix("W2", net.h2, net.h1, "[h2][h1]", &net.W2);
    read.vector("b2", net.h2, "[h2]", &net.b2);
    read.matrix("W3", c, net.h2, "[Cin*Cout][h2]", &net.W3);
    read.vector("b3", c, "[Cin*Cout]", &net.b3);
    return net;
}

}  // namespace convcheck::reference::cc
