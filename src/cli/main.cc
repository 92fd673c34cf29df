// The `lance` command-line tool: one binary, one subcommand per task. It talks only to the
// library's public API and turns a non-OK Status into a message on stderr and exit code 1.
#include <cstdio>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace lance::cli {

std::string UnknownCommand(CLI::App& app, int argc, char** argv) {
  CLI::App* cur = &app;
  std::string path = "lance";
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word.empty() || word[0] == '-') break;  // options (and their values) from here on
    const std::vector<CLI::App*> subs = cur->get_subcommands([](CLI::App*) { return true; });
    CLI::App* next = nullptr;
    for (CLI::App* s : subs) {
      if (s->check_name(std::string(word))) next = s;
    }
    if (next) {
      cur = next;
      path += " " + std::string(word);
      continue;
    }
    // A word where a command is expected: only a command with subcommands and no positional
    // arguments of its own expects one.
    if (subs.empty() || !cur->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty()) {
      break;
    }
    std::string names;
    for (CLI::App* s : subs) names += (names.empty() ? "" : ", ") + s->get_name();
    return "unknown command '" + std::string(word) + "' for '" + path + "' (commands: " + names + ")";
  }
  return "";
}

}  // namespace lance::cli

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
  lance::cli::RegisterSearchCommand(app, registry);
  lance::cli::AddNumericRanges(app);
  if (const std::string unknown = lance::cli::UnknownCommand(app, argc, argv); !unknown.empty()) {
    std::fprintf(stderr, "lance: error: %s\nRun with --help for the list of commands.\n",
                 unknown.c_str());
    return 2;
  }
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
