#include "lance/query/filter.h"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lance/columnar/compute.h"
#include "lance/core/bit_util.h"
#include "lance/expr/expression.h"

namespace lance::query {

namespace {

bool MaskTrue(const Array& mask, int64_t i) { return mask.IsValid(i) && mask.BoolValue(i); }

// `condition` (reading the one column of `schema`) per row of `column`, a dictionary array
// whose values have the column's type: evaluated once per dictionary entry, then looked up by
// each row's index. The mask has no nulls (FALSE and NULL rows are 0 bits: callers only test
// for TRUE).
Result<ArrayPtr> EvaluateOnDictionary(const expr::Expression& condition, const Schema& schema,
                                      const Array& column) {
  const ArrayPtr& values = column.dictionary;
  if (!values || column.type->index_type()->id() != TypeId::kInt32) {
    return Status::Internal("dictionary column without values or int32 indices");
  }
  LANCE_ASSIGN_OR_RAISE(
      RecordBatchPtr entries,
      RecordBatch::Make(::lance::schema({schema.field(0)->WithType(values->type)}), values->length,
                        {values}));
  LANCE_ASSIGN_OR_RAISE(ArrayPtr per_entry, condition.Evaluate(*entries));
  if (per_entry->length != values->length) {
    return Status::Internal("condition gave {} values for {} dictionary entries",
                            per_entry->length, values->length);
  }
  std::vector<uint8_t> pass(static_cast<size_t>(values->length));
  bool any = false;
  for (int64_t k = 0; k < values->length; ++k) {
    pass[static_cast<size_t>(k)] = MaskTrue(*per_entry, k) ? 1 : 0;
    any = any || pass[static_cast<size_t>(k)];
  }
  const int64_t n = column.length;
  LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBuffer(bit_util::BytesForBits(n), true));
  if (any) {
    auto* out = std::const_pointer_cast<Buffer>(bits)->mutable_data();
    const int32_t* idx = column.Values<int32_t>();
    const uint8_t* valid = column.null_count > 0 ? column.validity() : nullptr;
    // Without a branch per row: each row's pass byte (an index out of range reads the extra
    // 0 entry and is reported after the loop), then 8 bytes packed into a mask byte at a time.
    const auto entries = static_cast<uint32_t>(values->length);
    int64_t only = -1;  // the one entry that passes, if exactly one does
    for (int64_t k = 0; k < values->length; ++k) {
      if (!pass[static_cast<size_t>(k)]) continue;
      only = only == -1 ? k : -2;
    }
    pass.push_back(0);
    uint32_t out_of_range = 0;
    constexpr int64_t kBlock = 4096;
    uint8_t bytes[kBlock + 8];
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      // (Raw pointers in locals: a byte store may alias the vector's own members.)
      const uint8_t* const lookup = pass.data();
      const int32_t* const in = idx + b;
      uint32_t bad = 0;
      int64_t packed = 0;  // rows whose mask bits are already in bytes[0, packed / 8)
      if (only >= 0) {
        // One entry passes (`col = 'x'`): a compare per row, 16 rows per step with SSE2.
        const auto k0 = static_cast<uint32_t>(only);
        int64_t i = 0;
#if defined(__SSE2__)
        const __m128i want = _mm_set1_epi32(static_cast<int32_t>(k0));
        const __m128i flip = _mm_set1_epi32(static_cast<int32_t>(0x80000000u));
        const __m128i last = _mm_set1_epi32(static_cast<int32_t>((entries - 1) ^ 0x80000000u));
        __m128i over = _mm_setzero_si128();
        for (; i + 16 <= m; i += 16) {
          __m128i v[4];
          for (int q = 0; q < 4; ++q) {
            v[q] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 4 * q));
            // (unsigned k > entries - 1, as a signed compare of both with the top bit flipped)
            over = _mm_or_si128(over, _mm_cmpgt_epi32(_mm_xor_si128(v[q], flip), last));
            v[q] = _mm_cmpeq_epi32(v[q], want);
          }
          const __m128i eq = _mm_packs_epi16(_mm_packs_epi32(v[0], v[1]), _mm_packs_epi32(v[2], v[3]));
          const auto mask = static_cast<uint16_t>(_mm_movemask_epi8(eq));
          std::memcpy(bytes + i / 8, &mask, 2);
        }
        bad |= static_cast<uint32_t>(_mm_movemask_epi8(over) != 0);
        packed = i;
#endif
        for (; i < m; ++i) {
          const auto k = static_cast<uint32_t>(in[i]);
          bad |= static_cast<uint32_t>(k >= entries);
          bytes[i] = static_cast<uint8_t>(k == k0);
        }
      } else {
        for (int64_t i = 0; i < m; ++i) {
          const auto k = static_cast<uint32_t>(in[i]);
          const uint32_t at = k < entries ? k : entries;
          bad |= static_cast<uint32_t>(at == entries);
          bytes[i] = lookup[at];
        }
      }
      out_of_range |= bad;
      std::memcpy(out + b / 8, bytes, static_cast<size_t>(packed / 8));
      std::memset(bytes + m, 0, 8);
      for (int64_t r = packed; r < m; r += 8) {
        uint64_t eight;
        std::memcpy(&eight, bytes + r, 8);
        // Bytes b0..b7 of 0 / 1 -> the bits b0 | b1 << 1 | ... | b7 << 7.
        out[static_cast<size_t>((b + r) / 8)] = static_cast<uint8_t>((eight * 0x0102040810204080ULL) >> 56);
      }
    }
    if (out_of_range) {
      for (int64_t i = 0; i < n; ++i) {
        if (idx[i] < 0 || idx[i] >= values->length) {
          return Status::Corruption("dictionary index {} of {} entries", idx[i], values->length);
        }
      }
    }
    if (valid) {
      for (int64_t i = 0; i < n; ++i) {
        if (!bit_util::GetBit(valid, column.offset + i)) out[i >> 3] = static_cast<uint8_t>(out[i >> 3] & ~(1u << (i & 7)));
      }
    }
  }
  return Array::Make(boolean(), n, {nullptr, bits});
}

