// The header-only C++ wrapper (lance/lance.hpp) exercised end to end: every class and method,
// exceptions with their codes and messages, RAII and moves, scans from several threads, the
// asynchronous scan with a real wait, and the per-thread error state.
//
// Usage: lance_capi_cpp_test <copy of indexed.lance> <scratch dir> <indexed_indices.json>
#include <lance/lance.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "arrow_rows.h"

namespace {

int failures = 0;
int checks = 0;

#define CHECK(cond)                                                                  \
  do {                                                                               \
    ++checks;                                                                        \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                                    \
    }                                                                                \
  } while (0)

// `f` throws lance::Error with `code` and a message containing `part`.
#define CHECK_THROWS(code, part, ...) check_throws(__LINE__, (code), (part), [&] { __VA_ARGS__; })

void check_throws(int line, LanceErrorCode code, const std::string& part, const std::function<void()>& f) {
  ++checks;
  try {
    f();
    std::fprintf(stderr, "%s:%d: expected lance::Error %d (%s), nothing thrown\n", __FILE__, line,
                 static_cast<int>(code), part.c_str());
    ++failures;
  } catch (const lance::Error& e) {
    if (e.code != code || std::string(e.what()).find(part) == std::string::npos) {
      std::fprintf(stderr, "%s:%d: expected lance::Error %d (%s), got %d: %s\n", __FILE__, line,
                   static_cast<int>(code), part.c_str(), static_cast<int>(e.code), e.what());
      ++failures;
    }
  }
}

std::vector<std::string> Rows(TextTable& t) {
  std::vector<std::string> out;
  char row[512];
  for (int64_t r = 0; r < t.nrows; ++r) {
    text_table_row(&t, r, row, sizeof(row));
    out.push_back(row);
  }
  text_table_free(&t);
  return out;
}

std::vector<std::string> Read(ArrowArrayStream* s) {
  TextTable t;
  text_table_init(&t);
  CHECK(text_table_read(&t, s) == 0);
  return Rows(t);
}

std::vector<std::string> People(const std::vector<int64_t>& ids) {
  std::vector<std::string> out;
  char row[256];
  for (int64_t i : ids) {
    people_row_text(i, row, sizeof(row));
    out.push_back(row);
  }
  return out;
}

std::vector<int64_t> Range(int64_t from, int64_t to) {
  std::vector<int64_t> out;
  for (int64_t i = from; i < to; ++i) out.push_back(i);
  return out;
}

std::vector<std::string> Scan(lance::Scanner s) {
  ArrowArrayStream out{};
  s.to_arrow_stream(&out);
  return Read(&out);
}

ArrowArrayStream PeopleStream(int64_t start, int64_t n, int64_t batch = 4) {
  ArrowArrayStream s{};
  people_stream(start, n, batch, &s);
  return s;
}

