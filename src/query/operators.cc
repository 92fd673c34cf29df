#include "query/operators.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

#include "lance/core/thread_pool.h"
#include "lance/table/feature_flags.h"
#include "query/task_window.h"

namespace lance::query::internal {

namespace {

int Depth(const ExecOptions& options) { return std::max(1, options.prefetch); }

// FragmentScan: each chosen fragment with live rows, opened in turn, cut into spans of
// chunk_rows physical rows; a span's chunk holds its live rows.
class FragmentScanStream final : public RowStream {
 public:
  FragmentScanStream(std::shared_ptr<const FragmentScanNode> node, ThreadPool* pool)
      : node_(std::move(node)), pool_(pool) {}

  Result<std::optional<RowChunk>> Next() override {
    const auto& fragments = node_->snapshot()->manifest().fragments;
    while (true) {
      if (!current_) {
        if (next_fragment_ >= node_->fragments().size()) return std::optional<RowChunk>();
        const size_t index = node_->fragments()[next_fragment_++];
        if (fragments[index].num_rows() == 0) continue;
        LANCE_ASSIGN_OR_RAISE(current_, FragmentReader::Open(node_->snapshot(), index, pool_));
        // A scan passes each fragment once: its mapped pages go when its last chunk is read,
        // and once more two fragments later (output batches that slice the mapping may have
        // touched them again after that). Unless the plan keeps them (a repeated scan).
        if (!node_->keep_mapped_pages()) current_->ReleaseMappedPagesWhenDone();
        current_->OpenDataFiles();
        next_row_ = 0;
      }
      const int64_t physical = current_->physical_rows();
      if (next_row_ >= physical) {
        if (!node_->keep_mapped_pages()) {
          passed_.push_back(current_->index());
          if (passed_.size() > 2) {
            node_->snapshot()->ReleaseMappedPages(passed_.front());
            passed_.pop_front();
          }
        }
        current_.reset();
        continue;
      }
      RowChunk chunk;
      chunk.fragment = current_;
      chunk.span_start = next_row_;
      chunk.span_length = std::min(node_->chunk_rows(), physical - next_row_);
      next_row_ += chunk.span_length;
      chunk.rows = current_->LiveRows(chunk.span_start, chunk.span_length);
      if (!chunk.rows.empty()) return std::optional<RowChunk>(std::move(chunk));
    }
  }

