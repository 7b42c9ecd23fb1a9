// benchdnn's conv and deconv driver loops (bench_conv.cpp, bench_deconv.cpp: bench() and check_correctness()),
// current oneDNN's or v3.7.1's (BenchdnnReadOptions::version), producing convcheck cases or skip reasons instead of
// running oneDNN.
#include "convcheck/formats/benchdnn_driver.hpp"

#include <filesystem>
#include <regex.h>

#include "convcheck/formats/benchdnn_batch.hpp"
#include "convcheck/formats/benchdnn_mapping.hpp"
#include "convcheck/formats/benchdnn_options.hpp"

namespace convcheck {

namespace {

// One compiled POSIX basic regular expression, as benchdnn's match_regex uses (regcomp flags 0).
class PosixRegex {
public:
    explicit PosixRegex(const std::string& pattern) : ok_(regcomp(&re_, pattern.c_str(), 0) == 0) {}
    ~PosixRegex() {
        if (ok_) regfree(&re_);
    }
    PosixRegex(const PosixRegex&) = delete;
    PosixRegex& operator=(const PosixRegex&) = delete;
    // benchdnn: a pattern that does not compile matches everything ("could not create regex").
    bool search(const std::string& text) const { return !ok_ || regexec(&re_, text.c_str(), 0, nullptr, 0) == 0; }

private:
    regex_t re_{};
    bool ok_;
};

struct Reader {
    BenchdnnOptionState state;
    BenchdnnLocator locator;
    std::vector<std::string> open_files;  // the --batch chain, canonical paths, for cycles
    std::vector<std::string> open_names;  // the same as written, for the message
    std::vector<BenchdnnCase> cases;
    long long test_index = 0;             // benchdnn's test counter (for --start)

    void read_file(const std::string& fname) {
        const std::string path = locator.locate(fname);
        std::error_code ec;
        std::string canonical = std::filesystem::weakly_canonical(path, ec).string();
        if (ec) canonical = path;
        for (std::size_t i = 0; i < open_files.size(); ++i) {
            if (open_files[i] != canonical) continue;
            std::string chain;
            for (std::size_t j = i; j < open_names.size(); ++j) chain += open_names[j] + " -> ";
            throw ConvError("benchdnn --batch", fname, "a cycle: " + chain + fname + " (benchdnn would recurse forever)");
        }
        open_files.push_back(canonical);
        open_names.push_back(fname);
        read_tokens(read_benchdnn_file_text(path), path);
        open_files.pop_back();
        open_names.pop_back();
    }

    void read_tokens(std::string_view text, const std::string& source) {
        for (const BenchdnnToken& token : tokenize_benchdnn(text)) {
            const std::string where = source + ":" + std::to_string(token.line);
            if (token.text.front() != '-') {
                problem(token.text, where);
                continue;
            }
            std::string batch_file;
            switch (apply_benchdnn_option(state, token.text, &batch_file)) {
                case BenchdnnOptionResult::applied: break;
                case BenchdnnOptionResult::batch: read_file(batch_file); break;
                case BenchdnnOptionResult::unknown:
                    if (state.global.stop.empty()) state.global.stop = unknown_option(token.text, where);
                    break;
            }
        }
    }

    // catch_unknown_options: benchdnn exits at an option its driver does not know. A driver name (`--deconv`)
    // is one: benchdnn's main() takes the driver from its command line only, never from a batch file.
    std::string unknown_option(const std::string& token, const std::string& where) const {
        const std::string driver = benchdnn_driver_name(state.which);
        static const char* const drivers[] = {"--self",    "--conv",   "--deconv", "--ip",        "--shuffle",
                                              "--reorder", "--bnorm",  "--gnorm",  "--lnorm",     "--rnn",
                                              "--softmax", "--pool",   "--prelu",  "--sum",       "--eltwise",
                                              "--concat",  "--lrn",    "--binary", "--matmul",    "--resampling",
                                              "--reduction", "--zeropad", "--brgemm", "--graph"};
        for (const char* d : drivers)
            if (token == d)
                return token + " (" + where + "): a driver switch inside a batch file; benchdnn takes the driver from "
                                              "its command line only (benchdnn --deconv --batch=FILE; convcheck: "
                                              "--benchdnn-driver), and its " + driver + " driver exits there";
        return token + " (" + where + "): not an option of benchdnn's " + driver + " driver; benchdnn exits there";
    }

