#include "lance/memwal/generation.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/file/lance_schema.h"
#include "lance/index/index_metadata.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/create.h"
#include "lance/index/scalar/optimize.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/index/vector/optimize.h"
#include "lance/memwal/lsm_read.h"
#include "lance/memwal/bloom_filter.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/primary_key.h"
#include "lance/table/commit.h"
#include "lance/table/deletion.h"
#include "lance/table/transaction.h"
#include "lance/table/versions.h"
#include "lance/table/write.h"

namespace lance::memwal {

namespace {

std::string Random8() {
  const std::string hex = Uuid::RandomV4().ToString();
  return hex.substr(0, 8);
}

// _pk_index/page_data.lance and page_lookup.lance: the scalar BTree (row ids = row positions in
// the generation), in 2.1 files with pages of kPkIndexPageRows.
// The `_pk_index/` sidecar (mem_wal.md "Primary-key sidecars"): a BTree over the key column's own
// values for a one-column key, over the order-preserving binary tuple encoding of every key
// column (PrimaryKeyEncoder) for a composite key; forward row positions as ids.
// Its files are staged in `staged` (made durable by the generation's commit, with the rest).
Status WritePkIndex(table::StagedFiles* staged, const std::string& dir, const MemTable::Contents& c,
                    const std::vector<std::string>& primary_key) {
  index::scalar::TrainingData data;
  if (primary_key.size() == 1) {
    for (const auto& b : c.batches) {
      ArrayPtr keys = b->GetColumnByName(primary_key[0]);
      if (!keys) {
        return Status::Internal("_pk_index: the generation has no key column '{}'", primary_key[0]);
      }
      data.type = keys->type;
      data.values.push_back(std::move(keys));
    }
  } else {
    LANCE_ASSIGN_OR_RAISE(PrimaryKeyEncoder enc,
                          PrimaryKeyEncoder::Make(*c.batches[0]->schema(), primary_key));
    data.type = binary();
    for (const auto& b : c.batches) {
      LANCE_ASSIGN_OR_RAISE(std::vector<std::string> keys, enc.EncodeAll(*b));
      BinaryBuilder builder(binary());
      for (const std::string& k : keys) LANCE_RETURN_NOT_OK(builder.Append(k));
      LANCE_ASSIGN_OR_RAISE(ArrayPtr a, builder.Finish());
      data.values.push_back(std::move(a));
    }
  }
  data.row_ids.resize(static_cast<size_t>(c.num_rows));
  std::iota(data.row_ids.begin(), data.row_ids.end(), uint64_t{0});
  index::scalar::BTreeTrainOptions o;
  o.batch_size = kPkIndexPageRows;
  o.file_options.version = {2, 1};
  auto index_store = index::IndexStore::Make(staged->store(), dir);
  LANCE_RETURN_NOT_OK(index::scalar::TrainBTreeIndex(*index_store, data, o).status());
  LANCE_ASSIGN_OR_RAISE(auto written, staged->store()->List(dir + "/"));
  for (const auto& f : written) staged->Record(f.path);
  return Status::OK();
}

// Each maintained index built over the generation (one fragment, id 0) described by `at` (its
// version 1, not committed yet): every row of `c`, row ids = the rows' addresses, files staged
// in `staged` under the base index's name. Returns their manifest entries.
Result<std::vector<table::IndexInfo>> BuildMaintainedIndexes(const table::Snapshot& at, table::StagedFiles* staged,
                                                             const MemTable::Contents& c,
                                                             const std::vector<MaintainedIndex>& indexes) {
  std::vector<table::IndexInfo> out;
  for (const MaintainedIndex& m : indexes) {
    auto rows = [&](const table::Snapshot&, const std::string& column) -> Result<index::scalar::TrainingData> {
      index::scalar::TrainingData data;
      uint64_t row = 0;
      for (const auto& b : c.batches) {
        ArrayPtr a = b->GetColumnByName(column);
        if (!a) {
          return Status::InvalidArgument("{}: maintained index '{}': the generation has no column '{}'",
                                         at.location().display(), m.name, column);
        }
        data.type = a->type;
        for (int64_t r = 0; r < a->length; ++r) data.row_ids.push_back(row++);  // fragment 0
        data.values.push_back(std::move(a));
      }
      return data;
    };
    if (m.vector) {
      // No non-null vector (tombstones only): no index to build (lance 12's flush: not seen).
      bool any = false;
      for (const auto& b : c.batches) {
        ArrayPtr a = b->GetColumnByName(m.column);
        any = any || (a && a->null_count < a->length);
      }
      if (!any) continue;
      LANCE_ASSIGN_OR_RAISE(index::NewIndexSegment seg,
                            index::vector::BuildVectorIndexSegment(at, m.column, rows, *m.vector, staged));
      out.push_back(index::MakeIndexInfo(seg, at.version()));
      continue;
    }
    index::scalar::CreateScalarIndexOptions o = m.options;
    o.name = m.name;
    o.replace = false;
    o.commit = {};
    o.fragment_ids.reset();
    LANCE_ASSIGN_OR_RAISE(index::scalar::BuiltSegment built,
                          index::scalar::BuildScalarIndexSegment(at, m.column, rows, o, staged));
    out.push_back(index::MakeIndexInfo(built.segment, at.version()));
  }
  return out;
}

// The generation's only version, as lance 12 writes it: one fragment (id 0) of every row in
// insert order, the last-write-wins deletion vector on it (`_deletions/0-1-*`), and the
// maintained indexes, all in one commit of version 1.
Status CommitGeneration(const table::TableLocation& loc, table::StagedFiles& staged,
                        const MemTable::Contents& contents, bool dedup, const GenerationWriteOptions& options) {
  const SchemaPtr& schema = contents.batches[0]->schema();
  table::Manifest m;
  m.version = 1;
  m.data_file_format = "lance";
  m.data_storage_version = options.data_storage_version.empty() ? "2.2" : options.data_storage_version;
  LANCE_ASSIGN_OR_RAISE(m.fields, file::LanceFieldsWithIds(*schema, nullptr, &m.schema));
  if (schema->metadata()) {
    m.schema_metadata = schema->metadata()->pairs();
    std::sort(m.schema_metadata.begin(), m.schema_metadata.end());
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<table::FragmentInfo> frags,
                        table::WriteFragments(staged, m, m.schema, contents.batches,
                                              std::max<int64_t>(contents.num_rows, 1)));
  if (frags.size() != 1) {
    return Status::Internal("{}: a generation is one fragment, {} were written", loc.display(), frags.size());
  }
  table::FragmentInfo& frag = frags[0];
  frag.id = 0;  // what the commit creating the table assigns
  if (dedup && !contents.superseded.empty()) {
    std::vector<uint32_t> rows = contents.superseded;
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    LANCE_ASSIGN_OR_RAISE(frag.deletion, table::WriteDeletionFile(staged, 0, 1, rows));
  }
  m.fragments = frags;
  std::vector<table::IndexInfo> indexes;
  if (!options.maintained_indexes.empty()) {
    table::CommittedVersion planned;
    planned.version = 1;
    planned.manifest = m;
    LANCE_ASSIGN_OR_RAISE(std::shared_ptr<table::Snapshot> at, table::Snapshot::Open(loc, std::move(planned)));
    LANCE_ASSIGN_OR_RAISE(indexes, BuildMaintainedIndexes(*at, &staged, contents, options.maintained_indexes));
  }
  table::Transaction txn;
  txn.read_version = 0;
  table::Transaction::Overwrite op;
  op.fragments = std::move(frags);
  op.schema = m.fields;
  op.schema_metadata = m.schema_metadata;
  op.data_storage_version = m.data_storage_version;
  txn.operation = std::move(op);
  table::CommitOptions co;
  co.max_retries = 0;
  co.amend = [&](table::Manifest* out) -> Status {
    if (out->version != 1 || out->fragments.size() != 1 || out->fragments[0].id != 0) {
      return Status::Internal("{}: the generation's commit made version {} with {} fragments; "
                              "expected version 1 with fragment 0",
                              loc.display(), out->version, out->fragments.size());
    }
    out->indices.insert(out->indices.end(), indexes.begin(), indexes.end());
    return Status::OK();
  };
  return table::CommitTransaction(loc, std::move(txn), co, &staged).status();
}

uint64_t KeyBytes(const MemTable::Contents& c, const std::vector<std::string>& pk) {
  uint64_t n = 0;
  for (const auto& b : c.batches) {
    for (const auto& k : pk) {
      ArrayPtr a = b->GetColumnByName(k);
      if (!a) continue;
      if (a->type->is_binary_like()) {
        for (int64_t r = 0; r < a->length; ++r) n += a->GetView(r).size();
      } else {
        n += static_cast<uint64_t>((a->type->bit_width() + 7) / 8) * static_cast<uint64_t>(a->length);
      }
    }
  }
  return n;
}

}  // namespace

Result<FlushedGeneration> WriteGeneration(const std::shared_ptr<io::ObjectStore>& store,
                                          const std::string& root, const Uuid& shard,
                                          uint64_t generation, const MemTable::Contents& contents,
                                          const std::vector<std::string>& primary_key,
                                          const GenerationWriteOptions& options) {
  if (contents.num_rows == 0 || contents.batches.empty()) {
    return Status::InvalidArgument("shard {}: generation {} has no rows to flush",
                                   shard.ToString(), generation);
  }
  FlushedGeneration g;
  g.generation = generation;
  g.path = fmt::format("{}_gen_{}", Random8(), generation);
  const std::string dir = ShardDirectory(root, shard) + "/" + g.path;
  table::TableLocation loc(store, dir);
  // Every file of the generation is staged and made durable by its one commit, in one round of
  // flushes (not a file and a directory flush each, one after the other).
  table::StagedFiles staged(loc);
  if (!primary_key.empty()) {
    LANCE_RETURN_NOT_OK(WritePkIndex(&staged, loc.Path("_pk_index"), contents, primary_key));
    g.primary_key_bytes = KeyBytes(contents, primary_key);
    LANCE_ASSIGN_OR_RAISE(PrimaryKeyEncoder enc,
                          PrimaryKeyEncoder::Make(*contents.batches[0]->schema(), primary_key));
    PrimaryKeyBloomFilter bloom(static_cast<int64_t>(contents.newest.size()));
    for (const auto& b : contents.batches) {
      LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc.KeyColumns(*b));
      for (int64_t r = 0; r < b->num_rows(); ++r) LANCE_RETURN_NOT_OK(bloom.Insert(cols, r));
    }
    LANCE_RETURN_NOT_OK(staged.Put(loc.Path("bloom_filter.bin"), bloom.Serialize()));
  }
  LANCE_RETURN_NOT_OK(CommitGeneration(loc, staged, contents, !primary_key.empty(), options));
  g.in_memory_bytes = static_cast<uint64_t>(contents.bytes);
  g.physical_rows = static_cast<uint64_t>(contents.num_rows);
  return g;
}