void TestWriteOpenVersions(const std::string& dir) {
  const std::string uri = dir + "/people.lance";
  ArrowArrayStream s = PeopleStream(0, 20);
  lance::WriteParams wp;
  wp.max_rows_per_file = 8;
  wp.data_storage_version = "2.1";
  lance::Dataset ds = lance::Dataset::write(uri, &s, lance::WriteMode::Create, wp);
  CHECK(s.release == nullptr);
  CHECK(ds.version() == 1 && ds.count_rows() == 20 && ds.fragment_count() == 3);
  CHECK((ds.fragment_ids() == std::vector<uint64_t>{0, 1, 2}));
  CHECK(Scan(ds.scan()) == People(Range(0, 20)));

  s = PeopleStream(20, 5);
  lance::Dataset v2 = lance::Dataset::write(uri, &s, lance::WriteMode::Append);
  CHECK(v2.version() == 2 && v2.count_rows() == 25);
  CHECK(ds.latest_version() == 2 && ds.version() == 1);
  const auto versions = v2.versions();
  CHECK(versions.size() == 2 && versions[0].id == 1 && versions[1].id == 2);
  CHECK(versions[0].timestamp_ms > 1600000000000LL && versions[1].timestamp_ms >= versions[0].timestamp_ms);
  lance::Dataset again = lance::Dataset::open(uri, {}, 1);
  CHECK(again.count_rows() == 20);
  lance::Dataset latest = lance::Dataset::open(uri, {{"unused_key", "unused_value"}});
  CHECK(latest.version() == 2);

  s = PeopleStream(0, 1);
  CHECK_THROWS(LANCE_ERR_DATASET_ALREADY_EXISTS, "already exists",
               lance::Dataset::write(uri, &s, lance::WriteMode::Create));
  CHECK(s.release == nullptr);
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "stream must not be null",
               lance::Dataset::write(uri, nullptr, lance::WriteMode::Append));
  s = PeopleStream(0, 1);
  wp.data_storage_version = "legacy";
  CHECK_THROWS(LANCE_ERR_NOT_SUPPORTED, "legacy", lance::Dataset::write(uri, &s, lance::WriteMode::Append, wp));
  CHECK(s.release == nullptr);
  CHECK_THROWS(LANCE_ERR_NOT_FOUND, "missing.lance", lance::Dataset::open(dir + "/missing.lance"));
  CHECK_THROWS(LANCE_ERR_NOT_FOUND, "7", lance::Dataset::open(uri, {}, 7));
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "key-value", lance::Dataset::open(uri, {{"a", "b"}}, 0);
               lance_dataset_open(uri.c_str(), std::vector<const char*>{"odd", nullptr}.data(), 0);
               lance::check_error());

  // Overwrite, and moves: the handle follows its owner.
  s = PeopleStream(100, 3);
  lance::Dataset over = lance::Dataset::write(dir + "/over.lance", &s, lance::WriteMode::Overwrite);
  lance::Dataset moved = std::move(over);
  CHECK(moved.c_handle() != nullptr && over.c_handle() == nullptr);
  CHECK(Scan(moved.scan()) == People({100, 101, 102}));
  CHECK(lance_last_error_code() == LANCE_OK);
}

