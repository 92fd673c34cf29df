// The manifest and transaction codecs against what lance 12 wrote: every manifest and
// transaction of tests/golden/lance_table/features.lance (made by gen_features.mjs: stable row
// ids, indexes, deletions, update, merge-insert, add / rename / drop columns, field metadata,
// the unenforced primary key, optimize, the MemWAL system index) decodes into the model and
// encodes back to the same bytes, up to what the encoder decides itself (map entries are
// written sorted); the feature flags lance-cpp computes are lance 12's; and members this
// library does not know survive as unknown fields.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "lance/table/feature_flags.h"
#include "lance/table/manifest.h"
#include "lance/table/transaction.h"
#include "table/proto/table.pb.h"
#include "table/proto/transaction.pb.h"
#include "table/proto_codec.h"

namespace lance::table {
namespace {

namespace fs = std::filesystem;

const fs::path kFeatures =
    fs::path(__FILE__).parent_path() / "../../tests/golden/lance_table/features.lance";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Deterministic protobuf bytes: the codec's own (proto_codec.h), so a test compares what it writes.
std::string Deterministic(const google::protobuf::Message& m) { return ::lance::proto::SerializeDeterministic(m); }

// The manifest message of a manifest file, re-serialized with sorted maps.
std::string CanonicalManifest(const std::string& file) {
  uint64_t pos = 0;
  uint32_t len = 0;
  std::memcpy(&pos, file.data() + file.size() - 16, 8);
  std::memcpy(&len, file.data() + pos, 4);
  pb::Manifest m;
  EXPECT_TRUE(m.ParseFromArray(file.data() + pos + 4, static_cast<int>(len)));
  return Deterministic(m);
}

std::string CanonicalSection(const std::string& file, uint64_t at) {
  uint32_t len = 0;
  std::memcpy(&len, file.data() + at, 4);
  pb::IndexSection s;
  EXPECT_TRUE(s.ParseFromArray(file.data() + at + 4, static_cast<int>(len)));
  return Deterministic(s);
}

std::vector<fs::path> FilesIn(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ext) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Codec, Lance12ManifestsEncodeBackUnchanged) {
  const auto files = FilesIn(kFeatures / "_versions", ".manifest");
  ASSERT_GE(files.size(), 15u);
  int identical = 0, with_indices = 0, with_unknown = 0;
  for (const auto& path : files) {
    const std::string original = ReadFile(path);
    std::string inline_txn;
    auto m = DecodeManifest(original, path.string(), &inline_txn);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    // The flags lance-cpp computes from the content are the ones lance 12 wrote.
    const FeatureFlags flags = ComputeFeatureFlags(*m);
    EXPECT_EQ(flags.reader, m->reader_feature_flags) << path;
    EXPECT_EQ(flags.writer, m->writer_feature_flags) << path;
    with_indices += m->indices.empty() ? 0 : 1;
    for (const auto& f : m->fields) with_unknown += f.unknown_fields.empty() ? 0 : 1;
    auto again = EncodeManifest(*m, inline_txn);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    if (*again == original) ++identical;
    // Same layout and the same messages (maps compared sorted).
    ASSERT_EQ(again->size(), original.size()) << path;
    auto back = DecodeManifest(*again, "again");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->index_section, m->index_section) << path;
    EXPECT_EQ(back->transaction_section, m->transaction_section) << path;
    EXPECT_EQ(CanonicalManifest(*again), CanonicalManifest(original)) << path;
    if (m->index_section) {
      EXPECT_EQ(CanonicalSection(*again, *m->index_section), CanonicalSection(original, *m->index_section))
          << path;
    }
  }
  // lance 12 writes its maps in key order too: every file comes back byte for byte.
  EXPECT_EQ(identical, static_cast<int>(files.size()));
  EXPECT_GE(with_indices, 5);  // the btree, bitmap and MemWAL indexes are in the sections
  EXPECT_EQ(with_unknown, 0);  // every member of lance 12's fields is modelled
}

TEST(Codec, Lance12TransactionsEncodeBackUnchanged) {
  const auto files = FilesIn(kFeatures / "_transactions", ".txn");
  ASSERT_GE(files.size(), 15u);
  std::set<std::string> operations;
  int identical = 0;
  for (const auto& path : files) {
    const std::string original = ReadFile(path);
    auto t = DecodeTransaction(original, path.string());
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_FALSE(t->is<std::monostate>()) << path;
    operations.insert(t->operation_name());
    EXPECT_EQ(path.filename().string(), std::to_string(t->read_version) + "-" + t->uuid + ".txn");
    auto again = EncodeTransaction(*t);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    pb::Transaction a, b;
    ASSERT_TRUE(a.ParseFromString(original));
    ASSERT_TRUE(b.ParseFromString(*again));
    EXPECT_EQ(Deterministic(b), Deterministic(a)) << path << " (" << t->operation_name() << ")";
    identical += *again == original ? 1 : 0;
  }
  // All but the UpdateConfig: its field-metadata map is keyed by field id 0, a key lance
  // leaves out of the map entry (the default) and protobuf writes; the same message.
  EXPECT_EQ(identical, static_cast<int>(files.size()) - 1);
  for (const char* op : {"Overwrite", "Append", "CreateIndex", "Delete", "Update", "Merge", "Project",
                         "UpdateConfig", "ReserveFragments", "Rewrite"}) {
    EXPECT_TRUE(operations.count(op)) << op;
  }
}