// Columns of one span already decoded by a dense read, for the later conjuncts of the chunk.
struct SpanColumns {
  std::vector<std::pair<std::string, ArrayPtr>> plain;
  std::vector<std::pair<std::string, ArrayPtr>> dictionary;
  static ArrayPtr Find(const std::vector<std::pair<std::string, ArrayPtr>>& v,
                       const std::string& name) {
    for (const auto& [n, a] : v) {
      if (n == name) return a;
    }
    return nullptr;
  }
};

// The conjunct's mask from a batch read for it: dictionary entries tested once when the one
// column came back as a dictionary (nullopt when they do not evaluate: an entry no row uses
// may fail where the rows would not; the caller then reads the values).
Result<ArrayPtr> MaskOf(const Filter::Conjunct& cj, const RecordBatch& batch, bool* retry_plain) {
  *retry_plain = false;
  if (batch.num_columns() == 1 && batch.column(0)->type_id() == TypeId::kDictionary &&
      cj.columns->field(0)->type()->id() != TypeId::kDictionary) {
    auto on_entries = EvaluateOnDictionary(*cj.expr, *cj.columns, *batch.column(0));
    if (on_entries.ok()) return on_entries;
    *retry_plain = true;
    return ArrayPtr();
  }
  return cj.expr->Evaluate(batch);
}

