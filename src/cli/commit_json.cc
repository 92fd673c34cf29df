#include "cli/commit_json.h"

#include "cli/commands.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace lance::cli {

Status PrintJson(const nlohmann::ordered_json& j) {
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    return Status::IOError("cannot write to stdout: {}", std::strerror(errno));
  }
  return Status::OK();
}

nlohmann::ordered_json CommitJson(const table::CommitInfo& c) {
  nlohmann::ordered_json j;
  j["version"] = c.version;
  j["read_version"] = c.read_version;
  j["attempts"] = c.attempts;
  j["rebased"] = c.rebased;
  return j;
}

void AddNoSyncFlag(CLI::App* sub, bool* no_sync) {
  sub->add_flag("--no-sync", *no_sync,
                "NOT DURABLE: commit without flushing files to disk (a power loss may lose the "
                "version); for scratch data and benchmarks only");
}

}  // namespace lance::cli
