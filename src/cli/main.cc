// The `lance` command-line tool: one binary, one subcommand per task. It talks only to the
// library's public API and turns a non-OK Status into a message on stderr and exit code 1.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"lance: read and write Lance datasets, Lance files and Arrow IPC"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every subcommand");
  lance::cli::CommandRegistry registry;
  lance::cli::RegisterVersionCommand(app, registry);
  lance::cli::RegisterDemoCommand(app, registry);
  lance::cli::RegisterIpcCommands(app, registry);
  lance::cli::RegisterTableCommands(app, registry);
  lance::cli::RegisterFileCommands(app, registry);
  lance::cli::RegisterWriteCommands(app, registry);
  lance::cli::RegisterEvolveCommands(app, registry);
  lance::cli::RegisterTokenizeCommand(app, registry);
  lance::cli::RegisterFlatSearchCommand(app, registry);
  lance::cli::RegisterLsmCommands(app, registry);
  lance::cli::RegisterIndexCommands(app, registry);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  lance::Status st = registry.Run();
  if (!st.ok()) {
    std::fprintf(stderr, "lance: error: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
