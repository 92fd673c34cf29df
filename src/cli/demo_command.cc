// `lance demo`: the main job, end to end on a local directory.
//  1. Foundation: a record batch holding every supported type goes through the object store as
//     an Arrow IPC file and as a zstd-compressed stream, is read back (the file zero-copy from a
//     memory map), checked equal and printed in the canonical form.
//  2. A table's life: create a Lance dataset (file format 2.2), append, delete by filter, update
//     with an expression, merge-insert, add a computed column, tag, compact; then time travel
//     through every version, checking each version's row count and a filtered count against
//     what the operations must have produced.
//  3. Indexes and search (demo_search.cc): BTREE, BITMAP, INVERTED and IVF_HNSW_SQ indexes on a
//     table of documents; a filter and a k-NN search through them, checked against the same
//     query answered without the index, and a BM25 search.
//  4. MemWAL (demo_memwal.cc): streaming upserts into shards, flush, merge, garbage collection.
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/demo_memwal.h"
#include "cli/demo_search.h"
#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"
#include "lance/io/object_store.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "lance/dataset/dataset.h"
#include "lance/query/scanner.h"
#include "lance/table/tags.h"
#include "lance/table/versions.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"

namespace lance::cli {
namespace {

// Rows of `ds` where `filter` is TRUE (the query layer reads only the filter's columns).
Result<uint64_t> CountWhere(const std::shared_ptr<table::Snapshot>& ds, const std::string& filter) {
  query::ScanOptions o;
  o.filter = filter;
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(ds, std::move(o)));
  return scanner.CountRows();
}

SchemaPtr DemoSchema() {
  auto tz_meta = std::make_shared<KeyValueMetadata>(
      std::vector<std::pair<std::string, std::string>>{{"demo", "every type"}});
  return schema(
      {field("id", int64(), false), field("flag", boolean()), field("i8", int8()),
       field("i16", int16()), field("i32", int32()), field("u8", uint8()), field("u16", uint16()),
       field("u32", uint32()), field("u64", uint64()), field("f16", float16()),
       field("f32", float32()), field("f64", float64()), field("name", utf8()),
       field("large_name", large_utf8()), field("blob", binary()),
       field("large_blob", large_binary()), field("uuid", fixed_size_binary(4)),
       field("day", date32()), field("ms_date", date64()), field("t32", time32(TimeUnit::kMilli)),
       field("t64", time64(TimeUnit::kNano)), field("ts", timestamp(TimeUnit::kMicro, "UTC")),
       field("elapsed", duration(TimeUnit::kSecond)), field("price", decimal128(10, 2)),
       field("tags", list(utf8())), field("big_list", large_list(int32())),
       field("vector", fixed_size_list(float32(), 3)),
       field("point", struct_({field("x", float64()), field("label", utf8())})),
       field("attrs", map(utf8(), int32())), field("color", dictionary(int8(), utf8())),
       field("nothing", null())},
      tz_meta);
}

constexpr const char* kDemoRows = R"([
 {"id": 1, "flag": true, "i8": -128, "i16": 300, "i32": -70000, "u8": 255, "u16": 65535,
  "u32": 4294967295, "u64": 18446744073709551615, "f16": 1.5, "f32": 0.1, "f64": 3.141592653589793,
  "name": "héllo", "large_name": "large", "blob": "AAEC", "large_blob": "/w==", "uuid": "3q2+7w==",
  "day": 19000, "ms_date": 1641600000000, "t32": 3600000, "t64": 1000000000,
  "ts": 1700000000000000, "elapsed": 42, "price": "123.45", "tags": ["a", "b"],
  "big_list": [1, 2, 3], "vector": [0.5, -1.0, 2.0], "point": {"x": 1.0, "label": "p"},
  "attrs": [["k", 1], ["v", 2]], "color": "red", "nothing": null},
 {"id": 2, "flag": null, "i8": null, "i16": null, "i32": null, "u8": null, "u16": null,
  "u32": null, "u64": null, "f16": null, "f32": "NaN", "f64": "-Infinity", "name": null,
  "large_name": null, "blob": null, "large_blob": null, "uuid": null, "day": null,
  "ms_date": null, "t32": null, "t64": null, "ts": null, "elapsed": null, "price": "-0.01",
  "tags": [], "big_list": null, "vector": null, "point": null, "attrs": [], "color": "blue",
  "nothing": null},
 {"id": 3, "flag": false, "i8": 127, "i16": -1, "i32": 0, "u8": 0, "u16": 0, "u32": 0, "u64": 0,
  "f16": -2.0, "f32": 1e30, "f64": 1e-300, "name": "", "large_name": "", "blob": "",
  "large_blob": "", "uuid": "AAAAAA==", "day": -1, "ms_date": 0, "t32": 0, "t64": 0, "ts": 0,
  "elapsed": -5, "price": null, "tags": [null, "c"], "big_list": [], "vector": [1.0, 2.0, 3.0],
  "point": {"x": null, "label": null}, "attrs": null, "color": "red", "nothing": null}
])";

