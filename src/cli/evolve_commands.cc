// Commands that change a dataset's rows or schema in place: `lance update`, `merge-insert`,
// `add-columns`, `drop-columns`, `rename-column`, `alter-column`, `compact`, `cleanup`.
// Each prints one JSON object describing what it did (the version committed, counts).
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/progress.h"
#include "cli/commands.h"
#include "cli/commit_json.h"
#include "cli/input_files.h"
#include "lance/table/cleanup.h"
#include "lance/dataset/dataset.h"

namespace lance::cli {

namespace {

using Json = nlohmann::ordered_json;

struct EvolveArgs {
  bool progress = false;
  std::string uri;
  std::vector<std::string> sets;
  std::string where;
  std::string input;
  std::string schema;
  std::string delimiter;
  std::string on;
  std::string when_matched = "update";
  std::string when_not_matched = "insert";
  std::string when_not_matched_by_source;  // keep, or delete when a delete condition is given
  std::string when_matched_update_where;
  std::string when_not_matched_by_source_delete_where;
  std::vector<std::string> exprs;
  std::string columns;
  std::string old_name;
  std::string new_name;
  std::string column;
  std::string nullable;
  std::string type;
  int64_t target_rows = 1024 * 1024;
  int64_t max_rows_per_file = 1024 * 1024;
  bool no_materialize = false;
  std::string older_than;
  int64_t keep = 0;
  bool delete_unverified = false;
  bool dry_run = false;
  bool no_sync = false;
};

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    std::string part = s.substr(start, end - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    while (!part.empty() && part.back() == ' ') part.pop_back();
    if (!part.empty()) out.push_back(part);
    start = end + 1;
  }
  return out;
}

// "name=expression" (the first '=' splits; names cannot contain one).
Result<std::pair<std::string, std::string>> SplitAssignment(const std::string& s, const char* what) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::InvalidArgument("{} '{}': expected NAME=EXPRESSION", what, s);
  }
  std::string name = s.substr(0, eq);
  while (!name.empty() && name.back() == ' ') name.pop_back();
  while (!name.empty() && name.front() == ' ') name.erase(name.begin());
  return std::make_pair(name, s.substr(eq + 1));
}

Status Update(const EvolveArgs& a) {
  std::vector<std::pair<std::string, std::string>> assignments;
  for (const auto& s : a.sets) {
    LANCE_ASSIGN_OR_RAISE(auto kv, SplitAssignment(s, "--set"));
    assignments.push_back(std::move(kv));
  }
  dataset::UpdateParams p;
  p.max_rows_per_file = a.max_rows_per_file;
  p.commit.sync = !a.no_sync;
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  LANCE_ASSIGN_OR_RAISE(auto r, ds->Update(assignments, a.where, p));
  Json j = CommitJson(r.commit);
  j["rows_updated"] = r.rows_updated;
  return PrintJson(j);
}

Status MergeInsertCommand(const EvolveArgs& a) {
  dataset::MergeInsertParams p;
  p.on = SplitComma(a.on);
  if (a.when_matched == "update" || a.when_matched == "update-all") {
    p.when_matched = dataset::WhenMatched::kUpdateAll;
  } else if (a.when_matched == "nothing") {
    p.when_matched = dataset::WhenMatched::kDoNothing;
  } else {
    return Status::InvalidArgument("--when-matched '{}': expected update or nothing", a.when_matched);
  }
  if (a.when_not_matched == "insert") {
    p.when_not_matched = dataset::WhenNotMatched::kInsert;
  } else if (a.when_not_matched == "nothing") {
    p.when_not_matched = dataset::WhenNotMatched::kDoNothing;
  } else {
    return Status::InvalidArgument("--when-not-matched '{}': expected insert or nothing",
                                   a.when_not_matched);
  }
  const std::string by_source = !a.when_not_matched_by_source.empty() ? a.when_not_matched_by_source
                                : a.when_not_matched_by_source_delete_where.empty() ? "keep"
                                                                                     : "delete";
  if (by_source == "keep") {
    p.when_not_matched_by_source = dataset::WhenNotMatchedBySource::kKeep;
  } else if (by_source == "delete") {
    p.when_not_matched_by_source = dataset::WhenNotMatchedBySource::kDelete;
  } else {
    return Status::InvalidArgument("--when-not-matched-by-source '{}': expected delete or keep",
                                   a.when_not_matched_by_source);
  }
  p.when_matched_update_where = a.when_matched_update_where;
  p.when_not_matched_by_source_delete_where = a.when_not_matched_by_source_delete_where;
  p.max_rows_per_file = a.max_rows_per_file;
  p.commit.sync = !a.no_sync;
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
  LANCE_ASSIGN_OR_RAISE(SchemaPtr target, ExistingTableSchema(a.uri));
  LANCE_RETURN_NOT_OK(ReadInputRows(a.input, a.schema, a.delimiter, &schema, &batches, target));
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  VectorRecordBatchReader input(schema, std::move(batches));
  LANCE_ASSIGN_OR_RAISE(auto r, ds->MergeInsert(input, p));
  Json j = CommitJson(r.commit);
  j["rows_updated"] = r.rows_updated;
  j["rows_inserted"] = r.rows_inserted;
  j["rows_deleted"] = r.rows_deleted;
  return PrintJson(j);
}

