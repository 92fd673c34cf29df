#include "cli/fts_query_json.h"

#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace lance::cli {
namespace {

using FtsJson = nlohmann::json;

Result<std::string> FtsJsonString(const FtsJson& o, const char* key, const std::string& at, bool required) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) {
    if (required) return Status::InvalidArgument("--query: {} needs \"{}\" (a string)", at, key);
    return std::string();
  }
  if (!it->is_string()) return Status::InvalidArgument("--query: {}.{} must be a string, got {}", at, key, it->dump());
  return it->get<std::string>();
}

Result<float> FtsJsonFloat(const FtsJson& o, const char* key, const std::string& at, float dflt) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return dflt;
  if (!it->is_number()) return Status::InvalidArgument("--query: {}.{} must be a number, got {}", at, key, it->dump());
  return it->get<float>();
}

Result<uint64_t> FtsJsonCount(const FtsJson& o, const char* key, const std::string& at, uint64_t dflt) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return dflt;
  if (!it->is_number_unsigned()) {
    return Status::InvalidArgument("--query: {}.{} must be a non-negative integer, got {}", at, key, it->dump());
  }
  const uint64_t v = it->get<uint64_t>();
  if (v > UINT32_MAX) return Status::InvalidArgument("--query: {}.{} is too large ({})", at, key, v);
  return v;
}

Result<bool> FtsJsonAnd(const FtsJson& o, const std::string& at) {
  LANCE_ASSIGN_OR_RAISE(std::string op, FtsJsonString(o, "operator", at, false));
  for (char& c : op) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (op.empty() || op == "or") return false;
  if (op == "and") return true;
  return Status::InvalidArgument("--query: {}.operator must be \"And\" or \"Or\", got \"{}\"", at, op);
}

Result<query::FullTextQuery> FtsJsonMatch(const FtsJson& o, const std::string& at) {
  if (!o.is_object()) return Status::InvalidArgument("--query: {} must be an object", at);
  LANCE_ASSIGN_OR_RAISE(std::string terms, FtsJsonString(o, "terms", at, true));
  LANCE_ASSIGN_OR_RAISE(std::string column, FtsJsonString(o, "column", at, false));
  LANCE_ASSIGN_OR_RAISE(bool and_op, FtsJsonAnd(o, at));
  query::FullTextQuery q = query::FullTextQuery::Match(std::move(terms), std::move(column), and_op);
  LANCE_ASSIGN_OR_RAISE(q.boost, FtsJsonFloat(o, "boost", at, 1.0f));
  // lance's JSON writes automatic fuzziness as `"fuzziness": null`. Its rule by word length
  // cannot be checked against the reference here (lancedb's node binding sends null as 0), so
  // it is refused, not read as FtsJsonCount's default 0.
  if (auto it = o.find("fuzziness"); it != o.end() && it->is_null()) {
    return Status::InvalidArgument("--query: {}.fuzziness null (automatic fuzziness) is not supported; give an "
                                   "edit distance (0, 1, 2)",
                                   at);
  }
  LANCE_ASSIGN_OR_RAISE(uint64_t fuzziness, FtsJsonCount(o, "fuzziness", at, 0));
  LANCE_ASSIGN_OR_RAISE(uint64_t expansions, FtsJsonCount(o, "max_expansions", at, 50));
  LANCE_ASSIGN_OR_RAISE(uint64_t prefix, FtsJsonCount(o, "prefix_length", at, 0));
  q.fuzziness = static_cast<uint32_t>(fuzziness);
  q.max_expansions = static_cast<size_t>(expansions);
  q.prefix_length = static_cast<uint32_t>(prefix);
  return q;
}

Result<query::FullTextQuery> FtsJsonQuery(const FtsJson& j, const std::string& at, int depth);

Result<std::vector<query::FullTextQuery>> FtsJsonList(const FtsJson& o, const char* key, const std::string& at,
                                                      int depth) {
  std::vector<query::FullTextQuery> out;
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return out;
  if (!it->is_array()) return Status::InvalidArgument("--query: {}.{} must be an array of queries", at, key);
  for (size_t i = 0; i < it->size(); ++i) {
    LANCE_ASSIGN_OR_RAISE(auto q, FtsJsonQuery((*it)[i], fmt::format("{}.{}[{}]", at, key, i), depth + 1));
    out.push_back(std::move(q));
  }
  return out;
}