    // benchdnn's repro line (prb_t::set_repro_line), which --match filters; false when convcheck cannot
    // write it exactly for this setup.
    template <class Problem>
    bool repro_line(const BenchdnnSetup& s, const Problem& p, std::string* line) const {
        const BenchdnnGlobalOptions& g = state.global;
        const BenchdnnDriverOptions& o = state.driver;
        const bool current = state.version == BenchdnnVersion::current;
        // v3.7.1 starts the line with the global options that differ from their defaults (dump_global_params);
        // current oneDNN writes them apart, but --canonical still spells out every option and a global impl filter
        // replaces the driver's (impl_filter_t's operator<<)
        for (const std::string& other : g.others)
            if (!current || other.starts_with("--canonical") || other.starts_with("--global-impl") ||
                other.starts_with("--global-skip-impl"))
                return false;
        if (!s.cfg.empty() || !s.ctx_init.empty() || !s.ctx_exe.empty()) return false;
        for (const auto& part : split_benchdnn_list(s.strides, ':'))
            if (!part.empty()) return false;
        for (const auto& a : s.attr)
            if (!a.empty()) return false;
        std::string reason;
        const auto dt = benchdnn_data_types(s.dt, s.cfg, &reason, state.version);
        const std::string dir = benchdnn_dir_name(s.dir), alg = benchdnn_alg_name(s.alg);
        const std::string bia_dt = benchdnn_dt_name(s.bia_dt, state.version);
        if (!dt || dir.empty() || alg.empty() || bia_dt.empty()) return false;
        auto d = p.descriptor;
        try {
            const long long mb = std::stoll(s.mb);
            if (mb > 0) d.batch = mb;
        } catch (const std::exception&) {
            return false;
        }
        std::string r;
        if (!current) {
            r = std::string("--") + benchdnn_driver_name(state.which) + " ";
            if (!g.allow_enum_tags_only) r += "--allow-enum-tags-only=false ";
            if (g.check_ref_impl) r += "--check-ref-impl=true ";
        }
        if (dir != "FWD_B") r += "--dir=" + dir + " ";
        if ((*dt)[0] != "f32" || (*dt)[1] != "f32" || (*dt)[2] != "f32")
            r += "--dt=" + (*dt)[0] + ":" + (*dt)[1] + ":" + (*dt)[2] + " ";
        // current: --bia-dt unless undef, and never for FWD_B and BWD_WB (their bias is forced, and not written)
        if (current && bia_dt != "undef" && dir != "FWD_B" && dir != "BWD_WB") r += "--bia-dt=" + bia_dt + " ";
        if (s.stag != "any") r += "--stag=" + s.stag + " ";
        if (s.wtag != "any") r += "--wtag=" + s.wtag + " ";
        if (s.dtag != "any") r += "--dtag=" + s.dtag + " ";
        if (alg != "direct") r += "--alg=" + alg + " ";
        if (!o.impl_filter.empty()) {  // impl_filter_t's operator<<: the names without quotes
            std::string filter = o.impl_filter;
            std::erase(filter, '"');
            std::erase(filter, '\'');
            r += filter + " ";
        }
        // desc_t's operator<<: g whenever it was given, then benchdnn's short form, then n and the name as written
        if (p.has_groups && d.groups == 1) r += "g1";
        r += to_benchdnn(d);
        if (!p.written_name.empty()) r += "n" + p.written_name;
        *line = r;
        return true;
    }

    static std::string written(const BenchdnnSetup& s, const BenchdnnDriverOptions& o, const std::string& problem) {
        std::string w;
        auto add = [&](const char* option, const std::string& value, const std::string& def) {
            if (value != def) w += std::string("--") + option + "=" + value + " ";
        };
        add("dir", s.dir, "FWD_B");
        add("dt", s.dt, "f32");
        add("bia-dt", s.bia_dt, "undef");
        add("cfg", s.cfg, "");
        add("stag", s.stag, "any");
        add("wtag", s.wtag, "any");
        add("dtag", s.dtag, "any");
        add("strides", s.strides, "");
        add("alg", s.alg, "direct");
        add("mb", s.mb, "0");
        for (int a = 0; a < kBenchdnnAttrCount; ++a) add(benchdnn_attr_option(static_cast<BenchdnnAttr>(a)), s.attr[a], "");
        add("ctx-init", s.ctx_init, "");
        add("ctx-exe", s.ctx_exe, "");
        if (!o.impl_filter.empty()) w += o.impl_filter + " ";
        return w + problem;
    }

    void problem(const std::string& text, const std::string& where) {
        if (state.which == BenchdnnDriver::conv) {
            if (auto p = parse(parse_benchdnn, text, where)) setups(*p, text, where);
        } else if (auto p = parse(parse_benchdnn_deconv, text, where)) {
            setups(*p, text, where);
        }
    }

    // The driver's str2desc; a bad string is an error (benchdnn stops too) unless benchdnn stopped before it.
    template <class Problem>
    std::optional<Problem> parse(Problem (*read)(std::string_view, const BenchdnnSettings&), const std::string& text,
                                 const std::string& where) {
        try {
            return read(text, {});
        } catch (const ConvError& e) {
            if (!state.global.stop.empty()) {  // benchdnn stopped before this problem: no error, a skip
                BenchdnnCase c;
                c.source = where;
                c.input = text;
                c.skip_reason = "after " + state.global.stop;
                cases.push_back(std::move(c));
                return std::nullopt;
            }
            throw ConvError(where + ": " + e.attribute(), e.value(), e.rule() + " (in `" + text + "`)");
        }
    }

