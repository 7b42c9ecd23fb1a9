// benchdnn shape files (oneDNN tests/benchdnn/inputs/conv/shapes_*): one problem per line, e.g.
//   mb2_g1ic3oc8_ih12oh12kh3sh1dh0ph1_n"name"       # comment
// oneDNN's conventions: dilation is 0-based (dh0 = dense), only the begin pad is given (ph) and the
// end pad follows from the output size when oh is given, else equals ph; a missing w attribute copies
// h (a square problem), a missing h attribute copies... nothing: a problem with only w is 1-D, with d
// it is 3-D. Option lines understood: --dir=FWD_B (bias) / FWD_D / FWD_I, --cfg= or --dt= (f32, f16,
// bf16, or a triple such as bf16bf16bf16), --stag=/--dtag=axb (nxc), --wtag=... ignored.
#include <cctype>
#include <map>
#include <sstream>
#include <stdexcept>

#include "suites.hpp"

namespace convcheck::runner {

namespace {

struct Options {
    bool bias = false;
    std::string dtype = "f32";
    std::string data = "ncx";
};

void apply_option(const std::string& token, Options& o, const std::string& where) {
    const auto eq = token.find('=');
    const std::string key = token.substr(0, eq), value = eq == std::string::npos ? "" : token.substr(eq + 1);
    if (key == "--dir") {
        if (value == "FWD_B") o.bias = true;
        else if (value == "FWD_D" || value == "FWD_I") o.bias = false;
        else throw std::invalid_argument(where + ": --dir=" + value + " is not a forward direction (FWD_B, FWD_D, FWD_I)");
    } else if (key == "--cfg" || key == "--dt") {
        for (const char* t : {"bf16", "f16", "f32"})
            if (value.starts_with(t)) {
                o.dtype = t;
                return;
            }
        throw std::invalid_argument(where + ": " + key + "=" + value + " is not f32, f16 or bf16");
    } else if (key == "--stag" || key == "--dtag") {
        o.data = value == "axb" || value == "nhwc" || value == "nwc" || value == "ndhwc" ? "nxc" : "ncx";
    }
    // other benchdnn options (--mb, --attr, --wtag, --alg, --batch, ...) do not change the problem
}

SuiteEntry parse_problem(const std::string& token, const Options& o, const std::string& where) {
    std::map<std::string, std::int64_t> v;
    std::string name;
    std::size_t i = 0;
    while (i < token.size()) {
        if (token[i] == '_') { ++i; continue; }
        if (token[i] == 'n' && i + 1 < token.size() && token[i + 1] == '"') {
            const auto end = token.find('"', i + 2);
            name = token.substr(i + 2, end == std::string::npos ? std::string::npos : end - i - 2);
            i = end == std::string::npos ? token.size() : end + 1;
            continue;
        }
        std::size_t k = i;
        while (k < token.size() && std::isalpha(static_cast<unsigned char>(token[k]))) ++k;
        std::size_t n = k;
        if (n < token.size() && token[n] == '-') ++n;
        while (n < token.size() && std::isdigit(static_cast<unsigned char>(token[n]))) ++n;
        if (k == i || n == k) throw std::invalid_argument(where + ": cannot read '" + token.substr(i) + "' of " + token);
        v[token.substr(i, k - i)] = std::stoll(token.substr(k, n - k));
        i = n;
    }
    for (const char* required : {"ic", "oc"})
        if (!v.count(required)) throw std::invalid_argument(where + ": problem " + token + " has no " + required);
    const bool has_d = v.count("id") > 0, has_h = v.count("ih") > 0, has_w = v.count("iw") > 0;
    if (!has_h && !has_w && !has_d) throw std::invalid_argument(where + ": problem " + token + " has no ih/iw/id");
    std::vector<char> axes;
    if (has_d) axes = {'d', 'h', 'w'};
    else if (has_h) axes = {'h', 'w'};
    else axes = {'w'};
    auto get = [&](const std::string& base, char axis, std::int64_t fallback) {
        if (auto it = v.find(base + axis); it != v.end()) return it->second;
        // benchdnn: a missing w (or h, in 3-D) attribute copies the h (or d) one
        if (axis == 'w' && v.count(base + 'h')) return v[base + 'h'];
        if (axis == 'h' && v.count(base + 'd')) return v[base + 'd'];
        if (axis == 'w' && v.count(base + 'd')) return v[base + 'd'];
        return fallback;
    };
    std::string in, k, s, d, pb, pe;
    for (char a : axes) {
        const std::int64_t ia = get("i", a, 1), ka = get("k", a, 1), sa = get("s", a, 1), da = get("d", a, 0) + 1,
                           pa = get("p", a, 0);
        const std::int64_t extent = (ka - 1) * da + 1;
        std::int64_t end = pa;
        if (v.count(std::string("o") + a)) end = (v[std::string("o") + a] - 1) * sa - ia + extent - pa;
        auto add = [](std::string& to, std::int64_t x) { to += (to.empty() ? "" : "x") + std::to_string(x); };
        add(in, ia), add(k, ka), add(s, sa), add(d, da), add(pb, pa), add(pe, end);
    }
    SuiteEntry e;
    e.descriptor = "conv:n=" + std::to_string(v.count("mb") ? v["mb"] : 2) + ",c=" + std::to_string(v["ic"]) +
                   ",o=" + std::to_string(v["oc"]) + ",g=" + std::to_string(v.count("g") ? v["g"] : 1) + ",in=" + in +
                   ",k=" + k + ",s=" + s + ",d=" + d + ",pb=" + pb + ",pe=" + pe + ",bias=" + (o.bias ? "1" : "0") +
                   ",dt=" + o.dtype + ",data=" + o.data;
    e.name = name;
    e.modes = "b";
    return e;
}

}  // namespace

std::vector<SuiteEntry> benchdnn_entries(const std::string& path, const std::string& text) {
    std::vector<SuiteEntry> entries;
    Options options;
    std::istringstream lines(text);
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
        ++n;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        std::istringstream tokens(line);
        for (std::string token; tokens >> token;) {
            const std::string where = path + ":" + std::to_string(n);
            if (token.starts_with("--")) apply_option(token, options, where);
            else entries.push_back(parse_problem(token, options, where));
        }
    }
    if (entries.empty()) throw std::invalid_argument(path + ": no benchdnn problems in the file");
    return entries;
}

}  // namespace convcheck::runner
