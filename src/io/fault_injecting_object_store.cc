#include "lance/io/fault_injecting_object_store.h"

#include <fnmatch.h>

#include "io/coalesced_read.h"

namespace lance::io {

std::string_view ObjectOpName(ObjectOp op) {
  switch (op) {
    case ObjectOp::kGet: return "Get";
    case ObjectOp::kGetRange: return "GetRange";
    case ObjectOp::kGetTail: return "GetTail";
    case ObjectOp::kHead: return "Head";
    case ObjectOp::kPut: return "Put";
    case ObjectOp::kPutIfNotExists: return "PutIfNotExists";
    case ObjectOp::kDelete: return "Delete";
    case ObjectOp::kList: return "List";
    case ObjectOp::kListDir: return "ListDir";
    case ObjectOp::kCopy: return "Copy";
    case ObjectOp::kCopyIfNotExists: return "CopyIfNotExists";
    case ObjectOp::kRenameIfNotExists: return "RenameIfNotExists";
    case ObjectOp::kOpenReader: return "OpenReader";
    case ObjectOp::kReaderRead: return "ObjectReader::ReadAt";
    case ObjectOp::kOpenWriter: return "OpenWriter";
    case ObjectOp::kWriterWrite: return "ObjectWriter::Write";
    case ObjectOp::kWriterClose: return "ObjectWriter::Close";
    case ObjectOp::kCount: break;
  }
  return "?";
}

namespace {

Status InjectedError(ObjectOp op, std::string_view path, FaultAction action) {
  return Status::IOError("injected fault: {} '{}' {}", ObjectOpName(op), path,
                         action == FaultAction::kFail ? "failed (not performed)"
                                                      : "performed but acknowledgement lost");
}

bool GlobMatches(const std::string& glob, std::string_view path) {
  if (glob.empty()) return true;
  return ::fnmatch(glob.c_str(), std::string(path).c_str(), 0) == 0;
}

// Runs `op_fn` under the fault decision: kFail skips it, kLoseAck runs it and then errors.
template <typename T, typename Fn>
T Guarded(FaultInjectingObjectStore* store, ObjectOp op, std::string_view path,
          std::string_view other, Fn&& op_fn) {
  std::optional<FaultAction> fault = store->Check(op, path, other);
  if (!fault) return op_fn();
  if (*fault == FaultAction::kLoseAck) {
    T ignored = op_fn();
    (void)ignored;
  }
  return InjectedError(op, path, *fault);
}

class FaultInjectingWriter : public ObjectWriter {
 public:
  FaultInjectingWriter(FaultInjectingObjectStore* store, std::string path,
                       std::unique_ptr<ObjectWriter> base)
      : store_(store), path_(std::move(path)), base_(std::move(base)) {}

  Status Write(const void* data, int64_t n) override {
    return Guarded<Status>(store_, ObjectOp::kWriterWrite, path_, {},
                           [&] { return base_->Write(data, n); });
  }
  Status Close() override {
    std::optional<FaultAction> fault = store_->Check(ObjectOp::kWriterClose, path_);
    if (!fault) return base_->Close();
    if (*fault == FaultAction::kLoseAck) {
      (void)base_->Close();
    } else {
      (void)base_->Abort();  // a failed close publishes nothing
    }
    return InjectedError(ObjectOp::kWriterClose, path_, *fault);
  }
  Status Abort() override { return base_->Abort(); }
  int64_t bytes_written() const override { return base_->bytes_written(); }