 private:
  std::shared_ptr<const FragmentScanNode> node_;
  ThreadPool* pool_;
  size_t next_fragment_ = 0;
  std::shared_ptr<const FragmentReader> current_;
  int64_t next_row_ = 0;
  std::deque<size_t> passed_;  // the fragments passed last, oldest first
};

// Take: the keys resolved up front to (fragment, row), handed out as runs of one fragment.
class TakeStream final : public RowStream {
 public:
  static Result<std::unique_ptr<RowStream>> Make(const TakeNode& node, ThreadPool* pool) {
    std::unique_ptr<TakeStream> s(new TakeStream());
    const auto& snapshot = node.snapshot();
    const auto& fragments = snapshot->manifest().fragments;
    std::map<size_t, std::shared_ptr<const FragmentReader>> readers;
    auto reader = [&](size_t index) -> Result<std::shared_ptr<const FragmentReader>> {
      auto it = readers.find(index);
      if (it != readers.end()) return it->second;
      LANCE_ASSIGN_OR_RAISE(auto r, FragmentReader::Open(snapshot, index, pool));
      return readers.emplace(index, std::move(r)).first->second;
    };
    std::vector<std::pair<size_t, int64_t>> resolved;  // (fragment index, row)
    resolved.reserve(node.keys().size());
    if (node.by() == TakeNode::By::kPosition) {
      std::vector<uint64_t> starts;  // first scan position of each fragment
      uint64_t total = 0;
      for (const auto& f : fragments) {
        starts.push_back(total);
        total += f.num_rows();
      }
      for (uint64_t pos : node.keys()) {
        if (pos >= total) {
          return Status::InvalidArgument("take: offset {} is out of range (the dataset has {} rows)",
                                         pos, total);
        }
        const auto index = static_cast<size_t>(
            std::upper_bound(starts.begin(), starts.end(), pos) - starts.begin() - 1);
        LANCE_ASSIGN_OR_RAISE(auto r, reader(index));
        resolved.emplace_back(index, r->NthLiveRow(static_cast<int64_t>(pos - starts[index])));
      }
    } else if (snapshot->manifest().reader_feature_flags & table::kFlagStableRowIds) {
      std::unordered_map<uint64_t, std::pair<size_t, int64_t>> where;
      for (size_t i = 0; i < fragments.size(); ++i) {
        LANCE_ASSIGN_OR_RAISE(auto r, reader(i));
        LANCE_ASSIGN_OR_RAISE(const std::vector<uint64_t>* row_ids, r->RowIds());
        const auto& ids = *row_ids;
        const auto& deleted = r->deleted();
        size_t d = 0;
        for (size_t row = 0; row < ids.size(); ++row) {
          if (d < deleted.size() && deleted[d] == row) {
            ++d;
            continue;
          }
          where[ids[row]] = {i, static_cast<int64_t>(row)};
        }
      }
      for (uint64_t id : node.keys()) {
        auto it = where.find(id);
        if (it != where.end()) resolved.push_back(it->second);
      }
    } else {
      std::unordered_map<uint64_t, size_t> by_id;
      for (size_t i = 0; i < fragments.size(); ++i) by_id[fragments[i].id] = i;
      for (uint64_t id : node.keys()) {
        auto it = by_id.find(id >> 32);
        if (it == by_id.end()) continue;
        const uint64_t row = id & 0xffffffffULL;
        if (row >= fragments[it->second].physical_rows) continue;
        LANCE_ASSIGN_OR_RAISE(auto r, reader(it->second));
        if (std::binary_search(r->deleted().begin(), r->deleted().end(), static_cast<uint32_t>(row))) {
          continue;
        }
        resolved.emplace_back(it->second, static_cast<int64_t>(row));
      }
    }
    size_t i = 0;
    while (i < resolved.size()) {
      RowChunk chunk;
      const size_t index = resolved[i].first;
      LANCE_ASSIGN_OR_RAISE(chunk.fragment, reader(index));
      std::vector<int64_t> rows;
      while (i < resolved.size() && resolved[i].first == index) rows.push_back(resolved[i++].second);
      chunk.rows = RowSelection::List(std::move(rows));
      s->chunks_.push_back(std::move(chunk));
    }
    return std::unique_ptr<RowStream>(std::move(s));
  }

  Result<std::optional<RowChunk>> Next() override {
    if (next_ >= chunks_.size()) return std::optional<RowChunk>();
    return std::optional<RowChunk>(std::move(chunks_[next_++]));
  }

 private:
  TakeStream() = default;
  std::vector<RowChunk> chunks_;
  size_t next_ = 0;
};

// Filter: chunks evaluated ahead on the pool, handed out in order; chunks left empty dropped.
// ScalarIndexLookup: the lookups answered once, then each fragment's rows (deleted ones and
// rows past the fragment's end dropped) in chunks of at most chunk_rows.
class IndexLookupStream final : public RowStream {
 public:
  IndexLookupStream(std::shared_ptr<const IndexLookupNode> node, ThreadPool* pool)
      : node_(std::move(node)), pool_(pool) {}

