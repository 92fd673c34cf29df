// The page table of an opened 2.0 / 2.1+ data file, as FileReader keeps it after Open: every
// page's buffers and parsed layout per column, the columns of each top-level field, the
// function that fetches byte ranges of the file, and the cache of mini-block page indexes
// that lets later takes fetch only chunks. This is FileReader::Impl; it is built by
// FileReader::OpenTail (file_open.cc) and read by the decoders (structural_reader.h,
// leaf_take.h). Internal to the file layer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "encoding/data_block.h"
#include "encoding/proto/encodings_v2_0.pb.h"
#include "encoding/proto/encodings_v2_1.pb.h"
#include "encoding/structural.h"
#include "lance/core/result.h"
#include "lance/file/file_reader.h"
#include "lance/io/object_store.h"

namespace lance::file {

namespace pb21 = ::lance::encodings21;
namespace pb20 = ::lance::encodings;

// Reads byte ranges of the file (whole-file buffer slices, or ranged object store reads).
using FetchFn = std::function<Result<std::vector<BufferPtr>>(const std::vector<io::Range>&)>;

// The buffers of every page of a run of columns: [column][page][buffer].
using FetchedColumns = std::vector<std::vector<std::vector<BufferPtr>>>;

// One page, parsed.
struct PageMeta {
  int64_t num_rows = 0;
  int64_t priority = 0;
  std::vector<std::pair<uint64_t, uint64_t>> buffers;
  std::string encoding_url;                      // type URL of the page's Any
  std::unique_ptr<pb21::PageLayout> layout;      // 2.1+
  std::unique_ptr<pb20::ArrayEncoding> legacy;   // 2.0
};

// What a take must know of a mini-block page before it can find rows in it: where each chunk
// lives, which rows start in it, and the page's dictionary. Parsed once per page and kept, so
// that later takes fetch only chunks.
struct MiniBlockPageIndex {
  std::vector<encoding::MiniBlockChunk> chunks;
  std::vector<encoding::MiniBlockChunkRows> rows;
  BufferPtr meta;  // the chunk metadata words
  bool has_dictionary = false;
  encoding::DataBlock dictionary;
};

// Page indexes by (column, page). Thread-safe; entries are immutable once published.
class PageIndexCache {
 public:
  std::shared_ptr<const MiniBlockPageIndex> Find(int column, size_t page) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(Key(column, page));
    return it == entries_.end() ? nullptr : it->second;
  }
  void Put(int column, size_t page, std::shared_ptr<const MiniBlockPageIndex> index) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.emplace(Key(column, page), std::move(index));
  }

 private:
  static uint64_t Key(int column, size_t page) {
    return static_cast<uint64_t>(column) << 32 | static_cast<uint64_t>(page);
  }
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<const MiniBlockPageIndex>> entries_;
};

// Parses the chunk metadata, repetition index and dictionary of mini-block page `pm` from its
// buffers 0, 2 (dictionary, if any) and the repetition index buffer, as fetched.
Result<std::shared_ptr<const MiniBlockPageIndex>> ParseMiniBlockPageIndex(
    const PageMeta& pm, int minor_version, BufferPtr meta, const BufferPtr& dictionary,
    const BufferPtr& rep_index);

// A column's metadata (ColumnMetadata protobuf) is parsed at the first read of a field that
// needs it, not at Open: a delete reads one column of five, and parsing every page of every
// column was 7.5 % of its instructions. `pages[c]` is valid only after LoadColumns covered c
// (every FileReader entry point that decodes a field calls it first); the once-flags make the
// parse thread-safe, and a column that fails to parse fails every read of it with the same
// Status (naming the file and the column).
struct FileReader::Impl {
  std::vector<std::vector<PageMeta>> pages;  // per column, filled by LoadColumns
  std::vector<int> first_column;             // per top-level field
  std::vector<int> num_field_columns;        // per top-level field
  FetchFn fetch;
  PageIndexCache page_index;

  // What the lazy parse needs: the metadata bytes (tail, file offset of its first byte), the
  // (position, length) of each column's metadata (checked against the file at Open), the
  // file's version and row count, and how messages name the file ("" when opened from a
  // buffer; set by Open(store, path)).
  BufferPtr tail;
  int64_t tail_offset = 0;
  int64_t file_size = 0;
  FileVersion version;
  uint64_t num_rows = 0;
  std::vector<std::pair<uint64_t, uint64_t>> column_meta;
  std::string display;
  std::unique_ptr<std::once_flag[]> column_once;
  std::vector<Status> column_status;
  std::once_flag info_once;  // FileReader::columns()

  // Parses the metadata of columns [first, first + count) unless done; the first error of
  // those columns. Thread-safe.
  Status LoadColumns(int first, int count);
  // LoadColumns of top-level field `field_index`'s columns.
  Status LoadField(int field_index) {
    return LoadColumns(first_column[static_cast<size_t>(field_index)],
                       num_field_columns[static_cast<size_t>(field_index)]);
  }
  // The buffers of every page of columns [first, first + count): [column][page][buffer].
  // REQUIRES: LoadColumns(first, count) returned OK.
  Result<FetchedColumns> FetchColumns(int first, int count) const;

 private:
  Status ParseColumn(int c);
};

}  // namespace lance::file
