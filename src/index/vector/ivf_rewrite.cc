#include "index/vector/ivf_rewrite.h"

#include <charconv>

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

Result<RewrittenIvfSizes> WriteRewrittenIvf(const IndexStore& from, IndexStore& to, const file::FileReader& aux,
                                            const SchemaPtr& schema, int64_t n, std::vector<ArrayPtr> columns,
                                            const std::vector<uint32_t>& lengths) {
  const std::string aux_path = from.PathOf(kAuxiliaryFileName);
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
    if (pos != b) return Status::IOError("{}: global buffer {} written as {}", to.PathOf(kAuxiliaryFileName), b, pos);
  }
  LANCE_ASSIGN_OR_RAISE(auto summary, writer->Finish());
  LANCE_ASSIGN_OR_RAISE(BufferPtr index_bytes, from.object_store()->Get(from.PathOf(kIndexFileName)));
  LANCE_RETURN_NOT_OK(to.object_store()->Put(to.PathOf(kIndexFileName), index_bytes->view()));
  RewrittenIvfSizes sizes;
  sizes.auxiliary = static_cast<uint64_t>(summary.size_bytes);
  sizes.index = static_cast<uint64_t>(index_bytes->size());
  return sizes;
}

}  // namespace lance::index::vector
