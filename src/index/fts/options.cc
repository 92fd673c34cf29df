// TokenizerOptions: defaults, validation, and the two forms in which lance stores them (the
// params JSON of the index's metadata.lance, the InvertedIndexDetails of the manifest).
#include <array>
#include <string>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <nlohmann/json.hpp>

#include "lance/index/fts/tokenizer.h"

namespace lance::index::fts {

namespace {

constexpr std::array<std::string_view, kNumLanguages> kLanguageNames = {
    "Arabic",  "Danish",    "Dutch",      "English", "Finnish", "French",
    "German",  "Greek",     "Hungarian",  "Italian", "Norwegian", "Portuguese",
    "Romanian", "Russian",  "Spanish",    "Swedish", "Tamil",   "Turkish"};

bool IsKnownBase(std::string_view b) {
  return b == "simple" || b == "whitespace" || b == "raw" || b == "ngram";
}

// Base tokenizers the reference has that lance-cpp does not implement yet.
bool IsReferenceOnlyBase(std::string_view b) {
  return b == "code" || b == "icu" || b == "icu/split" || b == "jieba" ||
         b.substr(0, 6) == "jieba/" || b.substr(0, 8) == "lindera/";
}

}  // namespace

Result<Language> ParseLanguage(std::string_view name) {
  for (int i = 0; i < kNumLanguages; ++i) {
    if (kLanguageNames[i] == name) return static_cast<Language>(i);
  }
  return Status::InvalidArgument(
      "unknown tokenizer language '{}': expected one of Arabic, Danish, Dutch, English, Finnish, "
      "French, German, Greek, Hungarian, Italian, Norwegian, Portuguese, Romanian, Russian, "
      "Spanish, Swedish, Tamil, Turkish (case-sensitive)",
      name);
}

std::string_view LanguageName(Language language) {
  return kLanguageNames[static_cast<int>(language)];
}

TokenizerOptions TokenizerOptions::Defaults(std::string_view base_tokenizer) {
  TokenizerOptions o;
  o.base_tokenizer = std::string(base_tokenizer);
  if (base_tokenizer == "ngram") {
    o.stem = false;
    o.remove_stop_words = false;
  }
  return o;
}

Status TokenizerOptions::Validate() const {
  if (IsReferenceOnlyBase(base_tokenizer)) {
    return Status::NotSupported("base tokenizer '{}' is not implemented by lance-cpp yet "
                                "(simple, whitespace, raw and ngram are)",
                                base_tokenizer);
  }
  if (!IsKnownBase(base_tokenizer)) {
    return Status::InvalidArgument(
        "unknown base tokenizer '{}': expected simple, whitespace, raw or ngram", base_tokenizer);
  }
  if (base_tokenizer == "ngram") {
    if (min_ngram_length == 0) {
      return Status::InvalidArgument("min_ngram_length must be greater than 0 (got 0)");
    }
    if (min_ngram_length > max_ngram_length) {
      return Status::InvalidArgument(
          "min_ngram_length must not be greater than max_ngram_length (got {} > {})",
          min_ngram_length, max_ngram_length);
    }
  }
  if (static_cast<int>(language) >= kNumLanguages) {
    return Status::InvalidArgument("tokenizer language {} out of range", static_cast<int>(language));
  }
  return Status::OK();
}

Result<TokenizerOptions> TokenizerOptions::FromJson(std::string_view json) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("tokenizer params are not valid JSON");
  if (!j.is_object()) return Status::InvalidArgument("tokenizer params must be a JSON object");
  std::string base = "simple";
  if (auto it = j.find("base_tokenizer"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return Status::InvalidArgument("tokenizer params: base_tokenizer must be a string");
    base = it->get<std::string>();
  }
  TokenizerOptions o = Defaults(base);
  auto get_bool = [&](const char* key, bool* out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Status::OK();
    if (!it->is_boolean()) return Status::InvalidArgument("tokenizer params: {} must be true or false", key);
    *out = it->get<bool>();
    return Status::OK();
  };
  auto get_u32 = [&](const char* key, uint32_t* out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Status::OK();
    if (!it->is_number_unsigned() || it->get<uint64_t>() > UINT32_MAX) {
      return Status::InvalidArgument("tokenizer params: {} must be an integer in [0, 2^32)", key);
    }
    *out = static_cast<uint32_t>(it->get<uint64_t>());
    return Status::OK();
  };
  if (auto it = j.find("language"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return Status::InvalidArgument("tokenizer params: language must be a string");
    auto lang = ParseLanguage(it->get<std::string>());
    if (!lang.ok()) return lang.status();
    o.language = *lang;
  }
  if (auto it = j.find("max_token_length"); it != j.end()) {
    if (it->is_null()) {
      o.max_token_length.reset();
    } else {
      uint32_t v = 0;
      Status st = get_u32("max_token_length", &v);
      if (!st.ok()) return st;
      o.max_token_length = v;
    }
  }
  for (auto [key, field] : {std::pair{"with_position", &o.with_position}, {"lower_case", &o.lower_case},
                            {"stem", &o.stem}, {"remove_stop_words", &o.remove_stop_words},
                            {"ascii_folding", &o.ascii_folding}, {"prefix_only", &o.prefix_only}}) {
    Status st = get_bool(key, field);
    if (!st.ok()) return st;
  }
  for (auto [key, field] : {std::pair{"min_ngram_length", &o.min_ngram_length},
                            {"max_ngram_length", &o.max_ngram_length}}) {
    Status st = get_u32(key, field);
    if (!st.ok()) return st;
  }
  if (auto it = j.find("custom_stop_words"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return Status::InvalidArgument("tokenizer params: custom_stop_words must be an array of strings");
    std::vector<std::string> words;
    for (const auto& w : *it) {
      if (!w.is_string()) return Status::InvalidArgument("tokenizer params: custom_stop_words must be an array of strings");
      words.push_back(w.get<std::string>());
    }
    o.custom_stop_words = std::move(words);
  }
  Status st = o.Validate();
  if (!st.ok()) return st;
  return o;
}

std::string TokenizerOptions::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  j["base_tokenizer"] = base_tokenizer;
  j["language"] = std::string(LanguageName(language));
  j["with_position"] = with_position;
  j["max_token_length"] = max_token_length ? nlohmann::json(*max_token_length) : nlohmann::json(nullptr);
  j["lower_case"] = lower_case;
  j["stem"] = stem;
  j["remove_stop_words"] = remove_stop_words;
  j["custom_stop_words"] = custom_stop_words ? nlohmann::json(*custom_stop_words) : nlohmann::json(nullptr);
  j["ascii_folding"] = ascii_folding;
  j["min_ngram_length"] = min_ngram_length;
  j["max_ngram_length"] = max_ngram_length;
  j["prefix_only"] = prefix_only;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string TokenizerOptions::ToIndexParamsJson() const {
  nlohmann::ordered_json j;
  j["lance_tokenizer"] = "text";
  j["base_tokenizer"] = base_tokenizer;
  j["language"] = std::string(LanguageName(language));
  j["with_position"] = with_position;
  j["max_token_length"] = max_token_length ? nlohmann::ordered_json(*max_token_length) : nlohmann::ordered_json(nullptr);
  j["lower_case"] = lower_case;
  j["stem"] = stem;
  j["remove_stop_words"] = remove_stop_words;
  j["custom_stop_words"] =
      custom_stop_words ? nlohmann::ordered_json(*custom_stop_words) : nlohmann::ordered_json(nullptr);
  j["ascii_folding"] = ascii_folding;
  j["min_ngram_length"] = min_ngram_length;
  j["max_ngram_length"] = max_ngram_length;
  j["prefix_only"] = prefix_only;
  j["block_size"] = 128;
  j["split_identifiers"] = false;
  j["split_on_numerics"] = false;
  j["preserve_original"] = false;
  j["index_operators"] = false;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string TokenizerOptions::ToInvertedIndexDetails() const {
  std::string out;
  auto varint = [&](uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  };
  auto field_varint = [&](int field, uint64_t v) {
    if (v == 0) return;  // proto3 leaves defaults out
    varint(static_cast<uint64_t>(field) << 3);
    varint(v);
  };
  auto field_bytes = [&](int field, std::string_view v) {
    varint((static_cast<uint64_t>(field) << 3) | 2);
    varint(v.size());
    out.append(v);
  };
  field_bytes(1, base_tokenizer);
  field_bytes(2, nlohmann::json(std::string(LanguageName(language))).dump());
  field_varint(3, with_position ? 1 : 0);
  if (max_token_length) {  // optional: present even when 0
    varint(4 << 3);
    varint(*max_token_length);
  }
  field_varint(5, lower_case ? 1 : 0);
  field_varint(6, stem ? 1 : 0);
  field_varint(7, remove_stop_words ? 1 : 0);
  field_varint(8, ascii_folding ? 1 : 0);
  field_varint(9, min_ngram_length);
  field_varint(10, max_ngram_length);
  field_varint(11, prefix_only ? 1 : 0);
  field_varint(12, 128);  // block size
  field_varint(15, 2);    // posting format version
  return out;
}

// lance.table.InvertedIndexDetails (field numbers observed with protoc --decode_raw on lance 12
// manifests): 1 base_tokenizer (optional string), 2 language (a JSON string: "\"English\""),
// 3 with_position, 4 max_token_length (optional uint32; absent = no limit), 5 lower_case,
// 6 stem, 7 remove_stop_words, 8 ascii_folding, 9 min_ngram_length, 10 max_ngram_length,
// 11 prefix_only, 12 block_size, 13 code_config (message), 14 document granularity,
// 15 posting format version. proto3: an absent scalar is 0 / false.
Result<TokenizerOptions> TokenizerOptions::FromInvertedIndexDetails(std::string_view serialized) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(serialized.data()),
                                            static_cast<int>(serialized.size()));
  std::optional<std::string> base;
  std::string language_json;
  std::optional<uint32_t> max_len;
  bool with_position = false, lower_case = false, stem = false, stop = false, fold = false,
       prefix_only = false, code_config = false;
  uint32_t min_ngram = 0, max_ngram = 0;
  auto corrupt = [](const char* what) {
    return Status::Corruption("InvertedIndexDetails: {}", what);
  };
  while (uint32_t tag = in.ReadTag()) {
    const int field = static_cast<int>(WireFormatLite::GetTagFieldNumber(tag));
    const auto wire = WireFormatLite::GetTagWireType(tag);
    auto varint = [&](uint64_t* v) { return wire == WireFormatLite::WIRETYPE_VARINT && in.ReadVarint64(v); };
    auto bytes = [&](std::string* s) {
      uint32_t n;
      return wire == WireFormatLite::WIRETYPE_LENGTH_DELIMITED && in.ReadVarint32(&n) &&
             n <= static_cast<uint32_t>(in.BytesUntilLimit() < 0 ? INT32_MAX : in.BytesUntilLimit()) &&
             in.ReadString(s, static_cast<int>(n));
    };
    uint64_t v = 0;
    std::string s;
    switch (field) {
      case 1:
        if (!bytes(&s)) return corrupt("field 1 (base_tokenizer) is not a string");
        base = std::move(s);
        break;
      case 2:
        if (!bytes(&language_json)) return corrupt("field 2 (language) is not a string");
        break;
      case 13:
        if (!bytes(&s)) return corrupt("field 13 (code_config) is not a message");
        code_config = true;
        break;
      case 3: case 4: case 5: case 6: case 7: case 8: case 9: case 10: case 11:
        if (!varint(&v)) return corrupt("a tokenizer field (3-11) is not a varint");
        switch (field) {
          case 3: with_position = v != 0; break;
          case 4: max_len = static_cast<uint32_t>(v); break;
          case 5: lower_case = v != 0; break;
          case 6: stem = v != 0; break;
          case 7: stop = v != 0; break;
          case 8: fold = v != 0; break;
          case 9: min_ngram = static_cast<uint32_t>(v); break;
          case 10: max_ngram = static_cast<uint32_t>(v); break;
          case 11: prefix_only = v != 0; break;
        }
        break;
      default:
        if (!WireFormatLite::SkipField(&in, tag)) return corrupt("truncated field");
    }
  }
  if (!in.ConsumedEntireMessage() || in.CurrentPosition() != static_cast<int>(serialized.size())) {
    return corrupt("malformed or truncated message");
  }
  // Details written before the tokenizer fields existed: the defaults.
  if (!base && language_json.empty()) return Defaults();
  TokenizerOptions o = Defaults(base.value_or("simple"));
  if (code_config && o.base_tokenizer != "code") return corrupt("code_config requires base_tokenizer 'code'");
  if (!language_json.empty()) {
    nlohmann::json lj = nlohmann::json::parse(language_json, nullptr, false);
    if (lj.is_discarded() || !lj.is_string()) {
      return Status::Corruption("InvertedIndexDetails: language {} is not a JSON string", language_json);
    }
    auto lang = ParseLanguage(lj.get<std::string>());
    if (!lang.ok()) return lang.status();
    o.language = *lang;
  }
  o.with_position = with_position;
  o.max_token_length = max_len;
  o.lower_case = lower_case;
  o.stem = stem;
  o.remove_stop_words = stop;
  o.ascii_folding = fold;
  o.min_ngram_length = min_ngram;
  o.max_ngram_length = max_ngram;
  o.prefix_only = prefix_only;
  Status st = o.Validate();
  if (!st.ok()) return st;
  return o;
}

}  // namespace lance::index::fts
