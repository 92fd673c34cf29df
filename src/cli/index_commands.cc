// Index commands: `lance create-index` (scalar indexes, through lance::index::scalar) and
// `lance drop-index`. `lance indexes` (table_commands.cc) lists them.
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "lance/index/scalar/create.h"
#include "lance/dataset/dataset.h"

namespace lance::cli {

namespace {

using Json = nlohmann::ordered_json;

struct CreateIndexArgs {
  std::string uri;
  std::string column;
  std::string type = "btree";
  std::string name;
  bool replace = false;
  int64_t batch_size = index::scalar::kBTreeDefaultBatchSize;
};

Status CreateIndex(const CreateIndexArgs& a) {
  index::scalar::CreateScalarIndexOptions o;
  LANCE_ASSIGN_OR_RAISE(o.type, index::scalar::ScalarIndexTypeFromName(a.type));
  o.name = a.name;
  o.replace = a.replace;
  o.btree_batch_size = a.batch_size;
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  LANCE_ASSIGN_OR_RAISE(index::scalar::CreatedIndex c, ds->CreateScalarIndex(a.column, o));
  Json j;
  j["name"] = c.info.name;
  j["type"] = index::scalar::ScalarIndexTypeName(o.type);
  j["column"] = a.column;
  j["uuid"] = c.info.uuid;
  j["version"] = c.version;
  j["dataset_version"] = c.info.dataset_version;
  j["num_indexed_rows"] = c.num_indexed_rows;
  j["indexed_fragments"] = c.info.fragment_ids;
  j["files"] = Json::array();
  for (const auto& f : c.info.files) j["files"].push_back({{"path", f.path}, {"size_bytes", f.size_bytes}});
  std::cout << j.dump() << "\n";
  return Status::OK();
}

struct DropIndexArgs {
  std::string uri;
  std::string name;
};

Status DropIndex(const DropIndexArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  LANCE_ASSIGN_OR_RAISE(table::CommitInfo c, ds->DropIndex(a.name));
  std::cout << Json{{"name", a.name}, {"version", c.version}}.dump() << "\n";
  return Status::OK();
}

}  // namespace

void RegisterIndexCommands(CLI::App& app, CommandRegistry& registry) {
  {
    auto* sub = app.add_subcommand(
        "create-index",
        "Build a scalar index on a column and commit it as a new version (files under "
        "_indices/{uuid}/, readable by lance 12)");
    sub->footer(
        "Types (what each answers; the planner uses an index only for the column it is keyed on):\n"
        "  btree       sorted values in pages of --batch-size rows (page_lookup.lance +\n"
        "              page_data.lance): =, <, <=, >, >=, BETWEEN, IN, IS [NOT] NULL, LIKE 'p%'.\n"
        "              Any orderable column: ints, floats, strings, binary, dates, timestamps,\n"
        "              booleans. The choice for high-cardinality columns (ids, timestamps).\n"
        "  bitmap      one row set per distinct value (bitmap_page_lookup.lance): the same\n"
        "              predicates; best for low-cardinality columns (categories, flags).\n"
        "  label_list  on list<T> columns: array_has_any / array_has_all / array_contains.\n"
        "The index covers the fragments that exist now; rows appended later are scanned until\n"
        "the index is rebuilt (--replace). `lance indexes DATASET` lists indexes, `lance scan\n"
        "DATASET --filter ... --explain` shows whether a filter uses one.\n"
        "Example: lance create-index data/t.lance id --type btree");
    auto args = std::make_shared<CreateIndexArgs>();
    sub->add_option("DATASET", args->uri, "dataset directory (path or URI)")->required();
    sub->add_option("COLUMN", args->column, "top-level column to index")->required();
    sub->add_option("--type", args->type, "btree | bitmap | label_list (default btree)");
    sub->add_option("--name", args->name, "index name (default COLUMN_idx, as lance 12 names them)");
    sub->add_flag("--replace", args->replace, "replace an index of the same name (else an error)");
    sub->add_option("--batch-size", args->batch_size,
                    "rows per btree page (default 4096, lance 12's); smaller pages read less per "
                    "lookup, a larger page lookup");
    registry.OnRun(sub, [args] { return CreateIndex(*args); });
  }
  {
    auto* sub = app.add_subcommand(
        "drop-index", "Remove an index from the latest version (its files stay until cleanup)");
    auto args = std::make_shared<DropIndexArgs>();
    sub->add_option("DATASET", args->uri, "dataset directory (path or URI)")->required();
    sub->add_option("NAME", args->name, "index name (see `lance indexes`)")->required();
    registry.OnRun(sub, [args] { return DropIndex(*args); });
  }
}

}  // namespace lance::cli