Status RunTableDemo(const std::string& dir);

Status RunDemo(const std::string& dir_arg) {
  std::string dir = dir_arg;
  if (dir.empty()) {
    char tmpl[] = "/tmp/lance-demo-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) return Status::IOError("demo: cannot create a temp dir");
    dir = tmpl;
  }
  LANCE_ASSIGN_OR_RAISE(auto where, io::ObjectStore::FromUri(dir));
  auto& store = *where.store;
  const std::string file_path = where.path + "/every_type.arrow";
  const std::string stream_path = where.path + "/every_type.zstd.arrows";

  LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatchFromJSON(DemoSchema(), kDemoRows));
  std::printf("== schema (%d fields)\n%s", batch->num_columns(), batch->schema()->ToString().c_str());

  // Write: an IPC file, and a zstd-compressed IPC stream, each published atomically.
  LANCE_ASSIGN_OR_RAISE(auto file_bytes, ipc::WriteFile(batch->schema(), {batch}));
  LANCE_RETURN_NOT_OK(store.Put(file_path, file_bytes->view()));
  ipc::IpcWriteOptions zstd;
  zstd.compression = ipc::Compression::kZstd;
  LANCE_ASSIGN_OR_RAISE(auto stream_bytes, ipc::WriteStream(batch->schema(), {batch, batch}, zstd));
  LANCE_RETURN_NOT_OK(store.PutIfNotExists(stream_path, stream_bytes->view()));
  std::printf("== wrote %s/every_type.arrow (%lld bytes) and every_type.zstd.arrows (%lld bytes)\n",
              dir.c_str(), static_cast<long long>(file_bytes->size()),
              static_cast<long long>(stream_bytes->size()));
  // A second put-if-not-exists on the same path must lose.
  Status again = store.PutIfNotExists(stream_path, "x");
  if (!again.IsAlreadyExists()) {
    return Status::Internal("demo: second put-if-not-exists returned {}", again.ToString());
  }

  // Read back and compare.
  LANCE_ASSIGN_OR_RAISE(auto file_data, store.Get(file_path));
  LANCE_ASSIGN_OR_RAISE(auto file_reader, ipc::FileReader::Open(file_data));
  LANCE_ASSIGN_OR_RAISE(auto from_file, file_reader->ReadAll());
  if (from_file.size() != 1 || !from_file[0]->Equals(*batch, /*check_metadata=*/true)) {
    return Status::Internal("demo: IPC file read back differs from what was written");
  }
  LANCE_ASSIGN_OR_RAISE(auto stream_data, store.Get(stream_path));
  LANCE_ASSIGN_OR_RAISE(auto stream_reader, ipc::OpenStream(stream_data));
  LANCE_ASSIGN_OR_RAISE(auto from_stream, stream_reader->ReadAll());
  if (from_stream.size() != 2 || !from_stream[1]->Equals(*batch)) {
    return Status::Internal("demo: zstd IPC stream read back differs from what was written");
  }
  std::printf("== read back: file (1 batch) and stream (2 batches) equal the original\n");

  std::string rows;
  LANCE_RETURN_NOT_OK(AppendJsonLines(*from_file[0], &rows));
  std::printf("== rows (canonical JSON lines)\n%s", rows.c_str());
  LANCE_RETURN_NOT_OK(RunTableDemo(dir));
  LANCE_RETURN_NOT_OK(RunSearchDemo(dir));
  return RunMemWalDemo(dir);
}

SchemaPtr ProductSchema() {
  return schema({field("id", int64(), false), field("category", utf8()), field("score", float64()),
                 field("tags", list(utf8())), field("vector", fixed_size_list(float32(), 4))});
}