  Result<std::optional<RowChunk>> Next() override {
    if (!answered_) {
      LANCE_ASSIGN_OR_RAISE(index::scalar::ConjunctAnswer a, node_->catalog()->AnswerAll(node_->plan(), pool_));
      rows_ = a.rows.ToVector();
      answered_ = true;
    }
    const auto& fragments = node_->snapshot()->manifest().fragments;
    while (true) {
      if (pending_.empty()) {
        if (next_fragment_ >= node_->fragments().size()) return std::optional<RowChunk>();
        const size_t index = node_->fragments()[next_fragment_++];
        const uint64_t id = fragments[index].id;
        auto b = std::lower_bound(rows_.begin(), rows_.end(), id << 32);
        auto e = std::lower_bound(b, rows_.end(), (id + 1) << 32);
        if (b == e) continue;
        LANCE_ASSIGN_OR_RAISE(current_, FragmentReader::Open(node_->snapshot(), index, pool_));
        const auto& deleted = current_->deleted();
        const int64_t physical = current_->physical_rows();
        size_t d = 0;
        for (auto it = b; it != e; ++it) {
          const auto row = static_cast<uint32_t>(*it & 0xffffffffULL);
          if (static_cast<int64_t>(row) >= physical) break;
          while (d < deleted.size() && deleted[d] < row) ++d;
          if (d < deleted.size() && deleted[d] == row) continue;
          pending_.push_back(row);
        }
        at_ = 0;
        if (pending_.empty()) continue;
      }
      const size_t n = std::min(pending_.size() - at_, static_cast<size_t>(node_->chunk_rows()));
      RowChunk chunk;
      chunk.fragment = current_;
      chunk.rows = RowSelection::List(std::vector<int64_t>(pending_.begin() + static_cast<std::ptrdiff_t>(at_),
                                                           pending_.begin() + static_cast<std::ptrdiff_t>(at_ + n)));
      at_ += n;
      if (at_ >= pending_.size()) pending_.clear();
      return std::optional<RowChunk>(std::move(chunk));
    }
  }

 private:
  std::shared_ptr<const IndexLookupNode> node_;
  ThreadPool* pool_;
  bool answered_ = false;
  std::vector<uint64_t> rows_;
  size_t next_fragment_ = 0;
  std::shared_ptr<const FragmentReader> current_;
  std::vector<int64_t> pending_;
  size_t at_ = 0;
};

// Union: the inputs' chunks merged by the manifest position of their fragment.
class UnionStream final : public RowStream {
 public:
  explicit UnionStream(std::vector<std::unique_ptr<RowStream>> inputs)
      : inputs_(std::move(inputs)), heads_(inputs_.size()), done_(inputs_.size(), false) {}

  Result<std::optional<RowChunk>> Next() override {
    size_t best = inputs_.size();
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (!heads_[i] && !done_[i]) {
        LANCE_ASSIGN_OR_RAISE(heads_[i], inputs_[i]->Next());
        if (!heads_[i]) done_[i] = true;
      }
      if (heads_[i] && (best == inputs_.size() ||
                        heads_[i]->fragment->index() < heads_[best]->fragment->index())) {
        best = i;
      }
    }
    if (best == inputs_.size()) return std::optional<RowChunk>();
    std::optional<RowChunk> out = std::move(heads_[best]);
    heads_[best].reset();
    return out;
  }

 private:
  std::vector<std::unique_ptr<RowStream>> inputs_;
  std::vector<std::optional<RowChunk>> heads_;
  std::vector<bool> done_;
};

class FilterStream final : public RowStream {
 public:
  FilterStream(std::unique_ptr<RowStream> input, std::shared_ptr<const Filter> filter,
               const ExecOptions& options)
      : input_(std::move(input)),
        filter_(std::move(filter)),
        window_(options.pool),
        // Row lists are small: twice Project's depth keeps the materialization fed.
        depth_(2 * static_cast<size_t>(Depth(options))) {}

  Result<std::optional<RowChunk>> Next() override {
    while (true) {
      while (!input_done_ && window_.size() < depth_) {
        LANCE_ASSIGN_OR_RAISE(auto chunk, input_->Next());
        if (!chunk) {
          input_done_ = true;
          break;
        }
        window_.Push([filter = filter_, c = std::move(*chunk)]() mutable -> Result<RowChunk> {
          LANCE_ASSIGN_OR_RAISE(c.rows,
                                filter->Evaluate(*c.fragment, c.span_start, c.span_length, c.rows));
          return std::move(c);
        });
      }
      if (window_.empty()) return std::optional<RowChunk>();
      LANCE_ASSIGN_OR_RAISE(RowChunk chunk, window_.PopFront());
      if (!chunk.rows.empty()) return std::optional<RowChunk>(std::move(chunk));
    }
  }