// The conjunct over every row of the span (reusing and filling `cache`).
Result<ArrayPtr> DenseMask(const FragmentReader& fragment, const Filter::Conjunct& cj,
                           int64_t span_start, int64_t span_length, SpanColumns* cache) {
  const RowSelection span = RowSelection::Range(span_start, span_length);
  if (cj.dictionary) {
    const std::string& name = cj.columns->field(0)->name();
    ArrayPtr dict = SpanColumns::Find(cache->dictionary, name);
    if (!dict && !SpanColumns::Find(cache->plain, name)) {
      FragmentReadOptions keep;
      keep.keep_dictionaries = true;
      LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, fragment.Read(cj.columns, span, keep));
      (b->column(0)->type_id() == TypeId::kDictionary ? cache->dictionary : cache->plain)
          .emplace_back(name, b->column(0));
      dict = SpanColumns::Find(cache->dictionary, name);
    }
    if (dict) {
      auto b = std::make_shared<RecordBatch>(
          ::lance::schema({cj.columns->field(0)->WithType(dict->type)}), span_length,
          std::vector<ArrayPtr>{dict});
      bool retry_plain = false;
      LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, MaskOf(cj, *b, &retry_plain));
      if (!retry_plain) return mask;
    }
  }
  std::vector<FieldPtr> missing;
  for (const auto& f : cj.columns->fields()) {
    if (!SpanColumns::Find(cache->plain, f->name())) missing.push_back(f);
  }
  if (!missing.empty()) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, fragment.Read(::lance::schema(missing), span));
    for (size_t i = 0; i < missing.size(); ++i) {
      cache->plain.emplace_back(missing[i]->name(), b->column(static_cast<int>(i)));
    }
  }
  std::vector<ArrayPtr> columns;
  for (const auto& f : cj.columns->fields()) columns.push_back(SpanColumns::Find(cache->plain, f->name()));
  const RecordBatch batch(cj.columns, span_length, std::move(columns));
  return cj.expr->Evaluate(batch);
}

// The conjunct over the rows of `rows` alone.
Result<ArrayPtr> SparseMask(const FragmentReader& fragment, const Filter::Conjunct& cj,
                            const RowSelection& rows) {
  FragmentReadOptions options;
  options.keep_dictionaries = cj.dictionary;
  LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, fragment.Read(cj.columns, rows, options));
  bool retry_plain = false;
  LANCE_ASSIGN_OR_RAISE(ArrayPtr mask, MaskOf(cj, *batch, &retry_plain));
  if (!retry_plain) return mask;
  LANCE_ASSIGN_OR_RAISE(batch, fragment.Read(cj.columns, rows));
  return cj.expr->Evaluate(*batch);
}

}  // namespace

SchemaPtr FilterSchema(const Schema& s) {
  std::vector<FieldPtr> fields = s.fields();
  fields.push_back(field(kRowIdColumn, uint64(), true));
  fields.push_back(field(kRowAddrColumn, uint64(), true));
  return ::lance::schema(std::move(fields));
}

Result<std::shared_ptr<const Filter>> Filter::Make(const std::string& text,
                                                   const SchemaPtr& schema) {
  return Bind(text, schema, true);
}

Result<std::shared_ptr<const Filter>> Filter::MakeForBatch(const std::string& text,
                                                           const SchemaPtr& schema) {
  return Bind(text, schema, false);
}

Result<std::shared_ptr<const Filter>> Filter::Bind(const std::string& text, const SchemaPtr& schema,
                                                   bool system_columns) {
  const SchemaPtr bound = system_columns ? FilterSchema(*schema) : schema;
  // The whole filter first, so that messages name the filter as a whole.
  LANCE_RETURN_NOT_OK(expr::Expression::MakePredicate(text, bound).status());
  LANCE_ASSIGN_OR_RAISE(auto parts, expr::Expression::MakeConjuncts(text, bound));
  std::shared_ptr<Filter> f(new Filter());
  f->text_ = text;
  for (auto& e : parts) {
    Conjunct cj;
    std::vector<FieldPtr> fields;
    for (const auto& name : e->columns()) {
      FieldPtr field = system_columns && IsSystemColumn(name) ? bound->GetFieldByName(name)
                                            : schema->GetFieldByName(name);
      if (!field) return Status::Internal("filter column '{}' is not in the schema", name);
      fields.push_back(std::move(field));
      if (std::find(f->columns_.begin(), f->columns_.end(), name) == f->columns_.end()) {
        f->columns_.push_back(name);
      }
    }
    cj.dictionary = system_columns && fields.size() == 1 && !IsSystemColumn(fields[0]->name());
    cj.columns = ::lance::schema(std::move(fields));
    cj.expr = std::move(e);
    f->conjuncts_.push_back(std::move(cj));
  }
  return std::shared_ptr<const Filter>(std::move(f));
}

