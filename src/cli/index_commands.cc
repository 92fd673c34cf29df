// Index commands: `lance index create | list | describe | optimize | drop`, and the older
// spellings `lance create-index` / `lance drop-index` (`lance indexes`, table_commands.cc,
// prints every segment as the manifest holds it). Scalar indexes are built through
// lance::index::scalar, vector indexes through lance::dataset::Dataset::CreateVectorIndex,
// dispatching on --type; optimize through Dataset::OptimizeIndices.
#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/index_json.h"
#include "cli/progress.h"
#include "cli/commands.h"
#include "cli/tokenizer_flags.h"
#include "lance/dataset/dataset.h"
#include "lance/index/index_metadata.h"
#include "lance/index/scalar/create.h"
#include "lance/index/scalar/optimize.h"
#include "lance/index/vector/ivf_builder.h"
#include "lance/table/location.h"
#include "lance/table/indexes.h"

namespace lance::cli {

namespace {

using Json = nlohmann::ordered_json;

struct CreateIndexArgs {
  bool progress = false;
  std::string uri;
  std::string column;
  std::string type = "btree";
  std::string name;
  bool replace = false;
  int64_t batch_size = index::scalar::kBTreeDefaultBatchSize;
  uint64_t rows_per_zone = 8192;
  uint64_t bloom_items = 8192;
  double bloom_probability = 0.00057;
  // vector indexes
  std::string metric = "l2";
  size_t partitions = 0;
  size_t sub_vectors = 0;
  std::optional<uint32_t> bits;  // unset: 8 (PQ), 1 (RQ)
  int max_iterations = 50;
  size_t sample_rate = 256;
  uint64_t seed = 0;
  std::string ivf_init;  // "": k-means++ for l2 / cosine, random for dot
  size_t m = 20;
  size_t ef_construction = 300;
  int threads = 0;
  // inverted (full-text) indexes
  TokenizerFlags tok;
  std::optional<std::string> with_position;
};

Status CreateVectorIndex(const CreateIndexArgs& a, index::vector::IndexKind kind) {
  index::vector::IvfBuildOptions o;
  o.kind = kind;
  LANCE_ASSIGN_OR_RAISE(o.metric, linalg::ParseDistanceType(a.metric));
  o.num_partitions = a.partitions;
  o.num_sub_vectors = a.sub_vectors;
  o.num_bits = a.bits.value_or(kind == index::vector::IndexKind::kIvfRq ? 1 : 8);
  o.max_iterations = a.max_iterations;
  o.sample_rate = a.sample_rate;
  o.seed = a.seed;
  if (a.ivf_init == "random") {
    o.ivf_init = linalg::KMeansOptions::Init::kRandom;
  } else if (a.ivf_init == "kmeans++") {
    o.ivf_init = linalg::KMeansOptions::Init::kPlusPlus;
  } else if (!a.ivf_init.empty()) {
    return Status::InvalidArgument("create-index: --ivf-init \"{}\" (expected kmeans++ or random)", a.ivf_init);
  }
  o.hnsw_m = a.m;
  o.ef_construction = a.ef_construction;
  o.name = a.name;
  o.replace = a.replace;
  const int threads =
      a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  LANCE_ASSIGN_OR_RAISE(auto pool, ThreadPool::Make(threads));
  o.pool = pool.get();
  dataset::OpenOptions open;
  open.pool = pool.get();
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri, open));
  LANCE_ASSIGN_OR_RAISE(auto s, ds->CreateVectorIndex(a.column, o));
  Json out = {{"name", s.name}, {"uuid", s.uuid},
              {"type", std::string(index::vector::IndexKindName(kind))},
              {"version", s.version}, {"num_rows", s.num_rows},
              {"num_partitions", s.num_partitions}};
  if (kind == index::vector::IndexKind::kIvfPq || kind == index::vector::IndexKind::kIvfHnswPq) {
    out["num_sub_vectors"] = s.num_sub_vectors;
  }
  std::cout << out.dump() << "\n";
  return Status::OK();
}

Status BuildIndex(const CreateIndexArgs& a);

Status CreateIndex(const CreateIndexArgs& a) {
  // Phases only: the index builders report nothing finer yet.
  Progress progress("create-index", a.progress);
  progress.Update(fmt::format("building a {} index on '{}'", a.type, a.column), true);
  Status st = BuildIndex(a);
  progress.Update(st.ok() ? "done" : "failed", true);
  return st;
}

