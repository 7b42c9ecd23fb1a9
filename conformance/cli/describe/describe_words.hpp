// Internal to `convcheck describe`: the pieces every description prints (describe.cpp for convolution
// dialects, describe_transposed.cpp for transposed ones).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "convcheck/reference/dialects/dialect.hpp"
#include "convcheck/core/descriptor.hpp"

namespace convcheck::cli {

inline std::string spatial(const std::vector<std::int64_t>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
    return s;
}
inline std::vector<std::int64_t> spatial_vector(const SpatialDims& v, int rank) {
    return std::vector<std::int64_t>(v.begin(), v.begin() + rank);
}

inline nlohmann::json error_json(const reference::dialects::DialectError& e) {
    return {{"attribute", e.attribute},
            {"value", e.value},
            {"message", e.message},
            {"wording", e.framework_wording ? "framework" : "convcheck"}};
}

inline std::string error_line(const reference::dialects::DialectError& e) {
    return e.attribute + " = " + e.value + ": " + e.message +
           (e.framework_wording ? "" : "  [convcheck's words: the framework defines no error here]");
}

// One dialect's reading of the request, and whether it says the same as the first reading.
template <class DialectT, class Result>
struct DescribeRow {
    const DialectT* dialect = nullptr;
    std::optional<reference::dialects::AttributeSet> attributes;
    std::string why_not;  // when the dialect cannot say the request
    Result result;
    bool agrees = true;
};

// Every dialect spells `request` and reads its spelling back; `same(result, first)` says whether it agrees.
template <class DialectT, class Result, class Request, class Same>
std::vector<DescribeRow<DialectT, Result>> read_rows(std::span<const DialectT> dialects, const Request& request,
                                                     const Result& first, Same same) {
    std::vector<DescribeRow<DialectT, Result>> rows;
    for (const DialectT& dialect : dialects) {
        DescribeRow<DialectT, Result> row;
        row.dialect = &dialect;
        row.attributes = dialect.spell(request, &row.why_not);
        if (row.attributes) {
            row.result = dialect.read(*row.attributes);
            row.agrees = same(row.result, first);
        } else {
            row.agrees = false;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// The rows as the JSON array `dialects`, each result by `result_json`.
template <class Rows, class ResultJson>
nlohmann::json rows_json(const Rows& rows, ResultJson result_json) {
    nlohmann::json dialects = nlohmann::json::array();
    for (const auto& row : rows) {
        nlohmann::json d = {{"dialect", row.dialect->name}, {"title", row.dialect->title}, {"agrees", row.agrees}};
        if (row.attributes) {
            d["attributes"] = *row.attributes;
            d.update(result_json(row.result));
        } else {
            d["outcome"] = "not_expressible";
            d["why_not"] = row.why_not;
        }
        dialects.push_back(d);
    }
    return dialects;
}

}  // namespace convcheck::cli