Result<query::FullTextQuery> FtsJsonQuery(const FtsJson& j, const std::string& at, int depth) {
  if (depth > 64) return Status::InvalidArgument("--query: {}: queries nested deeper than 64", at);
  if (!j.is_object() || j.size() != 1) {
    return Status::InvalidArgument("--query: {} must be an object with one key (match, phrase, boost, multi_match "
                                   "or boolean)",
                                   at);
  }
  const std::string type = j.begin().key();
  const FtsJson& o = j.begin().value();
  const std::string here = at + "." + type;
  if (type == "match") return FtsJsonMatch(o, here);
  if (!o.is_object()) return Status::InvalidArgument("--query: {} must be an object", here);
  if (type == "phrase") {
    LANCE_ASSIGN_OR_RAISE(std::string terms, FtsJsonString(o, "terms", here, true));
    LANCE_ASSIGN_OR_RAISE(std::string column, FtsJsonString(o, "column", here, false));
    LANCE_ASSIGN_OR_RAISE(uint64_t slop, FtsJsonCount(o, "slop", here, 0));
    return query::FullTextQuery::Phrase(std::move(terms), std::move(column), static_cast<uint32_t>(slop));
  }
  if (type == "boost") {
    if (!o.contains("positive") || !o.contains("negative")) {
      return Status::InvalidArgument("--query: {} needs \"positive\" and \"negative\" queries", here);
    }
    LANCE_ASSIGN_OR_RAISE(auto pos, FtsJsonQuery(o["positive"], here + ".positive", depth + 1));
    LANCE_ASSIGN_OR_RAISE(auto neg, FtsJsonQuery(o["negative"], here + ".negative", depth + 1));
    LANCE_ASSIGN_OR_RAISE(float nb, FtsJsonFloat(o, "negative_boost", here, 0.5f));
    return query::FullTextQuery::Boost(std::move(pos), std::move(neg), nb);
  }
  if (type == "multi_match") {
    if (o.contains("match_queries")) {
      const FtsJson& list = o["match_queries"];
      if (!list.is_array() || list.empty()) {
        return Status::InvalidArgument("--query: {}.match_queries must be a non-empty array", here);
      }
      query::FullTextQuery q;
      q.kind = query::FullTextQuery::Kind::kMultiMatch;
      for (size_t i = 0; i < list.size(); ++i) {
        LANCE_ASSIGN_OR_RAISE(auto m, FtsJsonMatch(list[i], fmt::format("{}.match_queries[{}]", here, i)));
        q.children.push_back(std::move(m));
      }
      return q;
    }
    LANCE_ASSIGN_OR_RAISE(std::string text, FtsJsonString(o, "query", here, true));
    auto cols = o.find("columns");
    if (cols == o.end() || !cols->is_array() || cols->empty()) {
      return Status::InvalidArgument("--query: {} needs \"columns\" (a non-empty array of names)", here);
    }
    std::vector<std::string> columns;
    for (const auto& c : *cols) {
      if (!c.is_string()) return Status::InvalidArgument("--query: {}.columns holds {}, not a name", here, c.dump());
      columns.push_back(c.get<std::string>());
    }
    std::vector<float> boosts;
    if (auto b = o.find("boost"); b != o.end() && !b->is_null()) {
      if (!b->is_array() || b->size() != columns.size()) {
        return Status::InvalidArgument("--query: {}.boost must be an array of {} numbers, one per column", here,
                                       columns.size());
      }
      for (const auto& x : *b) {
        if (!x.is_number()) return Status::InvalidArgument("--query: {}.boost holds {}, not a number", here, x.dump());
        boosts.push_back(x.get<float>());
      }
    }
    LANCE_ASSIGN_OR_RAISE(bool and_op, FtsJsonAnd(o, here));
    return query::FullTextQuery::MultiMatch(std::move(text), std::move(columns), std::move(boosts), and_op);
  }
  if (type == "boolean") {
    std::vector<std::pair<query::Occur, query::FullTextQuery>> clauses;
    for (auto [key, occur] : {std::pair{"must", query::Occur::kMust}, std::pair{"should", query::Occur::kShould},
                              std::pair{"must_not", query::Occur::kMustNot}}) {
      LANCE_ASSIGN_OR_RAISE(auto list, FtsJsonList(o, key, here, depth));
      for (auto& q : list) clauses.emplace_back(occur, std::move(q));
    }
    return query::FullTextQuery::Boolean(std::move(clauses));
  }
  return Status::InvalidArgument("--query: {}: unknown query type \"{}\" (match, phrase, boost, multi_match or "
                                 "boolean)",
                                 at, type);
}

}  // namespace

Result<query::FullTextQuery> ParseFtsQueryJson(const std::string& text) {
  const FtsJson j = FtsJson::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("--query: not JSON: {}", text);
  return FtsJsonQuery(j, "query", 0);
}

}  // namespace lance::cli