Status BuildIndex(const CreateIndexArgs& a) {
  if (auto kind = index::vector::ParseIndexKind(a.type); kind.ok()) return CreateVectorIndex(a, *kind);
  index::scalar::CreateScalarIndexOptions o;
  LANCE_ASSIGN_OR_RAISE(o.type, index::scalar::ScalarIndexTypeFromName(a.type));
  o.name = a.name;
  o.replace = a.replace;
  o.btree_batch_size = a.batch_size;
  o.rows_per_zone = a.rows_per_zone;
  o.bloom_items = a.bloom_items;
  o.bloom_probability = a.bloom_probability;
  if (o.type == index::scalar::ScalarIndexType::kInverted) {
    LANCE_ASSIGN_OR_RAISE(o.fts, BuildTokenizerOptions(a.tok));
    if (a.with_position) {
      LANCE_ASSIGN_OR_RAISE(o.fts.with_position, ParseBoolFlag("with-position", *a.with_position));
    }
  } else if (a.with_position || a.tok.base_tokenizer || a.tok.language || !a.tok.config.empty()) {
    return Status::InvalidArgument("--with-position and the tokenizer flags are for --type inverted only");
  }
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  LANCE_ASSIGN_OR_RAISE(index::scalar::CreatedIndex c, ds->CreateScalarIndex(a.column, o));
  Json j;
  j["name"] = c.info.name;
  j["type"] = index::scalar::ScalarIndexTypeName(o.type);
  j["column"] = a.column;
  j["uuid"] = c.info.uuid;
  j["version"] = c.version;
  j["dataset_version"] = c.info.dataset_version;
  j["num_indexed_rows"] = c.num_indexed_rows;
  j["indexed_fragments"] = c.info.fragment_ids;
  j["files"] = Json::array();
  for (const auto& f : c.info.files) j["files"].push_back({{"path", f.path}, {"size_bytes", f.size_bytes}});
  std::cout << j.dump() << "\n";
  return Status::OK();
}

struct DropIndexArgs {
  std::string uri;
  std::string name;
};

Status DropIndex(const DropIndexArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  LANCE_ASSIGN_OR_RAISE(table::CommitInfo c, ds->DropIndex(a.name));
  std::cout << Json{{"name", a.name}, {"version", c.version}}.dump() << "\n";
  return Status::OK();
}

