// `lance file ...`: inspect and print single Lance data files (2.0, 2.1, 2.2).
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "lance/columnar/json.h"
#include "lance/core/thread_pool.h"
#include "lance/file/file_reader.h"
#include "lance/core/thread_pool.h"
#include "lance/file/file_writer.h"
#include "lance/ipc/reader.h"
#include "lance/io/object_store.h"

namespace lance::cli {

namespace {

Result<std::unique_ptr<file::FileReader>> OpenFile(const std::string& uri) {
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath where, io::ObjectStore::FromUri(uri));
  return file::FileReader::Open(where.store, where.path);
}

Status Print(const std::string& text) {
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to stdout: {}", std::strerror(errno));
  }
  if (std::fflush(stdout) != 0) return Status::IOError("cannot flush stdout");
  return Status::OK();
}

Status Info(const std::string& path) {
  LANCE_ASSIGN_OR_RAISE(auto reader, OpenFile(path));
  nlohmann::ordered_json out;
  out["version"] = reader->version().ToString();
  out["footer_version"] = std::to_string(reader->version().major) + "." +
                          std::to_string(reader->version().minor);
  out["num_rows"] = reader->num_rows();
  out["num_global_buffers"] = reader->num_global_buffers();
  out["schema"] = nlohmann::ordered_json::parse(SchemaToJson(*reader->schema()));
  auto& columns = out["columns"] = nlohmann::ordered_json::array();
  for (int c = 0; c < reader->num_columns(); ++c) {
    nlohmann::ordered_json col;
    col["column"] = c;
    auto& pages = col["pages"] = nlohmann::ordered_json::array();
    for (const auto& p : reader->columns()[static_cast<size_t>(c)].pages) {
      nlohmann::ordered_json page;
      page["rows"] = p.num_rows;
      page["priority"] = p.priority;
      page["buffers"] = nlohmann::ordered_json::array();
      for (const auto& [pos, size] : p.buffers) page["buffers"].push_back({pos, size});
      page["encoding"] = p.description;
      pages.push_back(std::move(page));
    }
    columns.push_back(std::move(col));
  }
  if (reader->version().is_v1()) {
    // Legacy v1 files: their batches and the page statistics the writer kept.
    out["batch_offsets"] = reader->LegacyBatchOffsets();
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr stats, reader->LegacyStatistics());
    auto& st = out["statistics"] = nlohmann::ordered_json::array();
    if (stats) {
      std::string lines;
      LANCE_RETURN_NOT_OK(AppendJsonLines(*stats, &lines));
      size_t start = 0;
      while (start < lines.size()) {
        const size_t end = lines.find('\n', start);
        st.push_back(nlohmann::ordered_json::parse(lines.substr(start, end - start)));
        start = end == std::string::npos ? lines.size() : end + 1;
      }
    }
  }
  return Print(out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

struct CatArgs {
  std::string path;
  std::string columns;
  std::string rows;
  std::string range;
};

Result<int64_t> ParseRow(std::string_view s, std::string_view what) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
    return Status::InvalidArgument("{}: '{}' is not a row number", what, s);
  }
  return v;
}

std::vector<std::string_view> CommaFields(std::string_view s) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t p = s.find(',');
    out.push_back(s.substr(0, p));
    if (p == std::string_view::npos) break;
    s.remove_prefix(p + 1);
  }
  return out;
}

Status Cat(const CatArgs& args) {
  if (!args.rows.empty() && !args.range.empty()) {
    return Status::InvalidArgument("--rows and --range cannot be combined");
  }
  LANCE_ASSIGN_OR_RAISE(auto reader, OpenFile(args.path));
  std::vector<int> fields;
  if (!args.columns.empty()) {
    for (std::string_view name : CommaFields(args.columns)) {
      const int i = reader->schema()->GetFieldIndex(name);
      if (i < 0) return Status::InvalidArgument("--columns: no field '{}' in '{}'", name, args.path);
      fields.push_back(i);
    }
  }
  Result<RecordBatchPtr> batch = Status::Internal("unset");
  if (!args.rows.empty()) {
    std::vector<int64_t> rows;
    for (std::string_view r : CommaFields(args.rows)) {
      LANCE_ASSIGN_OR_RAISE(int64_t row, ParseRow(r, "--rows"));
      rows.push_back(row);
    }
    batch = reader->Take(rows, fields);
  } else if (!args.range.empty()) {
    const size_t colon = args.range.find(':');
    if (colon == std::string::npos) {
      return Status::InvalidArgument("--range: expected START:END, got '{}'", args.range);
    }
    LANCE_ASSIGN_OR_RAISE(int64_t start, ParseRow(std::string_view(args.range).substr(0, colon), "--range"));
    LANCE_ASSIGN_OR_RAISE(int64_t end, ParseRow(std::string_view(args.range).substr(colon + 1), "--range"));
    if (end < start) return Status::InvalidArgument("--range: end {} before start {}", end, start);
    batch = reader->ReadRange(start, end - start, fields);
  } else {
    batch = reader->ReadAll(fields);
  }
  if (!batch.ok()) return batch.status().WithContext(args.path);
  std::string out;
  LANCE_RETURN_NOT_OK(AppendJsonLines(**batch, &out));
  return Print(out);
}

