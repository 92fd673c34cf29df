// Test helpers of the MemWAL tests of the dataset layer: a local table with the MemWAL enabled
// (unsharded, primary key id), id/s batches, an LSM read into a key -> value model.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "lance/columnar/builder.h"
#include "lance/dataset/memwal_merge.h"
#include "lance/io/object_store.h"
#include "lance/memwal/enable.h"
#include "lance/memwal/lsm_read.h"
#include "lance/memwal/memwal_writer.h"
#include "lance/query/lsm_lookup.h"
#include "lance/query/lsm_scan.h"
#include "lance/table/commit.h"
#include "lance/table/snapshot.h"
#include "lance/table/transaction.h"
#include "lance/table/write.h"

namespace lance::memwal::lsm_test {

namespace fs = std::filesystem;
using Model = std::map<int64_t, std::string>;
using query::LsmScan;

inline Result<MergeReport> MergeGenerations(const std::shared_ptr<io::ObjectStore>& store,
                                     const std::string& root) {
  return dataset::MergeMemWalGenerations(store, root);
}

inline SchemaPtr Rows() { return schema({field("id", int64(), false), field("s", utf8())}); }

inline RecordBatchPtr Batch(const std::vector<int64_t>& ids, const std::string& tag) {
  Int64Builder a(int64());
  StringBuilder b(utf8());
  for (int64_t id : ids) {
    EXPECT_TRUE(a.Append(id).ok());
    EXPECT_TRUE(b.Append(tag + "-" + std::to_string(id)).ok());
  }
  return std::make_shared<RecordBatch>(Rows(), static_cast<int64_t>(ids.size()),
                                       std::vector<ArrayPtr>{*a.Finish(), *b.Finish()});
}

struct Table {
  fs::path dir;
  std::shared_ptr<io::ObjectStore> store;
  std::string root;
};

inline Table MakeTable(const std::string& name, const std::vector<int64_t>& base_ids) {
  Table t;
  t.dir = fs::temp_directory_path() / ("lance_lsm_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(t.dir);
  fs::create_directories(t.dir);
  const std::string uri = (t.dir / "t.lance").string();
  EXPECT_TRUE(table::WriteDataset(uri, Rows(), {Batch(base_ids, "base")}).ok());
  auto w = io::ObjectStore::FromUri(uri);
  EXPECT_TRUE(w.ok());
  t.store = w->store;
  t.root = w->path;
  EnableOptions eo;
  eo.primary_key = {"id"};
  eo.spec = UnshardedSpec();
  auto v = EnableMemWal(t.store, t.root, eo);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  return t;
}

inline MemWalWriterOptions WriterOptions(const Table& t) {
  MemWalWriterOptions o;
  auto base = table::Snapshot::Open(t.store, t.root);
  EXPECT_TRUE(base.ok());
  o.shard.table_schema = *WithPrimaryKey((*base)->schema(), {"id"});
  o.shard.shard_spec_id = 1;
  o.primary_key = {"id"};
  o.auto_flush = false;
  return o;
}

inline Model Read(const Table& t, Consistency c, LsmReadStats* stats = nullptr,
                  const std::string& filter = "") {
  LsmReadOptions o;
  o.consistency = c;
  o.filter = filter;
  auto r = LsmScan(t.store, t.root, o, stats);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  Model m;
  if (!r.ok()) return m;
  for (const auto& b : *r) {
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      const int64_t id = b->column(0)->Values<int64_t>()[i];
      EXPECT_EQ(m.count(id), 0u) << "key " << id << " read twice";
      m[id] = std::string(b->column(1)->GetView(i));
    }
  }
  return m;
}

// The rows LsmLookup finds for `ids` (in key order, each key at most once) as a model.
inline Model Lookup(const Table& t, const std::vector<int64_t>& ids, Consistency c,
                    query::LsmLookupStats* stats = nullptr) {
  LsmReadOptions o;
  o.consistency = c;
  auto r = query::LsmLookup(t.store, t.root, *Batch(ids, "key"), o, stats);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  Model m;
  if (!r.ok()) return m;
  int64_t last = -1;
  size_t next = 0;
  for (int64_t i = 0; i < (*r)->num_rows(); ++i) {
    const int64_t id = (*r)->column(0)->Values<int64_t>()[i];
    EXPECT_EQ(m.count(id), 0u) << "key " << id << " found twice";
    // In the order of the keys' first appearance.
    while (next < ids.size() && ids[next] != id) ++next;
    EXPECT_LT(next, ids.size()) << "key " << id << " out of order (after " << last << ")";
    last = id;
    m[id] = std::string((*r)->column(1)->GetView(i));
  }
  return m;
}

// The part of `m` whose keys are in `ids`.
inline Model Restrict(const Model& m, const std::vector<int64_t>& ids) {
  Model out;
  for (int64_t id : ids) {
    if (auto it = m.find(id); it != m.end()) out.insert(*it);
  }
  return out;
}

inline void Apply(Model* m, const std::vector<int64_t>& ids, const std::string& tag, bool del) {
  for (int64_t id : ids) {
    if (del) {
      m->erase(id);
    } else {
      (*m)[id] = tag + "-" + std::to_string(id);
    }
  }
}

// Commits a new base version whose MemWAL index maintains exactly `names`.
inline void SetMaintainedIndexes(const Table& t, const std::vector<std::string>& names) {
  table::TableLocation loc(t.store, t.root);
  auto base = table::Snapshot::Open(loc);
  ASSERT_TRUE(base.ok());
  table::Transaction txn;
  txn.read_version = (*base)->version();
  txn.operation = table::Transaction::Update{};
  table::CommitOptions co;
  co.amend = [&](table::Manifest* m) {
    return UpdateMemWalDetails(m, "test", [&](MemWalIndexDetails* d) {
      d->maintained_indexes = names;
      return Status::OK();
    });
  };
  ASSERT_TRUE(table::CommitTransaction(loc, std::move(txn), co).ok());
}

}  // namespace lance::memwal::lsm_test
