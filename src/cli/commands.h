// Subcommand registration for the `lance` CLI. Each command group lives in its own file and
// registers its CLI11 subcommands with a callback; the callback chosen by the command line
// runs after parsing and its Status becomes the exit code.
#pragma once

#include <functional>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "lance/core/status.h"

namespace lance::cli {

class CommandRegistry {
 public:
  // Arranges for `fn` to run when `sub` was selected on the command line.
  void OnRun(CLI::App* sub, std::function<Status()> fn) {
    sub->callback([this, fn = std::move(fn)] { action_ = fn; });
  }
  Status Run() const { return action_ ? action_() : Status::OK(); }

 private:
  std::function<Status()> action_;
};

void RegisterVersionCommand(CLI::App& app, CommandRegistry& registry);
void RegisterDemoCommand(CLI::App& app, CommandRegistry& registry);
void RegisterIpcCommands(CLI::App& app, CommandRegistry& registry);
void RegisterTableCommands(CLI::App& app, CommandRegistry& registry);
void RegisterFileCommands(CLI::App& app, CommandRegistry& registry);
void RegisterWriteCommands(CLI::App& app, CommandRegistry& registry);
void RegisterEvolveCommands(CLI::App& app, CommandRegistry& registry);
void RegisterTokenizeCommand(CLI::App& app, CommandRegistry& registry);
void RegisterFlatSearchCommand(CLI::App& app, CommandRegistry& registry);
void RegisterLsmCommands(CLI::App& app, CommandRegistry& registry);
void RegisterIndexCommands(CLI::App& app, CommandRegistry& registry);
void RegisterSearchCommand(CLI::App& app, CommandRegistry& registry);

// `--no-sync` on a command that commits: the commit flushes nothing (table::CommitOptions::
// sync = false; not durable).
void AddNoSyncFlag(CLI::App* sub, bool* no_sync);

// Range checks on every numeric option of every registered command (option_ranges.cc).
void AddNumericRanges(CLI::App& app);
// The command words of `argv` that name no command (`lance index create`: "index"), checked
// before parsing so that an unknown word is never taken for a positional; "" when all do.
std::string UnknownCommand(CLI::App& app, int argc, char** argv);
// What `lance version` and `lance --version` print.
std::string VersionText();

}  // namespace lance::cli
