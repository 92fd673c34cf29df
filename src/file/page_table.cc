// The page table's own logic: parsing a mini-block page index and fetching the page buffers
// of a field's columns in one call.
#include "file/page_table.h"

#include <algorithm>

namespace lance::file {

Result<std::shared_ptr<const MiniBlockPageIndex>> ParseMiniBlockPageIndex(
    const PageMeta& pm, int minor_version, BufferPtr meta, const BufferPtr& dictionary,
    const BufferPtr& rep_index) {
  const auto& mb = pm.layout->mini_block_layout();
  auto index = std::make_shared<MiniBlockPageIndex>();
  LANCE_ASSIGN_OR_RAISE(index->chunks,
                        encoding::ParseMiniBlockChunks(mb, meta->view(), minor_version));
  uint64_t end = 0;
  for (const auto& c : index->chunks) end = std::max(end, c.offset + c.size);
  if (pm.buffers.size() < 2 || end > pm.buffers[1].second) {
    return Status::Corruption("mini-block chunks end at {} past the chunk buffer", end);
  }
  LANCE_ASSIGN_OR_RAISE(index->rows, encoding::ParseMiniBlockRowIndex(
                                         mb, rep_index ? rep_index->view() : std::string_view(),
                                         index->chunks, pm.num_rows));
  index->meta = std::move(meta);
  if (mb.has_dictionary()) {
    if (!dictionary) return Status::Corruption("mini-block page without its dictionary buffer");
    LANCE_ASSIGN_OR_RAISE(index->dictionary,
                          encoding::DecodeMiniBlockDictionary(mb, dictionary->view()));
    index->has_dictionary = true;
  }
  return std::shared_ptr<const MiniBlockPageIndex>(std::move(index));
}

Result<FetchedColumns> FileReader::Impl::FetchColumns(int first, int count) const {
  std::vector<io::Range> ranges;
  for (int c = first; c < first + count; ++c) {
    for (const auto& page : pages[static_cast<size_t>(c)]) {
      for (const auto& [pos, len] : page.buffers) {
        ranges.push_back({static_cast<int64_t>(pos), static_cast<int64_t>(len)});
      }
    }
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<BufferPtr> got, fetch(ranges));
  if (got.size() != ranges.size()) {
    return Status::IOError("lance file: asked for {} ranges, got {}", ranges.size(), got.size());
  }
  FetchedColumns out;
  size_t next = 0;
  for (int c = first; c < first + count; ++c) {
    auto& column = out.emplace_back();
    for (const auto& page : pages[static_cast<size_t>(c)]) {
      auto& bufs = column.emplace_back();
      for (size_t b = 0; b < page.buffers.size(); ++b) {
        if (got[next]->size() != ranges[next].length) {
          return Status::IOError("lance file: short read of {} bytes at {}", ranges[next].length,
                                 ranges[next].offset);
        }
        bufs.push_back(got[next++]);
      }
    }
  }
  return out;
}

}  // namespace lance::file