Status AddColumnsCommand(const EvolveArgs& a) {
  if (a.exprs.empty() == a.input.empty()) {
    return Status::InvalidArgument("add-columns: give --expr NAME=EXPRESSION (one or more) or "
                                   "--input FILE, not both");
  }
  table::CommitInfo c;
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  if (!a.exprs.empty()) {
    std::vector<dataset::ColumnExpression> cols;
    for (const auto& e : a.exprs) {
      LANCE_ASSIGN_OR_RAISE(auto kv, SplitAssignment(e, "--expr"));
      cols.push_back({kv.first, kv.second});
    }
    LANCE_ASSIGN_OR_RAISE(c, ds->AddColumns(cols));
  } else {
    SchemaPtr schema;
    std::vector<RecordBatchPtr> batches;
    LANCE_RETURN_NOT_OK(ReadInputRows(a.input, a.schema, a.delimiter, &schema, &batches));
    VectorRecordBatchReader input(schema, std::move(batches));
    if (a.on.empty()) {
      LANCE_ASSIGN_OR_RAISE(c, ds->AddColumnsFromData(input));
    } else {
      LANCE_ASSIGN_OR_RAISE(c, ds->AddColumnsJoined(input, SplitComma(a.on)));
    }
  }
  return PrintJson(CommitJson(c));
}

Status DropColumnsCommand(const EvolveArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  LANCE_ASSIGN_OR_RAISE(auto c, ds->DropColumns(SplitComma(a.columns)));
  return PrintJson(CommitJson(c));
}

Status RenameColumnCommand(const EvolveArgs& a) {
  dataset::ColumnAlteration alt;
  alt.path = a.old_name;
  alt.rename = a.new_name;
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  LANCE_ASSIGN_OR_RAISE(auto c, ds->AlterColumns({alt}));
  return PrintJson(CommitJson(c));
}

Status AlterColumnCommand(const EvolveArgs& a) {
  dataset::ColumnAlteration alt;
  alt.path = a.column;
  if (!a.new_name.empty()) alt.rename = a.new_name;
  if (a.nullable == "true") {
    alt.nullable = true;
  } else if (a.nullable == "false") {
    alt.nullable = false;
  } else if (!a.nullable.empty()) {
    return Status::InvalidArgument("--nullable '{}': expected true or false", a.nullable);
  }
  if (!alt.rename && !alt.nullable && a.type.empty()) {
    return Status::InvalidArgument("alter-column: give --rename NAME, --nullable true|false "
                                   "and/or --type TYPE");
  }
  table::CommitInfo c;
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  if (!a.type.empty()) {
    // The type first (a new data file per fragment), then the schema-only changes.
    LANCE_ASSIGN_OR_RAISE(c, ds->AlterColumnType(a.column, a.type));
  }
  if (alt.rename || alt.nullable) {
    LANCE_ASSIGN_OR_RAISE(c, ds->AlterColumns({alt}));
  }
  return PrintJson(CommitJson(c));
}