    // check_correctness: one test case per combination of the option lists, in the driver's loop order
    // (dir, dt, [bia_dt: current], [cfg], stag, wtag, dtag, [strides: conv], alg, attributes, ctx_init, ctx_exe, mb;
    // the last fastest). The deconv driver has no --strides, v3.7.1 no --bia-dt: such a list keeps its one default.
    template <class Problem>
    void setups(const Problem& p, const std::string& text, const std::string& where) {
        const BenchdnnDriverOptions& o = state.driver;
        std::vector<const std::vector<std::string>*> lists = {&o.dir,  &o.dt,   &o.bia_dt,  &o.cfg, &o.stag,
                                                              &o.wtag, &o.dtag, &o.strides, &o.alg};
        for (const auto& a : o.attr) lists.push_back(&a);
        lists.push_back(&o.ctx_init);
        lists.push_back(&o.ctx_exe);
        lists.push_back(&o.mb);
        std::vector<std::size_t> at(lists.size(), 0);
        std::optional<PosixRegex> match;
        if (o.match) match.emplace(*o.match);
        std::string match_undecided;
        while (true) {
            BenchdnnSetup s;
            std::size_t k = 0;
            s.version = state.version;
            for (std::string* field : {&s.dir, &s.dt, &s.bia_dt, &s.cfg, &s.stag, &s.wtag, &s.dtag, &s.strides, &s.alg})
                *field = (*lists[k])[at[k]], ++k;
            for (auto& a : s.attr) a = (*lists[k])[at[k]], ++k;
            s.ctx_init = (*lists[k])[at[k]], ++k;
            s.ctx_exe = (*lists[k])[at[k]], ++k;
            s.mb = (*lists[k])[at[k]];

            BenchdnnCase c;
            c.source = where;
            c.name = p.name;
            c.input = written(s, o, text);
            if (match && match_undecided.empty()) {
                std::string line;
                if (!repro_line(s, p, &line))
                    match_undecided = "--match: benchdnn filters on its full problem line, which convcheck does not "
                                      "write exactly for these options";
                else if (!match->search(line))
                    return;  // benchdnn: `return`, not `continue`: the rest of this problem's setups are dropped too
            }
            const long long index = test_index++;
            if (!match_undecided.empty()) c.skip_reason = match_undecided;
            else if (!state.global.stop.empty()) c.skip_reason = "after " + state.global.stop;
            else if (index < state.global.start)
                c.skip_reason = "--start: benchdnn skips the test cases before index " + std::to_string(state.global.start);
            else {
                BenchdnnMapping m = map_benchdnn_case(s, p);
                c.descriptor = std::move(m.descriptor);
                c.transposed = std::move(m.transposed);
                c.quantized = std::move(m.quantized);
                c.skip_reason = std::move(m.skip_reason);
            }
            cases.push_back(std::move(c));
            // the odometer: the last list turns fastest
            std::size_t i = lists.size();
            while (i > 0) {
                --i;
                if (++at[i] < lists[i]->size()) break;
                at[i] = 0;
                if (i == 0) return;
            }
        }
    }
};

}  // namespace

const char* benchdnn_inputs_variable(BenchdnnDriver driver) {
    return driver == BenchdnnDriver::conv ? "CONVCHECK_BENCHDNN_INPUTS" : "CONVCHECK_BENCHDNN_DECONV_INPUTS";
}

namespace {

Reader make_reader(const BenchdnnReadOptions& options) {
    const std::string driver = benchdnn_driver_name(options.driver);
    Reader reader{{}, BenchdnnLocator(options.inputs_dir, std::string("set ") + benchdnn_inputs_variable(options.driver) +
                                                              " to oneDNN's tests/benchdnn/inputs/" + driver),
                  {}, {}, {}, 0};
    reader.state.which = options.driver;
    reader.state.version = options.version;
    return reader;
}

}  // namespace

std::vector<BenchdnnCase> read_benchdnn_batch(const std::string& path, const BenchdnnReadOptions& options) {
    Reader reader = make_reader(options);
    reader.read_file(path);
    return std::move(reader.cases);
}

std::vector<BenchdnnCase> read_benchdnn_batch_text(std::string_view text, const std::string& source,
                                                   const BenchdnnReadOptions& options) {
    Reader reader = make_reader(options);
    reader.locator.remember_folder_of(source);
    std::error_code ec;
    if (std::filesystem::is_regular_file(source, ec)) {  // the text of a file: a --batch back to it is a cycle
        reader.open_files.push_back(std::filesystem::weakly_canonical(source, ec).string());
        reader.open_names.push_back(source);
    }
    reader.read_tokens(text, source);
    return std::move(reader.cases);
}

}  // namespace convcheck