 private:
  FaultInjectingObjectStore* store_;
  std::string path_;
  std::unique_ptr<ObjectWriter> base_;
};

class FaultInjectingReader : public ObjectReader {
 public:
  FaultInjectingReader(FaultInjectingObjectStore* store, std::unique_ptr<ObjectReader> base)
      : store_(store), base_(std::move(base)) {}
  const std::string& path() const override { return base_->path(); }
  int64_t size() const override { return base_->size(); }
  Result<BufferPtr> ReadAt(int64_t offset, int64_t length) override {
    return Guarded<Result<BufferPtr>>(store_, ObjectOp::kReaderRead, base_->path(), {},
                                      [&] { return base_->ReadAt(offset, length); });
  }
  Result<std::vector<BufferPtr>> ReadRanges(const std::vector<Range>& ranges) override {
    for (const Range& r : ranges) {
      LANCE_RETURN_NOT_OK(internal::CheckRangeInObject(path(), r.offset, r.length, size()));
    }
    return internal::ReadCoalesced(ranges, store_->coalesce_options(), store_->io_pool(),
                                   [this](const Range& r) { return ReadAt(r.offset, r.length); });
  }

 private:
  FaultInjectingObjectStore* store_;
  std::unique_ptr<ObjectReader> base_;
};

}  // namespace

FaultInjectingObjectStore::FaultInjectingObjectStore(std::shared_ptr<ObjectStore> base)
    : base_(std::move(base)) {
  CopyReadSettingsFrom(*base_);
}

void FaultInjectingObjectStore::AddRule(FaultRule rule) {
  std::lock_guard<std::mutex> lock(mutex_);
  rules_.push_back({std::move(rule), 0});
}

void FaultInjectingObjectStore::FailNthOperation(int64_t n, FaultAction action) {
  FaultRule rule;
  rule.nth = n;
  rule.action = action;
  AddRule(std::move(rule));
}

void FaultInjectingObjectStore::CrashAfter(int64_t n, FaultAction first_action) {
  FaultRule first;
  first.nth = n + 1;
  first.action = first_action;
  FaultRule rest;
  rest.nth = n + 2;
  rest.times = -1;
  std::lock_guard<std::mutex> lock(mutex_);
  rules_.push_back({std::move(first), 0});
  rules_.push_back({std::move(rest), 0});
}

void FaultInjectingObjectStore::ClearRules() {
  std::lock_guard<std::mutex> lock(mutex_);
  rules_.clear();
}

int64_t FaultInjectingObjectStore::count(ObjectOp op) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_[static_cast<size_t>(op)];
}

int64_t FaultInjectingObjectStore::total_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t total = 0;
  for (int64_t c : counts_) total += c;
  return total;
}

int64_t FaultInjectingObjectStore::faults_injected() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return faults_;
}

void FaultInjectingObjectStore::ResetCounts() {
  std::lock_guard<std::mutex> lock(mutex_);
  counts_.fill(0);
  faults_ = 0;
}

std::optional<FaultAction> FaultInjectingObjectStore::Check(ObjectOp op, std::string_view path,
                                                            std::string_view other_path) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++counts_[static_cast<size_t>(op)];
  std::optional<FaultAction> fired;
  for (RuleState& rs : rules_) {
    if ((rs.rule.ops & OpBit(op)) == 0) continue;
    if (!GlobMatches(rs.rule.path_glob, path) &&
        (other_path.empty() || !GlobMatches(rs.rule.path_glob, other_path))) {
      continue;
    }
    // Every matching rule counts the operation, so each rule's nth is independent.
    const int64_t k = ++rs.matches;
    const bool in_window = k >= rs.rule.nth && (rs.rule.times < 0 || k < rs.rule.nth + rs.rule.times);
    if (in_window && !fired) fired = rs.rule.action;
  }
  if (fired) ++faults_;
  return fired;
}

Result<BufferPtr> FaultInjectingObjectStore::Get(std::string_view path) {
  return Guarded<Result<BufferPtr>>(this, ObjectOp::kGet, path, {}, [&] { return base_->Get(path); });
}

Result<BufferPtr> FaultInjectingObjectStore::GetRange(std::string_view path, int64_t offset,
                                                      int64_t length) {
  return Guarded<Result<BufferPtr>>(this, ObjectOp::kGetRange, path, {},
                                    [&] { return base_->GetRange(path, offset, length); });
}