const char* const kCreateFooter =
        "Types (what each answers; the planner uses an index only for the column it is keyed on):\n"
    "  btree       sorted values in pages of --batch-size rows (page_lookup.lance +\n"
    "              page_data.lance): =, <, <=, >, >=, BETWEEN, IN, IS [NOT] NULL, LIKE 'p%'.\n"
    "              Any orderable column: ints, floats, strings, binary, dates, timestamps,\n"
    "              booleans. The choice for high-cardinality columns (ids, timestamps).\n"
    "  bitmap      one row set per distinct value (bitmap_page_lookup.lance): the same\n"
    "              predicates; best for low-cardinality columns (categories, flags).\n"
    "  label_list  on list<T> columns: array_has_any / array_has_all / array_contains.\n"
    "  zonemap     min / max / null count per zone of --rows-per-zone rows (zonemap.lance):\n"
    "              =, ranges, IN, IS [NOT] NULL, LIKE 'p%' skip the zones that cannot\n"
    "              match; the rows of the others are rechecked. Small, cheap to build.\n"
    "  bloomfilter a bloom filter per zone of --bloom-items rows (bloomfilter.lance): =, IN,\n"
    "              IS NULL skip the zones whose filter rules the value out; rechecked.\n"
    "  ngram       trigram posting lists of a utf8 column (ngram_postings.lance):\n"
    "              contains(col, 'x') and LIKE '%x%' read only the rows holding every\n"
    "              trigram of 'x' (case- and accent-insensitive); rechecked.\n"
    "  inverted    (alias fts) full-text BM25 index of a utf8 column, lance 12's format;\n"
    "              `lance search --text`. Options: --with-position (phrase queries) and\n"
    "              the tokenizer flags of `lance tokenize` (--base-tokenizer, --language,\n"
    "              --stem, ...), each defaulting as lance 12 does.\n"
    "  fm          (alias fmindex) FM-index of a utf8 / binary column, lance 12's format\n"
    "              (part_N_fm.lance, 10000 values each): contains(col, 'x') exactly, and\n"
    "              LIKE '%x%' (rechecked); \\x00 and \\xFF are indexed as spaces.\n"
    "  ivf_flat    vector column (fixed_size_list<float>): k-means partitions, raw vectors;\n"
    "              `lance search` probes --nprobes of them. Options: --metric, --partitions.\n"
    "  ivf_pq      as ivf_flat with product-quantized codes (--sub-vectors, --bits 8);\n"
    "              search with --refine-factor to re-rank by exact distance.\n"
    "  ivf_sq      as ivf_flat with 8-bit scalar-quantized vectors (l2, cosine).\n"
    "  ivf_hnsw_flat as ivf_flat with an HNSW graph per partition (l2, cosine, dot; --m,\n"
    "              --ef-construction).\n"
    "  ivf_hnsw_sq as ivf_flat with 8-bit scalar-quantized vectors and an HNSW graph per\n"
    "              partition (--m, --ef-construction); search with --ef.\n"
    "  ivf_rq      as ivf_flat with RaBitQ codes (--num-bits 1..9 per rotated dimension:\n"
    "              a sign bit, more bits refine it; dimensions a multiple of 8; l2, cosine or\n"
    "              dot); search with --refine-factor to re-rank by exact distance.\n"
    "The index covers the fragments that exist now; rows appended later are scanned (the\n"
    "results stay exact) until `lance index optimize` indexes them (scalar indexes) or the\n"
    "index is rebuilt (--replace). `lance index list DATASET` lists indexes, `lance scan\n"
    "DATASET --filter ... --explain` shows whether a filter uses one.\n"
    "Examples: lance index create data/t.lance --column id --type btree\n"
    "          lance index create data/t.lance --column emb --type ivf_pq --metric cosine --partitions 64\n"
    "          lance index create data/t.lance --column body --type inverted --with-position true\n"
    "          lance create-index data/t.lance id --type btree   (the same, column positional)";

// The options of `create-index` and `index create` (all but the dataset and the column).
void AddCreateOptions(CLI::App* sub, CreateIndexArgs* args) {
  sub->add_option("--type", args->type,
                  "btree | bitmap | label_list | zonemap | bloomfilter | ngram | inverted (fts) | fm | ivf_flat | ivf_pq "
                  "| ivf_sq | ivf_rq | ivf_hnsw_flat | ivf_hnsw_sq | ivf_hnsw_pq (default btree)");
  sub->add_option("--name", args->name, "index name (default COLUMN_idx, as lance 12 names them)");
  sub->add_flag("--replace", args->replace, "replace an index of the same name (else an error)");
  sub->add_option("--batch-size", args->batch_size,
                  "rows per btree page (default 4096, lance 12's); smaller pages read less per "
                  "lookup, a larger page lookup");
  sub->add_option("--rows-per-zone", args->rows_per_zone, "zonemap: rows per zone (default 8192, lance 12's)");
  sub->add_option("--bloom-items", args->bloom_items,
                  "bloomfilter: rows per zone and expected items of its filter (default 8192)");
  sub->add_option("--bloom-probability", args->bloom_probability,
                  "bloomfilter: false-positive probability (default 0.00057: 32 KiB a zone)");
  sub->add_option("--metric", args->metric, "vector indexes: l2 | cosine | dot | hamming (ivf_flat, uint8 vectors) (default l2)");
  sub->add_option("--partitions", args->partitions, "vector indexes: IVF partitions (default sqrt(rows))");
  sub->add_option("--sub-vectors", args->sub_vectors, "ivf_pq: sub-vectors (default dim/16, else dim/8)");
  sub->add_option("--bits,--num-bits", args->bits, "ivf_pq: bits per code (8); ivf_rq: bits per dimension, 1..9 (1)");
  sub->add_option("--max-iterations", args->max_iterations, "vector indexes: k-means iterations (default 50)");
  sub->add_option("--sample-rate", args->sample_rate,
                  "vector indexes: k-means trains on sample_rate x partitions rows (default 256)");
  sub->add_option("--seed", args->seed, "vector indexes: k-means seed (default 0)");
  sub->add_option("--ivf-init", args->ivf_init,
                  "vector indexes: IVF k-means start: kmeans++ | random (lance 12's); default kmeans++, random for dot");
  sub->add_option("--threads", args->threads, "vector indexes: training threads (default: all)");
  sub->add_option("--m", args->m, "ivf_hnsw_sq: graph neighbours per node (2m on level 0; default 20)");
  sub->add_option("--ef-construction", args->ef_construction,
                  "ivf_hnsw_sq: candidates kept while inserting a node (default 300)");
  sub->add_option("--with-position", args->with_position,
                  "inverted: store token positions for phrase queries: true | false (default false)");
  AddTokenizerFlags(sub, &args->tok);
}

