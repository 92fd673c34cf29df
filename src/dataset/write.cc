// Dataset: create / append / overwrite, index creation and removal, each built on the
// handle's version.
#include <fmt/format.h>

#include "dataset/guard.h"
#include "lance/dataset/dataset.h"
#include "lance/index/index_metadata.h"
#include "lance/index/scalar/optimize.h"
#include "lance/index/vector/index_migration.h"
#include "lance/index/vector/optimize.h"
#include "lance/memwal/enable.h"
#include "lance/memwal/lsm_read.h"
#include "lance/query/index_training.h"
#include "lance/table/indexes.h"

namespace lance::dataset {

using internal::Guarded;

namespace {

// The input's rows, streamed into the data files batch by batch.
Result<table::WriteResult> WriteAt(const table::TableLocation& location, RecordBatchReader& input,
                                   const table::WriteParams& params) {
  return table::WriteDataset(location, input, params);
}

}  // namespace

Result<std::shared_ptr<Dataset>> Dataset::Write(table::TableLocation location, RecordBatchReader& input,
                                                table::WriteParams params, OpenOptions options) {
  return Guarded("write", [&]() -> Result<std::shared_ptr<Dataset>> {
    if (!params.commit.handler) params.commit.handler = options.commit_handler;
    params.commit.sync = params.commit.sync && options.sync_commits;
    if (params.commit.sync_pool == nullptr) params.commit.sync_pool = SyncPoolOf(options);
    if (params.pool == nullptr) params.pool = PoolOf(options);
    if (!params.commit.migrate_indices) params.commit.migrate_indices = index::vector::MigrateVectorIndexEntries;
    if (options.tag) return Status::InvalidArgument("write: a tag cannot be given to open the written version");
    LANCE_ASSIGN_OR_RAISE(auto written, WriteAt(location, input, params));
    options.version = written.commit.version;
    return OpenGuarded(std::move(location), std::move(options));
  });
}

Result<std::shared_ptr<Dataset>> Dataset::Write(const std::string& uri, RecordBatchReader& input,
                                                table::WriteParams params, OpenOptions options) {
  return Guarded("write", [&]() -> Result<std::shared_ptr<Dataset>> {
    LANCE_ASSIGN_OR_RAISE(auto location, table::TableLocation::FromUri(uri));
    return Write(std::move(location), input, std::move(params), std::move(options));
  });
}

Result<std::shared_ptr<Dataset>> Dataset::Write(std::shared_ptr<io::ObjectStore> store, std::string root,
                                                RecordBatchReader& input, table::WriteParams params,
                                                OpenOptions options) {
  return Guarded("write", [&]() -> Result<std::shared_ptr<Dataset>> {
    if (!store) return Status::InvalidArgument("write: the object store must not be null");
    return Write(table::TableLocation(std::move(store), std::move(root)), input, std::move(params),
                 std::move(options));
  });
}

namespace {

// Writes through a handle: on its version, with its commit handler.
table::WriteParams OnHandle(table::WriteParams params, table::WriteMode mode, uint64_t version,
                            const table::CommitOptions& commit, ThreadPool* pool) {
  params.mode = mode;
  params.read_version = version;
  if (!params.commit.handler) params.commit.handler = commit.handler;
  params.commit.sync = params.commit.sync && commit.sync;
  if (params.commit.sync_pool == nullptr) params.commit.sync_pool = commit.sync_pool;
  if (params.pool == nullptr) params.pool = pool;
  return params;
}

}  // namespace

Result<table::WriteResult> Dataset::Append(RecordBatchReader& input, table::WriteParams params) {
  return Guarded("append", [&]() -> Result<table::WriteResult> {
    table::WriteResult out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, WriteAt(location_, input,
                                         OnHandle(std::move(params), table::WriteMode::kAppend,
                                                  snap->version(), CommitOptions(), pool())));
      return out.commit.version;
    }));
    return out;
  });
}

Result<table::WriteResult> Dataset::Overwrite(RecordBatchReader& input, table::WriteParams params) {
  return Guarded("overwrite", [&]() -> Result<table::WriteResult> {
    table::WriteResult out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, WriteAt(location_, input,
                                         OnHandle(std::move(params), table::WriteMode::kOverwrite,
                                                  snap->version(), CommitOptions(), pool())));
      return out.commit.version;
    }));
    return out;
  });
}