 private:
  std::unique_ptr<RowStream> input_;
  std::shared_ptr<const Filter> filter_;
  TaskWindow<RowChunk> window_;
  size_t depth_;
  bool input_done_ = false;
};

class LimitStream final : public RowStream {
 public:
  LimitStream(std::unique_ptr<RowStream> input, int64_t offset, std::optional<int64_t> limit)
      : input_(std::move(input)), skip_(offset), remaining_(limit.value_or(INT64_MAX)) {}

  Result<std::optional<RowChunk>> Next() override {
    while (remaining_ > 0) {
      LANCE_ASSIGN_OR_RAISE(auto chunk, input_->Next());
      if (!chunk) break;
      const int64_t n = chunk->rows.size();
      if (skip_ >= n) {
        skip_ -= n;
        continue;
      }
      const int64_t take = std::min(n - skip_, remaining_);
      chunk->rows = chunk->rows.Slice(skip_, take);
      skip_ = 0;
      remaining_ -= take;
      return chunk;
    }
    return std::optional<RowChunk>();
  }

 private:
  std::unique_ptr<RowStream> input_;
  int64_t skip_;
  int64_t remaining_;
};

// `a` followed by `b` (ranges that meet stay a range).
RowSelection Concat(const RowSelection& a, const RowSelection& b) {
  if (a.empty()) return b;
  if (a.is_range() && b.is_range() && a.start() + a.size() == b.start()) {
    return RowSelection::Range(a.start(), a.size() + b.size());
  }
  std::vector<int64_t> rows = a.ToVector();
  rows.reserve(static_cast<size_t>(a.size() + b.size()));
  for (int64_t i = 0; i < b.size(); ++i) rows.push_back(b[i]);
  return RowSelection::List(std::move(rows));
}

// Bytes a row of `type` is guessed to take once decoded (variable-length values: 32 bytes).
int64_t GuessBytes(const DataType& type) {
  if (type.id() == TypeId::kDictionary) return std::max(1, type.index_type()->bit_width() / 8);
  if (type.is_fixed_width()) return std::max(1, type.bit_width() / 8);
  if (type.is_binary_like()) return (type.has_large_offsets() ? 8 : 4) + 32;
  if (type.id() == TypeId::kFixedSizeList) {
    return int64_t{type.list_size()} * GuessBytes(*type.value_type());
  }
  int64_t bytes = type.is_list_like() ? 8 : 0;
  const int64_t per_child = type.is_list_like() ? 4 : 1;  // lists: a few elements a row
  for (const auto& f : type.fields()) bytes += per_child * GuessBytes(*f->type());
  return std::max<int64_t>(bytes, 1);
}

// Rows Project decodes at once when the rows are a range: whole batches, about
// kReadUnitBytes of the projection (at least one batch). One read of several batches costs
// one task (a worker's wake-up, the file reader's per-read setup) instead of one per batch;
// the batches are zero-copy slices of it. Measured on the bench's 1M-row int64 scan
// (callgrind, bench/table_bench BM_TableScanId): one read per 8192-row batch 11.5M
// instructions and ~240 context switches a scan; 256 KiB units 8.8M and ~60. Larger units
// (1-2 MiB: 8.0M) made the allocator return and re-fault their pages (3-6x the page faults)
// and cost more CPU than they saved.
constexpr int64_t kReadUnitBytes = int64_t{256} << 10;

int64_t ReadUnitRows(const Schema& schema, int64_t batch_size) {
  int64_t row_bytes = 0;
  for (const auto& f : schema.fields()) row_bytes += GuessBytes(*f->type());
  const int64_t batches = kReadUnitBytes / std::max<int64_t>(1, row_bytes) / batch_size;  // no overflow
  return batch_size * std::max<int64_t>(1, batches);
}

// Project: consecutive chunks of one fragment gathered into read units (see ReadUnitRows; a
// unit whose rows are a list stops at the next whole batch), each read on the pool ahead of
// the consumer and handed out in slices of at most batch_size rows -- the batches are the
// same as reading batch_size rows at a time.
class ProjectStream final : public RecordBatchReader {
 public:
  ProjectStream(std::unique_ptr<RowStream> input, const ProjectNode& node,
                const ExecOptions& options)
      : input_(std::move(input)),
        schema_(node.schema()),
        batch_size_(node.batch_size()),
        unit_rows_(ReadUnitRows(*node.schema(), node.batch_size())),
        window_(options.pool),
        depth_(static_cast<size_t>(Depth(options))) {}

