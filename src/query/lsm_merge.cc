// The LsmMerge / LsmSource plan nodes (lance/query/lsm_plan.h) and the stream that runs them:
// sources newest first, a row kept when no newer source held its key.
#include <algorithm>
#include <functional>
#include <string_view>

#include <fmt/format.h>

#include "lance/columnar/compute.h"
#include "lance/memwal/primary_key.h"
#include "lance/memwal/wal.h"
#include "lance/query/lsm_plan.h"
#include "query/lsm_columns.h"
#include "query/operators.h"

namespace lance::query {

namespace {

std::string Joined(const std::vector<std::string>& items, size_t max = 8) {
  std::string out = "[";
  for (size_t i = 0; i < items.size() && i < max; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max) out += fmt::format(", ... ({} in all)", items.size());
  return out + "]";
}

}  // namespace

LsmSourceNode::LsmSourceNode(Spec spec, PlanNodePtr rows) : spec_(std::move(spec)), rows_(std::move(rows)) {
  if (rows_) inputs_.push_back(rows_);
  if (spec_.keys) inputs_.push_back(spec_.keys);
}

std::string LsmSourceNode::Describe() const {
  std::string out;
  switch (spec_.source) {
    case Source::kWalTail: {
      std::vector<std::string> pos;
      for (uint64_t p : spec_.wal_positions) pos.push_back(std::to_string(p));
      out = fmt::format("WAL tail of shard {}: entries {} ({} rows, newest entry first), read "
                        "from storage; the filter tested on the rows that win",
                        spec_.shard, Joined(pos), spec_.rows);
      break;
    }
    case Source::kMemTable:
      out = fmt::format("MemTable of shard {} (generation {}, a live writer of this process): its "
                        "first {} rows, ",
                        spec_.shard, spec_.generation, spec_.memtable_upto);
      out += spec_.index_column.empty()
                 ? std::string("every key's newest row (its key index); the filter tested on the rows that win")
                 : fmt::format("in-memory index {} on {} for {}, then each key's newest row; the "
                               "filter tested on the candidates",
                               spec_.index_name, spec_.index_column, spec_.ranges_text);
      break;
    case Source::kGeneration:
      out = fmt::format("generation {} of shard {} ({}, version {}, {} rows); {}", spec_.generation,
                        spec_.shard, spec_.path, spec_.version, spec_.rows,
                        spec_.keys ? "its filtered rows from the first plan below, then its key "
                                     "column read whole (the second) so its keys hide older rows"
                                   : "every row read once, its keys hiding older rows");
      break;
    case Source::kBase:
      out = fmt::format("the base table {} (generation 0), version {}, {} rows; filter and "
                        "projection pushed into its plan, rows whose key a newer source held dropped",
                        spec_.path, spec_.version, spec_.rows);
      break;
  }
  if (!spec_.note.empty()) out += "; " + spec_.note;
  return out;
}

LsmMergeNode::LsmMergeNode(Spec spec, std::vector<PlanNodePtr> sources) : spec_(std::move(spec)) {
  inputs_ = std::move(sources);
}

std::string LsmMergeNode::Describe() const {
  std::vector<std::string> cols;
  for (const auto& f : spec_.schema->fields()) cols.push_back(f->name());
  std::string out = fmt::format("{} columns {}, {} consistency; ", spec_.table, Joined(cols, 16),
                                spec_.consistency == memwal::Consistency::kStrong ? "strong" : "eventual");
  if (spec_.primary_key.empty()) {
    out += "append-only (no primary key): every source's rows, concatenated";
  } else {
    out += fmt::format("primary key {}, last write wins: sources newest first, a row kept when no "
                       "newer source held its key (a set of the keys seen), tombstones hide their key",
                       Joined(spec_.primary_key));
  }
  if (spec_.filter) out += fmt::format("; filter \"{}\" on each key's newest row", spec_.filter->text());
  if (spec_.point_keys) {
    out += fmt::format("; the filter pins the primary key: point lookups of {} keys (shards they "
                       "route to, bloom filters, _pk_index, then the base), the filter then "
                       "tested on each key's newest row",
                       spec_.point_keys->num_rows());
  }
  if (spec_.offset > 0 || spec_.limit) {
    out += spec_.limit ? fmt::format("; skip {} rows, then at most {}", spec_.offset, *spec_.limit)
                       : fmt::format("; skip {} rows", spec_.offset);
  }
  if (!spec_.point_keys) {
    out += fmt::format("; shards: {} listed, {} pruned by the filter {}", spec_.shards,
                       spec_.shards_pruned.size(), Joined(spec_.shards_pruned, 4));
    out += fmt::format("; {} generations skipped (merged into the base)", spec_.skipped_merged);
    if (spec_.catchup_generations > 0) {
      out += fmt::format(", {} of them read for the index catch-up gap", spec_.catchup_generations);
    }
  }
  return out;
}

namespace internal {

namespace {

using memwal::LsmReadStats;

// The keys seen (encoded primary keys): open addressing over one byte arena, no allocation per
// key (a node-based set spent about half of a filtered 1M-row read inserting, rehashing and
// freeing the keys of four generations).
class KeySet {
 public:
  bool empty() const { return size_ == 0; }
  void Reserve(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (cap > slots_.size()) Rehash(cap);
  }
  bool Contains(std::string_view key) const {
    if (slots_.empty()) return false;
    const uint64_t h = Hash(key);
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.hash == 0) return false;
      if (s.hash == h && View(s) == key) return true;
    }
  }
  // True when `key` was not in the set.
  bool Insert(std::string_view key) {
    if (2 * (size_ + 1) > slots_.size()) Rehash(std::max<size_t>(16, slots_.size() * 2));
    const uint64_t h = Hash(key);
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.hash == 0) {
        s = {h, arena_.size(), key.size()};
        arena_.append(key);
        ++size_;
        return true;
      }
      if (s.hash == h && View(s) == key) return false;
    }
  }

 private:
  struct Slot {
    uint64_t hash = 0;  // 0: empty (a key hashing to 0 is stored as 1)
    size_t offset = 0;
    size_t length = 0;
  };
  static uint64_t Hash(std::string_view key) {
    const uint64_t h = std::hash<std::string_view>{}(key);
    return h == 0 ? 1 : h;
  }
  std::string_view View(const Slot& s) const { return std::string_view(arena_).substr(s.offset, s.length); }
  void Rehash(size_t cap) {
    std::vector<Slot> old(cap);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.hash == 0) continue;
      size_t i = s.hash & (cap - 1);
      while (slots_[i].hash != 0) i = (i + 1) & (cap - 1);
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::string arena_;
  size_t size_ = 0;
};