namespace {

// The commit amend of a new index `name` built over every fragment of `built_on`: besides
// `then`, the MemWAL index's index_catchup learns that `name` now covers what `built_on` had
// merged (memwal::MemWalIndexDetails::RecordIndexRebuilt); a table without MemWAL is untouched.
std::function<Status(table::Manifest*)> MemWalCatchupAmend(const table::Snapshot& built_on, std::string name,
                                                         std::function<Status(table::Manifest*)> then) {
  std::vector<memwal::MergedGeneration> covered;
  if (auto d = memwal::ReadMemWalDetails(built_on); d.ok()) {
    covered = d->merged_generations;
  } else {
    return then;
  }
  const std::string what = built_on.location().display();
  return [covered, name, what, then](table::Manifest* m) -> Status {
    if (then) LANCE_RETURN_NOT_OK(then(m));
    return memwal::UpdateMemWalDetails(m, what, [&](memwal::MemWalIndexDetails* d) {
      d->RecordIndexRebuilt(name, covered);
      return Status::OK();
    });
  };
}

}  // namespace

Result<index::scalar::CreatedIndex> Dataset::CreateScalarIndex(
    const std::string& column, index::scalar::CreateScalarIndexOptions options) {
  return Guarded("create index", [&]() -> Result<index::scalar::CreatedIndex> {
    options.commit = WithHandle(std::move(options.commit));
    if (options.pool == nullptr) options.pool = pool();
    index::scalar::CreatedIndex out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      auto rows = [&](const table::Snapshot&, const std::string& c) {
        return query::CollectTrainingData(snap, c, std::nullopt, pool());
      };
      index::scalar::CreateScalarIndexOptions o = options;
      o.commit.amend = MemWalCatchupAmend(*snap, o.name.empty() ? index::DefaultIndexName(column) : o.name, o.commit.amend);
      LANCE_ASSIGN_OR_RAISE(out, index::scalar::CreateScalarIndex(*snap, column, rows, o));
      return out.version;
    }));
    return out;
  });
}

Result<index::vector::IvfBuildSummary> Dataset::CreateVectorIndex(
    const std::string& column, index::vector::IvfBuildOptions options) {
  return Guarded("create vector index", [&]() -> Result<index::vector::IvfBuildSummary> {
    if (!options.commit.handler) options.commit = CommitOptions();
    if (options.pool == nullptr) options.pool = pool();
    index::vector::IvfBuildSummary out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      auto rows = [&](const table::Snapshot&, const std::string& c) {
        return query::CollectTrainingData(snap, c, std::nullopt, options.pool);
      };
      LANCE_ASSIGN_OR_RAISE(out, index::vector::CreateVectorIndex(*snap, column, rows, options));
      return out.version;
    }));
    return out;
  });
}

const char* OutcomeName(OptimizedIndex::Outcome outcome) {
  switch (outcome) {
    case OptimizedIndex::Outcome::kMerged: return "merged";
    case OptimizedIndex::Outcome::kUpToDate: return "up_to_date";
    case OptimizedIndex::Outcome::kNotSupported: return "not_supported";
  }
  return "?";
}

