#include "lance/index/scalar/ngram.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "index/fts/unicode.h"
#include "lance/columnar/builder.h"

namespace lance::index::scalar {

namespace {

constexpr uint32_t kNullToken = 0;
constexpr uint32_t kAlphabet = 37;
constexpr int kGram = 3;

// Code points of `text`; a byte that does not start well-formed UTF-8 is U+FFFD (it only
// breaks windows: it is not alphanumeric).
void CodePoints(std::string_view text, std::vector<uint32_t>* out) {
  out->clear();
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const int n = fts::DecodeUtf8(text, i, &cp);
    if (n == 0) {
      out->push_back(0xFFFD);
      ++i;
    } else {
      out->push_back(cp);
      i += static_cast<size_t>(n);
    }
  }
}

bool IsAsciiAlnum(uint32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// lance 12's base-37 digit of an alphanumeric byte, in its u8 arithmetic (an upper-case
// letter, which ASCII folding can produce from small capitals, wraps as it does there).
uint32_t Digit(uint32_t c) {
  const auto b = static_cast<uint8_t>(c);
  const uint8_t pos = b <= '9' ? static_cast<uint8_t>(b - '0') : static_cast<uint8_t>(b - 'a' + 10);
  return static_cast<uint8_t>(pos + 1);
}

// The row of each token in the file, sorted by token.
using TokenRows = std::vector<std::pair<uint32_t, int64_t>>;

class NGramIndex final : public ScalarIndex {
 public:
  NGramIndex(std::shared_ptr<IndexStore> store, TokenRows tokens)
      : ScalarIndex(std::move(store)), tokens_(std::move(tokens)) {}

  std::string_view type_name() const override { return "NGRAM"; }
  const DataTypePtr& value_type() const override { return type_; }

  bool CanAnswer(const IndexQuery& query) const override {
    const auto* q = std::get_if<TextQuery>(&query);
    return q != nullptr && NGramNarrows(q->substring);
  }

  Result<SearchResult> Search(const IndexQuery& query, const SearchOptions& options) const override {
    if (!CanAnswer(query)) {
      return Status::NotSupported(
          "NGRAM index answers only contains / LIKE '%x%' with a needle of 3 or more characters "
          "holding an alphanumeric trigram");
    }
    std::vector<uint32_t> wanted = NGramTokens(std::get<TextQuery>(query).substring);
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    SearchResult out;
    out.exact = false;
    {
      std::vector<std::shared_ptr<const RowSet>> lists;
      for (uint32_t t : wanted) {
        auto it = std::lower_bound(tokens_.begin(), tokens_.end(), std::make_pair(t, int64_t{-1}));
        if (it == tokens_.end() || it->first != t) return out;  // a token no row holds
        LANCE_ASSIGN_OR_RAISE(auto rows, Load(it->second));
        lists.push_back(std::move(rows));
      }
      std::sort(lists.begin(), lists.end(),
                [](const auto& a, const auto& b) { return a->Cardinality() < b->Cardinality(); });
      out.rows = *lists[0];
      for (size_t i = 1; i < lists.size() && !out.rows.empty(); ++i) out.rows &= *lists[i];
    }
    if (options.fragments) out.rows.RetainFragments(*options.fragments);
    return out;
  }

 private:
  Result<std::shared_ptr<const RowSet>> Load(int64_t row) const {
    return store_->GetPage<RowSet>(
        fmt::format("ngram/{}", row), [&]() -> Result<std::pair<std::shared_ptr<const RowSet>, int64_t>> {
          LANCE_ASSIGN_OR_RAISE(auto reader, store_->OpenFile(kNGramFile));
          LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->ReadRange(row, 1, {1}));
          const Array& a = *b->column(0);
          if (a.length != 1 || !a.type->is_binary_like() || a.IsNull(0)) {
            return Status::Corruption("{}: row {} of posting_list did not read as one binary value",
                                      store_->DisplayPathOf(kNGramFile), row);
          }
          auto set = std::make_shared<RowSet>();
          LANCE_ASSIGN_OR_RAISE(*set, RowSet::DeserializeTreemap(
                                          a.GetView(0), fmt::format("{} row {}", store_->DisplayPathOf(kNGramFile), row)));
          const int64_t bytes = set->MemoryBytes();
          return std::pair<std::shared_ptr<const RowSet>, int64_t>(std::move(set), bytes);
        });
  }

  DataTypePtr type_ = utf8();
  TokenRows tokens_;
};

}  // namespace

bool NGramNarrows(std::string_view needle) {
  size_t cps = 0;
  for (char c : needle) cps += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return cps >= 3 && !NGramTokens(needle).empty();
}

std::vector<uint32_t> NGramTokens(std::string_view text) {
  std::vector<uint32_t> cps;
  CodePoints(text, &cps);
  std::string lowered;
  lowered.reserve(text.size());
  for (uint32_t cp : cps) fts::AppendLowerCase(cp, &lowered);
  CodePoints(lowered, &cps);
  std::string folded;
  folded.reserve(lowered.size());
  for (uint32_t cp : cps) {
    const char* ascii = cp < 0x80 ? nullptr : fts::AsciiFolding(cp);
    if (ascii != nullptr) {
      folded += ascii;
    } else {
      fts::AppendUtf8(cp, &folded);
    }
  }
  CodePoints(folded, &cps);
  std::vector<uint32_t> out;
  for (size_t i = 0; i + kGram <= cps.size(); ++i) {
    if (!IsAsciiAlnum(cps[i]) || !IsAsciiAlnum(cps[i + 1]) || !IsAsciiAlnum(cps[i + 2])) continue;
    out.push_back(Digit(cps[i]) * kAlphabet * kAlphabet + Digit(cps[i + 1]) * kAlphabet + Digit(cps[i + 2]));
  }
  return out;
}

