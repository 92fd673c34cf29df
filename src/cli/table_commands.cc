// Dataset (table) commands: `lance scan`, `count`, `take` (through the query layer: streamed,
// `--explain` prints the plan), `schema`, `versions`, `manifest`. Rows print as canonical JSON
// lines; everything else as JSON.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/index_json.h"
#include "cli/input_files.h"
#include "lance/columnar/csv.h"
#include "lance/columnar/json.h"
#include "lance/index/scalar/zone_map.h"
#include "lance/io/object_store.h"
#include "lance/ipc/writer.h"
#include "lance/memwal/lsm_read.h"
#include "lance/query/lsm_scan.h"
#include "lance/query/scanner.h"
#include "lance/table/tags.h"
#include "lance/table/versions.h"
#include "lance/table/snapshot.h"
#include "lance/table/feature_flags.h"

namespace lance::cli {

namespace {

using Json = nlohmann::ordered_json;

struct TableArgs {
  std::string uri;
  int64_t version = -1;  // -1: latest
  std::string tag;
  std::string columns;
  int64_t limit = -1;  // -1: no limit
  int64_t offset = 0;
  bool with_row_id = false;
  bool with_row_addr = false;
  std::string offsets;
  std::string row_ids;
  std::string filter;  // scan/count: SQL-like condition
  std::string output;  // scan/take: write rows to this file instead of stdout
  std::string delimiter;  // scan/take: field separator of a .csv / .tsv --output
  int64_t batch_size = 0;  // scan/take: rows per batch (0: the default)
  std::string fragments;   // scan/count: comma-separated fragment ids
  bool explain = false;    // scan/take/count: print the plan instead of running it
  bool no_index = false;   // scan/count: filter every row, use no scalar index
  std::string consistency;  // scan of a MemWAL table: strong (default), eventual or base
};

Status PrintText(const std::string& text) {
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to stdout: {}", std::strerror(errno));
  }
  if (std::fflush(stdout) != 0) return Status::IOError("cannot flush stdout");
  return Status::OK();
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t start = 0;
  while (true) {
    const size_t p = s.find(',', start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

Result<std::vector<uint64_t>> ParseNumbers(const std::string& list, const char* what) {
  std::vector<uint64_t> out;
  for (const auto& s : SplitList(list)) {
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
      return Status::InvalidArgument("'{}' is not a {}", s, what);
    }
    out.push_back(v);
  }
  return out;
}

Result<std::shared_ptr<table::Snapshot>> OpenTable(const TableArgs& a) {
  table::OpenOptions o;
  if (a.version >= 0) o.version = static_cast<uint64_t>(a.version);
  if (!a.tag.empty()) o.tag = a.tag;
  return table::Snapshot::Open(a.uri, o);
}

Result<query::ScanOptions> ScanOpts(const TableArgs& a) {
  query::ScanOptions s;
  s.columns = SplitList(a.columns);
  s.offset = a.offset;
  if (a.limit >= 0) s.limit = a.limit;
  s.with_row_id = a.with_row_id;
  s.with_row_addr = a.with_row_addr;
  s.filter = a.filter;
  s.batch_size = a.batch_size;
  s.use_index = !a.no_index;
  if (!a.fragments.empty()) {
    LANCE_ASSIGN_OR_RAISE(s.fragment_ids, ParseNumbers(a.fragments, "fragment id"));
  }
  return s;
}

// An IPC writer's bytes into an object being written.
class ObjectSink final : public ipc::OutputSink {
 public:
  explicit ObjectSink(io::ObjectWriter* writer) : writer_(writer) {}
  Status Write(const void* data, int64_t size) override { return writer_->Write(data, size); }

 private:
  io::ObjectWriter* writer_;
};

// Where rows go, batch by batch: stdout as JSON lines, or with --output a file whose extension
// names the format: .arrows (Arrow IPC stream), .arrow (IPC file), .jsonl (canonical JSON
// lines), .csv / .tsv (header row + records, separated by ',' / TAB or --delimiter). The file
// is streamed into the store and published when the last batch is in (whole or not at all);
// stdout then gets {"path","format","num_rows"}. Text is handed on in pieces of a few MiB, so
// memory holds about one batch whatever the scan's size.
class RowOutput {
 public:
  static Result<std::unique_ptr<RowOutput>> Open(const TableArgs& a, SchemaPtr schema) {
    std::unique_ptr<RowOutput> out(new RowOutput());
    out->schema_ = std::move(schema);
    out->path_ = a.output;
    if (a.output.empty()) {
      if (!a.delimiter.empty()) {
        return Status::InvalidArgument("--delimiter needs --output FILE.csv|.tsv");
      }
      return out;
    }
    if (!a.delimiter.empty() && !IsDelimitedText(a.output)) {
      return Status::InvalidArgument("--output {}: --delimiter applies to .csv / .tsv output only",
                                     a.output);
    }
    if (a.output.ends_with(".arrows")) {
      out->format_ = "arrow_stream";
    } else if (a.output.ends_with(".arrow")) {
      out->format_ = "arrow_file";
    } else if (a.output.ends_with(".jsonl")) {
      out->format_ = "jsonl";
    } else if (IsDelimitedText(a.output)) {
      out->format_ = a.output.ends_with(".tsv") ? "tsv" : "csv";
      LANCE_ASSIGN_OR_RAISE(out->delimiter_, DelimiterFor(a.output, a.delimiter));
    } else {
      return Status::InvalidArgument(
          "--output {}: expected a .arrows, .arrow, .jsonl, .csv or .tsv file", a.output);
    }
    LANCE_ASSIGN_OR_RAISE(io::StoreAndPath sp, io::ObjectStore::FromUri(a.output));
    if (sp.store->scheme() == "file") {
      // An output file goes into a directory that exists: a typo in it is an error, not a
      // new directory tree.
      const std::string shown = sp.store->DisplayPath(sp.path);
      const std::string dir = shown.substr(0, shown.find_last_of('/') + 1);
      std::error_code ec;
      if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
        return Status::NotFound("--output {}: the directory {} does not exist", a.output, dir);
      }
    }
    out->store_ = sp.store;
    LANCE_ASSIGN_OR_RAISE(out->writer_, sp.store->OpenWriter(sp.path));
    out->sink_ = std::make_unique<ObjectSink>(out->writer_.get());
    if (out->format_ == "arrow_stream") {
      LANCE_ASSIGN_OR_RAISE(out->stream_, ipc::StreamWriter::Open(out->sink_.get(), out->schema_));
    } else if (out->format_ == "arrow_file") {
      LANCE_ASSIGN_OR_RAISE(out->file_, ipc::FileWriter::Open(out->sink_.get(), out->schema_));
    }
    return out;
  }

  Status Write(const RecordBatch& batch) {
    rows_ += batch.num_rows();
    if (stream_) return stream_->WriteBatch(batch);
    if (file_) return file_->WriteBatch(batch);
    if (delimiter_ != 0) {
      LANCE_RETURN_NOT_OK(AppendCsv(batch, /*header=*/!header_written_, &text_, delimiter_));
      header_written_ = true;
    } else {
      LANCE_RETURN_NOT_OK(AppendJsonLines(batch, &text_));
    }
    return text_.size() > (size_t{1} << 22) ? FlushText() : Status::OK();
  }

  Status Finish() {
    if (delimiter_ != 0 && !header_written_) {
      // No row: the header row still names the columns.
      std::vector<ArrayPtr> columns;
      for (const auto& f : schema_->fields()) {
        LANCE_ASSIGN_OR_RAISE(ArrayPtr empty, MakeEmptyArray(f->type()));
        columns.push_back(std::move(empty));
      }
      LANCE_ASSIGN_OR_RAISE(auto empty, RecordBatch::Make(schema_, 0, std::move(columns)));
      LANCE_RETURN_NOT_OK(AppendCsv(*empty, /*header=*/true, &text_, delimiter_));
      header_written_ = true;
    }
    if (stream_) LANCE_RETURN_NOT_OK(stream_->Close());
    if (file_) LANCE_RETURN_NOT_OK(file_->Close());
    LANCE_RETURN_NOT_OK(FlushText());
    if (!writer_) return Status::OK();
    LANCE_RETURN_NOT_OK(writer_->Close());
    Json j;
    j["path"] = path_;
    j["format"] = format_;
    j["num_rows"] = rows_;
    return PrintText(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }

 private:
  RowOutput() = default;
  Status FlushText() {
    if (text_.empty()) return Status::OK();
    Status st = writer_ ? writer_->Write(text_) : PrintText(text_);
    text_.clear();
    return st;
  }

  SchemaPtr schema_;
  std::string path_;
  std::string format_;
  char delimiter_ = 0;  // csv / tsv
  bool header_written_ = false;
  int64_t rows_ = 0;
  std::string text_;
  std::shared_ptr<io::ObjectStore> store_;  // outlives the writer
  std::unique_ptr<io::ObjectWriter> writer_;
  std::unique_ptr<ObjectSink> sink_;
  std::unique_ptr<ipc::StreamWriter> stream_;
  std::unique_ptr<ipc::FileWriter> file_;
};

// Every batch of `reader` to the output `a` asks for.
Status EmitRows(const TableArgs& a, RecordBatchReader* reader) {
  LANCE_ASSIGN_OR_RAISE(auto out, RowOutput::Open(a, reader->schema()));
  while (true) {
    LANCE_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (!batch) break;
    LANCE_RETURN_NOT_OK(out->Write(*batch));
  }
  return out->Finish();
}

// `lance scan` of a MemWAL table at strong or eventual consistency: the LSM's merged read
// (base + unmerged flushed generations (+ the unflushed WAL tail), newest row per key), the
// same rows as `lance lsm scan`, with --offset / --limit applied to them.
Status ScanLsm(const TableArgs& a, memwal::Consistency c, const SchemaPtr& table_schema) {
  const char* base_only = nullptr;
  if (a.version >= 0 || !a.tag.empty()) base_only = "--version / --tag";
  if (a.with_row_id || a.with_row_addr) base_only = "--with-row-id / --with-row-addr";
  if (!a.fragments.empty()) base_only = "--fragments";
  if (a.explain) base_only = "--explain";
  if (a.no_index) base_only = "--no-index";
  if (base_only) {
    return Status::InvalidArgument("{}: {} reads the base table alone, not the LSM's merged rows: "
                                   "add --consistency base", a.uri, base_only);
  }
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(a.uri));
  memwal::LsmReadOptions o;
  o.consistency = c;
  o.columns = SplitList(a.columns);
  o.filter = a.filter;
  LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> rows, query::LsmScan(w.store, w.path, o));
  // (LsmScan checked every column name.)
  SchemaPtr schema = table_schema;
  if (!o.columns.empty()) {
    std::vector<FieldPtr> fields;
    for (const auto& name : o.columns) fields.push_back(schema->GetFieldByName(name));
    schema = std::make_shared<Schema>(std::move(fields));
  }
  // --offset / --limit over the merged rows, in their order.
  std::vector<RecordBatchPtr> kept;
  int64_t skip = a.offset, left = a.limit < 0 ? std::numeric_limits<int64_t>::max() : a.limit;
  for (auto& b : rows) {
    int64_t from = std::min(skip, b->num_rows());
    skip -= from;
    const int64_t n = std::min(left, b->num_rows() - from);
    if (n <= 0) continue;
    left -= n;
    kept.push_back(from == 0 && n == b->num_rows() ? std::move(b) : b->Slice(from, n));
  }
  VectorRecordBatchReader reader(schema, std::move(kept));
  return EmitRows(a, &reader);
}

Status Scan(const TableArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(a));
  const bool memwal_table = memwal::ReadMemWalDetails(*ds).ok();
  if (!a.consistency.empty() && a.consistency != "strong" && a.consistency != "eventual" &&
      a.consistency != "base") {
    return Status::InvalidArgument("--consistency is strong, eventual or base, not '{}'", a.consistency);
  }
  if (!memwal_table && !a.consistency.empty() && a.consistency != "base") {
    return Status::InvalidArgument("{}: --consistency {} reads a MemWAL table's LSM, and this table "
                                   "has none (`lance lsm enable` makes one)", a.uri, a.consistency);
  }
  if (memwal_table && a.consistency != "base") {
    return ScanLsm(a, a.consistency == "eventual" ? memwal::Consistency::kEventual
                                                  : memwal::Consistency::kStrong,
                   ds->schema());
  }
  LANCE_ASSIGN_OR_RAISE(auto options, ScanOpts(a));
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(ds, std::move(options)));
  if (a.explain) return PrintText(scanner.Explain());
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  return EmitRows(a, reader.get());
}

