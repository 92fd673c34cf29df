#include "lance/memwal/memtable.h"

#include <algorithm>
#include <chrono>

namespace lance::memwal {

namespace {

int64_t ArrayBytes(const Array& a) {
  int64_t n = 0;
  for (const auto& b : a.buffers) {
    if (b) n += b->size();
  }
  for (const auto& c : a.children) n += ArrayBytes(*c);
  if (a.dictionary) n += ArrayBytes(*a.dictionary);
  return n;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int64_t InMemoryBytes(const RecordBatch& batch) {
  int64_t n = 0;
  for (const auto& c : batch.columns()) n += ArrayBytes(*c);
  return n;
}

MemTable::MemTable(SchemaPtr schema, std::vector<std::string> pk,
                   std::optional<PrimaryKeyEncoder> enc, uint64_t generation)
    : schema_(std::move(schema)), primary_key_(std::move(pk)), encoder_(std::move(enc)),
      generation_(generation) {}

Result<std::unique_ptr<MemTable>> MemTable::Make(SchemaPtr wal_schema,
                                                 std::vector<std::string> primary_key,
                                                 uint64_t generation) {
  if (!wal_schema) return Status::InvalidArgument("MemTable: no schema");
  std::optional<PrimaryKeyEncoder> enc;
  if (!primary_key.empty()) {
    LANCE_ASSIGN_OR_RAISE(PrimaryKeyEncoder e, PrimaryKeyEncoder::Make(*wal_schema, primary_key));
    enc = std::move(e);
  }
  return std::unique_ptr<MemTable>(
      new MemTable(std::move(wal_schema), std::move(primary_key), std::move(enc), generation));
}

Status MemTable::Insert(RecordBatchPtr wal_batch, uint64_t wal_position) {
  if (!wal_batch->schema()->Equals(*schema_)) {
    return Status::InvalidArgument("MemTable (generation {}): the batch is not of the WAL schema",
                                   generation_);
  }
  std::vector<std::string> keys;
  if (encoder_) {
    LANCE_ASSIGN_OR_RAISE(keys, encoder_->EncodeAll(*wal_batch));
  }
  const int64_t bytes = InMemoryBytes(*wal_batch);
  std::lock_guard<std::mutex> lock(mu_);
  if (rows_ + wal_batch->num_rows() > int64_t{UINT32_MAX}) {
    return Status::InvalidArgument("MemTable (generation {}): more than 2^32 rows; flush first",
                                   generation_);
  }
  if (rows_ == 0) {
    first_position_ = wal_position;
    first_row_ms_ = NowMs();
  }
  int64_t index_bytes = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const size_t heap = keys[i].size() > 15 ? keys[i].size() + 1 : 0;  // past the SSO buffer
    if (newest_.insert_or_assign(std::move(keys[i]), static_cast<uint32_t>(rows_ + static_cast<int64_t>(i))).second) {
      index_bytes += kKeyIndexEntryBytes + static_cast<int64_t>(heap);
    }
  }
  starts_.push_back(rows_);
  rows_ += wal_batch->num_rows();
  bytes_ += bytes + index_bytes;
  last_position_ = std::max(last_position_, wal_position);
  batches_.push_back(std::move(wal_batch));
  return Status::OK();
}

int64_t MemTable::num_rows() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rows_;
}
int64_t MemTable::num_keys() const {
  std::lock_guard<std::mutex> lock(mu_);
  return encoder_ ? static_cast<int64_t>(newest_.size()) : rows_;
}
int64_t MemTable::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}
uint64_t MemTable::first_wal_position() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_position_;
}
uint64_t MemTable::last_wal_position() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_position_;
}
int64_t MemTable::age_ms() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rows_ == 0 ? 0 : NowMs() - first_row_ms_;
}

MemTable::Contents MemTable::Snapshot() const {
  Contents c;
  std::lock_guard<std::mutex> lock(mu_);
  c.batches = batches_;
  c.num_rows = rows_;
  c.bytes = bytes_;
  c.last_wal_position = last_position_;
  if (!encoder_) {
    c.newest.resize(static_cast<size_t>(rows_));
    for (int64_t i = 0; i < rows_; ++i) c.newest[static_cast<size_t>(i)] = static_cast<uint32_t>(i);
    return c;
  }
  std::vector<std::pair<uint32_t, const std::string*>> newest;
  newest.reserve(newest_.size());
  for (const auto& [k, pos] : newest_) newest.emplace_back(pos, &k);
  std::sort(newest.begin(), newest.end());
  c.newest.reserve(newest.size());
  c.newest_keys.reserve(newest.size());
  size_t j = 0;
  for (int64_t r = 0; r < rows_; ++r) {
    if (j < newest.size() && newest[j].first == static_cast<uint32_t>(r)) {
      c.newest.push_back(newest[j].first);
      c.newest_keys.push_back(*newest[j].second);
      ++j;
    } else {
      c.superseded.push_back(static_cast<uint32_t>(r));
    }
  }
  return c;
}

std::optional<std::pair<RecordBatchPtr, int64_t>> MemTable::Lookup(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = newest_.find(key);
  if (it == newest_.end()) return std::nullopt;
  const int64_t pos = it->second;
  auto b = std::upper_bound(starts_.begin(), starts_.end(), pos) - starts_.begin() - 1;
  return std::make_pair(batches_[static_cast<size_t>(b)], pos - starts_[static_cast<size_t>(b)]);
}

}  // namespace lance::memwal
