// Merge-insert (Dataset::MergeInsert, operations.h): hash the source's keys, scan the keys of
// the handle's version once through the query layer (a Scanner of the key columns with
// _rowaddr), then write updated and inserted rows as new fragments (table's fragment writer)
// and delete the replaced rows, all in one Update transaction (table::CommitRowUpdate).

#include <algorithm>
#include <map>
#include <bit>
#include <cstring>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "lance/columnar/json.h"
#include "lance/core/thread_pool.h"
#include "lance/columnar/compute.h"
#include "dataset/guard.h"
#include "lance/dataset/dataset.h"
#include "lance/query/filter.h"
#include "lance/table/feature_flags.h"
#include "lance/table/row_ids.h"
#include "lance/table/row_update.h"
#include "lance/table/snapshot.h"
#include "lance/table/write.h"

namespace lance::dataset {

using internal::Guarded;

namespace {

// For each top-level column of `dataset`, the index of the `input` column of the same name
// (the input's columns may come in any order), -1 for a column the input lacks when
// `allow_missing`. Errors: InvalidArgument, prefixed with `what`, naming the dataset columns
// the input lacks (unless allowed) and the input columns the dataset lacks (each with its
// type), or the first column whose types differ (SameStorageType).
Result<std::vector<int>> MatchColumnsByName(const Schema& dataset, const Schema& input,
                                            const std::string& what, bool allow_missing) {
  std::vector<int> out;
  std::vector<std::string> missing, extra;
  for (const auto& f : dataset.fields()) {
    const int c = input.GetFieldIndex(f->name());
    if (c < 0 && !allow_missing) {
      missing.push_back(fmt::format("'{}' ({})", f->name(), f->type()->ToString()));
    }
    out.push_back(c);
  }
  for (const auto& f : input.fields()) {
    if (dataset.GetFieldIndex(f->name()) < 0) {
      extra.push_back(fmt::format("'{}' ({})", f->name(), f->type()->ToString()));
    }
  }
  if (!missing.empty() || !extra.empty()) {
    std::string msg = fmt::format("{}: the input's columns do not match the dataset's", what);
    if (!missing.empty()) msg += fmt::format("; missing {}", fmt::join(missing, ", "));
    if (!extra.empty()) msg += fmt::format("; not in the dataset {}", fmt::join(extra, ", "));
    return Status::InvalidArgument("{}", msg);
  }
  for (int i = 0; i < dataset.num_fields(); ++i) {
    const int c = out[static_cast<size_t>(i)];
    if (c < 0) continue;
    const auto& f = dataset.field(i);
    const auto& in = input.field(c);
    if (!SameStorageType(*in->type(), *f->type())) {
      return Status::InvalidArgument("{}: input column '{}' is {} but the dataset has {}", what,
                                     f->name(), in->type()->ToString(), f->type()->ToString());
    }
  }
  return out;
}


// Appends an encoding of element i of `a` that is equal for equal values of the same type;
// false for a null (which never matches).
Result<bool> AppendKey(const Array& a, int64_t i, std::string* out) {
  if (a.IsNull(i)) return false;
  const DataType& t = *a.type;
  if (t.is_binary_like() || t.id() == TypeId::kFixedSizeBinary) {
    const std::string_view v = a.GetView(i);
    const uint32_t n = static_cast<uint32_t>(v.size());
    out->append(reinterpret_cast<const char*>(&n), 4);
    out->append(v);
    return true;
  }
  if (t.id() == TypeId::kBool) {
    out->push_back(a.BoolValue(i) ? '\1' : '\0');
    return true;
  }
  const int bits = t.bit_width();
  if (t.is_fixed_width() && bits >= 8 && bits % 8 == 0 && t.id() != TypeId::kDictionary) {
    const int w = bits / 8;
    out->append(reinterpret_cast<const char*>(a.buffers[1]->data()) + (a.offset + i) * w,
                static_cast<size_t>(w));
    return true;
  }
  std::string json;
  LANCE_RETURN_NOT_OK(AppendJsonValue(a, i, &json));
  const uint32_t n = static_cast<uint32_t>(json.size());
  out->append(reinterpret_cast<const char*>(&n), 4);
  out->append(json);
  return true;
}

// Key of row i over `cols`; false when any key column is null.
Result<bool> RowKey(const std::vector<ArrayPtr>& cols, int64_t i, std::string* key) {
  key->clear();
  for (const auto& c : cols) {
    LANCE_ASSIGN_OR_RAISE(bool ok, AppendKey(*c, i, key));
    if (!ok) return false;
  }
  return true;
}

// Whether a key column of type `t` can be hashed by its value bits (FixedKeyIndex): one
// fixed-width value of 1, 2, 4 or 8 bytes (integers, floats by bits as AppendKey does,
// dates, times, timestamps, durations).
bool IsFixedKey(const DataType& t) {
  const int bits = t.bit_width();
  return t.is_fixed_width() && t.id() != TypeId::kBool && t.id() != TypeId::kDictionary &&
         (bits == 8 || bits == 16 || bits == 32 || bits == 64);
}

// The key bits of element i of a fixed-key array (zero-extended to 64 bits).
inline uint64_t KeyBits(const uint8_t* values, int width, int64_t i) {
  uint64_t k = 0;
  std::memcpy(&k, values + i * width, static_cast<size_t>(width));
  return k;
}

// Open-addressing hash table from one fixed-width key to the source row that has it (-1 when
// several do): a probe is a multiply, a shift and usually one cache line, which makes
// probing every dataset row cheap next to decoding it.
class FixedKeyIndex {
 public:
  static constexpr int64_t kAbsent = -2;