Status Take(const TableArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(a));
  if (a.offsets.empty() == a.row_ids.empty()) {
    return Status::InvalidArgument("take: give exactly one of --offsets and --row-ids");
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> keys,
                        ParseNumbers(a.offsets.empty() ? a.row_ids : a.offsets,
                                     "row offset or row id"));
  LANCE_ASSIGN_OR_RAISE(auto options, ScanOpts(a));
  const query::Planner planner(ds);
  LANCE_ASSIGN_OR_RAISE(query::Plan plan, a.row_ids.empty()
                                              ? planner.PlanTake(std::move(keys), options)
                                              : planner.PlanTakeRowIds(std::move(keys), options));
  if (a.explain) return PrintText(plan.Explain());
  LANCE_ASSIGN_OR_RAISE(auto reader, plan.Execute(query::Planner::ExecOptionsOf(options)));
  return EmitRows(a, reader.get());
}

Status Count(const TableArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(a));
  LANCE_ASSIGN_OR_RAISE(auto options, ScanOpts(a));
  LANCE_ASSIGN_OR_RAISE(query::Plan plan, query::Planner(ds).PlanCount(options));
  if (a.explain) return PrintText(plan.Explain());
  LANCE_ASSIGN_OR_RAISE(uint64_t n, plan.ExecuteCount(query::Planner::ExecOptionsOf(options)));
  return PrintText(std::to_string(n) + "\n");
}