void TestScans(const lance::Dataset& ds) {
  // Fluent settings.
  auto s = ds.scan();
  s.limit(6).offset(3).batch_size(2).with_row_id();
  ArrowArrayStream out{};
  s.to_arrow_stream(&out);
  TextTable t;
  text_table_init(&t);
  CHECK(text_table_read(&t, &out) == 0);
  CHECK(t.nrows == 6 && t.max_batch_rows == 2 && t.ncols == 4);
  CHECK(std::string(t.cells[0][0]) == "3" && std::string(t.cells[5][3]) == std::to_string((1ULL << 32) | 0));
  text_table_free(&t);
  // Columns and filter; fragment ids.
  CHECK(Scan(ds.scan({"id", "name"}, "id IN (2, 9, 21)")) ==
        (std::vector<std::string>{"id=2 name=n2", "id=9 name=null", "id=21 name=null"}));
  CHECK(Scan(std::move(ds.scan().fragment_ids(std::vector<uint64_t>{2}))) == People(Range(16, 20)));
  const uint64_t f1 = 1;
  CHECK(Scan(std::move(ds.scan().fragment_ids(&f1, 1).limit(2))) == People({8, 9}));
  // Errors surface when the scan starts.
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "nope", Scan(ds.scan({"nope"}, "")));
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "negative offset", Scan(std::move(ds.scan().offset(-2))));
  // Blocking iteration and batch export.
  {
    auto it = ds.scan({}, "id < 5");
    it.batch_size(2);
    std::vector<std::string> rows;
    int batches = 0;
    while (auto b = it.next()) {
      ArrowArray a{};
      ArrowSchema sc{};
      b->to_arrow(&a, &sc);
      TextTable bt;
      text_table_init(&bt);
      text_table_append(&bt, &a, &sc);
      for (const auto& r : Rows(bt)) rows.push_back(r);
      a.release(&a);
      sc.release(&sc);
      ++batches;
    }
    CHECK(rows == People(Range(0, 5)) && batches == 3);
    CHECK(!it.next().has_value());
  }
  // Polling with a waker that a condition variable waits on.
  {
    struct Wake {
      std::mutex mu;
      std::condition_variable cv;
      int count = 0;
    } wake;
    auto waker = [](void* ctx) {
      auto* w = static_cast<Wake*>(ctx);
      {
        std::lock_guard<std::mutex> lock(w->mu);
        ++w->count;
      }
      w->cv.notify_all();
    };
    auto p = ds.scan({"id"}, "id >= 22");
    std::vector<std::string> rows;
    for (;;) {
      int seen;
      {
        std::lock_guard<std::mutex> lock(wake.mu);
        seen = wake.count;
      }
      std::optional<lance::Batch> b;
      const LancePollStatus st = p.poll_next(waker, &wake, &b);
      if (st == LANCE_POLL_FINISHED) break;
      if (st == LANCE_POLL_PENDING) {
        std::unique_lock<std::mutex> lock(wake.mu);
        CHECK(wake.cv.wait_for(lock, std::chrono::seconds(30), [&] { return wake.count > seen; }));
        continue;
      }
      CHECK(st == LANCE_POLL_READY && b.has_value());
      ArrowArray a{};
      ArrowSchema sc{};
      b->to_arrow(&a, &sc);
      TextTable bt;
      text_table_init(&bt);
      text_table_append(&bt, &a, &sc);
      for (const auto& r : Rows(bt)) rows.push_back(r);
      a.release(&a);
      sc.release(&sc);
    }
    CHECK((rows == std::vector<std::string>{"id=22", "id=23", "id=24"}));
  }
  // Asynchronous scan; the callback runs on the dispatcher thread, not this one.
  {
    struct Done {
      std::mutex mu;
      std::condition_variable cv;
      bool done = false;
      int status = 0;
      ArrowArrayStream* stream = nullptr;
      std::thread::id thread;
    } done;
    auto callback = [](void* ctx, int32_t status, void* result) {
      auto* d = static_cast<Done*>(ctx);
      std::lock_guard<std::mutex> lock(d->mu);
      d->done = true;
      d->status = status;
      d->stream = static_cast<ArrowArrayStream*>(result);
      d->thread = std::this_thread::get_id();
      d->cv.notify_all();
    };
    {
      auto a = ds.scan({}, "id = 13");
      a.scan_async(callback, &done);
    }  // closed before the callback
    std::unique_lock<std::mutex> lock(done.mu);
    CHECK(done.cv.wait_for(lock, std::chrono::seconds(30), [&] { return done.done; }));
    CHECK(done.status == 0 && done.stream != nullptr && done.thread != std::this_thread::get_id());
    if (done.stream != nullptr) {
      CHECK(Read(done.stream) == People({13}));
      std::free(done.stream);
    }
  }
  // Several threads scanning one dataset at once, each with its own error state.
  {
    std::atomic<int> good{0};
    std::vector<std::thread> threads;
    for (int k = 0; k < 4; ++k) {
      threads.emplace_back([&, k] {
        if (k == 0) {
          LanceScanner* bad = lance_scanner_new(ds.c_handle(), nullptr, "zz > 1");
          ArrowArrayStream x{};
          if (lance_scanner_to_arrow_stream(bad, &x) == -1 && lance_last_error_code() == LANCE_ERR_INVALID_ARGUMENT) {
            ++good;
          }
          lance_scanner_close(bad);
          return;
        }
        for (int r = 0; r < 5; ++r) {
          if (Scan(ds.scan()) == People(Range(0, 25)) && lance_last_error_code() == LANCE_OK) ++good;
        }
      });
    }
    for (auto& th : threads) th.join();
    CHECK(good == 16);
    CHECK(lance_last_error_code() == LANCE_OK);  // thread 0's error stayed on thread 0
  }
}

