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

std::string benchdnn_line(const ConvDescriptor& d, std::string* why) {
    std::string problem;
    try {
        problem = to_benchdnn(d);
    } catch (const ConvError& e) {
        *why = e.what();
        return "";
    }
    const int ndims = d.rank + 2;
    const bool grouped = d.groups != 1;  // to_benchdnn writes g only then: benchdnn's weights get a groups dim
    std::string xio;  // [spatial][I/G][O]: hwio, or hwigo for grouped weights (benchdnn_mapping.cpp)
    for (int i = grouped ? 3 : 2; i < ndims + (grouped ? 1 : 0); ++i) xio += static_cast<char>('a' + i);
    xio += grouped ? "cab" : "ba";
    BenchdnnSetup setup;
    switch (d.pass) {  // benchdnn's --dir for the pass (docs/passes.md)
        case Pass::forward: setup.dir = d.has_bias ? "FWD_B" : "FWD_D"; break;
        case Pass::backward_data: setup.dir = "BWD_D"; break;
        case Pass::backward_weights: setup.dir = d.has_bias ? "BWD_WB" : "BWD_W"; break;
    }
    setup.dt = to_string(d.dtype);
    setup.stag = setup.dtag = d.data_format == DataFormat::nxc ? "axb" : "abx";
    setup.wtag = d.filter_format == FilterFormat::xio ? xio : "abx";
    setup.alg = "direct";
    setup.mb = "0";
    // read back as benchdnn's driver would: the line is given only when it is this very convolution
    try {
        const BenchdnnMapping m = map_benchdnn_case(setup, parse_benchdnn(problem));
        bool same = m.descriptor.has_value();
        if (same) {
            ConvDescriptor back = *m.descriptor;
            for (int a = 0; a < d.rank; ++a) same = same && back.output_size(a) == d.output_size(a);
            back.pads_end = d.pads_end;  // benchdnn deduces the smallest right pad giving the same output
            same = same && back == d;
        }
        if (!same) {
            *why = m.descriptor ? "benchdnn would read the line as another convolution" : m.skip_reason;
            return "";
        }
    } catch (const ConvError& e) {
        *why = std::string("benchdnn would refuse the line: ") + e.what();
        return "";
    }
    return "--conv --dir=" + setup.dir + " --dt=" + setup.dt + " --stag=" + setup.stag + " --wtag=" + setup.wtag +
           " --dtag=" + setup.dtag + " " + problem;
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