// The inline copy of each version's transaction is the transaction file, and decodes to the
// same model.
TEST(Codec, InlineTransactionsAreTheTransactionFiles) {
  for (const auto& path : FilesIn(kFeatures / "_versions", ".manifest")) {
    std::string inline_txn;
    auto m = DecodeManifest(ReadFile(path), path.string(), &inline_txn);
    ASSERT_TRUE(m.ok());
    ASSERT_FALSE(m->transaction_file.empty()) << path;
    EXPECT_EQ(inline_txn, ReadFile(kFeatures / "_transactions" / m->transaction_file)) << path;
  }
}

// Members of every message kind this library does not know (a newer writer's) are kept and
// written back: a field, a fragment, a data file, a deletion file, the manifest, the
// transaction and its operation.
TEST(Codec, UnknownFieldsSurvive) {
  pb::Manifest pm;
  auto* f = pm.add_fields();
  f->set_name("id");
  f->set_id(0);
  f->set_parent_id(-1);
  f->set_logical_type("int64");
  f->GetReflection()->MutableUnknownFields(f)->AddVarint(14, 1);  // say, a clustering key
  auto* frag = pm.add_fragments();
  frag->set_physical_rows(3);
  auto* df = frag->add_files();
  df->set_path("a.lance");
  df->add_fields(0);
  df->add_column_indices(0);
  df->GetReflection()->MutableUnknownFields(df)->AddLengthDelimited(30, "x");
  frag->mutable_deletion_file()->set_num_deleted_rows(1);
  auto* del = frag->mutable_deletion_file();
  del->GetReflection()->MutableUnknownFields(del)->AddFixed64(9, 42);
  frag->GetReflection()->MutableUnknownFields(frag)->AddVarint(40, 7);
  pm.set_version(1);
  pm.GetReflection()->MutableUnknownFields(&pm)->AddLengthDelimited(50, "future");
  const std::string body = pm.SerializeAsString();
  std::string file;
  const uint32_t len = static_cast<uint32_t>(body.size());
  file.append(reinterpret_cast<const char*>(&len), 4);
  file += body;
  const uint64_t pos = 0;
  file.append(reinterpret_cast<const char*>(&pos), 8);
  file.append("\x00\x00\x02\x00LANC", 8);
  auto m = DecodeManifest(file, "unknown");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_FALSE(m->unknown_fields.empty());
  EXPECT_FALSE(m->fields[0].unknown_fields.empty());
  EXPECT_FALSE(m->fragments[0].unknown_fields.empty());
  EXPECT_FALSE(m->fragments[0].files[0].unknown_fields.empty());
  EXPECT_FALSE(m->fragments[0].deletion->unknown_fields.empty());
  m->version = 2;  // edited, as a commit does
  auto again = EncodeManifest(*m);
  ASSERT_TRUE(again.ok());
  pm.set_version(2);
  pm.set_reader_feature_flags(kFlagDeletionFiles);
  pm.set_writer_feature_flags(kFlagDeletionFiles);
  EXPECT_EQ(CanonicalManifest(*again), Deterministic(pm));

  pb::Transaction pt;
  pt.set_read_version(3);
  pt.set_uuid("u");
  auto* append = pt.mutable_append();
  append->GetReflection()->MutableUnknownFields(append)->AddVarint(20, 1);
  pt.GetReflection()->MutableUnknownFields(&pt)->AddLengthDelimited(117, "a newer operation body");
  auto t = DecodeTransaction(pt.SerializeAsString());
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->is<Transaction::Append>());
  EXPECT_FALSE(t->unknown_fields.empty());
  auto t_again = EncodeTransaction(*t);
  ASSERT_TRUE(t_again.ok());
  EXPECT_EQ(*t_again, Deterministic(pt));

  // An operation this library does not know at all: no operation, the body kept.
  pb::Transaction newer;
  newer.set_read_version(1);
  newer.GetReflection()->MutableUnknownFields(&newer)->AddLengthDelimited(117, "");
  auto n = DecodeTransaction(newer.SerializeAsString());
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n->is<std::monostate>());
  EXPECT_STREQ(n->operation_name(), "unknown operation");
  auto n_again = EncodeTransaction(*n);
  ASSERT_TRUE(n_again.ok());
  EXPECT_EQ(*n_again, newer.SerializeAsString());
}

TEST(Codec, DamagedTransactionsAreCorruption) {
  EXPECT_TRUE(DecodeTransaction("\xff\xff\xff\xff", "t").status().IsCorruption());
  pb::Transaction pt;
  auto* x = pt.mutable_create_index()->add_new_indices();
  x->mutable_uuid()->set_uuid("short");
  EXPECT_TRUE(DecodeTransaction(pt.SerializeAsString(), "t").status().IsCorruption());
  Transaction t;
  Transaction::CreateIndex ci;
  IndexInfo bad;
  bad.uuid = "not a uuid";
  ci.new_indices.push_back(bad);
  t.operation = ci;
  EXPECT_TRUE(EncodeTransaction(t).status().IsInvalidArgument());
}

}  // namespace
}  // namespace lance::table
