// Dataset write commands: `lance create` (create / append / overwrite) and `lance delete`.
// Each prints one JSON object describing the commit.
#include <charconv>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/commit_json.h"
#include "cli/input_files.h"
#include "cli/progress.h"
#include "lance/core/thread_pool.h"
#include "lance/dataset/dataset.h"
#include "lance/index/vector/index_migration.h"
#include "lance/table/write.h"

namespace lance::cli {

namespace {

using Json = nlohmann::ordered_json;

struct WriteArgs {
  std::string uri;
  std::string input;
  std::string mode = "create";
  std::string schema;
  std::string delimiter;
  std::string data_storage_version;
  int64_t max_rows_per_file = 1024 * 1024;
  bool stable_row_ids = false;
  bool legacy_names = false;
  bool plain = false;
  std::string commit_handler = "put";
  std::string filter;
  std::string row_addresses;
  bool no_sync = false;
  bool progress = false;
  int64_t input_batch_bytes = int64_t{4} << 20;
};

Result<table::CommitOptions> CommitOpts(const WriteArgs& a) {
  table::CommitOptions o;
  o.sync = !a.no_sync;
  o.migrate_indices = index::vector::MigrateVectorIndexEntries;  // as every commit of lance 12
  if (a.commit_handler == "put") {
    // The default handler (null): put-if-not-exists, as a staged rename on a local filesystem
    // with the staged files and the manifest flushed in one round (commit.h).
  } else if (a.commit_handler == "rename") {
    o.handler = table::RenameIfNotExistsCommitHandler();
  } else {
    return Status::InvalidArgument("--commit-handler '{}': expected put or rename", a.commit_handler);
  }
  return o;
}

// The rows of `in`, reporting how many have been read (and how much of the input) as they go.
// Every few pieces the heap's free memory goes back to the system: the pieces are large and
// short-lived, and without it the allocator keeps the peak of every piece ever read.
class ProgressRows final : public RecordBatchReader {
 public:
  ProgressRows(InputRows* in, Progress* progress) : in_(in), progress_(progress) {}
  SchemaPtr schema() const override { return in_->schema(); }
  Result<RecordBatchPtr> Next() override {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, in_->Next());
    if (b) rows_ += b->num_rows();
#if defined(__GLIBC__)
    if (++pieces_ % 4 == 0) ::malloc_trim(0);
#endif
    const int64_t total = in_->total_bytes();
    if (total > 0) {
      const int pct = b ? static_cast<int>(100 * in_->bytes_read() / total) : 100;
      progress_->Update(fmt::format("{} rows read, {}% of the input", rows_, pct), !b);
    } else {  // a stream: its size is not known
      progress_->Update(fmt::format("{} rows read, {} MiB of the input", rows_,
                                    in_->bytes_read() >> 20), !b);
    }
    return b;
  }

