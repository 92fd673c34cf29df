// FileWriter: writes Lance data files of format 2.1 and 2.2 (2.2 by default, as lance 12).
//
// Batches are buffered per column; a column's buffered rows are encoded into a page when they
// exceed WriteOptions::max_page_bytes (and at Finish). Each page's encoding is chosen from its
// data (bit-packing for integers, dictionary for low-cardinality strings, FSST / general
// compression for long strings, full-zip for wide values such as vectors), so the files look
// like the ones lance 12 writes for the same data. Pages are streamed to the object as they are
// encoded; nothing is visible under the path until Finish() succeeds.
//
// Field ids: fields of the schema that carry a Lance id (Field::id() >= 0) keep it; when no
// field has one, ids are assigned in pre-order from 0 (as a new table does). A FileWriter is
// not thread-safe; it encodes on WriteOptions::pool when one is given.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "lance/columnar/array.h"
#include "lance/columnar/type.h"
#include "lance/core/result.h"
#include "lance/file/file_reader.h"
#include "lance/io/object_store.h"

namespace lance {
class ThreadPool;
}  // namespace lance

namespace lance::file {

struct WriteOptions {
  // 2.1 or 2.2 (major 2); {0, 3} writes a 2.0 file and {0, 2} a legacy v1 file (the
  // plain encodings of those versions, src/file/older_writers.h). Else InvalidArgument at Open.
  FileVersion version{2, 2};
  // Encode a column's buffered rows into a page once they hold at least this many bytes.
  int64_t max_page_bytes = 8 << 20;
  // Upper bound of values in one mini-block chunk (a power of two, <= 4096).
  int64_t max_chunk_values = 4096;
  // Let the writer pick compressive encodings (bit-packing, dictionary, FSST, RLE, ...);
  // false writes plain Flat / Variable values only (useful to test the plain paths).
  bool compress = true;
  // Where columns are shredded and encoded (not owned; must outlive the writer). null: on the
  // calling thread -- the file layer never picks a thread pool of its own; the table and
  // dataset layers pass theirs (dataset::OpenOptions::pool). Pages are written in the order
  // they are taken, so the file's bytes are the same either way. Encoding also runs inline
  // when the caller is a worker of `pool` (waiting for our pages there could starve it) and
  // on a pool without workers.
  ThreadPool* pool = nullptr;
};

struct WriteSummary {
  int64_t num_rows = 0;
  int64_t size_bytes = 0;
  int num_columns = 0;
  FileVersion version;
  SchemaPtr schema;  // the written schema, with the Lance field ids used
};

class FileWriter {
 public:
  // Starts a file at `path` in `store`. Errors: InvalidArgument (bad options, a type the
  // format cannot hold), the store's IOError.
  static Result<std::unique_ptr<FileWriter>> Open(std::shared_ptr<io::ObjectStore> store,
                                                  std::string path, SchemaPtr schema,
                                                  WriteOptions options = {});
  ~FileWriter();

  // Appends rows. REQUIRES: batch.schema matches the writer's schema (names and types).
  // Errors: InvalidArgument on a schema mismatch; IOError from the store.
  Status Write(const RecordBatch& batch);

  // Writes `bytes` as the next global buffer (at the current position, as lance 12 places
  // them) and returns its index (1, 2, ...; 0 is the file descriptor written by Finish).
  // Errors: IOError; InvalidArgument after Finish.
  Result<int> AddGlobalBuffer(std::string_view bytes);

  // Flushes the remaining pages, writes column metadata, global buffers and footer, and
  // publishes the object. Errors: IOError; InvalidArgument if called twice.
  Result<WriteSummary> Finish();

  // Discards everything written so far (also what the destructor does without Finish).
  void Abort();

  // The schema being written, with Lance field ids assigned.
  const SchemaPtr& schema() const;

 private:
  struct Impl;
  FileWriter();
  std::unique_ptr<Impl> impl_;
};

}  // namespace lance::file