  explicit FixedKeyIndex(const Array& keys) : width_(keys.type->bit_width() / 8) {
    int64_t capacity = 16;
    while (capacity < 2 * keys.length) capacity *= 2;
    shift_ = 64 - std::countr_zero(static_cast<uint64_t>(capacity));
    mask_ = static_cast<uint64_t>(capacity - 1);
    slots_.assign(static_cast<size_t>(capacity), Entry{0, kAbsent});
    int64_t filter_bits = 64;
    while (filter_bits < 16 * keys.length && filter_bits < (int64_t{1} << 32)) filter_bits *= 2;
    filter_shift_ = 32 - std::countr_zero(static_cast<uint64_t>(filter_bits));
    filter_.assign(static_cast<size_t>(filter_bits / 64), 0);
    const uint8_t* v = Data(keys);
    for (int64_t i = 0; i < keys.length; ++i) {
      if (keys.IsNull(i)) continue;
      const uint64_t k = KeyBits(v, width_, i);
      uint64_t s = Slot(k);
      while (slots_[s].row != kAbsent && slots_[s].key != k) s = (s + 1) & mask_;
      const uint64_t f = FilterBit(k, filter_shift_);
      filter_[f >> 6] |= uint64_t{1} << (f & 63);
      if (slots_[s].row == kAbsent) {
        slots_[s] = Entry{k, i};
      } else {
        slots_[s].row = -1;
      }
    }
  }
  static const uint8_t* Data(const Array& a) {
    return a.buffers[1]->data() + a.offset * (a.type->bit_width() / 8);
  }
  int width() const { return width_; }
  // False when no source row has key bits `k`; true for them and ~1/16 of the others (one bit
  // per key in 16 bits per key, a few cache lines: most dataset keys stop here).
  bool MayContain(uint64_t k) const { return MayContain(filter_.data(), filter_shift_, k); }
  // The same with the filter's words and shift in the caller's registers (filter(), shift()).
  static bool MayContain(const uint64_t* filter, int shift, uint64_t k) {
    const uint64_t f = FilterBit(k, shift);
    return (filter[f >> 6] >> (f & 63)) & 1;
  }
  // The filter's bit of key bits `k`: the top bits of a 32-bit multiplicative hash of the
  // key's halves folded together (`shift` = 32 - log2(filter bits)). 32 bits, so that eight
  // AVX2 lanes hash with one multiply (FilterBlock64Avx2); the scalar probe uses the same.
  static constexpr uint32_t kFilterMultiplier = 0x9E3779B1u;
  static uint64_t FilterBit(uint64_t k, int shift) {
    const auto folded = static_cast<uint32_t>(k ^ (k >> 32));
    return static_cast<uint32_t>(folded * kFilterMultiplier) >> shift;
  }
  const uint64_t* filter() const { return filter_.data(); }
  int filter_shift() const { return filter_shift_; }
  // The source row with key bits `k`, -1 (several) or kAbsent.
  int64_t Find(uint64_t k) const {
    uint64_t s = Slot(k);
    while (slots_[s].row != kAbsent) {
      if (slots_[s].key == k) return slots_[s].row;
      s = (s + 1) & mask_;
    }
    return kAbsent;
  }

 private:
  uint64_t Slot(uint64_t k) const { return (k * 0x9E3779B97F4A7C15ull) >> shift_; }