// One JSON line per logical index of `m` (its segments merged): what `lance index list` prints.
Json IndexSummaryJson(const table::Manifest& m, const std::vector<const table::IndexInfo*>& segments) {
  const table::IndexInfo& newest = *segments.back();
  std::vector<uint32_t> covered;
  bool all_bitmaps = true;
  uint64_t max_version = 0;
  for (const auto* s : segments) {
    all_bitmaps = all_bitmaps && s->has_fragment_bitmap;
    covered.insert(covered.end(), s->fragment_ids.begin(), s->fragment_ids.end());
    max_version = std::max(max_version, s->dataset_version);
  }
  std::sort(covered.begin(), covered.end());
  covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
  std::vector<uint32_t> indexed;
  uint64_t unindexed_rows = 0;
  uint64_t indexed_rows = 0;
  for (const auto& f : m.fragments) {
    if (std::binary_search(covered.begin(), covered.end(), static_cast<uint32_t>(f.id))) {
      indexed.push_back(static_cast<uint32_t>(f.id));
      indexed_rows += f.num_rows();
    } else {
      unindexed_rows += f.num_rows();
    }
  }
  Json j;
  j["name"] = newest.name;
  j["type"] = table::IndexTypeName(newest);
  j["columns"] = Json::array();
  for (int32_t f : newest.fields) j["columns"].push_back(FieldPath(m, f));
  j["uuid"] = newest.uuid;
  j["dataset_version"] = max_version;
  j["indexed_fragments"] = all_bitmaps ? Json(indexed) : Json(nullptr);
  j["unindexed_rows"] = all_bitmaps ? Json(unindexed_rows) : Json(nullptr);
  j["num_indexed_rows"] = all_bitmaps ? Json(indexed_rows) : Json(nullptr);
  j["segments"] = segments.size();
  return j;
}

// The user indexes of `m` by name, in the order their first segments appear.
std::vector<std::vector<const table::IndexInfo*>> LogicalIndexes(const table::Manifest& m) {
  std::vector<std::vector<const table::IndexInfo*>> out;
  for (const auto& x : m.indices) {
    if (table::IsSystemIndex(x)) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.front()->name == x.name; });
    if (it == out.end()) {
      out.push_back({&x});
    } else {
      it->push_back(&x);
    }
  }
  return out;
}

struct IndexGroupArgs {
  std::string uri;
  std::string name;
  std::vector<std::string> names;
  bool progress = false;
};

Status ListIndexes(const IndexGroupArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  const table::Manifest& m = ds->snapshot()->manifest();
  for (const auto& g : LogicalIndexes(m)) std::cout << IndexSummaryJson(m, g).dump() << "\n";
  return Status::OK();
}