  SchemaPtr schema() const override { return schema_; }

  Result<RecordBatchPtr> Next() override {
    if (unit_ && unit_at_ < unit_->num_rows()) return NextSlice();
    unit_.reset();
    while (!input_done_ && window_.size() < depth_) {
      LANCE_ASSIGN_OR_RAISE(auto group, NextGroup());
      if (!group) break;
      // The last unit, with nothing queued before it: the consumer reads it next anyway.
      const bool spawn = !(window_.empty() && input_done_ && !pending_);
      window_.Push([schema = schema_, g = std::move(*group)]() -> Result<RecordBatchPtr> {
        return g.fragment->Read(schema, g.rows);
      }, spawn);
    }
    if (window_.empty()) return RecordBatchPtr();
    LANCE_ASSIGN_OR_RAISE(unit_, window_.PopFront());
    unit_at_ = 0;
    if (unit_->num_rows() <= batch_size_) {
      RecordBatchPtr whole = std::move(unit_);
      unit_.reset();
      return whole;
    }
    return NextSlice();
  }

 private:
  RecordBatchPtr NextSlice() {
    const int64_t n = std::min(batch_size_, unit_->num_rows() - unit_at_);
    RecordBatchPtr out = unit_->Slice(unit_at_, n);
    unit_at_ += n;
    return out;
  }

  // Rows a group may grow to: a unit while it is a range, else the next whole batch.
  int64_t Target(const RowSelection& rows) const {
    if (rows.is_range()) return unit_rows_;
    return ((std::max<int64_t>(rows.size(), 1) - 1) / batch_size_ + 1) * batch_size_;
  }

  // The rows of the next unit: from the pending chunk and the chunks after it while they are
  // of the same fragment, up to Target rows.
  Result<std::optional<RowChunk>> NextGroup() {
    std::optional<RowChunk> group;
    while (!group || group->rows.size() < Target(group->rows)) {
      if (!pending_) {
        LANCE_ASSIGN_OR_RAISE(pending_, input_->Next());
        if (!pending_) {
          input_done_ = true;
          break;
        }
      }
      if (group && pending_->fragment != group->fragment) break;
      const int64_t room = group ? Target(group->rows) - group->rows.size()
                                 : (pending_->rows.is_range() ? unit_rows_ : batch_size_);
      const int64_t n = pending_->rows.size();
      const int64_t take = std::min(room, n);
      RowSelection part = pending_->rows.Slice(0, take);
      if (!group) {
        group = RowChunk{pending_->fragment, 0, 0, std::move(part)};
      } else {
        group->rows = Concat(group->rows, part);
      }
      if (take == n) {
        pending_.reset();
      } else {
        pending_->rows = pending_->rows.Slice(take, n - take);
      }
    }
    return group;
  }

  std::unique_ptr<RowStream> input_;
  SchemaPtr schema_;
  int64_t batch_size_;
  int64_t unit_rows_;
  TaskWindow<RecordBatchPtr> window_;
  size_t depth_;
  std::optional<RowChunk> pending_;
  bool input_done_ = false;
  RecordBatchPtr unit_;  // the unit being handed out in slices
  int64_t unit_at_ = 0;
};

}  // namespace

