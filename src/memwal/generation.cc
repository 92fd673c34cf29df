#include "lance/memwal/generation.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/index/index_store.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/create.h"
#include "lance/index/scalar/optimize.h"
#include "lance/memwal/lsm_read.h"
#include "lance/memwal/bloom_filter.h"
#include "lance/memwal/layout.h"
#include "lance/memwal/primary_key.h"
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
Status WritePkIndex(const std::shared_ptr<io::ObjectStore>& store, const std::string& dir,
                    const MemTable::Contents& c, const std::vector<std::string>& primary_key) {
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
  auto index_store = index::IndexStore::Make(store, dir);
  return index::scalar::TrainBTreeIndex(*index_store, data, o).status();
}

// Each maintained index built over the generation `dir` (one fragment, `frag`): every row of
// `c`, row ids = the rows' addresses, committed as a CreateIndex on the generation's latest
// version under the base index's name.
Status WriteMaintainedIndexes(const std::shared_ptr<io::ObjectStore>& store, const std::string& dir,
                              uint64_t frag, const MemTable::Contents& c,
                              const std::vector<MaintainedIndex>& indexes) {
  if (indexes.empty()) return Status::OK();
  LANCE_ASSIGN_OR_RAISE(std::shared_ptr<table::Snapshot> snap, table::Snapshot::Open(store, dir));
  for (const MaintainedIndex& m : indexes) {
    auto rows = [&](const table::Snapshot&, const std::string& column) -> Result<index::scalar::TrainingData> {
      index::scalar::TrainingData data;
      uint64_t row = 0;
      for (const auto& b : c.batches) {
        ArrayPtr a = b->GetColumnByName(column);
        if (!a) {
          return Status::InvalidArgument("{}: maintained index '{}': the generation has no column '{}'", dir,
                                         m.name, column);
        }
        data.type = a->type;
        for (int64_t r = 0; r < a->length; ++r) data.row_ids.push_back((frag << 32) | row++);
        data.values.push_back(std::move(a));
      }
      return data;
    };
    index::scalar::CreateScalarIndexOptions o = m.options;
    o.name = m.name;
    o.replace = false;
    o.commit = {};
    o.fragment_ids.reset();
    LANCE_RETURN_NOT_OK(index::scalar::CreateScalarIndex(*snap, m.column, rows, o).status());
    LANCE_ASSIGN_OR_RAISE(snap, table::Snapshot::Open(store, dir));
  }
  return Status::OK();
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
  table::WriteParams wp;
  wp.mode = table::WriteMode::kCreate;
  wp.data_storage_version = options.data_storage_version.empty() ? "2.2" : options.data_storage_version;
  wp.max_rows_per_file = std::max<int64_t>(contents.num_rows, 1);
  const SchemaPtr& schema = contents.batches[0]->schema();
  LANCE_ASSIGN_OR_RAISE(table::WriteResult wr,
                        table::WriteDataset(loc, schema, contents.batches, wp));
  const uint64_t frag = wr.fragment_ids.empty() ? 0 : wr.fragment_ids[0];
  if (!primary_key.empty() && !contents.superseded.empty()) {
    std::vector<uint64_t> addresses;
    addresses.reserve(contents.superseded.size());
    for (uint32_t r : contents.superseded) addresses.push_back((frag << 32) | r);
    LANCE_RETURN_NOT_OK(
        table::DeleteRowAddresses(loc, std::move(addresses), wr.commit.version, "").status());
  }
  if (!primary_key.empty()) {
    LANCE_RETURN_NOT_OK(WritePkIndex(store, dir + "/_pk_index", contents, primary_key));
    g.primary_key_bytes = KeyBytes(contents, primary_key);
    LANCE_ASSIGN_OR_RAISE(PrimaryKeyEncoder enc,
                          PrimaryKeyEncoder::Make(*contents.batches[0]->schema(), primary_key));
    PrimaryKeyBloomFilter bloom(static_cast<int64_t>(contents.newest.size()));
    for (const auto& b : contents.batches) {
      LANCE_ASSIGN_OR_RAISE(std::vector<ArrayPtr> cols, enc.KeyColumns(*b));
      for (int64_t r = 0; r < b->num_rows(); ++r) LANCE_RETURN_NOT_OK(bloom.Insert(cols, r));
    }
    LANCE_RETURN_NOT_OK(store->Put(dir + "/bloom_filter.bin", bloom.Serialize()));
  }
  LANCE_RETURN_NOT_OK(WriteMaintainedIndexes(store, dir, frag, contents, options.maintained_indexes));
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
    // Every scalar type is built in each generation, as lance 12 does: its full-text search
    // over a generation without the INVERTED index it maintains misses the generation's rows
    // (seen: it returns none of them), so skipping one would make wrong answers.
    Result<index::scalar::CreateScalarIndexOptions> opts = index::scalar::OptionsOfIndex(base, *found);
    if (!opts.ok()) {
      if (opts.status().IsNotSupported()) {
        return Status::NotSupported("{}: maintained index '{}' is {}; a flush builds only scalar indexes in "
                                    "generations (readers such as lance 12 would miss the generation's rows "
                                    "in searches through it)",
                                    base.manifest_path(), name, table::IndexTypeName(*found));
      }
      return opts.status().WithContext(fmt::format("{}: maintained index '{}'", base.manifest_path(), name));
    }
    const SchemaPtr& schema = base.schema();
    const Field* column = nullptr;
    for (int i = 0; i < schema->num_fields(); ++i) {
      if (found->fields.size() == 1 && schema->field(i)->id() == found->fields[0]) column = schema->field(i).get();
    }
    if (column == nullptr) {
      return Status::NotSupported("{}: maintained index '{}' keys fields other than one top-level column",
                                  base.manifest_path(), name);
    }
    out.built.push_back({name, column->name(), std::move(*opts)});
  }
  return out;
}

Result<std::shared_ptr<table::Snapshot>> OpenGeneration(const std::shared_ptr<io::ObjectStore>& store,
                                                        const std::string& root, const Uuid& shard,
                                                        const FlushedGeneration& generation) {
  return table::Snapshot::Open(store, ShardDirectory(root, shard) + "/" + generation.path);
}

}  // namespace lance::memwal
