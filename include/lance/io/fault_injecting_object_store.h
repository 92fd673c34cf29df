// FaultInjectingObjectStore: wraps another ObjectStore, counts operations and makes chosen
// ones fail, for crash, retry and lost-acknowledgement tests of the layers above.
//
// A FaultRule matches operations by kind and path glob (fnmatch; empty matches all) and fires
// on its nth..(nth+times-1)th match with one of two actions:
//   kFail     the operation is not performed; IOError is returned.
//   kLoseAck  the operation IS performed, then IOError is returned (a write that reached the
//             storage but whose acknowledgement was lost, as on a network failure).
// With no rules the wrapper is transparent. GetRanges is executed by the wrapper itself
// (coalescing, then one GetRange per merged read through the wrapper), so merged reads are
// counted and can be failed individually.
//
// Thread-safety: safe for concurrent use; rules and counters are guarded by a mutex.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lance/io/object_store.h"

namespace lance::io {

enum class ObjectOp : int {
  kGet = 0,
  kGetRange,
  kGetTail,
  kHead,
  kPut,
  kPutIfNotExists,
  kDelete,
  kList,
  kListDir,
  kCopy,
  kCopyIfNotExists,
  kRenameIfNotExists,
  kOpenReader,
  kReaderRead,  // ObjectReader::ReadAt, and each merged read of ReadRanges
  kOpenWriter,
  kWriterWrite,
  kWriterClose,
  kCount,  // number of kinds, not an operation
};

std::string_view ObjectOpName(ObjectOp op);

// A bit set of ObjectOp kinds.
using ObjectOpMask = uint32_t;
inline constexpr ObjectOpMask OpBit(ObjectOp op) { return 1u << static_cast<int>(op); }
inline constexpr ObjectOpMask kAllObjectOps = (1u << static_cast<int>(ObjectOp::kCount)) - 1;
// Operations that create, replace or remove objects.
inline constexpr ObjectOpMask kMutatingObjectOps =
    OpBit(ObjectOp::kPut) | OpBit(ObjectOp::kPutIfNotExists) | OpBit(ObjectOp::kDelete) |
    OpBit(ObjectOp::kCopy) | OpBit(ObjectOp::kCopyIfNotExists) |
    OpBit(ObjectOp::kRenameIfNotExists) | OpBit(ObjectOp::kWriterClose);

enum class FaultAction { kFail, kLoseAck };

struct FaultRule {
  ObjectOpMask ops = kAllObjectOps;
  // fnmatch(3) pattern on the operation's path (for copies/renames: source or destination;
  // for List: the prefix). Empty matches every path.
  std::string path_glob;
  int64_t nth = 1;    // first matching operation (1-based) that faults
  int64_t times = 1;  // how many consecutive matches fault; -1 = all from nth on
  FaultAction action = FaultAction::kFail;
};

class FaultInjectingObjectStore : public ObjectStore {
 public:
  // Copies the base's coalescing options and pool.
  explicit FaultInjectingObjectStore(std::shared_ptr<ObjectStore> base);

  const std::shared_ptr<ObjectStore>& base() const { return base_; }

  // Adds a rule; rules are checked in insertion order and the first firing one applies.
  void AddRule(FaultRule rule);
  // Fails the nth operation of any kind counted from now.
  void FailNthOperation(int64_t n, FaultAction action = FaultAction::kFail);
  // Simulates a process that dies after `n` more operations: every later operation fails
  // without effect (op n+1 may instead be performed-then-failed with kLoseAck).
  void CrashAfter(int64_t n, FaultAction first_action = FaultAction::kFail);
  void ClearRules();

  // Operations seen (faulted ones included) since construction or ResetCounts().
  int64_t count(ObjectOp op) const;
  int64_t total_count() const;
  // Faults injected so far.
  int64_t faults_injected() const;
  void ResetCounts();

  std::string_view scheme() const override { return base_->scheme(); }
  std::string DisplayPath(std::string_view path) const override {
    return base_->DisplayPath(path);
  }
  Result<BufferPtr> Get(std::string_view path) override;
  Result<BufferPtr> GetRange(std::string_view path, int64_t offset, int64_t length) override;
  // Not overridden: the inherited GetRanges coalesces and calls this->GetRange.
  Result<ObjectMeta> Head(std::string_view path) override;
  Result<TailRead> GetTail(std::string_view path, int64_t max_length) override;
  Status Put(std::string_view path, std::string_view bytes) override;
  Status PutIfNotExists(std::string_view path, std::string_view bytes) override;
  Status Delete(std::string_view path) override;
  Result<std::vector<ObjectMeta>> List(std::string_view prefix) override;
  Result<ListResult> ListDir(std::string_view prefix) override;
  Status RemoveEmptyDirectories(std::string_view prefix) override;
  Status Copy(std::string_view src, std::string_view dst) override;
  Status CopyIfNotExists(std::string_view src, std::string_view dst) override;
  Status RenameIfNotExists(std::string_view src, std::string_view dst) override;
  Result<std::unique_ptr<ObjectReader>> OpenReader(std::string_view path) override;
  Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view path,
                                                   bool overwrite = true) override;

  // Counts the operation and returns the action of the first rule that fires, if any.
  // Public for the writer wrapper; not meant for other callers.
  std::optional<FaultAction> Check(ObjectOp op, std::string_view path,
                                   std::string_view other_path = {});

 private:
  struct RuleState {
    FaultRule rule;
    int64_t matches = 0;
  };
  std::shared_ptr<ObjectStore> base_;
  mutable std::mutex mutex_;
  std::vector<RuleState> rules_;                                          // guarded by mutex_
  std::array<int64_t, static_cast<size_t>(ObjectOp::kCount)> counts_{};  // guarded by mutex_
  int64_t faults_ = 0;                                                    // guarded by mutex_
};

}  // namespace lance::io
