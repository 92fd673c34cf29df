#include "query/lsm_keys.h"

#include "lance/columnar/compute.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/value.h"
#include "lance/query/scanner.h"

namespace lance::query::internal {

Status AddKeys(const memwal::PrimaryKeyEncoder& enc, const std::vector<RecordBatchPtr>& batches, KeySet* keys) {
  std::string key;
  for (const auto& b : batches) {
    LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc.KeyColumns(*b));
    for (int64_t r = 0; r < b->num_rows(); ++r) {
      key.clear();
      enc.Encode(cols, r, &key);
      keys->insert(key);
    }
  }
  return Status::OK();
}

Status NewerKeys::AddRows(const std::vector<RecordBatchPtr>& batches) {
  if (enc_ == nullptr) return Status::OK();
  const size_t before = memory_.size();
  LANCE_RETURN_NOT_OK(AddKeys(*enc_, batches, &memory_));
  bound_ += memory_.size() - before;
  return Status::OK();
}

Status NewerKeys::AddGeneration(const std::shared_ptr<const table::Snapshot>& snapshot, int64_t rows,
                                const std::vector<std::string>& pk) {
  if (enc_ == nullptr || rows == 0) return Status::OK();
  const auto& store = snapshot->location().store();
  const std::string& dir = snapshot->location().root();
  Generation g;
  g.snapshot = snapshot;
  g.pk = pk;
  const std::string bloom_path = dir + "/bloom_filter.bin";
  auto bytes = store->Get(bloom_path);
  if (bytes.ok()) {
    LANCE_ASSIGN_OR_RAISE(memwal::PrimaryKeyBloomFilter bloom,
                          memwal::PrimaryKeyBloomFilter::Deserialize((*bytes)->view(), store->DisplayPath(bloom_path)));
    g.bloom.emplace(std::move(bloom));
  } else if (!bytes.status().IsNotFound()) {
    return bytes.status();
  }
  auto btree = index::scalar::OpenBTreeIndex(index::IndexStore::Make(store, dir + "/_pk_index"));
  if (btree.ok()) {
    g.pk_index = std::move(*btree);
    g.pk_index->fill_null_rows = false;
  } else if (btree.status().IsNotFound()) {
    LANCE_RETURN_NOT_OK(LoadWhole(g));
  } else {
    return btree.status();
  }
  bound_ += static_cast<uint64_t>(rows);
  generations_.push_back(std::move(g));
  return Status::OK();
}

Status NewerKeys::LoadWhole(const Generation& g) const {
  if (g.whole) return Status::OK();
  ScanOptions k;
  k.columns = g.pk;
  LANCE_ASSIGN_OR_RAISE(Scanner keys, Scanner::Make(g.snapshot, std::move(k)));
  LANCE_ASSIGN_OR_RAISE(std::vector<RecordBatchPtr> kb, keys.ToBatches());
  KeySet set;
  LANCE_RETURN_NOT_OK(AddKeys(*enc_, kb, &set));
  g.whole = std::move(set);
  return Status::OK();
}

Result<bool> NewerKeys::Holds(const std::vector<ArrayPtr>& key_columns, int64_t row, const std::string& key) const {
  if (enc_ == nullptr) return false;
  if (memory_.count(key)) return true;
  bool null_key = false;
  for (const auto& c : key_columns) null_key = null_key || c->IsNull(row);
  for (const Generation& g : generations_) {
    if (g.bloom) {
      ++bloom_tests_;
      LANCE_ASSIGN_OR_RAISE(bool maybe, g.bloom->MightContain(key_columns, row));
      if (!maybe) continue;
    }
    if (!g.pk_index || null_key) {
      LANCE_RETURN_NOT_OK(LoadWhole(g));
      if (g.whole->count(key)) return true;
      continue;
    }
    // The sidecar's values: the key itself (one column), else its tuple encoding.
    index::scalar::ScalarValue v = key_columns.size() == 1 ? index::scalar::ValueAt(*key_columns[0], row)
                                                           : index::scalar::ScalarValue::Bytes(key);
    ++index_searches_;
    index::scalar::SearchOptions so;
    LANCE_ASSIGN_OR_RAISE(index::scalar::SearchResult r,
                          g.pk_index->Search(index::scalar::ScalarQuery::Equals(std::move(v)), so));
    if (!r.rows.empty()) return true;
  }
  return false;
}

Result<std::vector<int64_t>> UnreplacedRows(const memwal::PrimaryKeyEncoder* enc, const RecordBatch& rows,
                                            const NewerKeys& newer, std::vector<std::string>* kept_keys) {
  std::vector<int64_t> keep;
  keep.reserve(static_cast<size_t>(rows.num_rows()));
  // Keys are encoded only when a newer source may replace rows or the caller keeps them.
  if (enc == nullptr || (newer.empty() && kept_keys == nullptr)) {
    for (int64_t r = 0; r < rows.num_rows(); ++r) keep.push_back(r);
    return keep;
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc->KeyColumns(rows));
  std::string key;
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    key.clear();
    enc->Encode(cols, r, &key);
    if (!newer.empty()) {
      LANCE_ASSIGN_OR_RAISE(bool held, newer.Holds(cols, r, key));
      if (held) continue;
    }
    keep.push_back(r);
    if (kept_keys) kept_keys->push_back(key);
  }
  return keep;
}

Result<RecordBatchPtr> KeptRows(const RecordBatch& rows, const std::vector<int64_t>& keep) {
  if (static_cast<int64_t>(keep.size()) == rows.num_rows()) return std::make_shared<RecordBatch>(rows);
  return TakeRows(rows, keep);
}

}  // namespace lance::query::internal
