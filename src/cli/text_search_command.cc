// `lance search URI --text 'QUERY'`: full-text (BM25) search through an INVERTED index, as
// lance 12 answers query().fullTextSearch(...): JSON lines, best first, with `_score`.
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "lance/columnar/json.h"
#include "lance/dataset/dataset.h"

namespace lance::cli {

namespace {

struct SearchArgs {
  std::string uri;
  std::string text;
  std::string column;
  int64_t k = 10;
  std::string op = "or";
  bool phrase = false;
  std::string filter;
  std::string columns;
  bool with_row_id = false;
  bool explain = false;
};

std::vector<std::string> SplitColumns(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Status RunSearch(const SearchArgs& a) {
  if (a.op != "or" && a.op != "and") return Status::InvalidArgument("--operator takes or or and, got '{}'", a.op);
  if (a.phrase && a.op == "and") return Status::InvalidArgument("--phrase and --operator and do not combine");
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  query::ScanOptions o;
  o.columns = SplitColumns(a.columns);
  o.filter = a.filter;
  o.with_row_id = a.with_row_id;
  query::FullTextQuery q;
  q.query = a.text;
  if (!a.column.empty()) q.columns = {a.column};
  q.k = a.k;
  q.and_operator = a.op == "and";
  q.phrase = a.phrase;
  o.full_text = q;
  LANCE_ASSIGN_OR_RAISE(auto scanner, ds->NewScan(o));
  if (a.explain) {
    std::cout << scanner.Explain();
    return Status::OK();
  }
  LANCE_ASSIGN_OR_RAISE(auto batches, scanner.ToBatches());
  std::string text;
  for (const auto& b : batches) LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &text));
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("stdout: write failed");
  }
  return Status::OK();
}

}  // namespace

void RegisterTextSearchCommand(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<SearchArgs>();
  auto* sub = app.add_subcommand("search", "Full-text (BM25) search of a dataset through its INVERTED index");
  sub->add_option("uri", args->uri, "Dataset URI")->required();
  sub->add_option("--text", args->text, "Query text (tokenized as the index tokenizes)")->required();
  sub->add_option("--column", args->column, "Column to search (default: the one with an FTS index)");
  sub->add_option("-k", args->k, "Number of results (default 10)");
  sub->add_option("--operator", args->op, "or (any token, default) | and (every token)");
  sub->add_flag("--phrase", args->phrase, "Phrase query (the index needs positions)");
  sub->add_option("--filter", args->filter, "SQL filter: only rows where it holds are searched");
  sub->add_option("--columns", args->columns, "Output columns a,b (default: all), then _score");
  sub->add_flag("--with-row-id", args->with_row_id, "Also print _rowid");
  sub->add_flag("--explain", args->explain, "Print the plan instead of running it");
  registry.OnRun(sub, [args] { return RunSearch(*args); });
}

}  // namespace lance::cli