class LsmMergeReader final : public RecordBatchReader {
 public:
  LsmMergeReader(std::shared_ptr<const LsmMergeNode> node, ExecOptions exec,
                 std::shared_ptr<LsmReadStats> stats, std::optional<memwal::PrimaryKeyEncoder> enc)
      : node_(std::move(node)), exec_(std::move(exec)), stats_(std::move(stats)), enc_(std::move(enc)) {
    offset_left_ = node_->spec().offset;
    size_t newer = 0;  // rows of the sources whose keys the set takes
    for (const auto& in : node_->inputs()) {
      const auto& src = static_cast<const LsmSourceNode&>(*in).spec();
      if (src.source != LsmSourceNode::Source::kBase && src.source != LsmSourceNode::Source::kMemTable) {
        newer += static_cast<size_t>(src.rows);
      }
    }
    if (enc_) seen_.Reserve(newer);
  }

  SchemaPtr schema() const override { return node_->spec().schema; }

  Result<RecordBatchPtr> Next() override {
    const auto& spec = node_->spec();
    while (true) {
      if (spec.limit && emitted_ >= *spec.limit) return RecordBatchPtr{};
      if (!pending_.empty()) {
        RecordBatchPtr b = std::move(pending_.front());
        pending_.erase(pending_.begin());
        if (RecordBatchPtr out = Trim(std::move(b))) return out;
        continue;
      }
      if (!current_) {
        if (next_source_ >= node_->inputs().size()) return RecordBatchPtr{};
        source_ = static_cast<const LsmSourceNode*>(node_->inputs()[next_source_++].get());
        if (source_->spec().source == LsmSourceNode::Source::kWalTail) {
          LANCE_RETURN_NOT_OK(ReadTail(source_->spec()));
          continue;
        }
        if (source_->spec().source == LsmSourceNode::Source::kMemTable) {
          LANCE_RETURN_NOT_OK(ReadMemTable(source_->spec()));
          continue;
        }
        LANCE_ASSIGN_OR_RAISE(current_, Plan(source_->rows()).Execute(exec_));
        keys_phase_ = false;
        continue;
      }
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, current_->Next());
      const LsmSourceNode::Spec& src = source_->spec();
      if (!b) {
        current_.reset();
        if (!keys_phase_ && src.keys) {
          LANCE_ASSIGN_OR_RAISE(current_, Plan(src.keys).Execute(exec_));
          keys_phase_ = true;
        }
        continue;
      }
      if (keys_phase_) {  // a filtered generation's keys, read whole
        if (stats_) stats_->generation_rows += b->num_rows();
        LANCE_RETURN_NOT_OK(Remember(*b));
        continue;
      }
      const bool base = src.source == LsmSourceNode::Source::kBase;
      if (stats_) (base ? stats_->base_rows : stats_->generation_rows) += src.keys ? 0 : b->num_rows();
      std::vector<int64_t> rows;
      rows.reserve(static_cast<size_t>(b->num_rows()));
      if (enc_ && !(base && seen_.empty() && views_.empty())) {
        LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc_->KeyColumns(*b));
        LANCE_RETURN_NOT_OK(HeldByMemTables(cols, b->num_rows()));
        for (int64_t r = 0; r < b->num_rows(); ++r) {
          if (!views_.empty() && held_[static_cast<size_t>(r)]) continue;
          key_.clear();
          enc_->Encode(cols, r, &key_);
          // (Keys are distinct inside a generation: its deletion vector hid older duplicates.)
          const bool fresh = base ? !seen_.Contains(key_) : seen_.Insert(key_);
          if (fresh) rows.push_back(r);
        }
      } else {
        for (int64_t r = 0; r < b->num_rows(); ++r) rows.push_back(r);
      }
      if (!base) DropTombstones(*b, &rows);
      if (rows.empty()) continue;
      if (static_cast<int64_t>(rows.size()) != b->num_rows()) {
        LANCE_ASSIGN_OR_RAISE(b, TakeRows(*b, rows));
      }
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr projected, internal::ProjectByName(*b, spec.schema));
      if (RecordBatchPtr out = Trim(std::move(projected))) return out;
    }
  }

 private:
  static void DropTombstones(const RecordBatch& b, std::vector<int64_t>* rows) {
    const ArrayPtr t = b.GetColumnByName(memwal::kTombstoneColumn);
    if (!t) return;
    rows->erase(std::remove_if(rows->begin(), rows->end(),
                               [&](int64_t r) { return !t->IsNull(r) && t->BoolValue(r); }),
                rows->end());
  }

  Status Remember(const RecordBatch& b) {
    if (!enc_) return Status::OK();
    LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc_->KeyColumns(b));
    for (int64_t r = 0; r < b.num_rows(); ++r) {
      key_.clear();
      enc_->Encode(cols, r, &key_);
      seen_.Insert(key_);
    }
    return Status::OK();
  }

  // The tail's winners (newest row per key not held by a newer source: rows read backwards),
  // tombstones dropped, the filter applied, queued in WAL order.
  Status ReadTail(const LsmSourceNode::Spec& src) {
    const auto& batches = src.tail_batches;
    std::vector<std::vector<int64_t>> keep(batches.size());
    for (size_t i = batches.size(); i-- > 0;) {
      const RecordBatch& b = *batches[i];
      if (stats_) stats_->tail_rows += b.num_rows();
      if (!enc_) {
        for (int64_t r = 0; r < b.num_rows(); ++r) keep[i].push_back(r);
        continue;
      }
      LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc_->KeyColumns(b));
      LANCE_RETURN_NOT_OK(HeldByMemTables(cols, b.num_rows()));
      for (int64_t r = b.num_rows(); r-- > 0;) {
        if (!views_.empty() && held_[static_cast<size_t>(r)]) continue;
        key_.clear();
        enc_->Encode(cols, r, &key_);
        if (seen_.Insert(key_)) keep[i].push_back(r);
      }
      std::reverse(keep[i].begin(), keep[i].end());
    }
    for (size_t i = 0; i < batches.size(); ++i) {
      std::vector<int64_t>& rows = keep[i];
      DropTombstones(*batches[i], &rows);
      if (rows.empty()) continue;
      LANCE_RETURN_NOT_OK(QueueRows(*batches[i], rows));
    }
    return Status::OK();
  }

  // Rows `rows` of `batch` (survivors of last-write-wins), the filter tested, projected and
  // queued for output.
  Status QueueRows(const RecordBatch& batch, const std::vector<int64_t>& rows) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr taken, TakeRows(batch, rows));
    if (const auto& f = node_->spec().filter) {
      LANCE_ASSIGN_OR_RAISE(std::vector<int64_t> pass, f->EvaluateBatch(*taken));
      if (pass.empty()) return Status::OK();
      if (static_cast<int64_t>(pass.size()) != taken->num_rows()) {
        LANCE_ASSIGN_OR_RAISE(taken, TakeRows(*taken, pass));
      }
    }
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr projected, internal::ProjectByName(*taken, node_->spec().schema));
    pending_.push_back(std::move(projected));
    return Status::OK();
  }

  // held_[r]: whether a MemTable read before (views_) holds the key of row r of `cols` (the
  // MemTables' keys are not copied into seen_: each is asked, one lock a batch).
  Status HeldByMemTables(const std::vector<ArrayPtr>& cols, int64_t rows) {
    if (views_.empty()) return Status::OK();
    batch_keys_.resize(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      auto& k = batch_keys_[static_cast<size_t>(r)];
      k.clear();
      enc_->Encode(cols, r, &k);
    }
    held_.assign(static_cast<size_t>(rows), 0);
    for (const auto& [mt, upto] : views_) {
      mt->Holds(upto, batch_keys_, &view_held_);
      for (size_t r = 0; r < held_.size(); ++r) held_[r] |= view_held_[r];
    }
    return Status::OK();
  }

  // A live writer's MemTable: the rows its in-memory index (or key index) selects as of the
  // plan's snapshot, less the keys a newer source held, the filter tested, queued in insert
  // order; then its keys hide older rows (views_).
  Status ReadMemTable(const LsmSourceNode::Spec& src) {
    LANCE_ASSIGN_OR_RAISE(memwal::MemTableSelection sel,
                          src.memtable->Select(src.memtable_upto, src.index_column, src.ranges));
    if (stats_) {
      ++stats_->memtables;
      stats_->memtable_candidates += sel.candidates;
      if (!sel.index.empty()) ++stats_->memtables_indexed;
    }
    std::vector<uint8_t> hidden(sel.rows.size(), 0);
    if (enc_ && (!views_.empty() || !seen_.empty())) {
      batch_keys_.clear();
      for (const auto& r : sel.rows) batch_keys_.push_back(r.key);
      for (const auto& [mt, upto] : views_) {
        mt->Holds(upto, batch_keys_, &view_held_);
        for (size_t i = 0; i < hidden.size(); ++i) hidden[i] |= view_held_[i];
      }
      for (size_t i = 0; i < hidden.size(); ++i) hidden[i] |= seen_.Contains(sel.rows[i].key);
    }
    for (size_t i = 0; i < sel.rows.size();) {  // runs of one batch
      size_t j = i;
      std::vector<int64_t> rows;
      for (; j < sel.rows.size() && sel.rows[j].batch == sel.rows[i].batch; ++j) {
        if (!hidden[j]) rows.push_back(sel.rows[j].row);
      }
      const RecordBatchPtr batch = sel.rows[i].batch;
      i = j;
      if (rows.empty()) continue;
      LANCE_RETURN_NOT_OK(QueueRows(*batch, rows));
    }
    if (enc_) views_.emplace_back(src.memtable, src.memtable_upto);
    return Status::OK();
  }

  // `b` after the offset and limit still to apply; null when nothing of it is left.
  RecordBatchPtr Trim(RecordBatchPtr b) {
    int64_t start = std::min(offset_left_, b->num_rows());
    offset_left_ -= start;
    int64_t len = b->num_rows() - start;
    if (const auto& limit = node_->spec().limit) len = std::min(len, *limit - emitted_);
    if (len <= 0) return nullptr;
    if (start != 0 || len != b->num_rows()) b = b->Slice(start, len);
    emitted_ += len;
    if (stats_) stats_->result_rows += len;
    return b;
  }

  std::shared_ptr<const LsmMergeNode> node_;
  ExecOptions exec_;
  std::shared_ptr<LsmReadStats> stats_;
  std::optional<memwal::PrimaryKeyEncoder> enc_;
  KeySet seen_;
  // The MemTables read so far and the rows of each the read sees: their keys hide older rows.
  std::vector<std::pair<std::shared_ptr<const memwal::MemTable>, int64_t>> views_;
  std::vector<std::string> batch_keys_;
  std::vector<uint8_t> held_, view_held_;
  std::string key_;
  size_t next_source_ = 0;
  const LsmSourceNode* source_ = nullptr;
  std::unique_ptr<RecordBatchReader> current_;
  bool keys_phase_ = false;
  std::vector<RecordBatchPtr> pending_;
  int64_t offset_left_ = 0;
  int64_t emitted_ = 0;
};

}  // namespace

