#include "failure_bundle.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "benchdnn.hpp"
#include "benchdnn_mapping.hpp"
#include "cc_descriptor.hpp"
#include "convcheck/reference/cc/continuous_convolution.hpp"
#include "convcheck/reference/convolution.hpp"
#include "manifest.hpp"
#include "npy.hpp"
#include "operation_traits.hpp"
#include "printable.hpp"

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
    setup.dir = d.has_bias ? "FWD_B" : "FWD_D";
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
json write_array(const fs::path& folder, const std::string& prefix, const std::string& role, const std::string& dtype,
                 const std::string& layout, const npy::Array& array) {
    const std::string file = prefix + role + ".npy";
    npy::write_file(folder / file, array);
    return {{"file", file}, {"dtype", dtype}, {"npy", std::string(npy::descr(array.type))}, {"shape", array.shape},
            {"layout", layout}};
}

struct StoredTensor {
    std::string dtype;  // f32, f16, bf16 (bf16 stored as <u2 bit patterns, as golden vectors are)
    std::vector<std::int64_t> dims;
    std::string layout;
};

npy::Array bytes_array(const StoredTensor& t, const std::vector<std::byte>& bytes) {
    const npy::ElementType type = vectors::storage_type(t.dtype);
    std::int64_t elements = 1;
    for (std::int64_t d : t.dims) elements *= d;
    if (static_cast<std::int64_t>(bytes.size()) != elements * npy::size_of(type))  // never read past what was kept
        throw std::runtime_error("the execution's " + t.layout + " buffer holds " + std::to_string(bytes.size()) +
                                 " bytes, not the " + std::to_string(elements * npy::size_of(type)) + " of its shape");
    return npy::from_bytes(type, bytes.data(), t.dims);
}

std::vector<std::int64_t> ncx_dims(const std::vector<std::int64_t>& native, bool channels_last) {
    std::vector<std::int64_t> dims = native;
    if (channels_last) std::rotate(dims.begin() + 1, dims.end() - 1, dims.end());
    return dims;
}

// A strided execution's buffers gathered dense (the gaps dropped; the values exact: each goes to
// double and back to its own dtype), with the descriptor that describes them.
std::pair<ConvDescriptor, RecordedExecution> densified(const ConvDescriptor& strided, const RecordedExecution& e) {
    ConvDescriptor d = strided;
    d.src_strides.clear(), d.weights_strides.clear(), d.dst_strides.clear();
    RecordedExecution dense = e;
    const std::size_t bytes = static_cast<std::size_t>(size_of(d.dtype));
    dense.src.assign(static_cast<std::size_t>(d.src_elements()) * bytes, std::byte{0});
    reference::ncx_to_src(d, reference::src_to_ncx(strided, e.src.data()), dense.src.data());
    dense.weights.assign(static_cast<std::size_t>(d.weights_elements()) * bytes, std::byte{0});
    reference::oix_to_weights(d, reference::weights_to_oix(strided, e.weights.data()), dense.weights.data());
    dense.dst.assign(static_cast<std::size_t>(d.dst_elements()) * bytes, std::byte{0});
    if (!e.dst.empty()) reference::round_dst_to_output(d, reference::dst_to_ncx(strided, e.dst.data()), dense.dst.data());
    return {d, dense};
}

json conv_arrays(const fs::path& folder, const std::string& prefix, const ConvDescriptor& d, const RecordedExecution& e);

// The arrays of one discrete-convolution execution; a strided one's are written dense (the case's
// descriptor string keeps the strides).
json conv_arrays_any_layout(const fs::path& folder, const std::string& prefix, const ConvDescriptor& d,
                            const RecordedExecution& e) {
    if (d.src_strides.empty() && d.weights_strides.empty() && d.dst_strides.empty())
        return conv_arrays(folder, prefix, d, e);
    if (e.src.empty()) return json::object();  // inputs not kept
    const auto [dense_d, dense_e] = densified(d, e);
    return conv_arrays(folder, prefix, dense_d, dense_e);
}

