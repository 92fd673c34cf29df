// The token pipeline: one base tokenizer, then the filters in the reference's order (max
// length, lower case, stemming, stop words, ASCII folding). Tokens are produced into the
// caller's vector and filtered in place; a dropped token keeps its position number used.
#include "lance/index/fts/tokenizer.h"

#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "index/fts/stemmer.h"
#include "index/fts/stop_words.h"
#include "index/fts/unicode.h"

namespace lance::index::fts {

namespace {

enum class Base { kSimple, kWhitespace, kRaw, kNgram };

bool IsAsciiWhitespace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

// Runs of alphanumeric code points.
void SimpleTokens(std::string_view text, std::vector<Token>* out) {
  uint32_t position = 0;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    uint32_t cp;
    int len = DecodeUtf8(text, i, &cp);  // text was validated
    if (!IsAlphanumeric(cp)) {
      i += len;
      continue;
    }
    size_t start = i;
    i += len;
    while (i < n) {
      len = DecodeUtf8(text, i, &cp);
      if (!IsAlphanumeric(cp)) break;
      i += len;
    }
    Token& t = out->emplace_back();
    t.text.assign(text.substr(start, i - start));
    t.position = position++;
    t.offset_from = static_cast<uint32_t>(start);
    t.offset_to = static_cast<uint32_t>(i);
  }
}

// Runs of anything but ASCII whitespace (multi-byte UTF-8 never contains those bytes).
void WhitespaceTokens(std::string_view text, std::vector<Token>* out) {
  uint32_t position = 0;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    if (IsAsciiWhitespace(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < n && !IsAsciiWhitespace(static_cast<unsigned char>(text[i]))) ++i;
    Token& t = out->emplace_back();
    t.text.assign(text.substr(start, i - start));
    t.position = position++;
    t.offset_from = static_cast<uint32_t>(start);
    t.offset_to = static_cast<uint32_t>(i);
  }
}

// Every substring of min..max code points, by start then length, position 0.
void NgramTokens(std::string_view text, uint32_t min_len, uint32_t max_len, bool prefix_only,
                 std::vector<uint32_t>* bounds, std::vector<Token>* out) {
  bounds->clear();
  for (size_t i = 0; i < text.size();) {
    bounds->push_back(static_cast<uint32_t>(i));
    uint32_t cp;
    i += DecodeUtf8(text, i, &cp);
  }
  bounds->push_back(static_cast<uint32_t>(text.size()));
  const size_t chars = bounds->size() - 1;
  for (size_t start = 0; start < chars; ++start) {
    if (prefix_only && start > 0) break;
    const size_t left = chars - start;
    if (left < min_len) break;
    const size_t longest = std::min<size_t>(max_len, left);
    for (size_t len = min_len; len <= longest; ++len) {
      Token& t = out->emplace_back();
      t.offset_from = (*bounds)[start];
      t.offset_to = (*bounds)[start + len];
      t.text.assign(text.substr(t.offset_from, t.offset_to - t.offset_from));
      t.position = 0;
    }
  }
}

void LowerCase(std::string* text, std::string* scratch) {
  if (IsAscii(*text)) {
    for (char& c : *text) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    return;
  }
  scratch->clear();
  for (size_t i = 0; i < text->size();) {
    uint32_t cp;
    i += DecodeUtf8(*text, i, &cp);
    AppendLowerCase(cp, scratch);
  }
  text->swap(*scratch);
}

void FoldToAscii(std::string* text, std::string* scratch) {
  if (IsAscii(*text)) return;
  scratch->clear();
  for (size_t i = 0; i < text->size();) {
    uint32_t cp;
    int len = DecodeUtf8(*text, i, &cp);
    if (const char* folded = AsciiFolding(cp)) {
      scratch->append(folded);
    } else {
      scratch->append(*text, i, len);
    }
    i += len;
  }
  text->swap(*scratch);
}

}  // namespace

class Tokenizer::Impl {
 public:
  TokenizerOptions options;
  Base base = Base::kSimple;
  std::unique_ptr<Stemmer> stemmer;
  const std::unordered_set<std::string_view>* built_in_stop_words = nullptr;
  std::unordered_set<std::string_view> custom_stop_words;  // views of options.custom_stop_words
  std::string scratch;
  std::vector<uint32_t> bounds;
  // What the filters make of a base token (nullopt: dropped), by its text: the filters are a
  // pure function of it, and a column repeats few distinct words, so an index build stems each
  // once (stemming was a third of a 1M-row build). Bounded: past kFilterCacheEntries distinct
  // tokens the rest are filtered each time.
  static constexpr size_t kFilterCacheEntries = 1 << 16;
  std::unordered_map<std::string, std::optional<std::string>> filtered;