void TestTake(const lance::Dataset& ds) {
  const uint64_t idx[] = {24, 0, 9};
  ArrowArrayStream out{};
  ds.take(idx, 3, &out);
  CHECK(Read(&out) == People({24, 0, 9}));
  ds.take(idx, 1, {"_rowid", "score"}, &out);
  CHECK((Read(&out) == std::vector<std::string>{"_rowid=" + std::to_string((3ULL << 32) | 4) + " score=null"}));
  const uint64_t ids[] = {(2ULL << 32) | 1, 5, (8ULL << 32)};
  ds.take_rows(ids, 3, &out);
  CHECK(Read(&out) == People({17, 5}));
  ds.take_rows(ids, 2, {"name"}, &out);
  CHECK((Read(&out) == std::vector<std::string>{"name=n17", "name=n5"}));
  const uint64_t far[] = {25};
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "out of range", ds.take(far, 1, &out));
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "row_ids must not be NULL", ds.take_rows(nullptr, 2, &out));
}

void TestStatsSchemaFragments(const lance::Dataset& ds) {
  const auto stats = ds.calculate_data_stats();
  CHECK(stats.size() == 3);
  for (size_t i = 0; i < stats.size(); ++i) CHECK(stats[i].id == i && stats[i].bytes_on_disk > 0);
  ArrowSchema s{};
  ds.schema(&s);
  CHECK(s.n_children == 3 && std::string(s.children[2]->name) == "score");
  s.release(&s);
  CHECK(ds.fragment_ids().size() == ds.fragment_count());
}

void TestMutations(lance::Dataset& ds) {
  const uint64_t v = ds.version();
  CHECK(ds.delete_rows("id >= 22") == 3);
  CHECK(ds.version() == v + 1 && ds.count_rows() == 22);
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "predicate must not be empty", ds.delete_rows(""));
  CHECK(ds.update("id = 1", {{"name", "'one'"}, {"score", "100"}}) == 1);
  CHECK((Scan(ds.scan({}, "id = 1")) == std::vector<std::string>{"id=1 name=one score=100"}));
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "num_updates must be >= 1", ds.update("", {}));
  // Upsert: 20, 21 updated (the source's values), 22 inserted.
  ArrowArrayStream src = PeopleStream(20, 3);
  const LanceMergeInsertResult r = ds.upsert({"id"}, &src);
  CHECK(r.num_updated_rows == 2 && r.num_inserted_rows == 1 && r.num_deleted_rows == 0);
  CHECK(Scan(ds.scan({}, "id >= 20")).size() == 3);
  LanceMergeInsertParams p{};
  p.when_not_matched_by_source = LANCE_MERGE_WHEN_NOT_MATCHED_BY_SOURCE_DELETE_IF;
  p.when_not_matched_by_source_expr = "id < 2";
  src = PeopleStream(10, 1);
  const LanceMergeInsertResult d = ds.merge_insert({"id"}, &src, &p);
  CHECK(d.num_deleted_rows == 2 && d.num_inserted_rows == 0);  // ids 0 and 1
  src = PeopleStream(10, 1);
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "num_on_columns must be >= 1", ds.merge_insert({}, &src));
  CHECK(src.release == nullptr);

  // Schema evolution.
  ds.add_columns_sql({{"half", "score / 2"}, {"idx", "id + 1000"}});
  ArrowSchema nulls{};
  int64_schema("later", 1, &nulls);
  ds.add_columns_nulls(&nulls);
  nulls.release(&nulls);
  ArrowArrayStream extra{};
  int64_stream("seq", 1, static_cast<int64_t>(ds.count_rows()), 0, 10, 5, &extra);
  ds.add_columns_stream(&extra);
  CHECK(extra.release == nullptr);
  CHECK((Scan(ds.scan({"id", "half", "idx", "later"}, "id = 6")) ==
         std::vector<std::string>{"id=6 half=1.5 idx=1006 later=null"}));
  ArrowSchema as_double{};
  type_schema("g", &as_double);
  lance::ColumnAlteration rename{"later", std::string("afterwards"), LANCE_COLUMN_NULLABLE_UNCHANGED, nullptr};
  lance::ColumnAlteration retype{"idx", std::nullopt, LANCE_COLUMN_NULLABLE_UNCHANGED, &as_double};
  ds.alter_columns({rename, retype});
  as_double.release(&as_double);
  CHECK((Scan(ds.scan({"idx", "afterwards"}, "id = 6")) == std::vector<std::string>{"idx=1006 afterwards=null"}));
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "is a no-op", ds.alter_columns({lance::ColumnAlteration{"id", {}, {}, nullptr}}));
  ds.drop_columns({"afterwards", "seq", "half", "idx"});
  ArrowSchema s{};
  ds.schema(&s);
  CHECK(s.n_children == 3);
  s.release(&s);
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "num_columns must be > 0", ds.drop_columns({}));

  // Compaction and restore.
  const auto before = Scan(ds.scan());
  LanceCompactionOptions o{};
  o.target_rows_per_fragment = 64;
  const LanceCompactionMetrics m = ds.compact_files(&o);
  CHECK(m.fragments_removed > 1 && m.fragments_added == 1 && ds.fragment_count() == 1);
  CHECK(Scan(ds.scan()) == before);
  const LanceCompactionMetrics none = ds.compact_files();
  CHECK(none.fragments_removed == 0 && none.files_added == 0);
  lance::Dataset old = ds.restore(1);
  CHECK(old.version() == ds.version() + 1 && Scan(old.scan()) == People(Range(0, 20)));
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "version must be >= 1", ds.restore(0));
}

