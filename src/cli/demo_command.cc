#include <cstdio>

#include "cli/commands.h"

namespace lance::cli {

void RegisterDemoCommand(CLI::App& app, CommandRegistry& registry) {
  auto* sub = app.add_subcommand("demo", "Run the end-to-end demo on a local directory");
  registry.OnRun(sub, [] {
    std::printf("demo: not built yet\n");
    return Status::OK();
  });
}

}  // namespace lance::cli
