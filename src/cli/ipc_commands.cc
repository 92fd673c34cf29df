// `lance ipc ...`: print and convert Arrow IPC streams (.arrows) and files (.arrow).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "lance/columnar/json.h"
#include "lance/ipc/reader.h"
#include "lance/ipc/writer.h"

namespace lance::cli {

namespace {

// Maps `path` read-only; the mapping lives as long as the returned buffer. Small private
// helper until the CLI reads through the io layer.
Result<BufferPtr> MapFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("cannot open '{}': {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::IOError("cannot stat '{}': {}", path, std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::IOError("'{}' is not a regular file", path);
  }
  const auto size = static_cast<int64_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return AllocateBuffer(0);
  }
  void* addr = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);
  if (addr == MAP_FAILED) return Status::IOError("cannot map '{}': {}", path, std::strerror(err));
  std::shared_ptr<void> owner(addr, [size](void* p) { ::munmap(p, static_cast<size_t>(size)); });
  return std::make_shared<Buffer>(static_cast<const uint8_t*>(addr), size, std::move(owner));
}

enum class FileKind { kStream, kFile, kJsonLines };

Result<FileKind> KindFromExtension(const std::string& path) {
  auto ends_with = [&](std::string_view suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".arrows")) return FileKind::kStream;
  if (ends_with(".arrow") || ends_with(".feather")) return FileKind::kFile;
  if (ends_with(".jsonl") || ends_with(".ndjson")) return FileKind::kJsonLines;
  return Status::InvalidArgument(
      "'{}': cannot tell the format from the extension (expected .arrows, .arrow or .jsonl)",
      path);
}

Result<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot open '{}': {}", path, std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IOError("cannot read '{}'", path);
  return ss.str();
}

Status WriteStdout(const std::string& text) {
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to stdout: {}", std::strerror(errno));
  }
  return Status::OK();
}

Status Cat(const std::string& path) {
  LANCE_ASSIGN_OR_RAISE(auto data, MapFile(path));
  auto reader = ipc::OpenAny(data);
  if (!reader.ok()) return reader.status().WithContext(path);
  std::string out;
  while (true) {
    auto batch = (*reader)->Next();
    if (!batch.ok()) return batch.status().WithContext(path);
    if (!*batch) break;
    out.clear();
    LANCE_RETURN_NOT_OK(AppendJsonLines(**batch, &out));
    LANCE_RETURN_NOT_OK(WriteStdout(out));
  }
  if (std::fflush(stdout) != 0) return Status::IOError("cannot flush stdout");
  return Status::OK();
}

struct ConvertArgs {
  std::string input;
  std::string output;
  std::string compression = "none";
  std::string schema;
};

Result<SchemaPtr> ParseSchemaArg(const std::string& arg) {
  if (!arg.empty() && arg[0] == '@') {
    LANCE_ASSIGN_OR_RAISE(auto text, ReadText(arg.substr(1)));
    return SchemaFromJson(text);
  }
  return SchemaFromJson(arg);
}

Status Convert(const ConvertArgs& args) {
  LANCE_ASSIGN_OR_RAISE(FileKind in_kind, KindFromExtension(args.input));
  LANCE_ASSIGN_OR_RAISE(FileKind out_kind, KindFromExtension(args.output));
  LANCE_ASSIGN_OR_RAISE(ipc::Compression compression, ipc::CompressionFromName(args.compression));

  // Read everything first: the output may be the input's neighbour but never half-written
  // from a failed read.
  SchemaPtr schema;
  std::vector<RecordBatchPtr> batches;
  if (in_kind == FileKind::kJsonLines) {
    LANCE_ASSIGN_OR_RAISE(auto text, ReadText(args.input));
    if (args.schema.empty()) {
      auto inferred = InferJsonLinesSchema(text);
      if (!inferred.ok()) return inferred.status().WithContext(args.input);
      schema = *inferred;
    } else {
      LANCE_ASSIGN_OR_RAISE(schema, ParseSchemaArg(args.schema));
    }
    auto batch = ReadJsonLines(text, schema);
    if (!batch.ok()) return batch.status().WithContext(args.input);
    if ((*batch)->num_rows() > 0) batches.push_back(*batch);
  } else {
    if (!args.schema.empty()) {
      return Status::InvalidArgument("--schema applies to .jsonl input only; '{}' has its own",
                                     args.input);
    }
    LANCE_ASSIGN_OR_RAISE(auto data, MapFile(args.input));
    auto reader = ipc::OpenAny(data);
    if (!reader.ok()) return reader.status().WithContext(args.input);
    schema = (*reader)->schema();
    auto all = (*reader)->ReadAll();
    if (!all.ok()) return all.status().WithContext(args.input);
    batches = std::move(*all);
  }

  if (out_kind == FileKind::kJsonLines) {
    if (compression != ipc::Compression::kNone) {
      return Status::InvalidArgument("--compression applies to .arrows/.arrow output only");
    }
    std::string text;
    for (const auto& b : batches) LANCE_RETURN_NOT_OK(AppendJsonLines(*b, &text));
    LANCE_ASSIGN_OR_RAISE(auto sink, ipc::FileSink::Open(args.output));
    LANCE_RETURN_NOT_OK(sink->Write(text.data(), static_cast<int64_t>(text.size())));
    return sink->Close();
  }
  ipc::IpcWriteOptions options;
  options.compression = compression;
  LANCE_ASSIGN_OR_RAISE(auto sink, ipc::FileSink::Open(args.output));
  if (out_kind == FileKind::kStream) {
    LANCE_ASSIGN_OR_RAISE(auto writer, ipc::StreamWriter::Open(sink.get(), schema, options));
    for (const auto& b : batches) LANCE_RETURN_NOT_OK(writer->WriteBatch(*b));
    LANCE_RETURN_NOT_OK(writer->Close());
  } else {
    LANCE_ASSIGN_OR_RAISE(auto writer, ipc::FileWriter::Open(sink.get(), schema, options));
    for (const auto& b : batches) LANCE_RETURN_NOT_OK(writer->WriteBatch(*b));
    LANCE_RETURN_NOT_OK(writer->Close());
  }
  return sink->Close();
}

}  // namespace

void RegisterIpcCommands(CLI::App& app, CommandRegistry& registry) {
  auto* ipc = app.add_subcommand("ipc", "Arrow IPC streams and files");
  ipc->require_subcommand(1);

  auto* cat = ipc->add_subcommand(
      "cat", "Print the rows of an Arrow IPC stream or file as canonical JSON lines");
  auto cat_path = std::make_shared<std::string>();
  cat->add_option("FILE", *cat_path, "IPC stream or file (told apart by content)")->required();
  registry.OnRun(cat, [cat_path] { return Cat(*cat_path); });

  auto* convert = ipc->add_subcommand(
      "convert", "Convert between .arrows (stream), .arrow (file) and .jsonl (JSON lines)");
  auto args = std::make_shared<ConvertArgs>();
  convert->add_option("IN", args->input, "input path")->required();
  convert->add_option("OUT", args->output, "output path (format from the extension)")->required();
  convert->add_option("--compression", args->compression, "IPC body compression: none, lz4, zstd");
  convert->add_option("--schema", args->schema,
                      "schema of .jsonl input: schema JSON, or @FILE holding it (default: inferred from the lines)");
  registry.OnRun(convert, [args] { return Convert(*args); });
}

}  // namespace lance::cli