 private:
  InputRows* in_;
  Progress* progress_;
  int64_t rows_ = 0;
  int64_t pieces_ = 0;
};

Status Create(const WriteArgs& a) {
  table::WriteParams p;
  LANCE_ASSIGN_OR_RAISE(p.mode, table::WriteModeFromName(a.mode));
  p.data_storage_version = a.data_storage_version;
  p.max_rows_per_file = a.max_rows_per_file;
  p.enable_stable_row_ids = a.stable_row_ids;
  p.naming = a.legacy_names ? table::ManifestNaming::kLegacy : table::ManifestNaming::kV2;
  p.compress = !a.plain;
  p.pool = ThreadPool::Default();  // the CLI is the application: it encodes on the default pool
  LANCE_ASSIGN_OR_RAISE(p.commit, CommitOpts(a));
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
  SchemaPtr target;
  if (p.mode == table::WriteMode::kAppend) {
    LANCE_ASSIGN_OR_RAISE(target, ExistingTableSchema(a.uri));
  }
  // Files, stdin and FIFOs stream into the data files piece by piece (memory stays bounded
  // however big the input); a regular file whose pieces cannot give the exact answer of a
  // whole read (see InputRows::read_whole), an IPC file on a stream and URIs are read whole.
  Progress progress(a.mode, a.progress);
  LANCE_ASSIGN_OR_RAISE(auto rows, OpenInputRows(a.input, a.schema, a.delimiter, target,
                                                   a.input_batch_bytes));
  std::optional<Result<table::WriteResult>> written;
  if (rows) {
    ProgressRows reported(rows.get(), &progress);
    written = table::WriteDataset(a.uri, reported, p);
    if (!written->ok() && rows->read_whole()) written.reset();
  }
  if (!written) {
    progress.Update("reading the whole input", true);
    LANCE_RETURN_NOT_OK(ReadInputRows(a.input, a.schema, a.delimiter, &schema, &batches, target));
    written = table::WriteDataset(a.uri, schema, batches, p);
  }
  LANCE_ASSIGN_OR_RAISE(table::WriteResult r, std::move(*written));
  progress.Update(fmt::format("{} rows written, version {}", r.rows_written, r.commit.version), true);
  Json j = CommitJson(r.commit);
  j["rows_written"] = r.rows_written;
  j["fragment_ids"] = r.fragment_ids;
  return PrintJson(j);
}

Status Delete(const WriteArgs& a) {
  LANCE_ASSIGN_OR_RAISE(table::CommitOptions o, CommitOpts(a));
  if (a.filter.empty() == a.row_addresses.empty()) {
    return Status::InvalidArgument("delete: give exactly one of --filter (--where) and --row-addresses");
  }
  dataset::OpenOptions oo;
  oo.commit_handler = o.handler;
  oo.sync_commits = o.sync;
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri, oo));
  table::DeleteResult r;
  if (!a.filter.empty()) {
    LANCE_ASSIGN_OR_RAISE(r, ds->Delete(a.filter));
  } else {
    std::vector<uint64_t> addrs;
    size_t start = 0;
    while (start <= a.row_addresses.size()) {
      size_t end = a.row_addresses.find(',', start);
      if (end == std::string::npos) end = a.row_addresses.size();
      const std::string s = a.row_addresses.substr(start, end - start);
      uint64_t v = 0;
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
        return Status::InvalidArgument("'{}' is not a row address", s);
      }
      addrs.push_back(v);
      start = end + 1;
    }
    LANCE_ASSIGN_OR_RAISE(r, ds->DeleteRowAddresses(std::move(addrs)));
  }
  Json j = CommitJson(r.commit);
  j["deleted_rows"] = r.num_deleted_rows;
  j["removed_fragment_ids"] = r.removed_fragment_ids;
  return PrintJson(j);
}

void AddCommitHandlerOption(CLI::App* sub, WriteArgs* a) {
  sub->add_option("--commit-handler", a->commit_handler,
                  "How the version file is published: put (put-if-not-exists, default) or "
                  "rename (rename-if-not-exists)");
  AddNoSyncFlag(sub, &a->no_sync);
}

}  // namespace

void RegisterWriteCommands(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<WriteArgs>();

  CLI::App* create = app.add_subcommand(
      "create", "Write rows as a new dataset version (create, append or overwrite)");
  create->add_option("uri", args->uri, "Dataset directory or URI")->required();
  create->add_option("--input", args->input,
                     "Rows: .arrows/.arrow (Arrow IPC), .jsonl, .csv or .tsv; - for stdin or a "
                     "FIFO (format sniffed)")->required();
  create->add_option("--mode", args->mode, "create (default), append or overwrite");
  create->add_option("--schema", args->schema, "Schema JSON file (optional: without it .jsonl and .csv types are inferred from the input, or taken from the table when appending)");
  create->add_option("--delimiter", args->delimiter,
                     "CSV field separator: one character or \\t (default ',', TAB for .tsv)");
  create->add_option("--data-storage-version", args->data_storage_version,
                     "2.1 or 2.2 (default: the dataset's, 2.2 for a new one)");
  create->add_option("--max-rows-per-file", args->max_rows_per_file,
                     "Rows per fragment (default 1048576)");
  create->add_flag("--enable-stable-row-ids", args->stable_row_ids,
                   "New datasets: give rows stable ids");
  create->add_flag("--legacy-manifest-names", args->legacy_names,
                   "New datasets: name versions {N}.manifest");
  create->add_flag("--plain", args->plain, "Plain page encodings only (no compression)");
  AddCommitHandlerOption(create, args.get());
  AddProgressFlag(create, &args->progress);
  create->add_option("--input-batch-bytes", args->input_batch_bytes,
                     "Bytes of --input read per batch (default 4194304): memory grows with "
                     "this, not with the input");
  registry.OnRun(create, [args] { return Create(*args); });

  CLI::App* del = app.add_subcommand("delete", "Delete rows (by filter or by row address)");
  del->add_option("uri", args->uri, "Dataset directory or URI")->required();
  del->add_option("--filter,--where", args->filter, "SQL-like predicate of the rows to delete");
  del->add_option("--row-addresses", args->row_addresses,
                  "Comma-separated row addresses (fragment id << 32 | offset)");
  AddCommitHandlerOption(del, args.get());
  registry.OnRun(del, [args] { return Delete(*args); });
}

}  // namespace lance::cli
