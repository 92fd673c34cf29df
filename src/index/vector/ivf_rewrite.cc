#include "index/vector/ivf_rewrite.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <regex>

#include <nlohmann/json.hpp>

#include "index/proto/ivf.pb.h"
#include "index/vector/ivf_format.h"
#include "lance/file/file_writer.h"

namespace lance::index::vector {

Result<int> IvfBufferOf(const file::FileReader& reader, const std::string& path) {
  const auto& meta = reader.schema()->metadata();
  auto text = meta ? meta->Get(kIvfMetadataKey) : std::nullopt;
  int pos = 0;
  if (text) {
    auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), pos);
    if (ec != std::errc() || p != text->data() + text->size()) pos = 0;
  }
  if (pos <= 0 || pos >= reader.num_global_buffers()) {
    return Status::Corruption("{}: \"lance:ivf\" names no global buffer 1..{}", path, reader.num_global_buffers() - 1);
  }
  return pos;
}

double SerdeJsonDouble(std::string_view text) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  uint64_t significand = 0;
  int digits = 0, exponent = 0;
  bool fraction = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !fraction) {
      fraction = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    if (significand == 0 && c == '0') {
      if (fraction) --exponent;  // leading zeros: no digit yet
      continue;
    }
    if (++digits > 19) return std::strtod(std::string(text).c_str(), nullptr);
    significand = significand * 10 + static_cast<uint64_t>(c - '0');
    if (fraction) --exponent;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    int e = 0;
    auto [p, ec] = std::from_chars(text.data() + i + 1 + (text.size() > i + 1 && text[i + 1] == '+'),
                                   text.data() + text.size(), e);
    if (ec != std::errc()) return std::strtod(std::string(text).c_str(), nullptr);
    exponent += e;
  }
  if (std::abs(exponent) > 308) return std::strtod(std::string(text).c_str(), nullptr);
  const double pow10 = std::strtod(("1e" + std::to_string(std::abs(exponent))).c_str(), nullptr);
  double f = static_cast<double>(significand);
  f = exponent >= 0 ? f * pow10 : f / pow10;
  return negative ? -f : f;
}

namespace {

// The shortest text of `d` that reads back as `d`, with ".0" for whole numbers (serde_json's
// printing).
std::string ShortestDouble(double d) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  std::string s(buf, ec == std::errc() ? p : buf);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

SchemaPtr ReserializedStorageSchema(const SchemaPtr& schema) {
  const auto& meta = schema->metadata();
  auto text = meta ? meta->Get(kStorageMetadataKey) : std::nullopt;
  if (!text) return schema;
  auto list = nlohmann::json::parse(*text, nullptr, false);
  if (!list.is_array() || list.size() != 1 || !list[0].is_string()) return schema;
  const std::string inner = list[0].get<std::string>();
  static const std::regex bounds(R"re("bounds":\{"start":(-?[0-9.eE+-]+),"end":(-?[0-9.eE+-]+)\})re");
  std::smatch m;
  if (!std::regex_search(inner, m, bounds)) return schema;
  const std::string redone = m.prefix().str() + "\"bounds\":{\"start\":" + ShortestDouble(SerdeJsonDouble(m[1].str())) +
                             ",\"end\":" + ShortestDouble(SerdeJsonDouble(m[2].str())) + "}" + m.suffix().str();
  auto out = std::make_shared<KeyValueMetadata>(meta->pairs());
  out->Set(kStorageMetadataKey, nlohmann::json::array({redone}).dump());
  return schema->WithMetadata(std::move(out));
}

Result<RewrittenIvfSizes> WriteRewrittenIvf(const IndexStore& from, IndexStore& to, const file::FileReader& aux,
                                            const SchemaPtr& schema, int64_t n, std::vector<ArrayPtr> columns,
                                            const std::vector<uint32_t>& lengths,
                                            const std::function<Result<uint64_t>(IndexStore&)>& write_index) {
  const std::string aux_path = from.DisplayPathOf(kAuxiliaryFileName);
  LANCE_ASSIGN_OR_RAISE(auto writer, to.CreateFile(kAuxiliaryFileName, schema));
  if (n > 0) {
    LANCE_ASSIGN_OR_RAISE(auto batch, RecordBatch::Make(schema, n, std::move(columns)));
    LANCE_RETURN_NOT_OK(writer->Write(*batch));
  }
  LANCE_ASSIGN_OR_RAISE(int ivf_pos, IvfBufferOf(aux, aux_path));
  for (int b = 1; b < aux.num_global_buffers(); ++b) {
    LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, aux.ReadGlobalBuffer(b));
    std::string out(bytes->view());
    if (b == ivf_pos) {
      pb::IVF msg;
      if (!msg.ParseFromString(out)) return Status::Corruption("{}: global buffer {} is not an IVF message", aux_path, b);
      msg.clear_offsets();
      msg.clear_lengths();
      uint64_t offset = 0;
      for (uint32_t len : lengths) {
        msg.add_offsets(offset);
        msg.add_lengths(len);
        offset += len;
      }
      out = msg.SerializeAsString();
    }
    LANCE_ASSIGN_OR_RAISE(int pos, writer->AddGlobalBuffer(out));
    if (pos != b) return Status::IOError("{}: global buffer {} written as {}", to.DisplayPathOf(kAuxiliaryFileName), b, pos);
  }
  LANCE_ASSIGN_OR_RAISE(auto summary, writer->Finish());
  RewrittenIvfSizes sizes;
  sizes.auxiliary = static_cast<uint64_t>(summary.size_bytes);
  if (write_index) {
    LANCE_ASSIGN_OR_RAISE(sizes.index, write_index(to));
    return sizes;
  }
  LANCE_ASSIGN_OR_RAISE(BufferPtr index_bytes, from.object_store()->Get(from.PathOf(kIndexFileName)));
  LANCE_RETURN_NOT_OK(to.object_store()->Put(to.PathOf(kIndexFileName), index_bytes->view()));
  sizes.index = static_cast<uint64_t>(index_bytes->size());
  return sizes;
}

}  // namespace lance::index::vector