  int width_;
  int shift_ = 0;
  uint64_t mask_ = 0;
  struct Entry {  // key and row side by side: a probe touches one cache line
    uint64_t key;
    int64_t row;
  };
  std::vector<Entry> slots_;
  int filter_shift_ = 0;
  std::vector<uint64_t> filter_;
};

#if defined(__x86_64__)
// The rows r of [lo, hi) whose 64-bit key may be in the filter (FixedKeyIndex::MayContain),
// written to `rows` in order; returns how many. Four keys per step: fold, one 32-bit
// multiply, a gather of the four filter words, a variable shift -- ~4 instructions a key
// against ~12 in the scalar loop (the filter test was most of a 10k merge-insert's probe of
// 1M keys).
__attribute__((target("avx2"))) int64_t FilterBlock64Avx2(const uint64_t* keys, int64_t lo,
                                                          int64_t hi, const uint64_t* filter,
                                                          int shift, int32_t* rows) {
  const __m256i mult = _mm256_set1_epi32(static_cast<int32_t>(FixedKeyIndex::kFilterMultiplier));
  const __m256i low32 = _mm256_set1_epi64x(0xffffffffll);
  const __m256i low6 = _mm256_set1_epi64x(63);
  const __m128i right = _mm_cvtsi32_si128(shift);
  int64_t passed = 0;
  int64_t r = lo;
  for (; r + 4 <= hi; r += 4) {
    const __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + r));
    const __m256i folded = _mm256_xor_si256(k, _mm256_srli_epi64(k, 32));
    const __m256i f = _mm256_srl_epi64(_mm256_and_si256(_mm256_mullo_epi32(folded, mult), low32), right);
    const __m256i words = _mm256_i64gather_epi64(reinterpret_cast<const long long*>(filter),
                                                 _mm256_srli_epi64(f, 6), 8);
    const __m256i bits = _mm256_sllv_epi64(words, _mm256_sub_epi64(low6, _mm256_and_si256(f, low6)));
    auto mask = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(bits)));
    for (; mask != 0; mask &= mask - 1) rows[passed++] = static_cast<int32_t>(r + std::countr_zero(mask));
  }
  for (; r < hi; ++r) {
    rows[passed] = static_cast<int32_t>(r);
    passed += FixedKeyIndex::MayContain(filter, shift, keys[r]);
  }
  return passed;
}

bool HasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#endif

// What probing one slice of the dataset's key scan found, in scan order.
struct ProbeResult {
  std::vector<int64_t> matched_src;       // source row of each matched dataset row
  std::vector<int64_t> matched_at;        // row of the slice of each matched dataset row
  std::vector<int64_t> unmatched_at;      // rows of the slice no source row matches (and,
                                          // with a delete condition, where it is TRUE)
  std::vector<char> update;               // per matched row: its update condition is TRUE
  Status status;
};

// Rows of the dataset's key scan per probed slice: the scanner decodes the next slices on the
// pool while one is probed, and each is dropped once probed.
constexpr int64_t kProbeSliceRows = 64 * 1024;

// Whether lance 12 joins the source to the dataset through a scalar index of the key (one key
// column with a BTREE or BITMAP index, or one without details, and no deletion of rows the
// source does not match); if
// so, the fragments those indexes cover.
std::optional<std::set<uint32_t>> KeyIndexedJoin(const table::Manifest& m, const SchemaPtr& schema,
                                                 const MergeInsertParams& params) {
  if (params.on.size() != 1 || params.when_not_matched_by_source == WhenNotMatchedBySource::kDelete) {
    return std::nullopt;
  }
  const FieldPtr key = schema->GetFieldByName(params.on[0]);
  if (!key) return std::nullopt;
  std::optional<std::set<uint32_t>> covered;
  for (const auto& x : m.indices) {
    const std::string type = table::IndexTypeName(x);
    // An index without details (lance before 0.19.3) on a scalar key is a BTREE or BITMAP one
    // (vectordb 0.4.20's BTree on an int64 key: lance 12 joins through it).
    const bool scalar = type == "BTREE" || type == "BITMAP" || (type.empty() && !key->type()->is_nested());
    if (x.fields != std::vector<int32_t>{key->id()} || !scalar) continue;
    if (!covered) covered.emplace();
    covered->insert(x.fragment_ids.begin(), x.fragment_ids.end());
  }
  return covered;
}

// `rows` (and `ids`, when given) put in `order` (positions into them).
template <typename T>
void Reorder(const std::vector<size_t>& order, std::vector<T>* v) {
  std::vector<T> r(order.size());
  for (size_t i = 0; i < order.size(); ++i) r[i] = (*v)[order[i]];
  *v = std::move(r);
}