void TestWriteFragments(const std::string& dir) {
  ArrowSchema schema{};
  people_schema(&schema);
  ArrowArrayStream s = PeopleStream(0, 9);
  lance::write_fragments("file://" + dir + "/frags", &schema, &s);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/frags/data")) {
    files += e.path().extension() == ".lance";
  }
  CHECK(files == 1);
  CHECK(!std::filesystem::exists(dir + "/frags/_versions"));
  s = PeopleStream(0, 9);
  CHECK_THROWS(LANCE_ERR_DATASET_ALREADY_EXISTS, "already exists",
               lance::write_fragments(dir + "/people.lance", &schema, &s));
  schema.release(&schema);
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void TestIndexes(const std::string& uri, const std::string& listing_path) {
  lance::Dataset ds = lance::Dataset::open(uri);
  const std::string listing = ReadText(listing_path);
  CHECK(ds.index_count() == 4);
  const std::string json = ds.list_indices_json();
  for (const char* name : {"id_idx", "cat_idx", "text_idx", "vec_idx"}) {
    const size_t at = listing.find(std::string("\"name\": \"") + name + "\"");
    CHECK(at != std::string::npos);
    const size_t u = listing.find("\"uuid\": \"", at) + 9;
    const std::string uuid = listing.substr(u, 36);
    CHECK(json.find("{\"name\":\"" + std::string(name) + "\",\"uuid\":\"" + uuid + "\"") != std::string::npos);
  }
  CHECK(json.find("\"type\":\"IVF_PQ\"") != std::string::npos && json.find("\"type\":\"Inverted\"") != std::string::npos);
  const auto segments = ds.index_segments("vec_idx");
  CHECK(segments.size() == 1 && ds.index_segment_count("vec_idx") == 1);
  CHECK_THROWS(LANCE_ERR_NOT_FOUND, "none_idx", ds.index_segment_count("none_idx"));
  ds.drop_index("text_idx");
  CHECK(ds.index_count() == 3 && ds.list_indices_json().find("text_idx") == std::string::npos);
  CHECK_THROWS(LANCE_ERR_NOT_FOUND, "text_idx", ds.drop_index("text_idx"));
  // lance-cpp builds the INVERTED index (its searches against lance 12's: test_c_api_fts.c)
  ds.create_scalar_index("text", LANCE_SCALAR_INVERTED);
  CHECK(ds.index_count() == 4 && ds.list_indices_json().find("\"text_idx\"") != std::string::npos);
  LanceVectorIndexParams vp{};
  vp.index_type = LANCE_INDEX_IVF_HNSW_SQ;
  vp.num_partitions = 2;
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "hnsw_m is required", ds.create_vector_index("vec", vp));
  vp.hnsw_m = 8;
  ds.create_vector_index("vec", vp, "x");  // lance-cpp builds IVF_HNSW_SQ
  CHECK(ds.index_count() == 5 && ds.list_indices_json().find("IVF_HNSW_SQ") != std::string::npos);
  ds.drop_index("x");
  vp.index_type = LANCE_INDEX_IVF_HNSW_PQ;
  vp.num_sub_vectors = 2;
  ds.create_vector_index("vec", vp, "x");  // and IVF_HNSW_PQ
  CHECK(ds.index_count() == 5 && ds.list_indices_json().find("IVF_HNSW_PQ") != std::string::npos);
  ds.drop_index("x");
  vp.index_type = LANCE_INDEX_IVF_HNSW_FLAT;
  ds.create_vector_index("vec", vp, "x");  // and IVF_HNSW_FLAT
  CHECK(ds.index_count() == 5 && ds.list_indices_json().find("IVF_HNSW_FLAT") != std::string::npos);
  ds.drop_index("x");

  auto s = ds.scan();
  const float q[4] = {0, 1, 2, 3};
  const uint16_t h32[4] = {0x0000, 0x3c00, 0x4000, 0x4200};  // 0, 1, 2, 3 as halves
  {
    // k-NN through the C++ wrapper: k rows; a float16 query is the same query (values exact in
    // half precision), so the same rows (compared in full by the C tests).
    auto a = ds.scan({"id"}, "");
    a.nearest("vec", q, 4, 10).use_index(false);
    auto b = ds.scan({"id"}, "");
    b.nearest("vec", h32, 4, LANCE_DTYPE_FLOAT16, 10).use_index(false);
    const auto rows_a = Scan(std::move(a));
    CHECK(rows_a.size() == 10);
    CHECK(rows_a == Scan(std::move(b)));
  }
  CHECK_THROWS(LANCE_ERR_NOT_SUPPORTED, "Substrait", s.substrait_filter(std::vector<uint8_t>{1, 2, 3}));
  const uint8_t one_byte[1] = {7};
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "must be non-empty", s.substrait_filter(one_byte, 0));
  s.nprobes(3).refine_factor(2).ef(10).metric(LANCE_METRIC_DOT).use_index(true).prefilter(false);
  s.index_segments(segments);
  CHECK(s.c_handle() != nullptr);
  CHECK_THROWS(LANCE_ERR_INVALID_ARGUMENT, "index_segments requires nearest()", Scan(std::move(s)));
  auto cleared = ds.scan({"id"}, "id < 3");
  cleared.index_segments(nullptr, 0);
  CHECK((Scan(std::move(cleared)) == std::vector<std::string>{"id=0", "id=1", "id=2"}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <indexed.lance copy> <scratch dir> <indexed_indices.json>\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[2];
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  try {
    TestWriteOpenVersions(dir);
    lance::Dataset ds = lance::Dataset::open(dir + "/people.lance");
    TestScans(ds);
    TestTake(ds);
    TestStatsSchemaFragments(ds);
    TestMutations(ds);
    TestWriteFragments(dir);
    TestIndexes(argv[1], argv[3]);
  } catch (const lance::Error& e) {
    std::fprintf(stderr, "unexpected lance::Error %d: %s\n", static_cast<int>(e.code), e.what());
    return 1;
  }
  if (failures != 0) {
    std::fprintf(stderr, "%d of %d checks failed\n", failures, checks);
    return 1;
  }
  std::printf("capi C++: %d checks passed\n", checks);
  return 0;
}
