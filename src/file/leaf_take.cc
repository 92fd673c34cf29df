// Takes of leaf columns without levels: mini-block values and full-zip rows by byte range.
#include "file/leaf_take.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "encoding/repdef.h"

namespace lance::file {

using encoding::DataBlock;

bool IsStructural(const DataType& t) {
  return t.id() == TypeId::kStruct || t.id() == TypeId::kList || t.id() == TypeId::kLargeList ||
         t.id() == TypeId::kMap;
}

bool LevellessMiniBlock(const DataType& type, const std::vector<PageMeta>& pages) {
  if (type.id() == TypeId::kNull || IsStructural(type)) return false;
  for (const auto& pm : pages) {
    if (!pm.layout->has_mini_block_layout() || pm.layout->mini_block_layout().has_rep_compression() ||
        pm.layout->mini_block_layout().has_def_compression()) {
      return false;
    }
  }
  return true;
}

Result<ArrayPtr> DecodeLeafPage(const encoding::PageInput& in, const DataTypePtr& type) {
  LANCE_ASSIGN_OR_RAISE(encoding::DecodedPage page, encoding::DecodePage(in));
  LANCE_ASSIGN_OR_RAISE(auto layers, encoding::UnravelLevels(page.layers, page.rep, page.def,
                                                              in.num_rows, page.num_values));
  if (layers.size() != 1) {
    return Status::Corruption("top-level leaf page with {} layers", layers.size());
  }
  if (type->id() == TypeId::kNull) return MakeArrayOfNulls(type, layers[0].length);
  return encoding::DataBlockToArray(type, std::move(page.values), layers[0].validity);
}

Result<ArrayPtr> TakeFullZipRows(const FetchFn& fetch, const PageMeta& pm, int64_t page_start,
                                 std::vector<int64_t>::const_iterator wanted,
                                 std::vector<int64_t>::const_iterator wanted_end,
                                 const encoding::PageInput& proto_in, const DataTypePtr& type) {
  const auto& fz = pm.layout->full_zip_layout();
  const int64_t page_end = page_start + pm.num_rows;
  if (pm.buffers.empty()) return Status::Corruption("full-zip page without buffers");
  if (fz.num_items() != static_cast<uint64_t>(pm.num_rows) ||
      fz.num_visible_items() != fz.num_items()) {
    return Status::Corruption("full-zip page of {} rows has {} items ({} visible) without repetition",
                              pm.num_rows, fz.num_items(), fz.num_visible_items());
  }
  // Runs of consecutive wanted rows, as page-local [first, first + count).
  std::vector<std::pair<int64_t, int64_t>> runs;
  // Wanted rows are ascending and distinct: when the page's share of them spans exactly as
  // many rows as it holds, it is one run (a ranged read), found without visiting each row.
  const auto in_page_end = std::lower_bound(wanted, wanted_end, page_end);
  if (in_page_end != wanted && *(in_page_end - 1) - *wanted + 1 == in_page_end - wanted) {
    runs.emplace_back(*wanted - page_start, in_page_end - wanted);
  } else {
    for (auto it = wanted; it != in_page_end; ++it) {
      const int64_t local = *it - page_start;
      if (!runs.empty() && runs.back().first + runs.back().second == local) {
        ++runs.back().second;
      } else {
        runs.emplace_back(local, 1);
      }
    }
  }
  if (runs.empty()) return Status::Internal("full-zip take: no wanted row in the page");
  const uint64_t data_pos = pm.buffers[0].first;
  const uint64_t data_size = pm.buffers[0].second;
  std::vector<encoding::ByteRange> byte_ranges;
  byte_ranges.reserve(runs.size());
  if (fz.details_case() == pb21::FullZipLayout::kBitsPerValue) {
    // Fixed width: rows sit at a fixed stride.
    for (const auto& [first, count] : runs) {
      LANCE_ASSIGN_OR_RAISE(auto r, encoding::FullZipFixedRowRange(fz, first, count, data_size));
      byte_ranges.push_back(r);
    }
  } else {
    // Variable width: the repetition index (buffer 1) holds each row's start; read only the
    // entries around the wanted rows.
    if (pm.buffers.size() < 2) {
      return Status::Corruption("variable-width full-zip page without a repetition index");
    }
    LANCE_ASSIGN_OR_RAISE(int w, encoding::FullZipRepIndexWidth(pm.buffers[1].second, pm.num_rows));
    std::vector<io::Range> index_ranges;
    index_ranges.reserve(runs.size());
    for (const auto& [first, count] : runs) {
      index_ranges.push_back({static_cast<int64_t>(pm.buffers[1].first) + first * w, (count + 1) * w});
    }
    LANCE_ASSIGN_OR_RAISE(std::vector<BufferPtr> entries, fetch(index_ranges));
    if (entries.size() != runs.size()) return Status::IOError("lance file: short repetition index read");
    for (size_t r = 0; r < runs.size(); ++r) {
      LANCE_ASSIGN_OR_RAISE(auto br, encoding::FullZipIndexedRowRange(entries[r]->view(), w,
                                                                      runs[r].second, data_size));
      byte_ranges.push_back(br);
    }
  }
  std::vector<io::Range> data_ranges;
  data_ranges.reserve(runs.size());
  for (const auto& br : byte_ranges) {
    data_ranges.push_back({static_cast<int64_t>(data_pos + br.offset), static_cast<int64_t>(br.size)});
  }
  LANCE_ASSIGN_OR_RAISE(std::vector<BufferPtr> bytes, fetch(data_ranges));
  if (bytes.size() != runs.size()) return Status::IOError("lance file: short full-zip read");
  // Whole rows laid end to end are a full-zip buffer of those rows: the runs' bytes are put
  // together and decoded once (a decode per run cost ~3500 instructions of set-up per row for
  // a take of scattered rows: layout copy, page decode, levels, array).
  int64_t total_rows = 0;
  for (const auto& run : runs) total_rows += run.second;
  BufferPtr joined;
  if (bytes.size() == 1) {
    joined = bytes[0];
  } else {
    int64_t total_bytes = 0;
    for (const auto& b : bytes) total_bytes += b->size();
    LANCE_ASSIGN_OR_RAISE(joined, AllocateBuffer(total_bytes));
    uint8_t* dst = joined->mutable_data();
    for (const auto& b : bytes) {
      if (b->size() > 0) std::memcpy(dst, b->data(), static_cast<size_t>(b->size()));
      dst += b->size();
    }
  }
  pb21::PageLayout sub = *pm.layout;
  sub.mutable_full_zip_layout()->set_num_items(static_cast<uint64_t>(total_rows));
  sub.mutable_full_zip_layout()->set_num_visible_items(static_cast<uint64_t>(total_rows));
  // proto_in as it is (layout, version and value shape; the buffer is the rows' own).
  encoding::PageInput in;
  in.minor_version = proto_in.minor_version;
  in.prototype = DataBlock::EmptyLike(proto_in.prototype);
  in.output = proto_in.output;
  in.full_zip_row_slice = proto_in.full_zip_row_slice;
  in.layout = &sub;
  in.num_rows = total_rows;
  in.buffers = {joined->view()};
  in.owners = {joined};
  LANCE_ASSIGN_OR_RAISE(ArrayPtr arr, DecodeLeafPage(in, type));
  if (arr->length != total_rows) {
    return Status::Corruption("full-zip take decoded {} rows for {}", arr->length, total_rows);
  }
  return arr;
}

Result<ArrayPtr> TakeMiniBlockValues(const FetchFn& fetch, PageIndexCache* cache, int column,
                                     const std::vector<PageMeta>& pages, int minor_version,
                                     const WantedRows& wanted,
                                     const std::vector<int64_t>* order, const DataBlock& prototype,
                                     const DataTypePtr& type, bool keep_dictionaries) {
  DataBlock picked = DataBlock::EmptyLike(prototype);
  std::vector<int32_t> picked_indices;  // keep_dictionaries: the values' dictionary indices
  DataBlock dictionary = DataBlock::EmptyLike(prototype);  // and the pages' dictionaries
  if (keep_dictionaries) {
    picked_indices.reserve(static_cast<size_t>(wanted.size()));
  } else {
    LANCE_RETURN_NOT_OK(picked.Reserve(wanted.size()));
  }
  struct PageRows {
    size_t page;
    int64_t page_start;
    int64_t begin, end;  // the wanted rows in the page (indices into `wanted`)
    std::shared_ptr<const MiniBlockPageIndex> index;
    size_t head_at;
    std::vector<size_t> chunk_ids;
    // Per chunk: the wanted values [first, first + count) of the chunk, or `positions`
    // (chunk-local, ascending) when they are not one run.
    std::vector<std::pair<int64_t, int64_t>> runs;
    std::vector<std::vector<int64_t>> positions;
    size_t data_at;
  };
  std::vector<PageRows> touched;
  std::vector<io::Range> head;
  {
    int64_t page_start = 0;
    int64_t next = 0;
    for (size_t p = 0; p < pages.size() && next < wanted.size(); page_start += pages[p].num_rows, ++p) {
      const PageMeta& pm = pages[p];
      const int64_t page_end = page_start + pm.num_rows;
      if (wanted[next] >= page_end) continue;
      PageRows t{p, page_start, next, next, cache->Find(column, p), head.size(), {}, {}, {}, 0};
      next = wanted.LowerBound(next, page_end);
      t.end = next;
      if (!t.index) {
        const auto& mb = pm.layout->mini_block_layout();
        if (pm.buffers.size() < (mb.has_dictionary() ? 3u : 2u)) {
          return Status::Corruption("page {}: mini-block page with {} buffers", p, pm.buffers.size());
        }
        head.push_back({static_cast<int64_t>(pm.buffers[0].first),
                        static_cast<int64_t>(pm.buffers[0].second)});
        if (mb.has_dictionary()) {
          head.push_back({static_cast<int64_t>(pm.buffers[2].first),
                          static_cast<int64_t>(pm.buffers[2].second)});
        }
      }
      touched.push_back(std::move(t));
    }
  }
  std::vector<BufferPtr> head_bufs;
  if (!head.empty()) {
    LANCE_ASSIGN_OR_RAISE(head_bufs, fetch(head));
    if (head_bufs.size() != head.size()) return Status::IOError("lance file: short read");
  }
  // The chunks' bytes: consecutive chunks of a page are one range (one buffer and one store
  // read for a span's ~8 chunks, not a buffer object per chunk: ~5 % of a 1 % delete's
  // instructions), each chunk a slice of its range's buffer.
  struct ChunkBytes {
    size_t range;
    uint64_t offset, size;
  };
  std::vector<io::Range> ranges;
  std::vector<ChunkBytes> chunk_bytes;
  for (PageRows& t : touched) {
    const PageMeta& pm = pages[t.page];
    auto context = [&](const Status& st) { return st.WithContext(fmt::format("page {}", t.page)); };
    const auto& mb = pm.layout->mini_block_layout();
    if (mb.num_items() != static_cast<uint64_t>(pm.num_rows)) {
      return context(Status::Corruption("page of {} rows has {} items without levels", pm.num_rows,
                                        mb.num_items()));
    }
    if (!t.index) {
      auto index = ParseMiniBlockPageIndex(pm, minor_version, head_bufs[t.head_at],
                                           mb.has_dictionary() ? head_bufs[t.head_at + 1] : nullptr,
                                           nullptr);
      if (!index.ok()) return context(index.status());
      t.index = *index;
      cache->Put(column, t.page, t.index);
    }
    // The chunks holding wanted rows, with the wanted positions inside each.
    const auto& chunks = t.index->chunks;
    t.data_at = chunk_bytes.size();
    const size_t page_ranges = ranges.size();  // ranges before this page's
    int64_t chunk_row = t.page_start;
    int64_t next = t.begin;
    // The first chunk holding a wanted row, by binary search of the chunks' first rows (each
    // value is a row here): a scan of a page span by span walked the page's chunks from the
    // first one for every span, spans x chunks steps (a tenth of a 1 % delete's instructions).
    size_t first_chunk = 0;
    const auto& starts = t.index->rows;
    if (next < t.end && mb.repetition_index_depth() == 0 && starts.size() == chunks.size() &&
        !starts.empty()) {
      const int64_t local = wanted[next] - t.page_start;
      auto it = std::upper_bound(starts.begin(), starts.end(), local,
                                 [](int64_t v, const encoding::MiniBlockChunkRows& r) { return v < r.first_row; });
      if (it != starts.begin()) {
        first_chunk = static_cast<size_t>(it - starts.begin()) - 1;
        chunk_row = t.page_start + starts[first_chunk].first_row;
      }
    }
    // About the chunks the page's wanted rows span (a span of contiguous rows: exactly).
    const size_t expect = static_cast<size_t>(
        (t.end - t.begin) * static_cast<int64_t>(chunks.size()) / std::max<int64_t>(1, pm.num_rows) + 2);
    t.runs.reserve(expect);
    t.chunk_ids.reserve(expect);
    t.positions.reserve(expect);
    chunk_bytes.reserve(chunk_bytes.size() + expect);
    for (size_t c = first_chunk; c < chunks.size() && next < t.end; ++c) {
      const int64_t end = chunk_row + chunks[c].num_values;
      if (wanted[next] < end) {
        // The wanted rows of the chunk by binary search (arithmetic for a range); their
        // positions only when they are not one run (a ranged read builds no list).
        const int64_t stop = std::min(wanted.LowerBound(next, end), t.end);
        std::vector<int64_t> pos;
        if (wanted[stop - 1] - wanted[next] != stop - 1 - next) {
          pos.resize(static_cast<size_t>(stop - next));
          wanted.Positions(next, chunk_row, &pos);
        }
        t.runs.emplace_back(wanted[next] - chunk_row, stop - next);
        next = stop;
        const auto at = static_cast<int64_t>(pm.buffers[1].first + chunks[c].offset);
        const auto size = static_cast<int64_t>(chunks[c].size);
        if (ranges.size() > page_ranges && ranges.back().offset + ranges.back().length == at) {
          chunk_bytes.push_back({ranges.size() - 1, static_cast<uint64_t>(ranges.back().length),
                                 static_cast<uint64_t>(size)});
          ranges.back().length += size;
        } else {
          chunk_bytes.push_back({ranges.size(), 0, static_cast<uint64_t>(size)});
          ranges.push_back({at, size});
        }
        t.chunk_ids.push_back(c);
        t.positions.push_back(std::move(pos));
      }
      chunk_row = end;
    }
  }
  std::vector<BufferPtr> chunk_bufs;
  if (!ranges.empty()) {
    LANCE_ASSIGN_OR_RAISE(chunk_bufs, fetch(ranges));
    if (chunk_bufs.size() != ranges.size()) return Status::IOError("lance file: short chunk read");
    for (size_t r = 0; r < ranges.size(); ++r) {
      if (chunk_bufs[r]->size() != ranges[r].length) {
        return Status::IOError("lance file: chunk read of {} bytes returned {}", ranges[r].length,
                               chunk_bufs[r]->size());
      }
    }
  }
  auto chunk_view = [&](size_t i) {
    const ChunkBytes& cb = chunk_bytes[i];
    return chunk_bufs[cb.range]->view().substr(cb.offset, cb.size);
  };
  if (!keep_dictionaries && picked.kind == DataBlock::Kind::kVariable) {
    // Variable values (FSST text: ~3 bytes out per chunk byte) reserved once for all the
    // chunks, by each chunk's share of wanted values, instead of the block doubling (and
    // copying what it holds) chunk after chunk: a tenth of a full scan's time.
    double expected = 0;
    for (const PageRows& t : touched) {
      for (size_t k = 0; k < t.chunk_ids.size(); ++k) {
        const auto& chunk = t.index->chunks[t.chunk_ids[k]];
        if (chunk.num_values > 0) {
          expected += 3.0 * static_cast<double>(chunk.size) * static_cast<double>(t.runs[k].second) /
                      static_cast<double>(chunk.num_values);
        }
      }
    }
    LANCE_RETURN_NOT_OK(picked.Reserve(0, static_cast<int64_t>(expected)));
  }
  for (const PageRows& t : touched) {
    const auto& mb = pages[t.page].layout->mini_block_layout();
    const MiniBlockPageIndex& index = *t.index;
    if (keep_dictionaries) {
      if (!index.has_dictionary) {
        return Status::Internal("page {} has no dictionary to keep", t.page);
      }
      if (dictionary.num_values > INT32_MAX - index.dictionary.num_values - 1) {
        return Status::Corruption("page {}: dictionaries of more than 2^31 items", t.page);
      }
      const auto base = static_cast<int32_t>(dictionary.num_values);
      for (size_t k = 0; k < t.chunk_ids.size(); ++k) {
        const auto view = chunk_view(t.data_at + k);
        const int64_t chunk_values = index.chunks[t.chunk_ids[k]].num_values;
        const auto st =
            t.positions[k].empty()
                ? encoding::DecodeMiniBlockChunkIndicesRange(
                      mb, view, chunk_values, index.dictionary.num_values, t.runs[k].first,
                      t.runs[k].second, base, &picked_indices)
                : encoding::DecodeMiniBlockChunkIndicesAt(mb, view, chunk_values,
                                                          index.dictionary.num_values,
                                                          t.positions[k], base, &picked_indices);
        if (!st.ok()) {
          return st.WithContext(fmt::format("page {} chunk {}", t.page, t.chunk_ids[k]));
        }
      }
      LANCE_RETURN_NOT_OK(
          dictionary.AppendRange(index.dictionary, 0, index.dictionary.num_values)
              .WithContext(fmt::format("page {} dictionary", t.page)));
      LANCE_RETURN_NOT_OK(dictionary.AppendEmpty(1));  // the unstored null entry, read as an empty value
      continue;
    }
    for (size_t k = 0; k < t.chunk_ids.size(); ++k) {
      const auto view = chunk_view(t.data_at + k);
      const int64_t chunk_values = index.chunks[t.chunk_ids[k]].num_values;
      const DataBlock* dict = index.has_dictionary ? &index.dictionary : nullptr;
      const auto st = t.positions[k].empty()
                          ? encoding::DecodeMiniBlockChunkRange(mb, view, chunk_values, dict,
                                                                t.runs[k].first,
                                                                t.runs[k].second, &picked)
                          : encoding::DecodeMiniBlockChunkAt(mb, view, chunk_values, dict,
                                                             t.positions[k], &picked);
      if (!st.ok()) {
        return st.WithContext(fmt::format("page {} chunk {}", t.page, t.chunk_ids[k]));
      }
    }
  }
  if (keep_dictionaries) {
    if (static_cast<int64_t>(picked_indices.size()) != wanted.size()) {
      return Status::Corruption("took {} values for {} rows", picked_indices.size(), wanted.size());
    }
    const auto n = order ? static_cast<int64_t>(order->size()) : wanted.size();
    LANCE_ASSIGN_OR_RAISE(BufferPtr buf, AllocateBuffer(n * static_cast<int64_t>(sizeof(int32_t))));
    auto* out = reinterpret_cast<int32_t*>(buf->mutable_data());
    if (!order) {
      std::memcpy(out, picked_indices.data(), picked_indices.size() * sizeof(int32_t));
    } else {
      for (size_t i = 0; i < order->size(); ++i) {
        out[i] = picked_indices[static_cast<size_t>(wanted.LowerBound(0, (*order)[i]))];
      }
    }
    LANCE_ASSIGN_OR_RAISE(ArrayPtr values,
                          encoding::DataBlockToArray(type, std::move(dictionary), {}));
    return Array::Make(::lance::dictionary(int32(), type), n, {nullptr, buf}, {}, 0, values);
  }
  if (picked.num_values != wanted.size()) {
    return Status::Corruption("took {} values for {} rows", picked.num_values, wanted.size());
  }
  if (!order) return encoding::DataBlockToArray(type, std::move(picked), {});
  DataBlock out = DataBlock::EmptyLike(prototype);
  LANCE_RETURN_NOT_OK(out.Reserve(static_cast<int64_t>(order->size())));
  for (int64_t r : *order) {
    const int64_t idx = wanted.LowerBound(0, r);
    LANCE_RETURN_NOT_OK(out.AppendRange(picked, idx, 1));
  }
  return encoding::DataBlockToArray(type, std::move(out), {});
}

}  // namespace lance::file