Result<TailRead> FaultInjectingObjectStore::GetTail(std::string_view path, int64_t max_length) {
  return Guarded<Result<TailRead>>(this, ObjectOp::kGetTail, path, {},
                                   [&] { return base_->GetTail(path, max_length); });
}

Result<ObjectMeta> FaultInjectingObjectStore::Head(std::string_view path) {
  return Guarded<Result<ObjectMeta>>(this, ObjectOp::kHead, path, {}, [&] { return base_->Head(path); });
}

Status FaultInjectingObjectStore::Put(std::string_view path, std::string_view bytes) {
  return Guarded<Status>(this, ObjectOp::kPut, path, {}, [&] { return base_->Put(path, bytes); });
}

Status FaultInjectingObjectStore::PutIfNotExists(std::string_view path, std::string_view bytes) {
  return Guarded<Status>(this, ObjectOp::kPutIfNotExists, path, {},
                         [&] { return base_->PutIfNotExists(path, bytes); });
}

Status FaultInjectingObjectStore::Delete(std::string_view path) {
  return Guarded<Status>(this, ObjectOp::kDelete, path, {}, [&] { return base_->Delete(path); });
}

Result<std::vector<ObjectMeta>> FaultInjectingObjectStore::List(std::string_view prefix) {
  return Guarded<Result<std::vector<ObjectMeta>>>(this, ObjectOp::kList, prefix, {},
                                                  [&] { return base_->List(prefix); });
}

Result<ListResult> FaultInjectingObjectStore::ListDir(std::string_view prefix) {
  return Guarded<Result<ListResult>>(this, ObjectOp::kListDir, prefix, {},
                                     [&] { return base_->ListDir(prefix); });
}

Status FaultInjectingObjectStore::RemoveEmptyDirectories(std::string_view prefix) {
  return Guarded<Status>(this, ObjectOp::kDelete, prefix, {},
                         [&] { return base_->RemoveEmptyDirectories(prefix); });
}

Status FaultInjectingObjectStore::Copy(std::string_view src, std::string_view dst) {
  return Guarded<Status>(this, ObjectOp::kCopy, dst, src, [&] { return base_->Copy(src, dst); });
}

Status FaultInjectingObjectStore::CopyIfNotExists(std::string_view src, std::string_view dst) {
  return Guarded<Status>(this, ObjectOp::kCopyIfNotExists, dst, src,
                         [&] { return base_->CopyIfNotExists(src, dst); });
}

Status FaultInjectingObjectStore::RenameIfNotExists(std::string_view src, std::string_view dst) {
  return Guarded<Status>(this, ObjectOp::kRenameIfNotExists, dst, src,
                         [&] { return base_->RenameIfNotExists(src, dst); });
}

Result<std::unique_ptr<ObjectReader>> FaultInjectingObjectStore::OpenReader(std::string_view path) {
  std::optional<FaultAction> fault = Check(ObjectOp::kOpenReader, path);
  if (fault) return InjectedError(ObjectOp::kOpenReader, path, *fault);
  LANCE_ASSIGN_OR_RAISE(std::unique_ptr<ObjectReader> r, base_->OpenReader(path));
  return std::unique_ptr<ObjectReader>(new FaultInjectingReader(this, std::move(r)));
}

Result<std::unique_ptr<ObjectWriter>> FaultInjectingObjectStore::OpenWriter(std::string_view path,
                                                                           bool overwrite) {
  std::optional<FaultAction> fault = Check(ObjectOp::kOpenWriter, path);
  if (fault) return InjectedError(ObjectOp::kOpenWriter, path, *fault);
  LANCE_ASSIGN_OR_RAISE(std::unique_ptr<ObjectWriter> w, base_->OpenWriter(path, overwrite));
  return std::unique_ptr<ObjectWriter>(new FaultInjectingWriter(this, std::string(path), std::move(w)));
}

}  // namespace lance::io