Status CompactCommand(const EvolveArgs& a) {
  dataset::CompactionOptions o;
  o.target_rows_per_fragment = a.target_rows;
  o.materialize_deletions = !a.no_materialize;
  // Phases only: compaction reports nothing finer yet.
  Progress progress("compact", a.progress);
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  progress.Update(fmt::format("rewriting {} fragments", ds->snapshot()->manifest().fragments.size()), true);
  LANCE_ASSIGN_OR_RAISE(auto r, ds->Compact(o));
  progress.Update(fmt::format("{} fragments -> {}, {} rows rewritten", r.fragments_removed,
                              r.fragments_added, r.rows_rewritten),
                  true);
  Json j = CommitJson(r.commit);
  j["fragments_removed"] = r.fragments_removed;
  j["fragments_added"] = r.fragments_added;
  j["rows_rewritten"] = r.rows_rewritten;
  return PrintJson(j);
}

Status CleanupCommand(const EvolveArgs& a) {
  table::CleanupOptions o;
  if (!a.older_than.empty()) {
    LANCE_ASSIGN_OR_RAISE(int64_t s, table::ParseDurationSeconds(a.older_than));
    o.older_than_seconds = s;
  }
  if (a.keep < 0) return Status::InvalidArgument("--keep must be at least 1, got {}", a.keep);
  if (a.keep > 0) o.keep_versions = static_cast<uint64_t>(a.keep);
  if (!o.older_than_seconds && !o.keep_versions) o.older_than_seconds = 7 * 24 * 3600;
  o.delete_unverified = a.delete_unverified;
  o.dry_run = a.dry_run;
  LANCE_ASSIGN_OR_RAISE(auto s, table::CleanupOldVersions(a.uri, o));
  Json j;
  j["removed_versions"] = s.removed_versions;
  j["data_files_removed"] = s.data_files_removed;
  j["deletion_files_removed"] = s.deletion_files_removed;
  j["transaction_files_removed"] = s.transaction_files_removed;
  j["bytes_removed"] = s.bytes_removed;
  j["dry_run"] = a.dry_run;
  return PrintJson(j);
}

}  // namespace

