#include "cli/commands.h"

namespace lance::cli {

void RegisterIpcCommands(CLI::App& app, CommandRegistry& registry) {
  auto* ipc = app.add_subcommand("ipc", "Arrow IPC streams and files");
  ipc->require_subcommand(1);
}

}  // namespace lance::cli