Result<std::vector<OptimizedIndex>> Dataset::OptimizeIndices(const std::vector<std::string>& names) {
  return Guarded("optimize indices", [&]() -> Result<std::vector<OptimizedIndex>> {
    std::vector<OptimizedIndex> out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      out.clear();
      std::vector<std::string> todo = names;
      const bool all = todo.empty();
      if (all) {
        for (const auto& x : snap->manifest().indices) {
          if (table::IsSystemIndex(x)) continue;
          if (std::find(todo.begin(), todo.end(), x.name) == todo.end()) todo.push_back(x.name);
        }
      }
      // Every index's new segment is written first, then one commit adds them all in place of
      // the segments they merge (lance 12's optimize makes one version too).
      table::StagedFiles staged(location_);
      std::vector<table::IndexInfo> added;
      std::vector<std::string> replaced;
      table::CommitOptions commit = WithHandle(CommitOptions());
      // A segment written in place of `replaced_uuid`: committed with the others below.
      auto record_merged = [&](OptimizedIndex r, const index::NewIndexSegment& seg, uint64_t dataset_version,
                               const std::string& replaced_uuid, const std::vector<uint32_t>& fragment_ids,
                               const std::vector<uint32_t>& new_fragment_ids, uint64_t num_indexed_rows) {
        commit.amend = MemWalCatchupAmend(*snap, r.name, commit.amend);
        added.push_back(index::MakeIndexInfo(seg, dataset_version));
        replaced.push_back(replaced_uuid);
        r.outcome = OptimizedIndex::Outcome::kMerged;
        r.uuid = seg.uuid;
        r.replaced_uuid = replaced_uuid;
        r.fragment_ids = fragment_ids;
        r.new_fragment_ids = new_fragment_ids;
        r.num_indexed_rows = num_indexed_rows;
        out.push_back(std::move(r));
      };
      for (const std::string& name : todo) {
        OptimizedIndex r;
        r.name = name;
        const auto segments = index::FindIndexSegments(snap->manifest(), name);
        if (segments.empty()) {
          return Status::NotFound("{} (version {}) has no index named '{}'", location_.display(), snap->version(), name);
        }
        r.type = table::IndexTypeName(*segments.back());
        if (index::vector::MergedOnOptimize(*segments.back())) {
          // IVF indexes: the new rows merged into the existing partitions.
          LANCE_ASSIGN_OR_RAISE(auto vplan, index::vector::PlanVectorIndexOptimize(*snap, name));
          if (!vplan) {
            out.push_back(std::move(r));
            continue;
          }
          std::vector<uint64_t> new_frags(vplan->new_fragment_ids.begin(), vplan->new_fragment_ids.end());
          auto new_rows = [&](const table::Snapshot&, const std::string& c) -> Result<index::scalar::TrainingData> {
            if (new_frags.empty()) return index::scalar::TrainingData{};
            return query::CollectTrainingData(snap, c, new_frags, pool());
          };
          LANCE_ASSIGN_OR_RAISE(index::vector::MergedVectorSegment merged,
                                index::vector::MergeIvfIndexSegment(*snap, *vplan, new_rows, pool(), &staged));
          record_merged(std::move(r), merged.segment, vplan->dataset_version, vplan->replaced_uuid,
                        vplan->fragment_ids, vplan->new_fragment_ids, merged.num_indexed_rows);
          continue;
        }
        if (!index::scalar::ScalarIndexTypeFromName(r.type).ok()) {
          if (!all) {
            return Status::NotSupported("optimize index '{}' of {}: {} indexes are not optimized yet; rebuild it "
                                        "(create-index --replace)",
                                        name, location_.display(), r.type);
          }
          r.outcome = OptimizedIndex::Outcome::kNotSupported;
          r.reason = fmt::format("{} indexes are not optimized yet (rebuild with create-index --replace)", r.type);
          out.push_back(std::move(r));
          continue;
        }
        LANCE_ASSIGN_OR_RAISE(auto plan, index::scalar::PlanScalarIndexOptimize(*snap, name));
        if (!plan) {
          out.push_back(std::move(r));
          continue;
        }
        index::scalar::CreateScalarIndexOptions o = plan->options;
        if (o.pool == nullptr) o.pool = pool();
        std::vector<uint64_t> frags(plan->fragment_ids.begin(), plan->fragment_ids.end());
        auto rows = [&](const table::Snapshot&, const std::string& c) {
          return query::CollectTrainingData(snap, c, frags, pool());
        };
        LANCE_ASSIGN_OR_RAISE(index::scalar::BuiltSegment built,
                              index::scalar::BuildScalarIndexSegment(*snap, plan->column, rows, o, &staged));
        record_merged(std::move(r), built.segment, plan->dataset_version, plan->replaced_uuid, plan->fragment_ids,
                      plan->new_fragment_ids, built.num_indexed_rows);
      }
      if (added.empty()) return 0;
      LANCE_ASSIGN_OR_RAISE(table::CommitInfo ci, index::CommitReplacingSegments(location_, snap->version(), added,
                                                                                 replaced, commit, &staged));
      for (auto& r : out) {
        if (r.outcome == OptimizedIndex::Outcome::kMerged) r.version = ci.version;
      }
      return ci.version;
    }));
    return out;
  });
}

Result<table::CommitInfo> Dataset::DropIndex(const std::string& name) {
  return Guarded("drop index", [&]() -> Result<table::CommitInfo> {
    table::CommitInfo out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, table::DropIndex(*snap, name, CommitOptions()));
      return out.version;
    }));
    return out;
  });
}

}  // namespace lance::dataset
