#include <cstdio>

#include "cli/commands.h"

namespace lance::cli {

void RegisterVersionCommand(CLI::App& app, CommandRegistry& registry) {
  auto* sub = app.add_subcommand("version", "Print the lance-cpp version and supported formats");
  registry.OnRun(sub, [] {
    std::printf("lance-cpp 0.1.0\n");
    std::printf("arrow ipc: stream + file, compression lz4_frame, zstd\n");
    return Status::OK();
  });
}

}  // namespace lance::cli