Result<std::unique_ptr<RowStream>> OpenRows(const PlanNodePtr& node, const ExecOptions& options) {
  switch (node->kind()) {
    case PlanNode::Kind::kFragmentScan:
      return std::unique_ptr<RowStream>(std::make_unique<FragmentScanStream>(
          std::static_pointer_cast<const FragmentScanNode>(node), options.pool));
    case PlanNode::Kind::kTake:
      return TakeStream::Make(static_cast<const TakeNode&>(*node), options.pool);
    case PlanNode::Kind::kIndexLookup:
      return std::unique_ptr<RowStream>(std::make_unique<IndexLookupStream>(
          std::static_pointer_cast<const IndexLookupNode>(node), options.pool));
    case PlanNode::Kind::kUnion: {
      std::vector<std::unique_ptr<RowStream>> inputs;
      for (const auto& in : node->inputs()) {
        LANCE_ASSIGN_OR_RAISE(auto s, OpenRows(in, options));
        inputs.push_back(std::move(s));
      }
      return std::unique_ptr<RowStream>(std::make_unique<UnionStream>(std::move(inputs)));
    }
    case PlanNode::Kind::kFilter: {
      LANCE_ASSIGN_OR_RAISE(auto input, OpenRows(node->inputs().at(0), options));
      return std::unique_ptr<RowStream>(std::make_unique<FilterStream>(
          std::move(input), static_cast<const FilterNode&>(*node).filter(), options));
    }
    case PlanNode::Kind::kLimit: {
      const auto& limit = static_cast<const LimitNode&>(*node);
      LANCE_ASSIGN_OR_RAISE(auto input, OpenRows(node->inputs().at(0), options));
      return std::unique_ptr<RowStream>(
          std::make_unique<LimitStream>(std::move(input), limit.offset(), limit.limit()));
    }
    default:
      return Status::InvalidArgument("plan: {} does not yield rows", node->name());
  }
}

Result<std::unique_ptr<RecordBatchReader>> OpenProject(const ProjectNode& node,
                                                       const ExecOptions& options) {
  LANCE_ASSIGN_OR_RAISE(auto input, OpenRows(node.inputs().at(0), options));
  return std::unique_ptr<RecordBatchReader>(
      std::make_unique<ProjectStream>(std::move(input), node, options));
}

Result<std::vector<RowChunk>> AllChunks(std::shared_ptr<const FragmentScanNode> node,
                                        ThreadPool* pool) {
  FragmentScanStream stream(std::move(node), pool);
  std::vector<RowChunk> chunks;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(auto chunk, stream.Next());
    if (!chunk) return chunks;
    chunks.push_back(std::move(*chunk));
  }
}

Result<uint64_t> RunCount(const CountNode& node, const ExecOptions& options) {
  const PlanNodePtr& input = node.inputs().at(0);
  if (input->kind() == PlanNode::Kind::kFragmentScan) {
    // Every live row: the manifest knows.
    const auto& scan = static_cast<const FragmentScanNode&>(*input);
    uint64_t n = 0;
    for (size_t i : scan.fragments()) n += scan.snapshot()->manifest().fragments[i].num_rows();
    return n;
  }
  if (input->kind() == PlanNode::Kind::kFilter &&
      input->inputs().at(0)->kind() == PlanNode::Kind::kFragmentScan) {
    // Every chunk of every fragment at once, each counted without a list of its rows.
    const auto& filter = *static_cast<const FilterNode&>(*input).filter();
    LANCE_ASSIGN_OR_RAISE(
        auto chunks,
        AllChunks(std::static_pointer_cast<const FragmentScanNode>(input->inputs()[0]),
                  options.pool));
    std::vector<int64_t> counts(chunks.size(), 0);
    std::vector<Status> errors(chunks.size());
    ParallelFor(options.pool, static_cast<int64_t>(chunks.size()), [&](int64_t i) {
      RowChunk& c = chunks[static_cast<size_t>(i)];
      auto n = filter.Count(*c.fragment, c.span_start, c.span_length, c.rows);
      c.fragment.reset();  // the fragment's last chunk counted: its mapped pages can go
      if (n.ok()) {
        counts[static_cast<size_t>(i)] = *n;
      } else {
        errors[static_cast<size_t>(i)] = n.status();
      }
    });
    uint64_t total = 0;
    for (size_t i = 0; i < chunks.size(); ++i) {
      LANCE_RETURN_NOT_OK(errors[i]);
      total += static_cast<uint64_t>(counts[i]);
    }
    return total;
  }
  LANCE_ASSIGN_OR_RAISE(auto rows, OpenRows(input, options));
  uint64_t total = 0;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(auto chunk, rows->Next());
    if (!chunk) return total;
    total += static_cast<uint64_t>(chunk->rows.size());
  }
}

}  // namespace lance::query::internal
