// An out-of-tree program using an installed lance-cpp through its C++ front door
// (lance::dataset::Dataset): writes a small dataset, appends to it through the handle, counts
// and scans it with a filter as a stream, deletes, and checks every value. Exit code 0 on
// success.
//   lance_consumer DIR
#include <cstdio>
#include <cstdlib>
#include <string>

#include <lance/columnar/builder.h>
#include <lance/columnar/record_batch_reader.h>
#include <lance/dataset/dataset.h>

namespace {

int Fail(const lance::Status& st, const char* what) {
  std::fprintf(stderr, "%s: %s\n", what, st.ToString().c_str());
  return 1;
}

lance::Result<lance::RecordBatchPtr> MakeRows(const lance::SchemaPtr& schema, int64_t first,
                                              int64_t n) {
  lance::Int64Builder ids(lance::int64());
  lance::StringBuilder names(lance::utf8());
  for (int64_t i = first; i < first + n; ++i) {
    LANCE_RETURN_NOT_OK(ids.Append(i));
    LANCE_RETURN_NOT_OK(names.Append("row " + std::to_string(i)));
  }
  LANCE_ASSIGN_OR_RAISE(auto id_array, ids.Finish());
  LANCE_ASSIGN_OR_RAISE(auto name_array, names.Finish());
  return lance::RecordBatch::Make(schema, n, {id_array, name_array});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string uri = argv[1];
  auto schema = lance::schema({lance::field("id", lance::int64(), false),
                               lance::field("name", lance::utf8(), true)});
  std::shared_ptr<lance::dataset::Dataset> ds;
  for (int step = 0; step < 2; ++step) {
    auto rows = MakeRows(schema, step * 100, 100);
    if (!rows.ok()) return Fail(rows.status(), "build rows");
    lance::VectorRecordBatchReader input(schema, {*rows});
    if (step == 0) {
      auto written = lance::dataset::Dataset::Write(uri, input);
      if (!written.ok()) return Fail(written.status(), "write");
      ds = *written;
    } else {
      auto appended = ds->Append(input);
      if (!appended.ok()) return Fail(appended.status(), "append");
    }
  }
  auto count = ds->CountRows();
  if (!count.ok()) return Fail(count.status(), "count");
  if (ds->version() != 2 || *count != 200) {
    std::fprintf(stderr, "expected version 2 with 200 rows, got version %llu with %llu rows\n",
                 static_cast<unsigned long long>(ds->version()),
                 static_cast<unsigned long long>(*count));
    return 1;
  }
  lance::query::ScanOptions scan;
  scan.filter = "id >= 150";
  scan.batch_size = 16;
  auto scanner = ds->NewScan(scan);
  if (!scanner.ok()) return Fail(scanner.status(), "scan");
  auto reader = scanner->ToReader();
  if (!reader.ok()) return Fail(reader.status(), "scan");
  auto batches = (*reader)->ReadAll();
  if (!batches.ok()) return Fail(batches.status(), "scan");
  int64_t expect = 150;
  for (const auto& b : *batches) {
    for (int64_t r = 0; r < b->num_rows(); ++r, ++expect) {
      const int64_t id = b->column(0)->Values<int64_t>()[r];
      if (id != expect) {
        std::fprintf(stderr, "row %lld: id %lld\n", static_cast<long long>(expect),
                     static_cast<long long>(id));
        return 1;
      }
    }
  }
  if (expect != 200) {
    std::fprintf(stderr, "scan returned %lld rows, expected 50\n",
                 static_cast<long long>(expect - 150));
    return 1;
  }
  auto deleted = ds->Delete("id % 2 = 1");
  if (!deleted.ok()) return Fail(deleted.status(), "delete");
  auto left = ds->CountRows("id >= 150");
  if (!left.ok()) return Fail(left.status(), "count after delete");
  if (ds->version() != 3 || *left != 25) {
    std::fprintf(stderr, "after delete: version %llu, %llu rows with id >= 150 (expected 3, 25)\n",
                 static_cast<unsigned long long>(ds->version()),
                 static_cast<unsigned long long>(*left));
    return 1;
  }
  std::printf("lance consumer: wrote, appended, scanned and deleted through a Dataset (version 3)\n");
  return 0;
}
