// An out-of-tree program using an installed lance-cpp through its C++ API: writes a small
// dataset, appends to it, reads it back and checks every value. Exit code 0 on success.
//   lance_consumer DIR
#include <cstdio>
#include <cstdlib>
#include <string>

#include <lance/columnar/builder.h>
#include <lance/table/snapshot.h>
#include <lance/table/write.h>

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
  for (int step = 0; step < 2; ++step) {
    auto rows = MakeRows(schema, step * 100, 100);
    if (!rows.ok()) return Fail(rows.status(), "build rows");
    lance::table::WriteParams params;
    params.mode = step == 0 ? lance::table::WriteMode::kCreate : lance::table::WriteMode::kAppend;
    auto written = lance::table::WriteDataset(uri, schema, {*rows}, params);
    if (!written.ok()) return Fail(written.status(), "write");
  }
  auto ds = lance::table::Snapshot::Open(uri);
  if (!ds.ok()) return Fail(ds.status(), "open");
  if ((*ds)->version() != 2 || (*ds)->CountRows() != 200) {
    std::fprintf(stderr, "expected version 2 with 200 rows, got version %llu with %llu rows\n",
                 static_cast<unsigned long long>((*ds)->version()),
                 static_cast<unsigned long long>((*ds)->CountRows()));
    return 1;
  }
  lance::table::ScanOptions scan;
  scan.filter = "id >= 150";
  auto batches = (*ds)->Scan(scan);
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
  std::printf("lance consumer: wrote, appended and read back 200 rows (version 2)\n");
  return 0;
}