// The merge of `batches` (all of `in_schema`) into the snapshot `ds`.
Result<MergeInsertResult> MergeRows(const std::shared_ptr<const table::Snapshot>& ds,
                                    const SchemaPtr& in_schema,
                                    const std::vector<RecordBatchPtr>& batches,
                                    const MergeInsertParams& params, ThreadPool* pool) {
  if (params.on.empty()) return Status::InvalidArgument("merge-insert: no key column (on)");
  const table::Manifest& tm = ds->manifest();
  LANCE_RETURN_NOT_OK(table::CheckCanWrite(tm.reader_feature_flags, tm.writer_feature_flags,
                                           ds->manifest_path()));
  LANCE_ASSIGN_OR_RAISE(const file::FileVersion file_version,
                        table::WritableFileVersion(tm.data_storage_version));
  // lance 12 compares the input's schema with the dataset's dictionaries included, and an
  // input never carries the dictionary values a legacy-storage (v1 files) manifest stores for
  // a field, so it refuses every merge-insert into such a table (append and update take
  // another path and accept the same rows). Refuse as it does, with its words.
  if (file_version.is_v1()) {
    for (const auto& f : tm.fields) {
      if (!f.legacy_dictionary) continue;
      return Status::InvalidArgument(
          "merge-insert into {}: the input's schema does not match the dataset's: dictionary "
          "for `{}` did not match expected dictionary (lance 12 refuses merge-inserts into a "
          "legacy-storage dataset with a dictionary column; append or update instead)",
          ds->location().display(), f.name);
    }
  }
  const SchemaPtr& schema = ds->schema();

  // The source, columns matched by name and put in the dataset's order. The input may lack
  // columns other than the keys (a partial-schema source, as lance 12 accepts): an updated row
  // keeps the dataset row's values for them, an inserted row gets nulls, so inserting needs
  // them nullable (lance 12 refuses the same, before looking at the rows).
  LANCE_ASSIGN_OR_RAISE(std::vector<int> by_name,
                        MatchColumnsByName(*schema, *in_schema, "merge-insert", true));
  std::vector<int> missing;  // dataset columns the input lacks
  for (int i = 0; i < schema->num_fields(); ++i) {
    if (by_name[static_cast<size_t>(i)] >= 0) continue;
    const auto& f = schema->field(i);
    if (std::find(params.on.begin(), params.on.end(), f->name()) != params.on.end()) {
      return Status::InvalidArgument("merge-insert: the input lacks the key column '{}' ({})",
                                     f->name(), f->type()->ToString());
    }
    missing.push_back(i);
  }
  if (params.when_not_matched == WhenNotMatched::kInsert) {
    std::vector<std::string> required;
    for (int i : missing) {
      if (!schema->field(i)->nullable()) required.push_back(fmt::format("'{}'", schema->field(i)->name()));
    }
    if (!required.empty()) {
      return Status::InvalidArgument(
          "merge-insert: the input lacks the dataset's non-nullable column(s) {}, which inserted "
          "rows would need; add them to the input or do nothing for rows without a match "
          "(when not matched: nothing)",
          fmt::format("{}", fmt::join(required, ", ")));
    }
  }
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr in_all, ConcatenateBatches(in_schema, batches));
  std::vector<ArrayPtr> src_cols;
  std::vector<FieldPtr> given_fields;  // the dataset's fields the input has, in its order
  std::vector<int> given;              // their positions in the dataset
  for (int i = 0; i < schema->num_fields(); ++i) {
    const auto& f = schema->field(i);
    const int c = by_name[static_cast<size_t>(i)];
    if (c < 0) {
      // Placeholder nulls: replaced by the dataset row's values for updated rows (FillMissing).
      LANCE_ASSIGN_OR_RAISE(ArrayPtr nulls, MakeArrayOfNulls(f->type(), in_all->num_rows()));
      src_cols.push_back(std::move(nulls));
      continue;
    }
    given_fields.push_back(f);
    given.push_back(i);
    if (!f->nullable() && in_all->column(c)->null_count > 0) {
      return Status::InvalidArgument("merge-insert: column '{}' is not nullable but the input has "
                                     "{} nulls",
                                     f->name(), in_all->column(c)->null_count);
    }
    src_cols.push_back(Relabel(in_all->column(c), f->type()));
  }
  const int64_t n_src = in_all->num_rows();
  RecordBatch source(schema, n_src, src_cols);
  std::vector<ArrayPtr> src_keys;
  for (const auto& k : params.on) {
    const int c = schema->GetFieldIndex(k);
    if (c < 0) return Status::InvalidArgument("merge-insert: no key column '{}' in the dataset", k);
    src_keys.push_back(src_cols[static_cast<size_t>(c)]);
  }

  // The conditions, both on the query layer's filter engine. The update condition filters the
  // joined batch of matched pairs: two struct columns, `target` and `source`, each with the
  // dataset's columns, so `target.score` and `source.score` (lance 12's qualified names)
  // resolve as struct fields and a bare `score` is unknown. The delete condition filters the
  // version's rows (query::FindMatches below).
  std::shared_ptr<const query::Filter> update_where;
  bool delete_where = false;
  DataTypePtr row_type;
  SchemaPtr joined;
  if (!params.when_matched_update_where.empty()) {
    if (params.when_matched != WhenMatched::kUpdateAll) {
      return Status::InvalidArgument("merge-insert: an update condition ({}) needs matched rows "
                                     "to be updated (when matched: update)",
                                     params.when_matched_update_where);
    }
    row_type = struct_(schema->fields());
    joined = std::make_shared<Schema>(std::vector<FieldPtr>{
        field("target", row_type, false), field("source", struct_(given_fields), false)});
    auto bound = query::Filter::MakeForBatch(params.when_matched_update_where, joined);
    if (!bound.ok()) {
      return Status::InvalidArgument("merge-insert: update condition (name the dataset's columns "
                                     "target.COL and the input's source.COL): {}",
                                     bound.status().message());
    }
    update_where = *bound;
  }
  if (!params.when_not_matched_by_source_delete_where.empty()) {
    if (params.when_not_matched_by_source != WhenNotMatchedBySource::kDelete) {
      return Status::InvalidArgument("merge-insert: a delete condition ({}) needs rows not matched "
                                     "by the input to be deleted (when not matched by source: "
                                     "delete)",
                                     params.when_not_matched_by_source_delete_where);
    }
    auto bound = query::Filter::Make(params.when_not_matched_by_source_delete_where, schema);
    if (!bound.ok()) {
      return Status::InvalidArgument("merge-insert: delete condition: {}", bound.status().message());
    }
    delete_where = true;
  }

  // Hash the source keys: key -> the source row; -1 marks a key given twice.
  const bool fixed_key = src_keys.size() == 1 && IsFixedKey(*src_keys[0]->type);
  std::optional<FixedKeyIndex> fixed_index;
  std::unordered_map<std::string, int64_t> index;
  if (fixed_key) {
    fixed_index.emplace(*src_keys[0]);
  } else {
    index.reserve(static_cast<size_t>(n_src) * 2);
    std::string key;
    for (int64_t i = 0; i < n_src; ++i) {
      LANCE_ASSIGN_OR_RAISE(bool ok, RowKey(src_keys, i, &key));
      if (!ok) continue;
      auto [it, fresh] = index.emplace(key, i);
      if (!fresh) it->second = -1;
    }
  }

  // Probe with the dataset's keys: the query layer's scan of the key columns (every column
  // after them with an update condition), _rowid with stable row ids, and _rowaddr, in
  // batches of a probe slice, probed on every core.
  const bool stable = (tm.reader_feature_flags & table::kFlagStableRowIds) != 0;
  query::ScanOptions so;
  so.columns = params.on;
  std::vector<int> scan_pos(static_cast<size_t>(schema->num_fields()), -1);
  for (size_t k = 0; k < params.on.size(); ++k) {
    scan_pos[static_cast<size_t>(schema->GetFieldIndex(params.on[k]))] = static_cast<int>(k);
  }
  if (update_where) {
    for (int i = 0; i < schema->num_fields(); ++i) {
      if (scan_pos[static_cast<size_t>(i)] >= 0) continue;
      scan_pos[static_cast<size_t>(i)] = static_cast<int>(so.columns.size());
      so.columns.push_back(schema->field(i)->name());
    }
  }
  const size_t n_scan_cols = so.columns.size();
  if (stable) so.columns.push_back(query::kRowIdColumn);
  // Without stable row ids, deletions or conditions (which read the scan's _rowaddr), a row's
  // address follows from its place in the scan: the fragments in manifest order, each one's
  // rows in order, a batch never spanning two (the scan's read units are one fragment's). The
  // scan then reads the keys alone: _rowaddr for every row (8 MB at 1M rows, ~5 % of a 10k
  // merge-insert) was written for the few matched rows that need it.
  bool positional = !stable && !update_where && !delete_where;
  for (const auto& f : tm.fragments) positional = positional && !f.deletion;
  if (!positional) so.columns.push_back(query::kRowAddrColumn);
  so.batch_size = kProbeSliceRows;
  so.use_index = false;
  so.pool = pool;
  LANCE_ASSIGN_OR_RAISE(auto scanner, query::Scanner::Make(ds, std::move(so)));
  LANCE_ASSIGN_OR_RAISE(auto reader, scanner.ToReader());
  const size_t nk = params.on.size();
  // Positional addresses: the fragment (index into tm.fragments) and row the next batch
  // starts at; `first_address` the address of the current batch's row 0.
  size_t at_fragment = 0;
  uint64_t at_row = 0;
  uint64_t first_address = 0;
  auto start_batch = [&](const RecordBatch& b) -> Status {
    if (!positional) return Status::OK();
    while (at_fragment < tm.fragments.size() && at_row == tm.fragments[at_fragment].physical_rows) {
      ++at_fragment;
      at_row = 0;
    }
    const auto n = static_cast<uint64_t>(b.num_rows());
    if (at_fragment == tm.fragments.size() ||
        n > tm.fragments[at_fragment].physical_rows - at_row) {
      return Status::Internal("merge-insert: the key scan's batch of {} rows does not fit "
                              "fragment {} at row {}", n,
                              at_fragment < tm.fragments.size() ? tm.fragments[at_fragment].id : 0,
                              at_row);
    }
    first_address = tm.fragments[at_fragment].id << 32 | at_row;
    at_row += n;
    return Status::OK();
  };
  auto address = [&](const RecordBatch& b, int64_t r) -> uint64_t {
    if (positional) return first_address + static_cast<uint64_t>(r);
    return b.column(b.num_columns() - 1)->Values<uint64_t>()[r];
  };
  // The rows the delete condition holds for, found by the query layer's filter engine over
  // the version's rows: per fragment id, the sorted row offsets.
  std::unordered_map<uint64_t, std::vector<uint32_t>> delete_true;
  if (delete_where) {
    query::ScanOptions fo;
    fo.filter = params.when_not_matched_by_source_delete_where;
    fo.use_index = false;
    fo.pool = pool;
    LANCE_ASSIGN_OR_RAISE(auto matches, query::FindMatches(ds, fo));
    for (auto& m : matches) delete_true[m.fragment_id] = std::move(m.rows);
  }
  auto delete_holds = [&](uint64_t addr) {
    auto it = delete_true.find(addr >> 32);
    return it != delete_true.end() &&
           std::binary_search(it->second.begin(), it->second.end(),
                              static_cast<uint32_t>(addr & 0xffffffffULL));
  };
  const bool want_unmatched = params.when_not_matched_by_source == WhenNotMatchedBySource::kDelete;
  // Narrows the probe of slice `b` by the conditions: unmatched rows to those the delete
  // condition holds for, and marks which matched rows the update condition holds for.
  auto ApplyConditions = [&](const RecordBatch& b, ProbeResult* pr) -> Status {
    if (delete_where && !pr->unmatched_at.empty()) {
      const uint64_t* addr = b.column(b.num_columns() - 1)->Values<uint64_t>();
      std::vector<int64_t> kept;
      for (int64_t r : pr->unmatched_at) {
        if (delete_holds(addr[r])) kept.push_back(r);
      }
      pr->unmatched_at = std::move(kept);
    }
    if (!update_where || pr->matched_at.empty()) return Status::OK();
    pr->update.assign(pr->matched_at.size(), 0);
    // An ambiguous match is reported by the caller; the condition is not evaluated then.
    for (int64_t src : pr->matched_src) {
      if (src < 0) return Status::OK();
    }
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr target, TakeRows(b, pr->matched_at));
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr src, TakeRows(source, pr->matched_src));
    const int64_t n = target->num_rows();
    std::vector<ArrayPtr> target_cols;
    for (int i = 0; i < schema->num_fields(); ++i) {
      target_cols.push_back(target->column(scan_pos[static_cast<size_t>(i)]));
    }
    std::vector<ArrayPtr> source_cols;
    for (int i : given) source_cols.push_back(src->column(i));
    RecordBatch pair(joined, n,
                     {Array::Make(row_type, n, {nullptr}, std::move(target_cols)),
                      Array::Make(joined->field(1)->type(), n, {nullptr}, std::move(source_cols))});
    LANCE_ASSIGN_OR_RAISE(std::vector<int64_t> holds, update_where->EvaluateBatch(pair));
    for (int64_t i : holds) pr->update[static_cast<size_t>(i)] = 1;
    return Status::OK();
  };
  // Probes one slice of the key scan. The slices stream: each is probed on this thread while
  // the scanner decodes the next ones on the pool, and is dropped once its matches are taken,
  // so the key scan's memory is a few slices, reused, not the whole key column (whose fresh
  // pages cost a fault each).
  auto probe_slice = [&](const RecordBatch& b, ProbeResult& pr) {
    auto found = [&](int64_t r, int64_t src) {
      if (src == FixedKeyIndex::kAbsent) {
        if (want_unmatched) pr.unmatched_at.push_back(r);
      } else {
        pr.matched_src.push_back(src);
        pr.matched_at.push_back(r);
      }
    };
    if (fixed_key) {
      const Array& k = *b.column(0);
      const uint8_t* v = FixedKeyIndex::Data(k);
      // One loop per key width: the key is a typed load (no copy of w bytes per row), and
      // the validity test only when the slice has nulls.
      // Locals, so the loop keeps them in registers across the pushes.
      const FixedKeyIndex& idx = *fixed_index;
      const bool unmatched = want_unmatched;
      const bool nulls = k.null_count > 0;
      const uint64_t* const filter = idx.filter();
      const int filter_shift = idx.filter_shift();
      auto probe = [&]<typename T>() {
        const T* keys = reinterpret_cast<const T*>(v);
        const int64_t n = b.num_rows();
        if (!unmatched) {
          // Only the matches are wanted: the filter first, without a branch, over a block of
          // rows (most keys of the dataset are not in the input), then the table for the rows
          // it lets through. (Copies of the filter's words and shift: the stores of the row
          // numbers could otherwise be writes to them, as far as the compiler knows.)
          const uint64_t* const words = filter;
          const int shift = filter_shift;
          constexpr int64_t kBlock = 1024;
          int32_t rows[kBlock];
          for (int64_t lo = 0; lo < n; lo += kBlock) {
            const int64_t hi = std::min(n, lo + kBlock);
            int64_t passed = 0;
            auto filter_block = [&] {
              for (int64_t r = lo; r < hi; ++r) {
                rows[passed] = static_cast<int32_t>(r);
                passed += FixedKeyIndex::MayContain(words, shift, static_cast<uint64_t>(keys[r]));
              }
            };
#if defined(__x86_64__)
            if constexpr (sizeof(T) == 8) {
              if (HasAvx2()) {
                passed = FilterBlock64Avx2(keys, lo, hi, words, shift, rows);
              } else {
                filter_block();
              }
            } else {
              filter_block();
            }
#else
            filter_block();
#endif
            for (int64_t i = 0; i < passed; ++i) {
              const int64_t r = rows[i];
              if (nulls && !k.IsValid(r)) continue;
              const int64_t src = idx.Find(static_cast<uint64_t>(keys[r]));
              if (src == FixedKeyIndex::kAbsent) continue;
              pr.matched_src.push_back(src);
              pr.matched_at.push_back(r);
            }
          }
          return;
        }
        for (int64_t r = 0; r < n; ++r) {  // every row is a match or not
          const uint64_t key = static_cast<uint64_t>(keys[r]);
          const bool maybe = FixedKeyIndex::MayContain(filter, filter_shift, key);
          const int64_t src = (nulls && !k.IsValid(r)) || !maybe ? FixedKeyIndex::kAbsent : idx.Find(key);
          if (src != FixedKeyIndex::kAbsent) {
            pr.matched_src.push_back(src);
            pr.matched_at.push_back(r);
          } else {
            pr.unmatched_at.push_back(r);
          }
        }
      };
      switch (fixed_index->width()) {
        case 1: probe.operator()<uint8_t>(); break;
        case 2: probe.operator()<uint16_t>(); break;
        case 4: probe.operator()<uint32_t>(); break;
        default: probe.operator()<uint64_t>(); break;
      }
    } else {
      std::vector<ArrayPtr> keys(b.columns().begin(), b.columns().begin() + static_cast<std::ptrdiff_t>(nk));
      std::string key;
      for (int64_t r = 0; r < b.num_rows(); ++r) {
        auto ok = RowKey(keys, r, &key);
        if (!ok.ok()) {
          pr.status = ok.status();
          return;
        }
        auto it = *ok ? index.find(key) : index.end();
        found(r, it == index.end() ? FixedKeyIndex::kAbsent : it->second);
      }
    }
    pr.status = ApplyConditions(b, &pr);
  };

  std::vector<char> matched(static_cast<size_t>(n_src), 0);
  std::vector<int64_t> updated_rows;   // source rows to write as updates (found in dataset order)
  std::vector<uint64_t> updated_ids;   // their stable row ids
  std::vector<uint64_t> updated_addrs;  // the addresses of the dataset rows they update
  std::vector<uint64_t> deleted;       // row addresses to delete
  MergeInsertResult out;
  while (true) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr slice, reader->Next());
    if (!slice) break;
    const RecordBatch& b = *slice;
    LANCE_RETURN_NOT_OK(start_batch(b));
    ProbeResult pr;
    probe_slice(b, pr);
    LANCE_RETURN_NOT_OK(pr.status);
    const uint64_t* ids = stable ? b.column(static_cast<int>(n_scan_cols))->Values<uint64_t>() : nullptr;
    for (int64_t r : pr.unmatched_at) {
      deleted.push_back(address(b, r));
    }
    out.rows_deleted += pr.unmatched_at.size();
    for (size_t m = 0; m < pr.matched_src.size(); ++m) {
      const int64_t src = pr.matched_src[m];
      const int64_t r = pr.matched_at[m];
      const uint64_t a = address(b, r);
      if (src < 0) {
        return Status::InvalidArgument("merge-insert: several input rows have the key of dataset "
                                       "row {} (address {}); the update would be ambiguous",
                                       r, a);
      }
      matched[static_cast<size_t>(src)] = 1;
      if (params.when_matched == WhenMatched::kUpdateAll && (!update_where || pr.update[m])) {
        updated_rows.push_back(src);
        updated_addrs.push_back(a);
        if (stable) updated_ids.push_back(ids[r]);
        deleted.push_back(a);
        ++out.rows_updated;
      } else if (params.when_matched == WhenMatched::kDelete) {
        deleted.push_back(a);
        ++out.rows_deleted;
      } else if (params.when_matched == WhenMatched::kFail) {
        return Status::InvalidArgument("merge-insert: input row {} matches dataset row {} (address "
                                       "{}) and matched rows are set to fail the operation",
                                       src, r, a);
      }
    }
  }
  reader.reset();
  if (positional) {
    while (at_fragment < tm.fragments.size() && at_row == tm.fragments[at_fragment].physical_rows) {
      ++at_fragment;
      at_row = 0;
    }
    if (at_fragment != tm.fragments.size()) {
      return Status::Internal("merge-insert: the key scan ended at row {} of fragment {}", at_row,
                              tm.fragments[at_fragment].id);
    }
  }
  // The order lance 12 writes the updated rows in (the inserted rows follow in source order),
  // observed on its merge-inserts (tests/interop/table_merge_order.test.mjs): the dataset's
  // row order when it joins through a BTREE or BITMAP index on the one key column (every
  // merge-insert that deletes nothing by source), else the source's order.
  // Through the index: first the matches in fragments it does not cover (which it scans),
  // then those it covers, each in the dataset's order.
  {
    std::vector<size_t> order(updated_rows.size());
    std::iota(order.begin(), order.end(), size_t{0});
    if (const auto covered = KeyIndexedJoin(tm, schema, params)) {
      auto indexed = [&](size_t i) { return covered->count(static_cast<uint32_t>(updated_addrs[i] >> 32)) > 0; };
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return !indexed(a) && indexed(b); });
    } else {
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return updated_rows[a] < updated_rows[b]; });
    }
    Reorder(order, &updated_rows);
    if (stable) Reorder(order, &updated_ids);
    if (!missing.empty()) Reorder(order, &updated_addrs);
  }
  // The dataset's values of the columns a partial source lacks, for the updated rows in the
  // order they are written: one take by row id through the query layer.
  std::vector<ArrayPtr> kept_values;  // per `missing` column
  if (!missing.empty() && !updated_rows.empty()) {
    query::ScanOptions to;
    for (int i : missing) to.columns.push_back(schema->field(i)->name());
    to.use_index = false;
    to.pool = pool;
    LANCE_ASSIGN_OR_RAISE(auto taker, query::Scanner::Make(ds, std::move(to)));
    // Without stable row ids a row's id is its address.
    LANCE_ASSIGN_OR_RAISE(auto rows_reader, taker.TakeRowIds(stable ? updated_ids : updated_addrs));
    LANCE_ASSIGN_OR_RAISE(auto kept_batches, rows_reader->ReadAll());
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr kept, ConcatenateBatches(taker.schema(), kept_batches));
    if (kept->num_rows() != static_cast<int64_t>(updated_rows.size())) {
      return Status::Internal("merge-insert: took {} of the {} updated rows' kept columns",
                              kept->num_rows(), updated_rows.size());
    }
    for (int c = 0; c < kept->num_columns(); ++c) {
      kept_values.push_back(Relabel(kept->column(c), schema->field(missing[static_cast<size_t>(c)])->type()));
    }
  }
  std::vector<int64_t> inserted_rows;
  if (params.when_not_matched == WhenNotMatched::kInsert) {
    for (int64_t i = 0; i < n_src; ++i) {
      if (!matched[static_cast<size_t>(i)]) inserted_rows.push_back(i);
    }
  }
  out.rows_inserted = inserted_rows.size();
  // Nothing to change: still a version (an Update of no fragments), as lance 12 commits one.

  // The updated rows replace the dataset's rows whole (every column comes from the source, or
  // for a partial source from the take above). Without stable row ids, updated and inserted
  // rows share one data file; with them, the updated rows keep their ids in fragments of
  // their own and the inserted rows get fresh ids at commit.
  table::StagedFiles staged(ds->location(), params.commit.sync);
  std::vector<table::FragmentInfo> fragments;
  // Rows `rows_of_source` of the source, the first `n_updated` of them the updated rows in
  // their written order: a partial source's missing columns hold the kept values there.
  auto write = [&](const std::vector<int64_t>& rows_of_source, size_t n_updated) -> Status {
    if (rows_of_source.empty()) return Status::OK();
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr rows, TakeRows(source, rows_of_source));
    if (!kept_values.empty() && n_updated > 0) {
      std::vector<ArrayPtr> cols = rows->columns();
      const int64_t n_rest = static_cast<int64_t>(rows_of_source.size() - n_updated);
      for (size_t m = 0; m < missing.size(); ++m) {
        ArrayPtr& col = cols[static_cast<size_t>(missing[m])];
        if (n_rest == 0) {
          col = kept_values[m];
          continue;
        }
        LANCE_ASSIGN_OR_RAISE(ArrayPtr nulls, MakeArrayOfNulls(col->type, n_rest));
        LANCE_ASSIGN_OR_RAISE(col, Concatenate({kept_values[m], nulls}));
      }
      rows = std::make_shared<RecordBatch>(schema, rows->num_rows(), std::move(cols));
    }
    LANCE_ASSIGN_OR_RAISE(auto more, table::WriteFragments(staged, ds->manifest(), schema, {rows},
                                                    params.max_rows_per_file, pool));
    for (auto& f : more) fragments.push_back(std::move(f));
    return Status::OK();
  };
  if (stable) {
    LANCE_RETURN_NOT_OK(write(updated_rows, updated_rows.size()));
    LANCE_RETURN_NOT_OK(table::AssignRowIds(&fragments, updated_ids));
    LANCE_RETURN_NOT_OK(write(inserted_rows, 0));
  } else {
    const size_t n_updated = updated_rows.size();
    updated_rows.insert(updated_rows.end(), inserted_rows.begin(), inserted_rows.end());
    LANCE_RETURN_NOT_OK(write(updated_rows, n_updated));
  }
  LANCE_ASSIGN_OR_RAISE(out.commit, table::CommitRowUpdate(ds->location(), staged, *ds,
                                                           std::move(deleted), std::move(fragments),
                                                           params.commit));
  return out;
}

}  // namespace

Result<MergeInsertResult> Dataset::MergeInsert(RecordBatchReader& input, MergeInsertParams params) {
  return Guarded("merge insert", [&]() -> Result<MergeInsertResult> {
    LANCE_ASSIGN_OR_RAISE(auto batches, input.ReadAll());
    params.commit = WithHandle(std::move(params.commit));
    MergeInsertResult out;
    LANCE_RETURN_NOT_OK(Mutate([&](const auto& snap) -> Result<uint64_t> {
      LANCE_ASSIGN_OR_RAISE(out, MergeRows(snap, input.schema(), batches, params, pool()));
      return out.commit.version;
    }));
    return out;
  });
}

}  // namespace lance::dataset