// Rows [first, first + n) of a deterministic product table: category c0..c9, score in [0, 100),
// every 7th row without a category, tags of 0-2 words, a small vector.
Result<RecordBatchPtr> Products(int64_t first, int64_t n, double score_shift = 0) {
  std::string json = "[";
  uint32_t state = 0x9E3779B9u ^ static_cast<uint32_t>(first);
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  for (int64_t i = first; i < first + n; ++i) {
    const double score = static_cast<double>(next() % 10000) / 100.0 + score_shift;
    std::string category = i % 7 == 3 ? "null" : fmt::format("\"c{}\"", next() % 10);
    std::string tags = i % 3 == 0 ? "[]" : (i % 3 == 1 ? "[\"new\"]" : "[\"sale\", \"eco\"]");
    json += fmt::format(
        "{}{{\"id\": {}, \"category\": {}, \"score\": {}, \"tags\": {}, "
        "\"vector\": [{}, {}, {}, {}]}}",
        i == first ? "" : ",", i, category, score, tags, i % 5, 0.5, -1.0 * (i % 3), i * 0.25);
  }
  json += "]";
  return RecordBatchFromJSON(ProductSchema(), json);
}

Status Expect(uint64_t got, uint64_t want, const std::string& what) {
  if (got != want) return Status::Internal("demo: {}: expected {}, got {}", what, want, got);
  return Status::OK();
}