Status SchemaCmd(const TableArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(a));
  return PrintText(SchemaToJson(*ds->schema()) + "\n");
}

Status Versions(const TableArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(a));
  LANCE_ASSIGN_OR_RAISE(auto versions, ds->ListVersions());
  std::string out;
  for (const auto& v : versions) {
    Json j;
    j["version"] = v.version;
    if (v.timestamp_ns) {
      j["timestamp_ns"] = *v.timestamp_ns;
    } else {
      j["timestamp_ns"] = nullptr;
    }
    j["num_rows"] = v.num_rows;
    j["num_fragments"] = v.num_fragments;
    j["naming"] = v.naming == table::ManifestNaming::kV2 ? "v2" : "legacy";
    out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return PrintText(out);
}

Json FlagsJson(uint64_t flags) {
  Json j;
  j["value"] = flags;
  j["names"] = Json::array();
  const std::string names = table::FlagNames(flags);
  size_t start = 0;
  while (start < names.size()) {
    const size_t bar = names.find('|', start);
    j["names"].push_back(names.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return j;
}

Status Indexes(const TableArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(a));
  std::string out;
  for (const auto& x : ds->manifest().indices) {
    out += IndexJson(ds->manifest(), x).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n";
  }
  return PrintText(out);
}

Status ManifestCmd(const TableArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, OpenTable(a));
  const table::Manifest& m = ds->manifest();
  Json j;
  j["path"] = ds->manifest_path();
  j["version"] = m.version;
  if (m.timestamp_ns) {
    j["timestamp_ns"] = *m.timestamp_ns;
  } else {
    j["timestamp_ns"] = nullptr;
  }
  j["tag"] = m.tag;
  // The manifest file's container version, from its footer (u16 major, u16 minor, "LANC"):
  // 0.1 from writers up to lance 0.33, 0.2 from lance 12 and lance-cpp.
  {
    const std::shared_ptr<io::ObjectStore>& store = ds->location().store();
    LANCE_ASSIGN_OR_RAISE(io::ObjectMeta meta, store->Head(ds->manifest_path()));
    if (meta.size < 16) return Status::Corruption("{}: {} bytes", ds->manifest_path(), meta.size);
    LANCE_ASSIGN_OR_RAISE(BufferPtr tail, store->GetRange(ds->manifest_path(), meta.size - 8, 4));
    uint16_t v[2];
    std::memcpy(v, tail->data(), 4);
    j["container_version"] = fmt::format("{}.{}", v[0], v[1]);
  }
  j["writer"] = {{"library", m.writer_library}, {"version", m.writer_version}};
  j["data_format"] = {{"file_format", m.data_file_format}, {"version", m.data_storage_version}};
  j["reader_feature_flags"] = FlagsJson(m.reader_feature_flags);
  j["writer_feature_flags"] = FlagsJson(m.writer_feature_flags);
  if (m.max_fragment_id) {
    j["max_fragment_id"] = *m.max_fragment_id;
  } else {
    j["max_fragment_id"] = nullptr;
  }
  j["next_row_id"] = m.next_row_id;
  j["transaction_file"] = m.transaction_file;
  j["config"] = m.config;
  j["table_metadata"] = m.table_metadata;
  j["num_indices"] = m.num_indices();
  j["indices"] = Json::array();
  for (const auto& x : m.indices) j["indices"].push_back(IndexJson(m, x));
  j["base_paths"] = Json::array();
  for (const auto& b : m.base_paths) {
    Json bj = {{"id", b.id}, {"is_dataset_root", b.is_dataset_root}, {"path", b.path}};
    bj["name"] = b.name ? Json(*b.name) : Json(nullptr);
    j["base_paths"].push_back(bj);
  }
  j["fields"] = Json::array();
  for (const auto& f : m.fields) {
    j["fields"].push_back({{"name", f.name}, {"id", f.id}, {"parent_id", f.parent_id},
                           {"logical_type", f.logical_type}, {"nullable", f.nullable}});
  }
  j["fragments"] = Json::array();
  for (const auto& fr : m.fragments) {
    Json fj;
    fj["id"] = fr.id;
    fj["physical_rows"] = fr.physical_rows;
    fj["num_rows"] = fr.num_rows();
    fj["files"] = Json::array();
    for (const auto& df : fr.files) {
      fj["files"].push_back({{"path", df.path},
                             {"fields", df.fields},
                             {"column_indices", df.column_indices},
                             {"file_version", std::to_string(df.major) + "." + std::to_string(df.minor)},
                             {"size_bytes", df.size_bytes}});
    }
    if (fr.deletion) {
      fj["deletion_file"] = {
          {"type", fr.deletion->type == table::DeletionFileType::kBitmap ? "bitmap" : "arrow_array"},
          {"path", fr.deletion->FileName(fr.id)},
          {"read_version", fr.deletion->read_version},
          {"num_deleted_rows", fr.deletion->num_deleted_rows}};
    } else {
      fj["deletion_file"] = nullptr;
    }
    fj["has_row_ids"] = fr.has_row_ids();
    j["fragments"].push_back(std::move(fj));
  }
  return PrintText(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void AddOpenOptions(CLI::App* sub, TableArgs* a) {
  sub->add_option("URI", a->uri, "dataset directory (path or URI)")->required();
  auto* v = sub->add_option("--version", a->version, "read this version");
  sub->add_option("--tag", a->tag, "read the version this tag names")->excludes(v);
}

void AddScanOptions(CLI::App* sub, TableArgs* a) {
  sub->add_option("--columns", a->columns,
                  "comma-separated top-level columns, _rowid / _rowaddr among them anywhere "
                  "(default: all)");
  sub->add_flag("--with-row-id", a->with_row_id, "append the _rowid column");
  sub->add_flag("--with-row-addr", a->with_row_addr, "append the _rowaddr column");
  sub->add_option("--batch-size", a->batch_size,
                  "rows per batch read and written (default 8192; .arrow/.arrows batches)");
  sub->add_flag("--explain", a->explain, "print the query plan instead of the rows");
  sub->add_option("--output", a->output,
                  "write the rows to FILE.arrows|.arrow|.jsonl|.csv|.tsv (by extension) instead "
                  "of JSON lines on stdout");
  sub->add_option("--delimiter", a->delimiter,
                  "field separator of a .csv/.tsv --output: one character or \\t");
}

struct VersionRefArgs {
  std::string uri;
  std::string name;
  int64_t version = -1;
};

Status Restore(const VersionRefArgs& a) {
  if (a.version < 0) return Status::InvalidArgument("restore: --version is required");
  LANCE_ASSIGN_OR_RAISE(uint64_t v, table::RestoreVersion(a.uri, static_cast<uint64_t>(a.version)));
  return PrintText(fmt::format("{{\"version\":{}}}\n", v));
}

Status TagCreate(const VersionRefArgs& a) {
  int64_t version = a.version;
  if (version < 0) {
    LANCE_ASSIGN_OR_RAISE(auto ds, table::Snapshot::Open(a.uri));
    version = static_cast<int64_t>(ds->version());
  }
  LANCE_RETURN_NOT_OK(table::CreateTag(a.uri, a.name, static_cast<uint64_t>(version)));
  Json j;
  j["created"] = a.name;
  j["version"] = version;
  return PrintText(j.dump() + "\n");
}

Status TagDelete(const VersionRefArgs& a) {
  LANCE_RETURN_NOT_OK(table::DeleteTag(a.uri, a.name));
  Json j;
  j["deleted"] = a.name;
  return PrintText(j.dump() + "\n");
}

Status TagList(const VersionRefArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto tags, table::ListTags(a.uri));
  std::string out;
  for (const auto& t : tags) {
    Json j;
    j["name"] = t.name;
    j["version"] = t.version;
    out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  return PrintText(out);
}

}  // namespace

void RegisterTableCommands(CLI::App& app, CommandRegistry& registry) {
  auto make = [&](const char* name, const char* help, Status (*fn)(const TableArgs&)) {
    auto* sub = app.add_subcommand(name, help);
    auto args = std::make_shared<TableArgs>();
    AddOpenOptions(sub, args.get());
    registry.OnRun(sub, [args, fn] { return fn(*args); });
    return std::make_pair(sub, args);
  };
  {
    auto [sub, args] = make("scan", "Print a dataset's rows as canonical JSON lines", Scan);
    AddScanOptions(sub, args.get());
    sub->add_option("--limit", args->limit, "at most this many rows");
    sub->add_option("--offset", args->offset, "skip this many rows first");
    sub->add_option("--filter,--where", args->filter,
                    "keep rows where this SQL-like condition is true, e.g. \"score > 50 AND "
                    "category = 'c7'\" (offset/limit count filtered rows)");
    sub->add_flag("--no-index", args->no_index,
                  "filter every row instead of answering conjuncts from scalar indexes (same "
                  "rows; --explain shows which indexes a filter uses)");
    sub->add_option("--fragments", args->fragments,
                    "comma-separated fragment ids: scan only these (in manifest order)");
    sub->add_option("--consistency", args->consistency,
                    "a MemWAL table is read through its LSM: strong (default: base + unmerged "
                    "flushed generations + the unflushed WAL tail, newest row per key), eventual "
                    "(without the WAL tail) or base (the base table alone)");
  }
  {
    auto [sub, args] = make("take", "Print the rows at given scan positions or row ids", Take);
    AddScanOptions(sub, args.get());
    sub->add_option("--offsets", args->offsets, "comma-separated row positions (scan order)");
    sub->add_option("--row-ids", args->row_ids,
                    "comma-separated row ids (missing or deleted ones are skipped)");
  }
  {
    auto [sub, args] = make("count", "Print the number of rows", Count);
    sub->add_option("--filter,--where", args->filter,
                    "count only rows where this SQL-like condition is true");
    sub->add_option("--fragments", args->fragments,
                    "comma-separated fragment ids: count only these");
    sub->add_flag("--explain", args->explain, "print the query plan instead of the count");
    sub->add_flag("--no-index", args->no_index,
                  "filter every row instead of answering conjuncts from scalar indexes (same count)");
  }
  make("schema", "Print the dataset schema as JSON (with Lance field ids)", SchemaCmd);
  make("versions", "Print one JSON line per version", Versions);
  make("manifest", "Print the decoded manifest as JSON (feature flags by name)", ManifestCmd);
  make("indexes",
       "Print one JSON line per index of the manifest (name, columns, type, fragments covered)",
       Indexes);
  {
    auto* sub = app.add_subcommand("restore", "Commit a new version with the content of an old one");
    auto args = std::make_shared<VersionRefArgs>();
    sub->add_option("URI", args->uri, "dataset directory (path or URI)")->required();
    sub->add_option("--version", args->version, "the version to restore")->required();
    registry.OnRun(sub, [args] { return Restore(*args); });
  }
  {
    auto* tag = app.add_subcommand("tag", "Create, delete and list tags (_refs/tags/)");
    tag->require_subcommand(1);
    auto make_tag = [&](const char* name, const char* help, Status (*fn)(const VersionRefArgs&),
                        bool with_name, bool with_version) {
      auto* sub = tag->add_subcommand(name, help);
      auto args = std::make_shared<VersionRefArgs>();
      sub->add_option("URI", args->uri, "dataset directory (path or URI)")->required();
      if (with_name) sub->add_option("NAME", args->name, "tag name")->required();
      if (with_version) sub->add_option("--version", args->version, "version (default: latest)");
      registry.OnRun(sub, [args, fn] { return fn(*args); });
    };
    make_tag("create", "Tag a version", TagCreate, true, true);
    make_tag("delete", "Delete a tag", TagDelete, true, false);
    make_tag("list", "Print one JSON line per tag", TagList, false, false);
  }
}

}  // namespace lance::cli
