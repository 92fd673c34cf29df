// WAL entry codec (Arrow IPC streams with writer_epoch metadata) and the read side of a WAL.
#include "lance/memwal/wal.h"

#include <charconv>
#include <cstring>

#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"
#include "lance/memwal/layout.h"

namespace lance::memwal {

namespace {

Result<uint64_t> ParseEpoch(const std::string& text, std::string_view what) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return Status::Corruption("{}: schema metadata writer_epoch is '{}', expected a decimal "
                              "integer",
                              what, text);
  }
  return v;
}

KeyValueMetadataPtr WithoutWalKeys(const KeyValueMetadataPtr& md) {
  if (!md) return nullptr;
  std::vector<std::pair<std::string, std::string>> kept;
  for (const auto& kv : md->pairs()) {
    if (kv.first != kWriterEpochKey && kv.first != kFenceSentinelKey) kept.push_back(kv);
  }
  if (kept.empty()) return nullptr;
  return std::make_shared<KeyValueMetadata>(std::move(kept));
}

Result<ArrayPtr> ConstantBool(int64_t n, bool value) {
  LANCE_ASSIGN_OR_RAISE(BufferPtr bits, AllocateBuffer((n + 7) / 8, /*zero_fill=*/true));
  if (value && n > 0) {
    std::memset(bits->mutable_data(), 0xff, static_cast<size_t>(n / 8));
    for (int64_t i = n / 8 * 8; i < n; ++i) bit_util::SetBit(bits->mutable_data(), i);
  }
  return Array::Make(boolean(), n, {nullptr, std::move(bits)});
}

}  // namespace

int64_t WalEntry::num_rows() const {
  int64_t n = 0;
  for (const auto& b : batches) n += b->num_rows();
  return n;
}

Result<SchemaPtr> WalSchema(const SchemaPtr& table_schema) {
  if (table_schema->GetFieldIndex(kTombstoneColumn) >= 0) {
    return Status::InvalidArgument("the table schema already has a column '{}' (reserved for "
                                   "MemWAL delete markers)",
                                   kTombstoneColumn);
  }
  std::vector<FieldPtr> fields = table_schema->fields();
  fields.push_back(field(std::string(kTombstoneColumn), boolean(), /*nullable=*/false));
  return schema(std::move(fields), table_schema->metadata());
}

Result<SchemaPtr> WithPrimaryKey(const SchemaPtr& table_schema,
                                 const std::vector<std::string>& columns) {
  std::vector<FieldPtr> fields = table_schema->fields();
  std::vector<bool> seen(fields.size(), false);
  for (size_t k = 0; k < columns.size(); ++k) {
    const int i = table_schema->GetFieldIndex(columns[k]);
    if (i < 0) {
      return Status::InvalidArgument("primary key column '{}' is not a column of the table",
                                     columns[k]);
    }
    if (seen[static_cast<size_t>(i)]) {
      return Status::InvalidArgument("primary key column '{}' is named twice", columns[k]);
    }
    seen[static_cast<size_t>(i)] = true;
    const FieldPtr& f = fields[static_cast<size_t>(i)];
    auto md = f->metadata() ? std::make_shared<KeyValueMetadata>(*f->metadata())
                            : std::make_shared<KeyValueMetadata>();
    md->Set(std::string(kPrimaryKeyPositionKey), std::to_string(k + 1));
    fields[static_cast<size_t>(i)] = f->WithMetadata(std::move(md));
  }
  return schema(std::move(fields), table_schema->metadata());
}