Result<std::shared_ptr<ScalarIndex>> OpenNGramIndex(std::shared_ptr<IndexStore> store) {
  LANCE_ASSIGN_OR_RAISE(auto reader, store->OpenFile(kNGramFile));
  const auto& s = reader->schema();
  if (s->num_fields() < 2 || s->field(0)->name() != "tokens" || s->field(0)->type()->id() != TypeId::kUInt32 ||
      s->field(1)->name() != "posting_list" || !s->field(1)->type()->is_binary_like()) {
    return Status::Corruption("{}: schema {} (expected tokens: uint32, posting_list: binary)",
                              store->DisplayPathOf(kNGramFile), s->ToString());
  }
  TokenRows tokens;
  if (reader->num_rows() > 0) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr b, reader->ReadAll({0}));
    const Array& t = *b->column(0);
    if (t.length != reader->num_rows()) {
      return Status::Corruption("{}: {} tokens read, the file has {} rows", store->DisplayPathOf(kNGramFile),
                                t.length, reader->num_rows());
    }
    const uint32_t* v = t.Values<uint32_t>();
    tokens.reserve(static_cast<size_t>(t.length));
    for (int64_t i = 0; i < t.length; ++i) {
      if (t.IsNull(i)) {
        return Status::Corruption("{}: token {} is null", store->DisplayPathOf(kNGramFile), i);
      }
      tokens.emplace_back(v[i], i);
    }
    std::sort(tokens.begin(), tokens.end());
    for (size_t i = 1; i < tokens.size(); ++i) {
      if (tokens[i].first == tokens[i - 1].first) {
        return Status::Corruption("{}: token {} appears twice", store->DisplayPathOf(kNGramFile), tokens[i].first);
      }
    }
  }
  return std::make_shared<NGramIndex>(std::move(store), std::move(tokens));
}

Result<TrainedIndex> TrainNGramIndex(IndexStore& store, const TrainingData& data) {
  if (!data.type || (data.type->id() != TypeId::kString && data.type->id() != TypeId::kLargeString)) {
    return Status::InvalidArgument("an NGRAM index keys a utf8 column, not {}",
                                   data.type ? data.type->ToString() : std::string("(none)"));
  }
  std::unordered_map<uint32_t, std::vector<uint64_t>> postings;
  size_t next = 0;
  std::vector<uint32_t> tokens;
  for (const ArrayPtr& chunk : data.values) {
    if (chunk->type->id() != TypeId::kString && chunk->type->id() != TypeId::kLargeString) {
      return Status::InvalidArgument("an NGRAM index keys a utf8 column, not {}", chunk->type->ToString());
    }
    for (int64_t i = 0; i < chunk->length; ++i, ++next) {
      if (next >= data.row_ids.size()) {
        return Status::InvalidArgument("NGRAM training: more values than the {} row ids", data.row_ids.size());
      }
      const uint64_t row = data.row_ids[next];
      if (chunk->IsNull(i)) {
        postings[kNullToken].push_back(row);
        continue;
      }
      tokens = NGramTokens(chunk->GetView(i));
      std::sort(tokens.begin(), tokens.end());
      tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
      for (uint32_t t : tokens) postings[t].push_back(row);
    }
  }
  std::vector<uint32_t> order;
  order.reserve(postings.size());
  for (const auto& [t, rows] : postings) order.push_back(t);
  std::sort(order.begin(), order.end());
  UInt32Builder token_col(uint32());
  BinaryBuilder lists(binary());
  for (uint32_t t : order) {
    const auto& rows = postings[t];
    RowSet set;
    set.InsertMany(rows.data(), rows.size());
    LANCE_RETURN_NOT_OK(token_col.Append(t));
    LANCE_RETURN_NOT_OK(lists.Append(set.SerializeTreemap()));
  }
  auto no_compression = std::make_shared<KeyValueMetadata>(
      std::vector<std::pair<std::string, std::string>>{{"lance-encoding:compression", "none"}});
  auto s = schema({field("tokens", uint32(), true), field("posting_list", binary(), false, no_compression)});
  LANCE_ASSIGN_OR_RAISE(ArrayPtr token_arr, token_col.Finish());
  LANCE_ASSIGN_OR_RAISE(ArrayPtr list_arr, lists.Finish());
  return WriteNGramPostings(store, std::move(s), std::move(token_arr), std::move(list_arr));
}

Result<TrainedIndex> WriteNGramPostings(IndexStore& store, SchemaPtr schema, ArrayPtr tokens,
                                        ArrayPtr posting_lists) {
  LANCE_ASSIGN_OR_RAISE(auto writer, store.CreateFile(kNGramFile, schema));
  if (tokens->length > 0) {
    LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(schema, tokens->length, {tokens, posting_lists}));
    LANCE_RETURN_NOT_OK(writer->Write(*batch));
  }
  LANCE_ASSIGN_OR_RAISE(auto summary, writer->Finish());
  TrainedIndex out;
  out.type_name = "NGRAM";
  out.details_type_url = "/lance.table.NGramIndexDetails";
  out.index_version = 0;
  out.files = {{kNGramFile, static_cast<uint64_t>(summary.size_bytes)}};
  return out;
}

}  // namespace lance::index::scalar
