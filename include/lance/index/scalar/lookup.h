// Index lookups for a planner: which scalar index answers which conjunct of a filter, and the
// rows it answers.
//
// ScalarIndexCatalog holds the scalar indexes of one table version (opened lazily, on the
// first conjunct that needs each; their pages through one IndexCache, held weakly). For a filter
// split into its top-level AND conjuncts (lance::expr trees):
//
//   * MatchConjunct: the conjunct as an IndexQuery on one column, when it has an indexable
//     form -- `col OP literal` / `literal OP col` (=, <, <=, >, >=), `col BETWEEN a AND b`,
//     `col IN (literals)`, `col IS [NOT] NULL`, `col LIKE 'prefix%'` (no other wildcard),
//     an OR of such forms (each answered, rows united) -- and the index that answers it: the
//     first user index in manifest order whose keyed field is the column (a covering index's
//     carried fields are never keys), of a type with a reader here, whose key type is the
//     column's. Literals are converted to the column's key form (a DATE literal to days, a
//     TIMESTAMP literal to the column's unit; one that is not exact in that unit is not
//     indexable and stays with the filter).
//   * Answer: the rows where the conjunct is TRUE, restricted to the fragments every index
//     it used covers and the version still has (`covered`). Rows of other fragments are not
//     answered: the planner scans those fragments with the whole filter. Deleted rows may be
//     in `rows` (an index keeps the rows it was trained on); readers apply deletion vectors.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lance/core/result.h"
#include "lance/expr/ast.h"
#include "lance/index/index_store.h"
#include "lance/index/row_set.h"
#include "lance/index/scalar/query.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"

namespace lance::index::scalar {

class ScalarIndex;

// One leaf of a matched conjunct: a query on one index.
struct IndexedLeaf {
  std::string column;
  std::string index_name;
  std::string index_type;  // "BTREE", "BITMAP", "LABEL_LIST", "FM", ...
  size_t index_slot = 0;   // position of the index in the catalog
  IndexQuery query;
  // Whether the index's rows are the conjunct's exact answer (else the planner rechecks them:
  // inexact index types, and an FM answer to LIKE '%x%').
  bool exact() const;
};

// A conjunct an index answers: one leaf, or an OR of leaves (`leaves.size() > 1`).
struct IndexedConjunct {
  std::vector<IndexedLeaf> leaves;
  // Positions of the conjuncts it answers (PlanConjuncts: several for merged ranges).
  std::vector<size_t> sources;
  // "id = 5", "(cat = 'c1' OR cat = 'c2')": the conjunct as the index sees it (Explain).
  std::string ToString() const;
};

struct ConjunctAnswer {
  RowSet rows;                     // where the conjunct is TRUE (covered fragments only)
  std::vector<uint32_t> covered;   // fragments answered, ascending
  bool exact = true;               // false: a superset the planner must recheck
};

// What the indexes answer of a list of conjuncts (ScalarIndexCatalog::PlanConjuncts).
struct IndexPlan {
  std::vector<IndexedConjunct> lookups;  // ranges on one column merged into one lookup
  std::vector<size_t> answered;          // positions of the conjuncts they answer, ascending
  std::string ToString() const;          // the lookups joined by " AND "
};

class ScalarIndexCatalog {
 public:
  // The scalar indexes of `manifest` (a version of the table at `location`), their pages
  // through `cache` (held weakly: its owner keeps it alive; null = a private cache the
  // catalog owns).
  static std::shared_ptr<ScalarIndexCatalog> Make(const table::TableLocation& location,
                                                  const table::Manifest& manifest,
                                                  std::shared_ptr<IndexCache> cache = nullptr);
  // The catalog of that version kept in `cache` itself (keyed by store, root, version and
  // the index uuids; charged a fixed estimate per index), so that the queries sharing the
  // cache reuse its opened indexes and files. A null cache gives a new private catalog.
  static std::shared_ptr<ScalarIndexCatalog> Cached(const std::shared_ptr<IndexCache>& cache,
                                                    const table::TableLocation& location,
                                                    const table::Manifest& manifest);
  ~ScalarIndexCatalog();

  // Whether any user index of the version has a scalar reader here.
  bool empty() const;
  // `conjunct` as an indexed query, or nullopt when no index answers it (see above).
  std::optional<IndexedConjunct> MatchConjunct(const expr::Node& conjunct) const;
  // Errors: the index's (Corruption naming its file, IOError).
  // `pool`: where an index may fan its search out (the query's); null = on the caller.
  Result<ConjunctAnswer> Answer(const IndexedConjunct& conjunct, ThreadPool* pool = nullptr) const;

  // MatchConjunct over every conjunct; single range conjuncts on one column (`a >= 1`,
  // `a < 5`) are merged into one lookup (`a >= 1 AND a < 5`), so a bounded range reads only
  // its pages.
  IndexPlan PlanConjuncts(const std::vector<const expr::Node*>& conjuncts) const;
  // The rows where every lookup of `plan` is TRUE, for the fragments all of them cover.
  // Errors: as Answer.
  Result<ConjunctAnswer> AnswerAll(const IndexPlan& plan, ThreadPool* pool = nullptr) const;
  // An estimate of the rows `lookup` answers (ScalarIndex::EstimateMatches of each leaf, summed:
  // the pages a BTree range touches, its values' spans, the sizes of a bitmap's row sets), or
  // nullopt when an index of it cannot tell. Opens the indexes involved. Errors: as Answer.
  Result<std::optional<uint64_t>> EstimateRows(const IndexedConjunct& lookup) const;
  // The smallest estimate of `plan`'s lookups (every row it answers passes each of them),
  // nullopt when one of them is unknown (that one may be the selective one) or there are none.
  // Errors: as Answer.
  Result<std::optional<uint64_t>> EstimateRows(const IndexPlan& plan) const;
  // `plan` without the lookups whose cost is over `max_cost`, keeping at least the cheapest:
  // a conjunct as broad as `score > 50` is cheaper to filter over the rows a selective lookup
  // returns than to answer. A lookup's cost is `cost(lookup, estimate)` of its index's
  // estimate (EstimateRows above; null `cost`: the estimate itself); a lookup whose estimate
  // is unknown counts as the cheapest. Opens the indexes involved. Errors: as Answer.
  using LookupCostFn = std::function<double(const IndexedConjunct& lookup, uint64_t estimate)>;
  Result<IndexPlan> DropBroadLookups(IndexPlan plan, double max_cost, const LookupCostFn& cost = nullptr) const;
  // The fragments of the version every index of `plan` covers, ascending (no index is read).
  std::vector<uint32_t> Covered(const IndexPlan& plan) const;

  // The opened index of slot `slot` (tests, benches). Errors as Answer.
  Result<std::shared_ptr<ScalarIndex>> IndexAt(size_t slot) const;
  const table::IndexInfo& InfoAt(size_t slot) const;
  size_t num_indexes() const;
  // The cache pages go through (null once its owner dropped it).
  std::shared_ptr<IndexCache> cache() const;

 private:
  struct Impl;
  explicit ScalarIndexCatalog(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The top-level AND conjuncts of `filter` (a tree without AND at its root is one conjunct).
std::vector<const expr::Node*> SplitConjuncts(const expr::Node& filter);

}  // namespace lance::index::scalar