json conv_arrays(const fs::path& folder, const std::string& prefix, const ConvDescriptor& d, const RecordedExecution& e) {
    const std::string dt(to_string(d.dtype)), data(to_string(d.data_format)), wei(to_string(d.filter_format));
    json arrays = json::object();
    arrays["src"] = write_array(folder, prefix, "src", dt, data, bytes_array({dt, d.src_dims(), data}, e.src));
    arrays["weights"] = write_array(folder, prefix, "weights", dt, wei, bytes_array({dt, d.weights_dims(), wei}, e.weights));
    if (d.has_bias) arrays["bias"] = write_array(folder, prefix, "bias", dt, "o", bytes_array({dt, {d.out_channels}, "o"}, e.bias));
    // the reference on exactly these bytes: what the runner judged the output against
    const reference::ConvResult want =
        reference::convolution(d, e.src.data(), e.weights.data(), d.has_bias ? e.bias.data() : nullptr);
    std::vector<std::byte> rounded(static_cast<std::size_t>(d.dst_elements() * size_of(d.dtype)));
    reference::round_dst_to_output(d, want.dst, rounded.data());
    arrays["expected"] = write_array(folder, prefix, "expected", dt, data, bytes_array({dt, d.dst_dims(), data}, rounded));
    const auto ncx = ncx_dims(d.dst_dims(), d.data_format == DataFormat::nxc);
    arrays["expected_f64"] = write_array(folder, prefix, "expected_f64", "f64", "ncx", npy::from_f64(want.dst, ncx));
    arrays["magnitude"] = write_array(folder, prefix, "magnitude", "f64", "ncx", npy::from_f64(want.magnitude, ncx));
    arrays["terms"] = write_array(folder, prefix, "terms", "i64", "ncx", npy::from_i64(want.terms, ncx));
    if (e.completed) arrays["actual"] = write_array(folder, prefix, "actual", dt, data, bytes_array({dt, d.dst_dims(), data}, e.dst));
    return arrays;
}

std::vector<float> floats(const std::vector<std::byte>& bytes) {
    std::vector<float> v(bytes.size() / sizeof(float));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
    return v;
}

// The arrays of one CC execution (all f32, NCHW; theta only for the Internal-Net kernel).
json cc_arrays(const fs::path& folder, const std::string& prefix, const CcDescriptor& d, const RecordedExecution& e) {
    json arrays = json::object();
    arrays["src"] = write_array(folder, prefix, "src", "f32", "ncx", bytes_array({"f32", d.src_dims(), "ncx"}, e.src));
    const std::vector<float> src = floats(e.src), theta = floats(e.weights), bias = floats(e.bias);
    if (!theta.empty())
        arrays["theta"] = write_array(folder, prefix, "theta", "f32", "abi",
                                      bytes_array({"f32", {static_cast<std::int64_t>(theta.size())}, "abi"}, e.weights));
    if (!bias.empty())
        arrays["bias"] = write_array(folder, prefix, "bias", "f32", "o",
                                     bytes_array({"f32", {static_cast<std::int64_t>(bias.size())}, "o"}, e.bias));
    const reference::ConvResult want = reference::cc::continuous_convolution(
        d, src.data(), theta.empty() ? nullptr : theta.data(), bias.empty() ? nullptr : bias.data());
    std::vector<float> rounded(want.dst.begin(), want.dst.end());
    std::vector<std::byte> rounded_bytes(rounded.size() * sizeof(float));
    if (!rounded.empty()) std::memcpy(rounded_bytes.data(), rounded.data(), rounded_bytes.size());
    arrays["expected"] = write_array(folder, prefix, "expected", "f32", "ncx", bytes_array({"f32", d.dst_dims(), "ncx"}, rounded_bytes));
    arrays["expected_f64"] = write_array(folder, prefix, "expected_f64", "f64", "ncx", npy::from_f64(want.dst, d.dst_dims()));
    arrays["magnitude"] = write_array(folder, prefix, "magnitude", "f64", "ncx", npy::from_f64(want.magnitude, d.dst_dims()));
    arrays["terms"] = write_array(folder, prefix, "terms", "i64", "ncx", npy::from_i64(want.terms, d.dst_dims()));
    if (e.completed) arrays["actual"] = write_array(folder, prefix, "actual", "f32", "ncx", bytes_array({"f32", d.dst_dims(), "ncx"}, e.dst));
    return arrays;
}

}  // namespace

fs::path write_failure_bundle(const std::string& dir, const Backend& backend, const CaseResult& r,
                              const ExecutionLog& log) {
    const fs::path folder = fs::path(dir) / folder_name(r.c.id);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw std::runtime_error("cannot make the folder " + folder.string() + ": " + ec.message());
    json executions = json::array();
    for (std::size_t i = 0; i < log.executions.size(); ++i) {
        const RecordedExecution& e = log.executions[i];
        const std::string prefix = "e" + std::to_string(i) + ".";
        json arrays = r.c.op == Op::conv ? conv_arrays_any_layout(folder, prefix, r.c.conv, e)
                                         : cc_arrays(folder, prefix, parse_cc_descriptor(r.c.cc), e);
        executions.push_back({{"index", i},
                              {"run", e.run == 0 ? json(nullptr) : json(e.run)},
                              {"threads", e.threads},
                              {"completed", e.completed},
                              {"arrays", arrays}});
    }
    std::string why_not;
    const std::string benchdnn = r.c.op == Op::conv ? benchdnn_line(r.c.conv, &why_not) : "";
    if (r.c.op == Op::cc) why_not = "a CC layer is not a benchdnn problem";
    json options = json::array();
    if (!backend.options.options.empty()) options.push_back(printable_line(backend.options.options));
    const json manifest = {
        {"format", "convcheck-failure-bundle"},
        {"format_version", 1},
        {"case_id", r.c.id},
        {"suite", r.c.suite},
        {"op", operation(r.c.op).name},
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