  // `text` through the filters (max length, lower case, stemming, stop words, ASCII folding);
  // false when a filter drops it.
  Result<bool> Filter(std::string* text) {
    if (options.max_token_length && text->size() >= *options.max_token_length) return false;
    if (options.lower_case) LowerCase(text, &scratch);
    if (stemmer) LANCE_RETURN_NOT_OK(stemmer->Stem(text));
    if (options.remove_stop_words && IsStopWord(*text)) return false;
    if (options.ascii_folding) FoldToAscii(text, &scratch);
    return true;
  }

  // Filter() through the cache.
  Result<bool> FilterCached(std::string* text) {
    auto it = filtered.find(*text);
    if (it != filtered.end()) {
      if (!it->second) return false;
      text->assign(*it->second);
      return true;
    }
    std::string key = filtered.size() < kFilterCacheEntries ? *text : std::string();
    LANCE_ASSIGN_OR_RAISE(bool keep, Filter(text));
    if (filtered.size() < kFilterCacheEntries) {
      filtered.emplace(std::move(key), keep ? std::optional<std::string>(*text) : std::nullopt);
    }
    return keep;
  }

  Status Init() {
    const std::string& b = options.base_tokenizer;
    base = b == "simple" ? Base::kSimple
           : b == "whitespace" ? Base::kWhitespace
           : b == "raw" ? Base::kRaw
                        : Base::kNgram;
    if (options.stem) {
      auto s = Stemmer::Make(options.language);
      if (!s.ok()) return s.status();
      stemmer = std::move(s).ValueOrDie();
    }
    if (options.remove_stop_words) {
      if (options.custom_stop_words) {
        for (const std::string& w : *options.custom_stop_words) custom_stop_words.insert(w);
      } else {
        built_in_stop_words = &BuiltInStopWords(options.language);
      }
    }
    return Status::OK();
  }

  bool IsStopWord(const std::string& word) const {
    const auto& set = built_in_stop_words ? *built_in_stop_words : custom_stop_words;
    return set.count(std::string_view(word)) > 0;
  }

  Status Tokenize(std::string_view text, std::vector<Token>* out) {
    out->clear();
    if (text.size() >= std::numeric_limits<uint32_t>::max()) {
      return Status::InvalidArgument("cannot tokenize a text of {} bytes (4 GiB or more)", text.size());
    }
    size_t bad = FindInvalidUtf8(text);
    if (bad != std::string_view::npos) {
      return Status::InvalidArgument("text to tokenize is not valid UTF-8 at byte {}", bad);
    }
    switch (base) {
      case Base::kSimple:
        SimpleTokens(text, out);
        break;
      case Base::kWhitespace:
        WhitespaceTokens(text, out);
        break;
      case Base::kRaw: {
        Token& t = out->emplace_back();
        t.text.assign(text);
        t.offset_to = static_cast<uint32_t>(text.size());
        break;
      }
      case Base::kNgram:
        NgramTokens(text, options.min_ngram_length, options.max_ngram_length, options.prefix_only,
                    &bounds, out);
        break;
    }
    size_t kept = 0;
    for (size_t i = 0; i < out->size(); ++i) {
      Token& t = (*out)[i];
      LANCE_ASSIGN_OR_RAISE(bool keep, FilterCached(&t.text));
      if (!keep) continue;
      if (kept != i) (*out)[kept] = std::move(t);
      ++kept;
    }
    out->resize(kept);
    return Status::OK();
  }
};

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;

Result<std::unique_ptr<Tokenizer>> Tokenizer::Make(const TokenizerOptions& options) {
  Status st = options.Validate();
  if (!st.ok()) return st;
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  st = impl->Init();
  if (!st.ok()) return st;
  return std::unique_ptr<Tokenizer>(new Tokenizer(std::move(impl)));
}

Status Tokenizer::Tokenize(std::string_view text, std::vector<Token>* out) {
  return impl_->Tokenize(text, out);
}

std::unique_ptr<Tokenizer> Tokenizer::Clone() const {
  auto copy = Make(impl_->options);
  return copy.ok() ? std::move(copy).ValueOrDie() : nullptr;
}

const TokenizerOptions& Tokenizer::options() const { return impl_->options; }

}  // namespace lance::index::fts