Status DescribeIndex(const IndexGroupArgs& a) {
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  auto snap = ds->snapshot();
  const table::Manifest& m = snap->manifest();
  const auto segments = index::FindIndexSegments(m, a.name);
  if (segments.empty()) {
    std::string names;
    for (const auto& g : LogicalIndexes(m)) names += (names.empty() ? "" : ", ") + g.front()->name;
    return Status::NotFound("{} (version {}) has no index named '{}' (its indexes: {})", ds->location().display(),
                            snap->version(), a.name, names.empty() ? "none" : names);
  }
  Json j = IndexSummaryJson(m, segments);
  // null, as `unindexed_rows`, when a segment does not say what it covers (an old lance's).
  auto coverage = index::CoverageOf(m, segments, a.name, ds->location().display());
  j["unindexed_fragments"] = coverage.ok() ? Json(coverage->unindexed) : Json(nullptr);
  uint64_t bytes = 0;
  for (const auto* s : segments) {
    for (const auto& f : s->files) bytes += f.size_bytes;
  }
  j["size_bytes"] = bytes;
  if (auto o = index::scalar::OptionsOfIndex(*snap, *segments.back()); o.ok()) {
    Json p;
    switch (o->type) {
      case index::scalar::ScalarIndexType::kBTree: p["batch_size"] = o->btree_batch_size; break;
      case index::scalar::ScalarIndexType::kZoneMap: p["rows_per_zone"] = o->rows_per_zone; break;
      case index::scalar::ScalarIndexType::kBloomFilter:
        p["bloom_items"] = o->bloom_items;
        p["bloom_probability"] = o->bloom_probability;
        break;
      case index::scalar::ScalarIndexType::kInverted: p = Json::parse(o->fts.ToJson()); break;
      default: p = Json::object(); break;
    }
    j["parameters"] = p;
  } else if (o.status().code() != StatusCode::kNotSupported) {
    return o.status();
  }
  j["segment_details"] = Json::array();
  for (const auto* s : segments) j["segment_details"].push_back(IndexJson(m, *s));
  std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return Status::OK();
}

Status OptimizeIndexes(const IndexGroupArgs& a) {
  Progress progress("index optimize", a.progress);
  LANCE_ASSIGN_OR_RAISE(auto ds, dataset::Dataset::Open(a.uri));
  progress.Update(a.names.empty() ? std::string("every index") : fmt::format("{} index(es)", a.names.size()), true);
  LANCE_ASSIGN_OR_RAISE(auto results, ds->OptimizeIndices(a.names));
  for (const auto& r : results) {
    Json j;
    j["name"] = r.name;
    j["type"] = r.type;
    j["outcome"] = dataset::OutcomeName(r.outcome);
    if (r.outcome == dataset::OptimizedIndex::Outcome::kMerged) {
      j["uuid"] = r.uuid;
      j["replaced_uuid"] = r.replaced_uuid;
      j["version"] = r.version;
      j["indexed_fragments"] = r.fragment_ids;
      j["new_fragments"] = r.new_fragment_ids;
      j["num_indexed_rows"] = r.num_indexed_rows;
    }
    if (!r.reason.empty()) j["reason"] = r.reason;
    std::cout << j.dump() << "\n";
  }
  progress.Update("done", true);
  return Status::OK();
}

// The column to index, as the second positional (`create-index DATASET COLUMN`) or as
// `--column COL` (as `index create` and `search` spell it): either is accepted, not both, so a
// user who learned one command's form is not refused by the other.
void AddColumnArgument(CLI::App* sub, CreateIndexArgs* args, std::string command) {
  auto* positional = sub->add_option("COLUMN", args->column, "top-level column to index (or --column)");
  auto* named = sub->add_option("--column", args->column, "top-level column to index (or COLUMN)");
  positional->excludes(named);
  sub->parse_complete_callback([args, command = std::move(command)] {
    if (args->column.empty()) {
      throw CLI::RequiredError(fmt::format("lance {}: the column to index (COLUMN or --column)", command));
    }
  });
}

}  // namespace