Result<std::unique_ptr<RecordBatchReader>> OpenLsmMerge(std::shared_ptr<const LsmMergeNode> node,
                                                        const ExecOptions& options,
                                                        std::shared_ptr<LsmReadStats> stats) {
  const auto& spec = node->spec();
  if (spec.point_keys) return OpenLsmPointLookups(std::move(node), options, std::move(stats));
  if (stats) {  // what the plan chose
    *stats = {};
    stats->shards_pruned = static_cast<int64_t>(spec.shards_pruned.size());
    stats->skipped_merged = spec.skipped_merged;
    for (const auto& in : node->inputs()) {
      const auto& s = static_cast<const LsmSourceNode&>(*in).spec();
      if (s.source == LsmSourceNode::Source::kGeneration) ++stats->generations;
      if (s.source == LsmSourceNode::Source::kWalTail) {
        stats->tail_entries += static_cast<int64_t>(s.wal_positions.size());
      }
    }
  }
  std::optional<memwal::PrimaryKeyEncoder> enc;
  if (!spec.primary_key.empty()) {
    LANCE_ASSIGN_OR_RAISE(memwal::PrimaryKeyEncoder e,
                          memwal::PrimaryKeyEncoder::Make(*spec.table_schema, spec.primary_key));
    enc.emplace(std::move(e));
  }
  return std::unique_ptr<RecordBatchReader>(
      new LsmMergeReader(std::move(node), options, std::move(stats), std::move(enc)));
}

}  // namespace internal

Result<std::unique_ptr<RecordBatchReader>> ExecuteLsmScan(const Plan& plan, const ExecOptions& options,
                                                          std::shared_ptr<memwal::LsmReadStats> stats) {
  if (plan.root()->kind() != PlanNode::Kind::kLsmMerge) {
    return Status::InvalidArgument("ExecuteLsmScan needs an LsmMerge root, not {}", plan.root()->name());
  }
  return internal::OpenLsmMerge(std::static_pointer_cast<const LsmMergeNode>(plan.root()), options,
                                std::move(stats));
}

}  // namespace lance::query