Result<std::vector<int64_t>> Filter::EvaluateBatch(const RecordBatch& batch) const {
  const int64_t n = batch.num_rows();
  std::vector<int64_t> current;  // the rows in play; all of them before the first conjunct
  bool all = true;
  for (const Conjunct& cj : conjuncts_) {
    if (!all && current.empty()) break;
    const int64_t in_play = all ? n : static_cast<int64_t>(current.size());
    // Few rows left: the later conjuncts evaluate over those rows only.
    const bool dense = all || in_play * 4 > n;
    RecordBatchPtr taken;
    if (!dense) {
      LANCE_ASSIGN_OR_RAISE(taken, TakeRows(batch, current));
    }
    auto mask = cj.expr->Evaluate(dense ? batch : *taken);
    if (!mask.ok() && dense && !all) {
      // A row no longer in play may have failed (a division by zero): those in play decide.
      LANCE_ASSIGN_OR_RAISE(taken, TakeRows(batch, current));
      mask = cj.expr->Evaluate(*taken);
    }
    LANCE_RETURN_NOT_OK(mask.status());
    const Array& m = **mask;
    std::vector<int64_t> next;
    if (all) {
      next = expr::TrueIndices(m);
    } else {
      const bool by_position = !taken;  // the mask covers the whole batch
      for (int64_t i = 0; i < in_play; ++i) {
        const int64_t r = current[static_cast<size_t>(i)];
        if (MaskTrue(m, by_position ? r : i)) next.push_back(r);
      }
    }
    current = std::move(next);
    all = false;
  }
  if (all) {
    current.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) current[static_cast<size_t>(i)] = i;
  }
  return current;
}

Result<RowSelection> Filter::Evaluate(const FragmentReader& fragment, int64_t span_start,
                                      int64_t span_length, const RowSelection& rows) const {
  return Run(fragment, span_start, span_length, rows, nullptr);
}

Result<int64_t> Filter::Count(const FragmentReader& fragment, int64_t span_start,
                              int64_t span_length, const RowSelection& rows) const {
  int64_t count = 0;
  LANCE_RETURN_NOT_OK(Run(fragment, span_start, span_length, rows, &count).status());
  return count;
}

Result<RowSelection> Filter::Run(const FragmentReader& fragment, int64_t span_start,
                                 int64_t span_length, const RowSelection& rows,
                                 int64_t* count) const {
  // `current`: the rows in play, `rows` before the first conjunct. `whole_span`: they are
  // every row of the span (a dense mask's TRUE positions are then the answer).
  RowSelection current = rows;
  bool whole_span = rows.is_range() && rows.start() == span_start && rows.size() == span_length;
  SpanColumns cache;
  for (size_t k = 0; k < conjuncts_.size() && !current.empty(); ++k) {
    const Conjunct& cj = conjuncts_[k];
    const bool last = k + 1 == conjuncts_.size();
    ArrayPtr mask;
    bool dense = span_length > 0 && current.size() * 4 > span_length;
    if (dense) {
      auto m = DenseMask(fragment, cj, span_start, span_length, &cache);
      if (m.ok()) {
        mask = std::move(*m);
      } else if (whole_span) {
        return m.status();
      } else {
        // Maybe a row outside the selection failed (a division by zero in a deleted row):
        // the selected rows alone decide.
        dense = false;
      }
    }
    if (!dense) {
      LANCE_ASSIGN_OR_RAISE(mask, SparseMask(fragment, cj, current));
    }
    const Array& m = *mask;
    const int64_t n = current.size();
    if (count && last) {
      // The last conjunct: count without building the list.
      if (dense && whole_span) {
        *count = expr::CountTrue(m);
      } else {
        int64_t c = 0;
        for (int64_t i = 0; i < n; ++i) c += MaskTrue(m, dense ? current[i] - span_start : i);
        *count = c;
      }
      return RowSelection();
    }
    std::vector<int64_t> next;
    if (dense && whole_span) {
      next = expr::TrueIndices(m);
      for (int64_t& r : next) r += span_start;
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = current[i];
        if (MaskTrue(m, dense ? r - span_start : i)) next.push_back(r);
      }
    }
    current = RowSelection::List(std::move(next));
    whole_span = false;
  }
  if (count) *count = current.size();
  return current;
}

}  // namespace lance::query