void RegisterIndexCommands(CLI::App& app, CommandRegistry& registry) {
  {
    auto* sub = app.add_subcommand(
        "create-index",
        "Build a scalar or vector index on a column and commit it as a new version (files "
        "under _indices/{uuid}/, readable by lance 12)");
    sub->footer(kCreateFooter);
    auto args = std::make_shared<CreateIndexArgs>();
    sub->add_option("DATASET", args->uri, "dataset directory (path or URI)")->required();
    AddColumnArgument(sub, args.get(), "create-index");
    AddCreateOptions(sub, args.get());
    AddProgressFlag(sub, &args->progress);
    registry.OnRun(sub, [args] { return CreateIndex(*args); });
  }
  {
    auto* sub = app.add_subcommand(
        "drop-index", "Remove an index from the latest version (its files stay until cleanup)");
    auto args = std::make_shared<DropIndexArgs>();
    sub->add_option("DATASET", args->uri, "dataset directory (path or URI)")->required();
    sub->add_option("NAME", args->name, "index name (see `lance indexes`)")->required();
    registry.OnRun(sub, [args] { return DropIndex(*args); });
  }
  auto* group = app.add_subcommand(
      "index", "Create, list, describe, optimize and drop a dataset's indexes (lance 12's formats)");
  group->require_subcommand(1);
  group->footer(
      "An index is named (default COLUMN_idx) and made of one or more segments, each covering\n"
      "some fragments; rows of fragments no segment covers are scanned, so results never\n"
      "depend on whether an index is up to date, only their cost does.\n"
      "Examples: lance index create data/t.lance --column id --type btree\n"
      "          lance index list data/t.lance\n"
      "          lance index describe data/t.lance id_idx\n"
      "          lance index optimize data/t.lance            (every index)\n"
      "          lance index drop data/t.lance id_idx");
  {
    auto* sub = group->add_subcommand(
        "create", "Build an index on a column and commit it as a new version (as `lance create-index`)");
    sub->footer(kCreateFooter);
    auto args = std::make_shared<CreateIndexArgs>();
    sub->add_option("DATASET", args->uri, "dataset directory (path or URI)")->required();
    AddColumnArgument(sub, args.get(), "index create");
    AddCreateOptions(sub, args.get());
    AddProgressFlag(sub, &args->progress);
    registry.OnRun(sub, [args] { return CreateIndex(*args); });
  }
  {
    auto* sub = group->add_subcommand(
        "list",
        "One JSON line per index: name, type (BTREE, BITMAP, ..., IVF_PQ as lance 12 names them), "
        "columns, uuid (newest segment), dataset_version, indexed_fragments, unindexed_rows, "
        "num_indexed_rows, segments");
    auto args = std::make_shared<IndexGroupArgs>();
    sub->add_option("DATASET", args->uri, "dataset directory (path or URI)")->required();
    registry.OnRun(sub, [args] { return ListIndexes(*args); });
  }
  {
    auto* sub = group->add_subcommand(
        "describe",
        "One JSON object for index NAME: what `index list` prints, the unindexed fragments, its size, "
        "the parameters it was built with and every segment as the manifest holds it");
    auto args = std::make_shared<IndexGroupArgs>();
    sub->add_option("DATASET", args->uri, "dataset directory (path or URI)")->required();
    sub->add_option("NAME", args->name, "index name (see `lance index list`)")->required();
    registry.OnRun(sub, [args] { return DescribeIndex(*args); });
  }
  {
    auto* sub = group->add_subcommand(
        "optimize",
        "Index the fragments appended since an index was built: its newest segment and the new "
        "fragments become one segment with the same parameters (lance 12's default: scalar "
        "indexes retrained, IVF vector indexes merged into their partitions), all in one commit; prints one JSON line per index (outcome "
        "merged | up_to_date | not_supported)");
    sub->footer(
        "Scalar indexes (btree, bitmap, label_list, zonemap, bloomfilter, ngram, inverted, fm) are\n"
        "retrained. IVF_FLAT, IVF_SQ and IVF_PQ vector indexes are merged as lance 12 does: the new\n"
        "rows assigned to the existing centroids and coded with the existing quantizer, appended to\n"
        "their partitions (no retraining). IVF_RQ and IVF_HNSW_* are not yet: they are reported\n"
        "not_supported (an error when named with --name); rebuild them with\n"
        "`lance index create ... --replace`.");
    auto args = std::make_shared<IndexGroupArgs>();
    sub->add_option("DATASET", args->uri, "dataset directory (path or URI)")->required();
    sub->add_option("--name", args->names, "only this index (repeatable; default: every index)");
    AddProgressFlag(sub, &args->progress);
    registry.OnRun(sub, [args] { return OptimizeIndexes(*args); });
  }
  {
    auto* sub = group->add_subcommand(
        "drop", "Remove index NAME from the latest version (its files stay until cleanup)");
    auto args = std::make_shared<DropIndexArgs>();
    sub->add_option("DATASET", args->uri, "dataset directory (path or URI)")->required();
    sub->add_option("NAME", args->name, "index name (see `lance index list`)")->required();
    registry.OnRun(sub, [args] { return DropIndex(*args); });
  }
}

}  // namespace lance::cli