Result<RecordBatchPtr> MakeWalBatch(const SchemaPtr& wal_schema, const RecordBatch& batch,
                                    bool tombstone) {
  const int n = wal_schema->num_fields();
  std::vector<ArrayPtr> columns;
  columns.reserve(static_cast<size_t>(n));
  auto is_key = [](const Field& f) { return f.metadata() && f.metadata()->Get(kPrimaryKeyPositionKey).has_value(); };
  bool keyed = false;
  for (int i = 0; i < n - 1; ++i) keyed = keyed || is_key(*wal_schema->field(i));
  for (int i = 0; i < n - 1; ++i) {
    const FieldPtr& f = wal_schema->field(i);
    ArrayPtr col = batch.GetColumnByName(f->name());
    if (!col) {
      return Status::InvalidArgument("WAL append: the batch has no column '{}' ({})", f->name(),
                                     f->type()->ToString());
    }
    if (!col->type->Equals(*f->type())) {
      return Status::InvalidArgument("WAL append: column '{}' is {} in the batch, {} in the "
                                     "table",
                                     f->name(), col->type->ToString(), f->type()->ToString());
    }
    if (!f->nullable() && col->null_count > 0) {
      return Status::InvalidArgument("WAL append: column '{}' is not nullable but the batch "
                                     "has {} nulls in it",
                                     f->name(), col->null_count);
    }
    if (tombstone && keyed && !is_key(*f) && f->nullable() && col->null_count < col->length) {
      // A delete marker carries its key alone: a reader that does not filter `_tombstone`
      // (lance 12's full-text search over a generation does not) then matches nothing in it.
      LANCE_ASSIGN_OR_RAISE(col, MakeArrayOfNulls(f->type(), batch.num_rows()));
    }
    columns.push_back(std::move(col));
  }
  if (batch.num_columns() != n - 1) {
    for (const auto& f : batch.schema()->fields()) {
      if (wal_schema->GetFieldIndex(f->name()) < 0 || f->name() == kTombstoneColumn) {
        return Status::InvalidArgument("WAL append: the batch's column '{}' is not a column of "
                                       "the table",
                                       f->name());
      }
    }
  }
  LANCE_ASSIGN_OR_RAISE(ArrayPtr marks, ConstantBool(batch.num_rows(), tombstone));
  columns.push_back(std::move(marks));
  return std::make_shared<RecordBatch>(wal_schema, batch.num_rows(), std::move(columns));
}

Result<BufferPtr> EncodeWalEntry(const SchemaPtr& wal_schema,
                                 const std::vector<RecordBatchPtr>& batches, uint64_t epoch) {
  if (batches.empty()) return Status::InvalidArgument("a WAL entry needs at least one batch");
  auto md = wal_schema->metadata() ? std::make_shared<KeyValueMetadata>(*wal_schema->metadata())
                                   : std::make_shared<KeyValueMetadata>();
  md->Set(std::string(kWriterEpochKey), std::to_string(epoch));
  SchemaPtr with_epoch = wal_schema->WithMetadata(std::move(md));
  for (const auto& b : batches) {
    if (b->num_rows() == 0) return Status::InvalidArgument("a WAL entry cannot hold empty batches");
  }
  // The same stream a StreamWriter over a BufferSink makes, its output reserved once (growing
  // it cost a 10k-row entry a third of its encoding in copies).
  return ipc::WriteStream(with_epoch, batches);
}

Result<BufferPtr> EncodeFenceSentinel(uint64_t epoch) {
  auto md = std::make_shared<KeyValueMetadata>();
  md->Set(std::string(kFenceSentinelKey), "true");
  md->Set(std::string(kWriterEpochKey), std::to_string(epoch));
  ipc::BufferSink sink;
  LANCE_ASSIGN_OR_RAISE(auto writer, ipc::StreamWriter::Open(&sink, schema({}, std::move(md))));
  LANCE_RETURN_NOT_OK(writer->Close());
  return sink.Finish();
}

