// What the `lance lsm` command files share: the base table with its MemWAL details and shard
// router, a shard writer's options from the command's flush policy, and JSON-line output.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "lance/core/result.h"
#include "lance/io/object_store.h"
#include "lance/memwal/index_details.h"
#include "lance/memwal/memwal_writer.h"
#include "lance/memwal/sharding.h"
#include "lance/table/snapshot.h"

namespace lance::cli::lsm {

using Json = nlohmann::ordered_json;

// One JSON line's text (invalid UTF-8 replaced, never thrown).
std::string Dump(const Json& j);
// Writes `text` to stdout and flushes it. Errors: IOError.
Status Print(const std::string& text);

std::vector<std::string> SplitCommas(const std::string& s);

// The base table at its latest version.
struct Table {
  io::StoreAndPath where;
  std::shared_ptr<table::Snapshot> snapshot;
};
Result<Table> OpenBase(const std::string& uri);

// The `__lance_mem_wal` index details of the base. Errors: NotFound (MemWAL not enabled),
// Corruption.
Result<memwal::MemWalIndexDetails> Details(const Table& t);
// The router of the base's first sharding spec. Errors: those of Details, Corruption (no spec).
Result<memwal::ShardRouter> Router(const Table& t);

// When a writer's MemTable flushes (0: that trigger is off). max_bytes bounds the MemTables of
// all the writers of the process together (memwal::MemTableBudget), the others are per writer.
struct FlushPolicy {
  int64_t max_rows = 1 << 20;
  int64_t max_bytes = int64_t{256} << 20;
  int64_t max_age_ms = 0;
};
// A shard writer's options for the base: `primary_key` (comma separated; empty: the table's),
// the maintained indexes its flushes build (the ones it cannot build named on stderr), `policy`.
Result<memwal::MemWalWriterOptions> WriterOptions(const Table& t, const std::string& primary_key,
                                                  const FlushPolicy& policy);

// `lance lsm write` (lsm_write.cc).
void RegisterLsmWrite(CLI::App* lsm, CommandRegistry& registry);

}  // namespace lance::cli::lsm