void RegisterEvolveCommands(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<EvolveArgs>();

  CLI::App* up = app.add_subcommand("update", "Set columns of the rows matching a filter");
  up->add_option("uri", args->uri, "Dataset directory or URI")->required();
  up->add_option("--set", args->sets, "COLUMN=EXPRESSION (repeatable)")->required();
  up->add_option("--where,--filter", args->where, "SQL-like filter (default: every row)");
  up->add_option("--max-rows-per-file", args->max_rows_per_file, "Rows per new fragment");
  AddNoSyncFlag(up, &args->no_sync);
  registry.OnRun(up, [args] { return Update(*args); });

  CLI::App* mi = app.add_subcommand("merge-insert", "Upsert rows, joined on key columns");
  mi->add_option("uri", args->uri, "Dataset directory or URI")->required();
  mi->add_option("--input", args->input,
                 "Rows: .arrows/.arrow (Arrow IPC), .jsonl, .csv or .tsv; the keys and any of "
                 "the other columns (an updated row keeps the columns the input lacks, an "
                 "inserted row gets nulls there)")->required();
  mi->add_option("--schema", args->schema, "Schema JSON file (optional: types are otherwise the table's, or inferred from .jsonl / .csv input)");
  mi->add_option("--delimiter", args->delimiter, "CSV field separator (default ',', TAB for .tsv)");
  mi->add_option("--on", args->on, "Key columns, comma-separated")->required();
  mi->add_option("--when-matched", args->when_matched, "update (default) or nothing");
  mi->add_option("--when-not-matched", args->when_not_matched, "insert (default) or nothing");
  mi->add_option("--when-not-matched-by-source", args->when_not_matched_by_source,
                 "keep (default) or delete (default with a delete condition)");
  mi->add_option("--when-matched-update-where", args->when_matched_update_where,
                 "Update a matched row only where this holds; name the dataset's columns "
                 "target.COL and the input's source.COL (target.score < source.score)");
  mi->add_option("--when-not-matched-by-source-delete-where",
                 args->when_not_matched_by_source_delete_where,
                 "Delete a dataset row without a match only where this filter over its columns "
                 "holds (implies --when-not-matched-by-source delete)");
  mi->add_option("--max-rows-per-file", args->max_rows_per_file, "Rows per new fragment");
  AddNoSyncFlag(mi, &args->no_sync);
  registry.OnRun(mi, [args] { return MergeInsertCommand(*args); });

  CLI::App* ac = app.add_subcommand(
      "add-columns", "Add columns from expressions or from new data (existing files untouched)");
  ac->add_option("uri", args->uri, "Dataset directory or URI")->required();
  ac->add_option("--expr", args->exprs, "NAME=EXPRESSION (repeatable)");
  ac->add_option("--input", args->input,
                 "New columns (.arrows/.arrow/.jsonl/.csv/.tsv): one row per dataset row in scan "
                 "order, or joined on --on");
  ac->add_option("--schema", args->schema, "Schema JSON file (optional: .jsonl / .csv types are otherwise inferred)");
  ac->add_option("--delimiter", args->delimiter, "CSV field separator (default ',', TAB for .tsv)");
  ac->add_option("--on", args->on,
                 "Key columns (comma-separated) joining --input rows to dataset rows; rows "
                 "without a match get nulls");
  registry.OnRun(ac, [args] { return AddColumnsCommand(*args); });

  CLI::App* dc = app.add_subcommand("drop-columns", "Remove columns from the schema (no rewrite)");
  dc->add_option("uri", args->uri, "Dataset directory or URI")->required();
  dc->add_option("--columns", args->columns, "Comma-separated column paths (a, s.b)")->required();
  registry.OnRun(dc, [args] { return DropColumnsCommand(*args); });

  CLI::App* rc = app.add_subcommand("rename-column", "Rename a column (no rewrite)");
  rc->add_option("uri", args->uri, "Dataset directory or URI")->required();
  rc->add_option("old", args->old_name, "Column path")->required();
  rc->add_option("new", args->new_name, "New name")->required();
  registry.OnRun(rc, [args] { return RenameColumnCommand(*args); });

  CLI::App* al = app.add_subcommand("alter-column",
                                    "Rename a column, change its nullability and/or its type");
  al->add_option("uri", args->uri, "Dataset directory or URI")->required();
  al->add_option("column", args->column, "Column path")->required();
  al->add_option("--rename", args->new_name, "New name");
  al->add_option("--nullable", args->nullable, "true or false (false checks for nulls)");
  al->add_option("--type", args->type,
                 "New type (a CAST type: int, bigint, double, string, ...; values are cast)");
  registry.OnRun(al, [args] { return AlterColumnCommand(*args); });

  CLI::App* cp = app.add_subcommand(
      "compact", "Merge small fragments and materialize deletions (Rewrite)");
  cp->add_option("uri", args->uri, "Dataset directory or URI")->required();
  cp->add_option("--target-rows-per-fragment", args->target_rows,
                 "Rows per compacted fragment (default 1048576)");
  cp->add_flag("--no-materialize-deletions", args->no_materialize,
               "Leave fragments with many deleted rows alone unless they are small");
  AddProgressFlag(cp, &args->progress);
  registry.OnRun(cp, [args] { return CompactCommand(*args); });

  CLI::App* cl = app.add_subcommand("cleanup", "Remove old versions and the files only they use");
  cl->add_option("uri", args->uri, "Dataset directory or URI")->required();
  cl->add_option("--older-than", args->older_than,
                 "Remove versions older than this (e.g. 7d, 12h, 30m, 0s; default 7d)");
  cl->add_option("--keep", args->keep, "Always keep the newest N versions");
  cl->add_flag("--delete-unverified", args->delete_unverified,
               "Also delete recent files no version references");
  cl->add_flag("--dry-run", args->dry_run, "Report only");
  registry.OnRun(cl, [args] { return CleanupCommand(*args); });
}

}  // namespace lance::cli