struct WriteArgs {
  std::string input;
  std::string output;
  std::string version = "2.2";
  int64_t max_page_bytes = 8 << 20;
  bool plain = false;
};

// Converts an Arrow IPC file or stream into one Lance data file.
Status Write(const WriteArgs& args) {
  file::WriteOptions options;
  if (args.version == "2.1") {
    options.version = {2, 1};
  } else if (args.version != "2.2") {
    return Status::InvalidArgument("--version: expected 2.1 or 2.2, got '{}'", args.version);
  }
  options.max_page_bytes = args.max_page_bytes;
  options.compress = !args.plain;
  options.pool = ThreadPool::Default();  // the CLI is the application: it uses the default pool
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath in, io::ObjectStore::FromUri(args.input));
  LANCE_ASSIGN_OR_RAISE(BufferPtr bytes, in.store->Get(in.path));
  LANCE_ASSIGN_OR_RAISE(auto batches, ipc::OpenAny(bytes));
  LANCE_ASSIGN_OR_RAISE(io::StoreAndPath out, io::ObjectStore::FromUri(args.output));
  LANCE_ASSIGN_OR_RAISE(auto writer,
                        file::FileWriter::Open(out.store, out.path, batches->schema(), options));
  for (;;) {
    LANCE_ASSIGN_OR_RAISE(RecordBatchPtr batch, batches->Next());
    if (!batch) break;
    LANCE_RETURN_NOT_OK(writer->Write(*batch));
  }
  LANCE_ASSIGN_OR_RAISE(file::WriteSummary summary, writer->Finish());
  nlohmann::ordered_json j;
  j["path"] = args.output;
  j["version"] = summary.version.ToString();
  j["num_rows"] = summary.num_rows;
  j["num_columns"] = summary.num_columns;
  j["size_bytes"] = summary.size_bytes;
  return Print(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

}  // namespace

void RegisterFileCommands(CLI::App& app, CommandRegistry& registry) {
  auto* file = app.add_subcommand("file", "Single Lance data files (format 2.0, 2.1, 2.2)");
  file->require_subcommand(1);

  auto* info = file->add_subcommand(
      "info", "Print the version, schema and per-column pages/encodings of a Lance file as JSON");
  auto info_path = std::make_shared<std::string>();
  info->add_option("FILE", *info_path, "Lance data file (path or URI)")->required();
  registry.OnRun(info, [info_path] { return Info(*info_path); });

  auto* cat = file->add_subcommand("cat", "Print rows of a Lance file as canonical JSON lines");
  auto args = std::make_shared<CatArgs>();
  cat->add_option("FILE", args->path, "Lance data file (path or URI)")->required();
  cat->add_option("--columns", args->columns, "comma-separated top-level fields (default: all)");
  cat->add_option("--rows", args->rows, "comma-separated row numbers, in output order");
  cat->add_option("--range", args->range, "rows START:END (END exclusive)");
  registry.OnRun(cat, [args] { return Cat(*args); });

  auto* write = file->add_subcommand(
      "write", "Write the rows of an Arrow IPC file or stream as one Lance data file (2.1 or 2.2)");
  auto wargs = std::make_shared<WriteArgs>();
  write->add_option("IN", wargs->input, "Arrow IPC file or stream (path or URI)")->required();
  write->add_option("OUT", wargs->output, "Lance file to write (path or URI)")->required();
  write->add_option("--version", wargs->version, "file format version: 2.1 or 2.2 (default 2.2)");
  write->add_option("--max-page-bytes", wargs->max_page_bytes,
                    "start a new page once a column buffers this many bytes (default 8 MiB)");
  write->add_flag("--plain", wargs->plain, "only flat / variable value encodings (no compression)");
  registry.OnRun(write, [wargs] { return Write(*wargs); });
}

}  // namespace lance::cli
