#include "lance/memwal/generation.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "lance/columnar/builder.h"
#include "lance/columnar/compute.h"
#include "lance/file/file_writer.h"
#include "lance/memwal/bloom_filter.h"
#include "lance/memwal/layout.h"
#include "lance/table/write.h"

namespace lance::memwal {

namespace {

std::string Random8() {
  const std::string hex = Uuid::RandomV4().ToString();
  return hex.substr(0, 8);
}

Result<ArrayPtr> U64Array(const std::vector<uint64_t>& v) {
  NumericBuilder<uint64_t> b(uint64());
  LANCE_RETURN_NOT_OK(b.AppendValues(v.data(), static_cast<int64_t>(v.size())));
  return b.Finish();
}

Result<ArrayPtr> U32Array(const std::vector<uint32_t>& v) {
  NumericBuilder<uint32_t> b(uint32());
  LANCE_RETURN_NOT_OK(b.AppendValues(v.data(), static_cast<int64_t>(v.size())));
  return b.Finish();
}

Status WriteLanceFile(const std::shared_ptr<io::ObjectStore>& store, const std::string& path,
                      const RecordBatchPtr& batch) {
  file::WriteOptions o;
  o.version = {2, 1};
  LANCE_ASSIGN_OR_RAISE(auto w, file::FileWriter::Open(store, path, batch->schema(), o));
  LANCE_RETURN_NOT_OK(w->Write(*batch));
  return w->Finish().status();
}

// _pk_index/page_data.lance and page_lookup.lance of a single-column key.
Status WritePkIndex(const std::shared_ptr<io::ObjectStore>& store, const std::string& dir,
                    const MemTable::Contents& c, const std::string& key_column) {
  std::vector<ArrayPtr> pieces;
  for (const auto& b : c.batches) pieces.push_back(b->GetColumnByName(key_column));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr keys, Concatenate(pieces));
  LANCE_ASSIGN_OR_RAISE(PrimaryKeyEncoder enc,
                        PrimaryKeyEncoder::Make(*c.batches[0]->schema(), {key_column}));
  const std::vector<ArrayPtr> cols{keys};
  std::vector<std::string> encoded(static_cast<size_t>(keys->length));
  for (int64_t r = 0; r < keys->length; ++r) enc.Encode(cols, r, &encoded[static_cast<size_t>(r)]);
  std::vector<int64_t> order(encoded.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return encoded[static_cast<size_t>(a)] < encoded[static_cast<size_t>(b)];
  });
  LANCE_ASSIGN_OR_RAISE(ArrayPtr values, TakeArray(keys, order));
  std::vector<uint64_t> ids(order.begin(), order.end());
  LANCE_ASSIGN_OR_RAISE(ArrayPtr id_array, U64Array(ids));
  const DataTypePtr& kt = keys->type;
  auto data_schema = std::make_shared<Schema>(std::vector<FieldPtr>{
      std::make_shared<Field>("values", kt, true), std::make_shared<Field>("ids", uint64(), false)});
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr data, RecordBatch::Make(data_schema, values->length,
                                                                {values, id_array}));
  LANCE_RETURN_NOT_OK(WriteLanceFile(store, dir + "/page_data.lance", data));

  // One lookup row per page: min and max of the page's values, its nulls, its number.
  std::vector<int64_t> min_rows, max_rows;
  std::vector<uint32_t> nulls, pages;
  for (int64_t start = 0, page = 0; start < values->length; start += kPkIndexPageRows, ++page) {
    const int64_t end = std::min(values->length, start + kPkIndexPageRows);
    uint32_t n = 0;
    int64_t lo = -1;
    for (int64_t r = start; r < end; ++r) {
      if (values->IsNull(r)) {
        ++n;
      } else if (lo < 0) {
        lo = r;
      }
    }
    // Sorted with nulls first: the page's smallest non-null is its first, the largest its last.
    min_rows.push_back(lo < 0 ? start : lo);
    max_rows.push_back(lo < 0 ? start : end - 1);
    nulls.push_back(n);
    pages.push_back(static_cast<uint32_t>(page));
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr mins, TakeArray(values, min_rows));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr maxs, TakeArray(values, max_rows));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr null_counts, U32Array(nulls));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr page_idx, U32Array(pages));
  auto md = std::make_shared<KeyValueMetadata>(std::vector<std::pair<std::string, std::string>>{
      {"batch_size", std::to_string(kPkIndexPageRows)}, {"range_partitioned", "false"}});
  auto lookup_schema = std::make_shared<Schema>(
      std::vector<FieldPtr>{std::make_shared<Field>("min", kt, true),
                            std::make_shared<Field>("max", kt, true),
                            std::make_shared<Field>("null_count", uint32(), false),
                            std::make_shared<Field>("page_idx", uint32(), false)},
      md);
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr lookup,
                        RecordBatch::Make(lookup_schema, static_cast<int64_t>(pages.size()),
                                          {mins, maxs, null_counts, page_idx}));
  return WriteLanceFile(store, dir + "/page_lookup.lance", lookup);
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
  if (primary_key.size() > 1) {
    return Status::NotSupported("shard {}: flushing a composite primary key ({} columns) needs a "
                                "Binary _pk_index, not implemented",
                                shard.ToString(), primary_key.size());
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
  if (!primary_key.empty() && !contents.superseded.empty()) {
    const uint64_t frag = wr.fragment_ids.empty() ? 0 : wr.fragment_ids[0];
    std::vector<uint64_t> addresses;
    addresses.reserve(contents.superseded.size());
    for (uint32_t r : contents.superseded) addresses.push_back((frag << 32) | r);
    LANCE_RETURN_NOT_OK(
        table::DeleteRowAddresses(loc, std::move(addresses), wr.commit.version, "").status());
  }
  if (!primary_key.empty()) {
    LANCE_RETURN_NOT_OK(WritePkIndex(store, dir + "/_pk_index", contents, primary_key[0]));
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
  g.in_memory_bytes = static_cast<uint64_t>(contents.bytes);
  g.physical_rows = static_cast<uint64_t>(contents.num_rows);
  return g;
}

Result<std::shared_ptr<table::Snapshot>> OpenGeneration(const std::shared_ptr<io::ObjectStore>& store,
                                                        const std::string& root, const Uuid& shard,
                                                        const FlushedGeneration& generation) {
  return table::Snapshot::Open(store, ShardDirectory(root, shard) + "/" + generation.path);
}

}  // namespace lance::memwal