Status RunTableDemo(const std::string& dir) {
  const std::string uri = dir + "/products.lance";
  std::printf("\n== table: %s\n", uri.c_str());

  // v1: create, 1000 rows in fragments of at most 400 rows.
  table::WriteParams create;
  create.mode = table::WriteMode::kCreate;
  create.max_rows_per_file = 400;
  LANCE_ASSIGN_OR_RAISE(auto first, Products(0, 1000));
  LANCE_ASSIGN_OR_RAISE(auto created, table::WriteDataset(uri, ProductSchema(), {first}, create));
  std::printf("v%llu create: 1000 rows in %zu fragments (file format 2.2)\n",
              static_cast<unsigned long long>(created.commit.version), created.fragment_ids.size());

  // v2: append 500 rows.
  table::WriteParams append;
  append.mode = table::WriteMode::kAppend;
  LANCE_ASSIGN_OR_RAISE(auto more, Products(1000, 500));
  LANCE_ASSIGN_OR_RAISE(auto appended, table::WriteDataset(uri, ProductSchema(), {more}, append));
  std::printf("v%llu append: 500 rows\n", static_cast<unsigned long long>(appended.commit.version));

  // v3: delete by filter.
  const std::string low = "score < 10";
  LANCE_ASSIGN_OR_RAISE(auto before_delete, table::Snapshot::Open(uri));
  LANCE_ASSIGN_OR_RAISE(uint64_t low_rows, CountWhere(before_delete, low));
  LANCE_ASSIGN_OR_RAISE(auto handle, dataset::Dataset::Open(uri));
  LANCE_ASSIGN_OR_RAISE(auto deleted, handle->Delete(low));
  LANCE_RETURN_NOT_OK(Expect(deleted.num_deleted_rows, low_rows, "rows deleted by " + low));
  std::printf("v%llu delete where %s: %llu rows\n",
              static_cast<unsigned long long>(deleted.commit.version), low.c_str(),
              static_cast<unsigned long long>(deleted.num_deleted_rows));

  // v4: update with an expression.
  const std::string c3 = "category = 'c3'";
  LANCE_ASSIGN_OR_RAISE(auto before_update, table::Snapshot::Open(uri));
  LANCE_ASSIGN_OR_RAISE(uint64_t c3_rows, CountWhere(before_update, c3));
  LANCE_ASSIGN_OR_RAISE(auto updated, handle->Update({{"score", "score + 1000"}}, c3));
  LANCE_RETURN_NOT_OK(Expect(updated.rows_updated, c3_rows, "rows updated where " + c3));
  std::printf("v%llu update set score = score + 1000 where %s: %llu rows\n",
              static_cast<unsigned long long>(updated.commit.version), c3.c_str(),
              static_cast<unsigned long long>(updated.rows_updated));

  // v5: merge-insert 40 rows on id: ids 1480..1499 exist (unless deleted), 1500..1519 are new.
  LANCE_ASSIGN_OR_RAISE(auto before_merge, table::Snapshot::Open(uri));
  LANCE_ASSIGN_OR_RAISE(uint64_t existing, CountWhere(before_merge, "id >= 1480 AND id < 1500"));
  LANCE_ASSIGN_OR_RAISE(auto upserts, Products(1480, 40, /*score_shift=*/500));
  dataset::MergeInsertParams merge;
  merge.on = {"id"};
  VectorRecordBatchReader upsert_rows(ProductSchema(), {upserts});
  LANCE_ASSIGN_OR_RAISE(auto merged, handle->MergeInsert(upsert_rows, merge));
  LANCE_RETURN_NOT_OK(Expect(merged.rows_updated, existing, "merge-insert updated rows"));
  LANCE_RETURN_NOT_OK(Expect(merged.rows_inserted, 40 - existing, "merge-insert inserted rows"));
  std::printf("v%llu merge-insert on id: %llu updated, %llu inserted\n",
              static_cast<unsigned long long>(merged.commit.version),
              static_cast<unsigned long long>(merged.rows_updated),
              static_cast<unsigned long long>(merged.rows_inserted));

  // v6: a computed column, written as new data files beside the old ones.
  LANCE_ASSIGN_OR_RAISE(auto added, handle->AddColumns({{"double_score", "score * 2"}}));
  std::printf("v%llu add column double_score = score * 2\n",
              static_cast<unsigned long long>(added.version));

  // Tag the first version, then compact (v7).
  LANCE_RETURN_NOT_OK(table::CreateTag(uri, "initial", 1));
  LANCE_ASSIGN_OR_RAISE(auto compacted, handle->Compact());
  std::printf("v%llu compact: %llu fragments -> %llu, %llu rows rewritten\n",
              static_cast<unsigned long long>(compacted.commit.version),
              static_cast<unsigned long long>(compacted.fragments_removed),
              static_cast<unsigned long long>(compacted.fragments_added),
              static_cast<unsigned long long>(compacted.rows_rewritten));

  // Time travel: every version's rows, checked against what each operation did.
  LANCE_ASSIGN_OR_RAISE(auto latest, table::Snapshot::Open(uri));
  LANCE_ASSIGN_OR_RAISE(auto versions, latest->ListVersions());
  std::printf("== time travel (%zu versions)\n", versions.size());
  const uint64_t after_delete = 1500 - low_rows;
  const uint64_t want[] = {0, 1000, 1500, after_delete, after_delete, after_delete + 40 - existing,
                           after_delete + 40 - existing, after_delete + 40 - existing};
  for (const auto& v : versions) {
    table::OpenOptions at;
    at.version = v.version;
    LANCE_ASSIGN_OR_RAISE(auto ds, table::Snapshot::Open(uri, at));
    LANCE_ASSIGN_OR_RAISE(uint64_t high, CountWhere(ds, "score >= 1000"));
    std::printf("v%llu: %llu rows in %zu fragments, %llu with score >= 1000, %zu columns\n",
                static_cast<unsigned long long>(v.version),
                static_cast<unsigned long long>(ds->CountRows()), ds->manifest().fragments.size(),
                static_cast<unsigned long long>(high), ds->schema()->fields().size());
    if (v.version < std::size(want)) {
      LANCE_RETURN_NOT_OK(Expect(ds->CountRows(), want[v.version],
                                 fmt::format("rows at version {}", v.version)));
    }
  }
  table::OpenOptions tagged;
  tagged.tag = "initial";
  LANCE_ASSIGN_OR_RAISE(auto initial, table::Snapshot::Open(uri, tagged));
  LANCE_RETURN_NOT_OK(Expect(initial->CountRows(), 1000, "rows at tag 'initial'"));

  query::ScanOptions scan;
  scan.filter = "category = 'c3' AND id < 60";
  scan.columns = {"id", "category", "score", "double_score", "tags"};
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(latest, scan));
  LANCE_ASSIGN_OR_RAISE(auto batches, scanner.ToBatches());
  std::string rows;
  for (const auto& b : batches) LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &rows));
  std::printf("== latest, where %s\n%s", scan.filter.c_str(), rows.c_str());
  return Status::OK();
}

}  // namespace

void RegisterDemoCommand(CLI::App& app, CommandRegistry& registry) {
  auto* sub = app.add_subcommand("demo", "Run the end-to-end demo on a local directory");
  auto dir = std::make_shared<std::string>();
  sub->add_option("--dir", *dir, "Directory to write into (default: a new /tmp/lance-demo-*)");
  registry.OnRun(sub, [dir] { return RunDemo(*dir); });
}

}  // namespace lance::cli
