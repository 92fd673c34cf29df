#include <cstdio>
#include <string>

#include "cli/commands.h"

namespace lance::cli {

std::string VersionText() {
  return "lance-cpp 0.1.0\narrow ipc: stream + file, compression lz4_frame, zstd";
}

void RegisterVersionCommand(CLI::App& app, CommandRegistry& registry) {
  auto* sub = app.add_subcommand("version", "Print the lance-cpp version and supported formats");
  registry.OnRun(sub, [] {
    std::printf("%s\n", VersionText().c_str());
    return Status::OK();
  });
  app.set_version_flag("--version", [] { return VersionText(); },
                       "Print the lance-cpp version (as `lance version`) and exit");
}

}  // namespace lance::cli
