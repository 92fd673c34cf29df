// RemapScalarIndex (remap.h): a compacted table's scalar index segment rewritten with the rows'
// new addresses.
#include "lance/index/scalar/remap.h"

#include <charconv>
#include <map>

#include "index/scalar/bitmap_lookup.h"
#include "lance/columnar/builder.h"
#include "lance/columnar/compute.h"
#include "lance/index/scalar/bitmap.h"
#include "lance/index/scalar/btree.h"
#include "lance/index/scalar/label_list.h"
#include "lance/index/scalar/ngram.h"
#include "lance/index/scalar/value.h"

namespace lance::index::scalar {

void RowAddressMap::SetFragment(uint32_t fragment, std::vector<uint64_t> new_addresses) {
  moved_[fragment] = std::move(new_addresses);
}

uint64_t RowAddressMap::Map(uint64_t address) const {
  auto it = moved_.find(static_cast<uint32_t>(address >> 32));
  if (it == moved_.end()) return address;
  const uint64_t offset = address & 0xffffffffULL;
  return offset < it->second.size() ? it->second[offset] : kRemoved;
}

RowSet RowAddressMap::Map(const RowSet& rows) const {
  std::vector<uint32_t> kept, partial;
  RowSet out;
  std::vector<uint64_t> mapped;
  for (uint32_t f : rows.Fragments()) {
    auto it = moved_.find(f);
    if (it == moved_.end()) {
      kept.push_back(f);
    } else if (rows.IsFull(f)) {
      // Every row of the old fragment: wherever its rows went.
      for (uint64_t a : it->second) {
        if (a != kRemoved) mapped.push_back(a);
      }
    } else {
      partial.push_back(f);
    }
  }
  if (!kept.empty()) {
    out = rows;
    out.RetainFragments(kept);
  }
  if (!partial.empty()) {
    RowSet moving = rows;
    moving.RetainFragments(partial);
    for (uint64_t a : moving.ToVector()) {
      const uint64_t n = Map(a);
      if (n != kRemoved) mapped.push_back(n);
    }
  }
  out.InsertMany(mapped.data(), mapped.size());
  return out;
}

bool RemappedOnCompaction(const table::IndexInfo& info) {
  const std::string type = table::IndexTypeName(info);
  return type == "BTREE" || type == "BITMAP" || type == "LABEL_LIST" || type == "NGRAM";
}

bool RetrainedOnCompaction(const table::IndexInfo& info) {
  const std::string type = table::IndexTypeName(info);
  return type == "ZONEMAP" || type == "BLOOMFILTER";
}

namespace {

// BTREE: the (value, address) pairs of page_data.lance remapped, then written as a new BTree
// with the old page size (lance 12 re-cuts the pages and rewrites the lookup the same way).
Result<TrainedIndex> RemapBTree(IndexStore& from, IndexStore& to, const RowAddressMap& map) {
  LANCE_ASSIGN_OR_RAISE(auto lookup, from.OpenFile(kBTreeLookupFile));
  int64_t batch_size = kBTreeDefaultBatchSize;
  if (const auto& meta = lookup->schema()->metadata()) {
    if (auto bs = meta->Get("batch_size")) {
      int64_t v = 0;
      auto [p, ec] = std::from_chars(bs->data(), bs->data() + bs->size(), v);
      if (ec != std::errc() || p != bs->data() + bs->size() || v <= 0) {
        return Status::Corruption("{}: batch_size = '{}' (expected a positive integer)",
                                  from.DisplayPathOf(kBTreeLookupFile), *bs);
      }
      batch_size = v;
    }
    if (auto rp = meta->Get("range_partitioned"); rp && *rp != "false") {
      // A layout of several page files this library neither reads nor writes: left as it is.
      return Status::NotSupported("{}: range_partitioned = '{}'", from.DisplayPathOf(kBTreeLookupFile), *rp);
    }
  }
  LANCE_ASSIGN_OR_RAISE(auto pages, from.OpenFile(kBTreePagesFile));
  const auto& schema = pages->schema();
  if (schema->num_fields() != 2 || schema->field(1)->type()->id() != TypeId::kUInt64) {
    return Status::Corruption("{}: expected the columns values and ids (uint64), got {}",
                              from.DisplayPathOf(kBTreePagesFile), schema->ToString());
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr all, pages->ReadAll());
  const ArrayPtr& values = all->column(0);
  const ArrayPtr& ids = all->column(1);
  if (ids->null_count > 0) {
    return Status::Corruption("{}: null row ids", from.DisplayPathOf(kBTreePagesFile));
  }
  const uint64_t* old_ids = ids->Values<uint64_t>();
  TrainingData data;
  data.type = values->type;
  std::vector<int64_t> keep;
  keep.reserve(static_cast<size_t>(all->num_rows()));
  data.row_ids.reserve(static_cast<size_t>(all->num_rows()));
  for (int64_t i = 0; i < all->num_rows(); ++i) {
    const uint64_t n = map.Map(old_ids[i]);
    if (n == RowAddressMap::kRemoved) continue;
    keep.push_back(i);
    data.row_ids.push_back(n);
  }
  if (keep.size() == static_cast<size_t>(values->length)) {
    data.values.push_back(values);
  } else {
    LANCE_ASSIGN_OR_RAISE(ArrayPtr kept, TakeArray(values, keep));
    data.values.push_back(std::move(kept));
  }
  BTreeTrainOptions options;
  options.batch_size = batch_size;
  return TrainBTreeIndex(to, data, options);
}

// BITMAP and LABEL_LIST: every key's row set remapped; a label list's null lists too.
Result<TrainedIndex> RemapBitmapFile(IndexStore& from, IndexStore& to, const RowAddressMap& map,
                                     bool label_list) {
  LANCE_ASSIGN_OR_RAISE(auto reader, from.OpenFile(kBitmapFile));
  const std::string path = from.DisplayPathOf(kBitmapFile);
  const auto& schema = reader->schema();
  if (schema->num_fields() != 2 || !schema->field(1)->type()->is_binary_like()) {
    return Status::Corruption("{}: expected the columns keys and bitmaps (binary), got {}", path,
                              schema->ToString());
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr all, reader->ReadAll());
  const Array& keys = *all->column(0);
  const Array& bitmaps = *all->column(1);
  std::map<ScalarValue, RowSet, ScalarValueLess> groups;
  for (int64_t i = 0; i < all->num_rows(); ++i) {
    RowSet rows;
    if (!bitmaps.IsNull(i)) {
      LANCE_ASSIGN_OR_RAISE(rows, RowSet::Deserialize(bitmaps.GetView(i), path));
    }
    groups[ValueAt(keys, i)] = map.Map(rows);
  }
  std::vector<std::pair<std::string, std::string>> extra;
  std::string nulls;
  if (label_list) {
    RowSet list_nulls;
    const auto& meta = schema->metadata();
    if (auto idx = meta ? meta->Get(kLabelListNullsKey) : std::nullopt) {
      int buffer = 0;
      auto [p, ec] = std::from_chars(idx->data(), idx->data() + idx->size(), buffer);
      if (ec != std::errc() || p != idx->data() + idx->size() || buffer <= 0 ||
          buffer >= reader->num_global_buffers()) {
        return Status::Corruption("{}: {} = '{}' (expected a global buffer index below {})", path,
                                  kLabelListNullsKey, *idx, reader->num_global_buffers());
      }
      LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, reader->ReadGlobalBuffer(buffer));
      LANCE_ASSIGN_OR_RAISE(list_nulls, RowSet::Deserialize(bytes->view(), path + " list nulls"));
    }
    nulls = map.Map(list_nulls).Serialize();
    extra.emplace_back(kLabelListNullsKey, "1");
  }
  LANCE_ASSIGN_OR_RAISE(int64_t size, WriteBitmapLookup(to, kBitmapFile, keys.type, groups, extra,
                                                        label_list ? &nulls : nullptr));
  TrainedIndex out;
  out.type_name = label_list ? "LABEL_LIST" : "BITMAP";
  out.details_type_url = label_list ? "/lance.table.LabelListIndexDetails" : "/lance.table.BitmapIndexDetails";
  out.index_version = label_list ? 1 : 0;
  out.files = {{kBitmapFile, static_cast<uint64_t>(size)}};
  return out;
}

// NGRAM: every token's posting list remapped (the tokens and the file's schema kept).
Result<TrainedIndex> RemapNGram(IndexStore& from, IndexStore& to, const RowAddressMap& map) {
  LANCE_ASSIGN_OR_RAISE(auto reader, from.OpenFile(kNGramFile));
  const std::string path = from.DisplayPathOf(kNGramFile);
  const auto& schema = reader->schema();
  if (schema->num_fields() != 2 || schema->field(0)->type()->id() != TypeId::kUInt32 ||
      !schema->field(1)->type()->is_binary_like()) {
    return Status::Corruption("{}: expected the columns tokens (uint32) and posting_list (binary), got {}",
                              path, schema->ToString());
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr all, reader->ReadAll());
  const Array& lists = *all->column(1);
  BinaryBuilder out_lists(binary());
  for (int64_t i = 0; i < all->num_rows(); ++i) {
    if (lists.IsNull(i)) return Status::Corruption("{}: null posting list at row {}", path, i);
    LANCE_ASSIGN_OR_RAISE(RowSet rows, RowSet::DeserializeTreemap(lists.GetView(i), path));
    LANCE_RETURN_NOT_OK(out_lists.Append(map.Map(rows).SerializeTreemap()));
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr list_arr, out_lists.Finish());
  return WriteNGramPostings(to, schema, all->column(0), std::move(list_arr));
}

}  // namespace

Result<TrainedIndex> RemapScalarIndex(const table::IndexInfo& info, IndexStore& from, IndexStore& to,
                                      const RowAddressMap& map) {
  const std::string type = table::IndexTypeName(info);
  Result<TrainedIndex> out = Status::NotSupported("index '{}': a {} index is not remapped", info.name, type);
  if (type == "BTREE") out = RemapBTree(from, to, map);
  if (type == "BITMAP") out = RemapBitmapFile(from, to, map, false);
  if (type == "LABEL_LIST") out = RemapBitmapFile(from, to, map, true);
  if (type == "NGRAM") out = RemapNGram(from, to, map);
  return out;
}

}  // namespace lance::index::scalar
