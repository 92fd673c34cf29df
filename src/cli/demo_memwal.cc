// The MemWAL step of `lance demo`: a table with a primary key and bucket(id, 2) sharding takes
// streaming upserts and deletes through two in-process shard writers (every batch durable in
// its WAL before it is acknowledged), is queried while ingesting (strong: base + generations +
// WAL tail), flushes generations, looks keys up, and merges them into the base.
#include <cstdio>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "cli/demo_memwal.h"
#include "lance/columnar/builder.h"
#include "lance/columnar/json.h"
#include "lance/io/object_store.h"
#include "lance/memwal/enable.h"
#include "lance/memwal/lsm_read.h"
#include "lance/memwal/memwal_writer.h"
#include "lance/dataset/memwal_gc.h"
#include "lance/dataset/memwal_merge.h"
#include "lance/query/lsm_lookup.h"
#include "lance/query/lsm_scan.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/sharding.h"
#include "lance/memwal/wal.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"

namespace lance::cli {

namespace {

namespace mw = lance::memwal;

SchemaPtr EventSchema() { return schema({field("id", int64(), false), field("state", utf8())}); }

Result<RecordBatchPtr> Events(int64_t first, int64_t n, const std::string& state) {
  std::string json = "[";
  for (int64_t i = first; i < first + n; ++i) {
    json += fmt::format("{}{{\"id\": {}, \"state\": \"{}\"}}", i == first ? "" : ",", i, state);
  }
  return RecordBatchFromJSON(EventSchema(), json + "]");
}

Result<int64_t> Count(const io::StoreAndPath& w, mw::Consistency c, mw::LsmReadStats* st) {
  mw::LsmReadOptions o;
  o.consistency = c;
  LANCE_ASSIGN_OR_RAISE(auto rows, query::LsmScan(w.store, w.path, o, st));
  int64_t n = 0;
  for (const auto& b : rows) n += b->num_rows();
  return n;
}

Status Want(int64_t got, int64_t want, const char* what) {
  if (got != want) return Status::Internal("demo (memwal): {}: expected {}, got {}", what, want, got);
  return Status::OK();
}

}  // namespace

Status RunMemWalDemo(const std::string& dir) {
  const std::string uri = dir + "/events.lance";
  std::printf("\n== MemWAL: %s\n", uri.c_str());
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr base_rows, Events(0, 100, "new"));
  LANCE_RETURN_NOT_OK(table::WriteDataset(uri, EventSchema(), {base_rows}).status());
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath w, io::ObjectStore::FromUri(uri));
  mw::EnableOptions eo;
  eo.primary_key = {"id"};
  LANCE_ASSIGN_OR_RAISE(eo.spec, mw::BucketSpec(0, *int64(), 2));
  LANCE_RETURN_NOT_OK(mw::EnableMemWal(w.store, w.path, eo).status());
  LANCE_ASSIGN_OR_RAISE(auto base, table::Snapshot::Open(w.store, w.path));
  std::printf("== enabled: primary key id, bucket(id, 2), base version %llu, %llu rows\n",
              static_cast<unsigned long long>(base->version()),
              static_cast<unsigned long long>(base->CountRows()));
  LANCE_ASSIGN_OR_RAISE(mw::ShardRouter router, mw::ShardRouter::Make(eo.spec, *base->schema()));
  mw::MemWalWriterOptions o;
  o.primary_key = {"id"};
  LANCE_ASSIGN_OR_RAISE(o.shard.table_schema, mw::WithPrimaryKey(base->schema(), {"id"}));
  o.generation.data_storage_version = base->manifest().data_storage_version;
  o.auto_flush = false;
  std::map<mw::Uuid, std::unique_ptr<mw::MemWalWriter>> writers;
  auto send = [&](const RecordBatchPtr& batch, bool del) -> Status {
    LANCE_ASSIGN_OR_RAISE(auto slices, router.Split(batch));
    for (auto& s : slices) {
      auto it = writers.find(s.shard.shard_id);
      if (it == writers.end()) {
        mw::MemWalWriterOptions so = o;
        so.shard.shard_spec_id = s.shard.spec_id;
        so.shard.shard_field_values = s.shard.field_values;
        LANCE_ASSIGN_OR_RAISE(auto wr, mw::MemWalWriter::Open(w.store, w.path, s.shard.shard_id, so));
        it = writers.emplace(s.shard.shard_id, std::move(wr)).first;
      }
      LANCE_RETURN_NOT_OK(it->second->AppendAndWait(*s.batch, del).status());
    }
    return Status::OK();
  };
  mw::LsmReadStats st;
  // Stream: 50 updates of existing ids, 50 new ids, then deletes of 10 ids.
  for (int64_t k = 0; k < 10; ++k) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, Events(50 + k * 10, 10, "updated"));
    LANCE_RETURN_NOT_OK(send(b, false));
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr dels, Events(0, 10, ""));
  LANCE_RETURN_NOT_OK(send(dels, true));
  LANCE_ASSIGN_OR_RAISE(int64_t strong, Count(w, mw::Consistency::kStrong, &st));
  LANCE_ASSIGN_OR_RAISE(int64_t eventual, Count(w, mw::Consistency::kEventual, nullptr));
  std::printf("== streamed 100 upserts and 10 deletes into %zu shards (every batch acknowledged "
              "once durable in its WAL)\n   while ingesting: strong read %lld rows (%lld from the WAL "
              "tail), eventual read %lld rows\n",
              writers.size(), static_cast<long long>(strong), static_cast<long long>(st.tail_rows),
              static_cast<long long>(eventual));
  LANCE_RETURN_NOT_OK(Want(strong, 140, "strong read while ingesting"));
  LANCE_RETURN_NOT_OK(Want(eventual, 100, "eventual read while ingesting"));
  for (auto& [id, wr] : writers) LANCE_RETURN_NOT_OK(wr->Close(true));
  LANCE_ASSIGN_OR_RAISE(eventual, Count(w, mw::Consistency::kEventual, &st));
  std::printf("== flushed: %lld generations, eventual read %lld rows\n",
              static_cast<long long>(st.generations), static_cast<long long>(eventual));
  LANCE_RETURN_NOT_OK(Want(eventual, 140, "eventual read after flush"));
  {
    // Point lookups: a deleted id, an updated one, a base one and a new one.
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr keys,
                          RecordBatchFromJSON(schema({field("id", int64(), false)}),
                                              R"([{"id": 5}, {"id": 55}, {"id": 20}, {"id": 145}])"));
    query::LsmLookupStats ls;
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr got, query::LsmLookup(w.store, w.path, *keys, {}, &ls));
    std::string text;
    LANCE_RETURN_NOT_OK(AppendJsonLines(*got, &text));
    std::printf("== point lookups of ids 5, 55, 20, 145 (5 was deleted): %lld found, %lld of %lld "
                "shards read, %lld generations skipped by their bloom filter, %lld probed through "
                "_pk_index, %lld keys from the base\n%s",
                static_cast<long long>(ls.found), static_cast<long long>(ls.shards_searched),
                static_cast<long long>(ls.shards_searched + ls.shards_pruned),
                static_cast<long long>(ls.generations_skipped),
                static_cast<long long>(ls.generations_probed),
                static_cast<long long>(ls.keys_from_base), text.c_str());
    const std::string want =
        "{\"id\":55,\"state\":\"updated\"}\n{\"id\":20,\"state\":\"new\"}\n"
        "{\"id\":145,\"state\":\"updated\"}\n";
    if (text != want) {
      return Status::Internal("demo (memwal): point lookups: expected\n{}got\n{}", want, text);
    }
  }
  {
    // Filtered LSM reads: the filter applies to each id's newest row; one that pins the key
    // becomes point lookups in the shards those ids route to.
    mw::LsmReadOptions o;
    o.filter = "state = 'updated' AND id < 60";
    mw::LsmReadStats fs;
    LANCE_ASSIGN_OR_RAISE(auto rows, query::LsmScan(w.store, w.path, o, &fs));
    int64_t updated = 0;
    for (const auto& b : rows) updated += b->num_rows();
    o.filter = "id IN (5, 55, 145) AND state <> 'base'";
    mw::LsmReadStats ps;
    LANCE_ASSIGN_OR_RAISE(auto pinned, query::LsmScan(w.store, w.path, o, &ps));
    std::string text;
    for (const auto& b : pinned) LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &text));
    std::printf("== filtered LSM scans: \"state = 'updated' AND id < 60\" -> %lld rows (the base "
                "scan pushed down, newer rows filtered after last-write-wins); \"id IN (5, 55, 145) "
                "AND state <> 'base'\" -> %lld point lookups, %lld shards pruned:\n%s",
                static_cast<long long>(updated), static_cast<long long>(ps.point_keys),
                static_cast<long long>(ps.shards_pruned), text.c_str());
    LANCE_RETURN_NOT_OK(Want(ps.point_keys, 3, "keys pinned by the filter"));
    const std::string want =
        "{\"id\":55,\"state\":\"updated\"}\n{\"id\":145,\"state\":\"updated\"}\n";
    if (text != want) {
      return Status::Internal("demo (memwal): pinned filter: expected\n{}got\n{}", want, text);
    }
    if (updated <= 0) return Status::Internal("demo (memwal): no updated row below id 60");
  }
  LANCE_ASSIGN_OR_RAISE(mw::MergeReport merged, dataset::MergeMemWalGenerations(w.store, w.path));
  LANCE_ASSIGN_OR_RAISE(auto after, table::Snapshot::Open(w.store, w.path));
  LANCE_ASSIGN_OR_RAISE(int64_t final_rows, Count(w, mw::Consistency::kStrong, &st));
  std::printf("== merged %zu generations into the base: version %llu holds %llu rows; LSM read %lld "
              "rows (%lld generations left to read)\n",
              merged.merged.size(), static_cast<unsigned long long>(after->version()),
              static_cast<unsigned long long>(after->CountRows()),
              static_cast<long long>(final_rows), static_cast<long long>(st.generations));
  LANCE_RETURN_NOT_OK(Want(static_cast<int64_t>(after->CountRows()), 140, "base rows after merge"));
  LANCE_RETURN_NOT_OK(Want(final_rows, 140, "LSM read after merge"));
  dataset::MemWalGcOptions gc_options;
  gc_options.older_than_seconds = 0;  // the demo's own table: nobody else reads it
  LANCE_ASSIGN_OR_RAISE(dataset::MemWalGcReport gc,
                        dataset::CollectMemWalGarbage(w.store, w.path, gc_options));
  LANCE_ASSIGN_OR_RAISE(final_rows, Count(w, mw::Consistency::kStrong, &st));
  std::printf("== garbage-collected the merged generations and flushed WAL: %lld directories, %lld WAL "
              "files, %lld bytes; LSM read %lld rows\n",
              static_cast<long long>(gc.generation_dirs_removed),
              static_cast<long long>(gc.wal_files_removed), static_cast<long long>(gc.bytes_removed),
              static_cast<long long>(final_rows));
  LANCE_RETURN_NOT_OK(Want(gc.generation_dirs_removed, static_cast<int64_t>(merged.merged.size()),
                           "generation directories collected"));
  return Want(final_rows, 140, "LSM read after garbage collection");
}

}  // namespace lance::cli