Result<WalEntry> DecodeWalEntry(BufferPtr bytes, uint64_t position, std::string_view what) {
  if (ipc::DetectFormat(*bytes) != ipc::IpcFormat::kStream) {
    return Status::Corruption("{}: a WAL entry is an Arrow IPC stream, found the IPC file "
                              "format",
                              what);
  }
  auto opened = ipc::StreamReader::Open(std::move(bytes));
  if (!opened.ok()) {
    return opened.status().WithContext(what);
  }
  std::unique_ptr<ipc::StreamReader> reader = std::move(opened).ValueOrDie();
  const SchemaPtr& s = reader->schema();
  WalEntry entry;
  entry.position = position;
  std::optional<std::string> epoch = s->metadata() ? s->metadata()->Get(kWriterEpochKey)
                                                   : std::nullopt;
  if (!epoch) return Status::Corruption("{}: schema metadata has no writer_epoch", what);
  LANCE_ASSIGN_OR_RAISE(entry.writer_epoch, ParseEpoch(*epoch, what));
  std::optional<std::string> sentinel = s->metadata()->Get(kFenceSentinelKey);
  entry.fence_sentinel = sentinel.has_value() && *sentinel == "true";
  entry.schema = s->WithMetadata(WithoutWalKeys(s->metadata()));
  while (true) {
    auto next = reader->Next();
    if (!next.ok()) {
      return next.status().WithContext(what);
    }
    RecordBatchPtr b = std::move(next).ValueOrDie();
    if (!b) break;
    entry.batches.push_back(std::make_shared<RecordBatch>(entry.schema, b->num_rows(),
                                                          b->columns()));
  }
  if (entry.fence_sentinel && (!entry.batches.empty() || s->num_fields() != 0)) {
    return Status::Corruption("{}: a fence sentinel must have no fields and no batches (found "
                              "{} fields, {} batches)",
                              what, s->num_fields(), entry.batches.size());
  }
  return entry;
}

// --- reader ----------------------------------------------------------------------------------

WalReader::WalReader(std::shared_ptr<io::ObjectStore> store, std::string root, Uuid shard)
    : store_(std::move(store)), root_(std::move(root)), shard_(shard) {}

Result<std::optional<WalEntry>> WalReader::Read(uint64_t position) const {
  const std::string path = WalEntryPath(root_, shard_, position);
  auto bytes = store_->Get(path);
  if (!bytes.ok()) {
    if (bytes.status().IsNotFound()) return std::optional<WalEntry>{};
    return bytes.status();
  }
  LANCE_ASSIGN_OR_RAISE(WalEntry e, DecodeWalEntry(std::move(bytes).ValueOrDie(), position, path));
  return std::optional<WalEntry>(std::move(e));
}

Result<bool> WalReader::Exists(uint64_t position) const {
  auto head = store_->Head(WalEntryPath(root_, shard_, position));
  if (head.ok()) return true;
  if (head.status().IsNotFound()) return false;
  return head.status();
}

Result<std::vector<uint64_t>> WalReader::ListPositions() const {
  LANCE_ASSIGN_OR_RAISE(auto listed, store_->List(WalDirectory(root_, shard_)));
  std::vector<uint64_t> out;
  for (const auto& meta : listed) {
    if (auto p = ParseWalFileName(meta.path)) out.push_back(*p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<uint64_t> WalReader::FindTail(uint64_t hint) const {
  uint64_t pos;
  bool hint_present = false;
  if (hint > 0) {
    LANCE_ASSIGN_OR_RAISE(hint_present, Exists(hint));
  }
  if (hint_present) {
    pos = hint + 1;
  } else {
    // No (or a removed) hint: the listing knows the tip; a removed hint still bounds it below,
    // so positions an earlier writer used are never reused.
    LANCE_ASSIGN_OR_RAISE(std::vector<uint64_t> listed, ListPositions());
    pos = std::max(hint + 1, listed.empty() ? uint64_t{1} : listed.back() + 1);
  }
  while (true) {
    LANCE_ASSIGN_OR_RAISE(bool taken, Exists(pos));
    if (!taken) return pos;
    ++pos;
  }
}

Status WalReader::Scan(uint64_t first, uint64_t end,
                       const std::function<Status(WalEntry&&)>& fn) const {
  for (uint64_t p = std::max<uint64_t>(first, 1); end == 0 || p < end; ++p) {
    LANCE_ASSIGN_OR_RAISE(std::optional<WalEntry> e, Read(p));
    if (!e) {
      if (end == 0) return Status::OK();
      return Status::Corruption("shard {}: WAL entry {} is missing below the tip {}",
                                shard_.ToString(), p, end);
    }
    LANCE_RETURN_NOT_OK(fn(std::move(*e)));
  }
  return Status::OK();
}

}  // namespace lance::memwal
