#include "convcheck/runner/failure_bundle.hpp"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "convcheck/formats/benchdnn.hpp"
#include "convcheck/formats/benchdnn_mapping.hpp"
#include "convcheck/formats/npy.hpp"
#include "convcheck/runner/operation_traits.hpp"
#include "convcheck/runner/printable.hpp"

namespace convcheck::runner {

namespace fs = std::filesystem;
using nlohmann::json;

bool gets_failure_bundle(Status status) {
    return status == Status::failed || status == Status::crashed || status == Status::hanged || status == Status::xfail;
}

void check_bundle_folder(const std::string& dir) {
    const std::string refused = "--dump-failures: cannot write into '" + dir + "': ";
    if (dir.empty()) throw std::invalid_argument("--dump-failures: '' is not a folder: give the folder to write into");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::invalid_argument(refused + ec.message());
    if (!fs::is_directory(dir, ec)) throw std::invalid_argument(refused + "it is not a folder");
    const fs::path probe = fs::path(dir) / (".convcheck-write-check-" + std::to_string(getpid()));
    std::ofstream out(probe, std::ios::trunc);
    if (!out) throw std::invalid_argument(refused + std::strerror(errno));
    out.close();
    fs::remove(probe, ec);
}

namespace {

// The options of a case's benchdnn line: benchdnn's --dir for the pass (docs/passes.md), the plain tags of its layouts.
BenchdnnSetup setup_of(const ConvDescriptor& d) {
    const int ndims = d.rank + 2;
    const bool grouped = d.groups != 1;  // to_benchdnn writes g only then: benchdnn's weights get a groups dim
    std::string xio;  // [spatial][I/G][O]: hwio, or hwigo for grouped weights (benchdnn_mapping.cpp)
    for (int i = grouped ? 3 : 2; i < ndims + (grouped ? 1 : 0); ++i) xio += static_cast<char>('a' + i);
    xio += grouped ? "cab" : "ba";
    BenchdnnSetup setup;
    switch (d.pass) {
        case Pass::forward: setup.dir = d.has_bias ? "FWD_B" : "FWD_D"; break;
        case Pass::backward_data: setup.dir = "BWD_D"; break;
        case Pass::backward_weights: setup.dir = d.has_bias ? "BWD_WB" : "BWD_W"; break;
    }
    setup.wtag = d.filter_format == FilterFormat::xio ? xio : "abx";
    return setup;
}

// The deconv driver's: oix is oneDNN's iohw ([G][IC/G][OC/G][k...]: giohw); xio is no oneDNN tag name, so `any`
// (the library's choice; benchdnn fills the same values).
BenchdnnSetup setup_of(const TransposedDescriptor& t) {
    static const char* const iox[] = {"iow", "iohw", "iodhw"};
    BenchdnnSetup setup;
    setup.dir = t.has_bias ? "FWD_B" : "FWD_D";
    setup.wtag = t.filter_format == FilterFormat::xio ? "any" : (t.groups != 1 ? "g" : "") + std::string(iox[t.rank - 1]);
    return setup;
}

// The case benchdnn's driver would run for the line, and the descriptor's own spelling of the same outputs.
std::optional<ConvDescriptor> read_back(const BenchdnnSetup& setup, const std::string& problem, const ConvDescriptor& d,
                                        std::string* why) {
    BenchdnnMapping m = map_benchdnn_case(setup, parse_benchdnn(problem));
    *why = m.skip_reason;
    if (m.descriptor) m.descriptor->pads_end = d.pads_end;  // benchdnn deduces the smallest right pad for the outputs
    return m.descriptor;
}
std::optional<TransposedDescriptor> read_back(const BenchdnnSetup& setup, const std::string& problem,
                                              const TransposedDescriptor& t, std::string* why) {
    BenchdnnMapping m = map_benchdnn_case(setup, parse_benchdnn_deconv(problem));
    *why = m.skip_reason;
    if (m.transposed) {  // its right pad is pads_end - output_padding: the same outputs, said otherwise
        m.transposed->pads_end = t.pads_end, m.transposed->output_padding = t.output_padding;
        if (t.filter_format == FilterFormat::xio) m.transposed->filter_format = FilterFormat::xio;  // `any`
    }
    return m.transposed;
}

// --dt (one type, or src:wei:dst for a mix) and the bias's type, of either descriptor.
std::string benchdnn_dt(const ConvDescriptor& d) {
    if (d.weights_dtype() == d.dtype && d.dst_dtype() == d.dtype) return std::string(to_string(d.dtype));
    return std::string(to_string(d.dtype)) + ":" + std::string(to_string(d.weights_dtype())) + ":" +
           std::string(to_string(d.dst_dtype()));
}
std::string benchdnn_dt(const TransposedDescriptor& t) { return std::string(to_string(t.dtype)); }
DataType bias_dtype(const ConvDescriptor& d) { return d.bias_dtype(); }
DataType bias_dtype(const TransposedDescriptor& t) { return t.dtype; }

// The line, given only when benchdnn's driver reads it back as this very case (its output sizes included).
template <class Descriptor>
std::string checked_line(const Descriptor& d, BenchdnnDriver driver, std::string* why) {
    std::string problem;
    try {
        problem = to_benchdnn(d);
    } catch (const ConvError& e) {
        *why = e.what();
        return "";
    }
    BenchdnnSetup setup = setup_of(d);
    setup.dt = benchdnn_dt(d);
    // current benchdnn gives FWD_B and BWD_WB an f32 bias whatever --dt says: a bias of f16 or bf16 is
    // --bia-dt's, with FWD_D or BWD_W (docs/benchdnn.md)
    if (d.has_bias && bias_dtype(d) != DataType::f32) {
        setup.dir = setup.dir == "FWD_B" ? "FWD_D" : setup.dir == "BWD_WB" ? "BWD_W" : setup.dir;
        setup.bia_dt = to_string(bias_dtype(d));
    }
    setup.stag = setup.dtag = d.data_format == DataFormat::nxc ? "axb" : "abx";
    setup.alg = "direct";
    setup.mb = "0";
    try {
        std::string skip;
        const auto back = read_back(setup, problem, d, &skip);
        bool same = back.has_value();
        for (int a = 0; same && a < d.rank; ++a) same = back->output_size(a) == d.output_size(a);
        if (!same || !(*back == d)) {
            *why = back ? "benchdnn would read the line as another " + std::string(driver == BenchdnnDriver::conv
                                                                                     ? "convolution"
                                                                                     : "transposed convolution")
                        : skip;
            return "";
        }
    } catch (const ConvError& e) {
        *why = std::string("benchdnn would refuse the line: ") + e.what();
        return "";
    }
    return std::string("--") + benchdnn_driver_name(driver) + " --dir=" + setup.dir + " --dt=" + setup.dt +
           (setup.bia_dt != "undef" ? " --bia-dt=" + setup.bia_dt : std::string()) + " --stag=" + setup.stag + " --wtag=" + setup.wtag + " --dtag=" + setup.dtag + " " + problem;
}

}  // namespace

std::string benchdnn_line(const ConvDescriptor& d, std::string* why) { return checked_line(d, BenchdnnDriver::conv, why); }
std::string benchdnn_line(const TransposedDescriptor& t, std::string* why) {
    return checked_line(t, BenchdnnDriver::deconv, why);
}

namespace {

// A folder name from a case id ("smoke/0042" -> "smoke_0042"): letters, digits, '.', '-', '_' only.
std::string folder_name(const std::string& id) {
    std::string name = id;
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_') ch = '_';
    if (name.empty() || name == "." || name == "..") name = "case";
    return name;
}

// One array written as <prefix><role>.npy; its manifest entry.
json write_array(const fs::path& folder, const std::string& prefix, const BundleArray& a) {
    const std::string file = prefix + a.role + ".npy";
    npy::write_file(folder / file, a.array);
    return {{"file", file}, {"dtype", a.dtype}, {"npy", std::string(npy::descr(a.array.type))}, {"shape", a.array.shape},
            {"layout", a.layout}};
}

}  // namespace

fs::path write_failure_bundle(const std::string& dir, const Backend& backend, const CaseResult& r,
                              const ExecutionLog& log) {
    const fs::path folder = fs::path(dir) / folder_name(r.c.id);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw std::runtime_error("cannot make the folder " + folder.string() + ": " + ec.message());
    const OperationTraits& op = operation(r.c.op);
    json executions = json::array();
    for (std::size_t i = 0; i < log.executions.size(); ++i) {
        const RecordedExecution& e = log.executions[i];
        const std::string prefix = "e" + std::to_string(i) + ".";
        json arrays = json::object();
        if (op.bundle_arrays)
            for (const BundleArray& a : op.bundle_arrays(r.c, e)) arrays[a.role] = write_array(folder, prefix, a);
        executions.push_back({{"index", i},
                              {"run", e.run == 0 ? json(nullptr) : json(e.run)},
                              {"threads", e.threads},
                              {"completed", e.completed},
                              {"arrays", arrays}});
    }
    std::string why_not = std::string("benchdnn has no ") + op.words;
    const std::string benchdnn = op.benchdnn ? op.benchdnn(r.c, &why_not) : "";
    json options = json::array();
    if (!backend.options.options.empty()) options.push_back(printable_line(backend.options.options));
    const json manifest = {
        {"format", "convcheck-failure-bundle"},
        {"format_version", 1},
        {"case_id", r.c.id},
        {"suite", r.c.suite},
        {"op", op.name},
        {"descriptor", r.c.descriptor()},
        {"seed", r.c.seed},
        {"mode", accuracy::to_string(r.c.mode)},
        {"fill", accuracy::to_string(r.c.fill)},
        {"status", to_string(r.status)},
        {"kind", to_string(r.kind)},
        {"reason", printable_line(r.reason)},
        {"reproducer", printable_line(r.reproducer)},
        {"shrunk_reproducer", r.shrunk_reproducer.empty() ? json(nullptr) : json(printable_line(r.shrunk_reproducer))},
        {"benchdnn", benchdnn.empty() ? json(nullptr) : json(benchdnn)},
        {"benchdnn_unavailable", benchdnn.empty() ? json(why_not) : json(nullptr)},
        {"backend", {{"name", printable_line(backend.info.name)},
                     {"version", printable_line(backend.info.version)},
                     {"path", printable_line(backend.plugin ? backend.plugin->path() : backend.spec)},
                     {"options", options},
                     {"implementation", printable_line(r.implementation)}}},
        {"executions", executions}};
    std::ofstream out(folder / "manifest.json", std::ios::trunc);
    out << manifest.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + (folder / "manifest.json").string());
    return folder;
}

}  // namespace convcheck::runner