Result<MaintainedIndexes> MaintainedIndexesOf(const table::Snapshot& base) {
  Result<MemWalIndexDetails> details = ReadMemWalDetails(base);
  if (!details.ok()) {
    if (details.status().IsNotFound()) return MaintainedIndexes{};
    return details.status();
  }
  MaintainedIndexes out;
  for (const std::string& name : details->maintained_indexes) {
    const table::IndexInfo* found = nullptr;
    for (const auto& idx : base.manifest().indices) {
      if (idx.name == name) found = &idx;
    }
    if (found == nullptr) {
      out.not_built.push_back(fmt::format("{}: version {} has no index of that name", name, base.version()));
      continue;
    }
    LANCE_ASSIGN_OR_RAISE(std::string column,
                          index::KeyedColumn(base.manifest(), *found, base.manifest_path()));
    if (index::vector::MergedOnOptimize(*found)) {
      // An IVF index of any kind: each generation gets what lance 12's flush writes for it (seen
      // for IVF_PQ): an IVF_HNSW_SQ of the base index's metric, one partition with a zero
      // centroid, 8-bit SQ bounds and HNSW graph (m 16, ef_construction 100, 7 levels) of the
      // generation's own rows.
      // Its metric from index.idx alone (not the whole index loaded); its dimension the column's.
      LANCE_ASSIGN_OR_RAISE(index::vector::IvfIndexHeader header,
                            index::vector::ReadIvfIndexHeader(index::OpenIndexStore(base.location(), *found)));
      const FieldPtr field = base.schema()->GetFieldByName(column);
      if (!field || field->type()->id() != TypeId::kFixedSizeList) {
        return Status::Corruption("{}: maintained vector index '{}' keys column '{}', not a fixed_size_list",
                                  base.manifest_path(), name, column);
      }
      index::vector::IvfBuildOptions v;
      v.kind = index::vector::IndexKind::kIvfHnswSq;
      v.metric = header.metric;
      v.num_partitions = 1;
      v.centroids = std::vector<float>(static_cast<size_t>(field->type()->list_size()), 0.0f);
      v.hnsw_m = 16;
      v.ef_construction = 100;
      v.max_level = 7;
      v.name = name;
      MaintainedIndex vector;
      vector.name = name;
      vector.column = std::move(column);
      vector.vector = std::move(v);
      out.built.push_back(std::move(vector));
      continue;
    }
    // Every scalar type is built in each generation, as lance 12 does: its full-text search
    // over a generation without the INVERTED index it maintains misses the generation's rows
    // (seen: it returns none of them), so skipping one would make wrong answers.
    Result<index::scalar::CreateScalarIndexOptions> opts = index::scalar::OptionsOfIndex(base, *found);
    if (!opts.ok()) {
      if (opts.status().IsNotSupported()) {
        return Status::NotSupported("{}: maintained index '{}' is {}; a flush builds only scalar and IVF "
                                    "vector indexes in generations (readers such as lance 12 would miss the "
                                    "generation's rows in searches through it)",
                                    base.manifest_path(), name, table::IndexTypeName(*found));
      }
      return opts.status().WithContext(fmt::format("{}: maintained index '{}'", base.manifest_path(), name));
    }
    MaintainedIndex scalar;
    scalar.name = name;
    scalar.column = std::move(column);
    scalar.options = std::move(*opts);
    out.built.push_back(std::move(scalar));
  }
  return out;
}

Result<std::shared_ptr<table::Snapshot>> OpenGeneration(const std::shared_ptr<io::ObjectStore>& store,
                                                        const std::string& root, const Uuid& shard,
                                                        const FlushedGeneration& generation) {
  return table::Snapshot::Open(store, ShardDirectory(root, shard) + "/" + generation.path);
}

}  // namespace lance::memwal
