// Filter: the one filter engine of lance-cpp -- a predicate (lance/expr) bound to a snapshot's
// schema, evaluated over a selection of one fragment's rows.
//
// The predicate is split into its top-level conjuncts (expr::Expression::MakeConjuncts: column
// = literal, IN and IS [NOT] NULL first). A chunk of rows (a span of at most a few thousand
// physical rows and the rows selected in it: the live rows, or those an earlier operator
// kept) is filtered conjunct by conjunct, each over the rows still in play:
//   * dense: while more than a quarter of the span is in play, the conjunct's columns are read
//     for the whole span (the file reader's ranged path decodes whole chunks) and evaluated
//     there; columns an earlier conjunct read for the span are reused;
//   * sparse: below that, only the rows in play are read (a take), so the columns of later
//     conjuncts decode for few rows (late materialization inside the filter);
//   * a conjunct reading one string / binary / fixed-width column whose pages are dictionary
//     pages is tested once per dictionary entry and looked up per row;
//   * rows outside the selection (deleted, or dropped by an earlier conjunct) may be evaluated
//     by a dense read, never returned; should such an evaluation fail (an integer division by
//     zero in a deleted row), the conjunct is evaluated again over the rows in play alone.
// A row passes when every conjunct is TRUE (NULL and FALSE drop it). Thread-safe: one Filter
// serves every chunk task of a scan.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/result.h"
#include "lance/query/fragment_reader.h"
#include "lance/query/row_selection.h"

namespace lance::expr {
class Expression;
}  // namespace lance::expr

namespace lance::query {

// The schema filters bind to: `schema`'s columns plus "_rowid" and "_rowaddr" (uint64).
SchemaPtr FilterSchema(const Schema& schema);

class Filter {
 public:
  struct Conjunct {
    std::shared_ptr<const expr::Expression> expr;
    SchemaPtr columns;        // what it reads, as FragmentReader::Read takes them
    bool dictionary = false;  // reads one data column: dictionary pages stay dictionaries
  };

  // Parses and binds `text` (a SQL-like condition, lance/expr/ast.h) to `schema` (a
  // snapshot's) plus the system columns. Errors: InvalidArgument for a filter that does not
  // parse, bind or give a boolean (the message names the filter and the position).
  static Result<std::shared_ptr<const Filter>> Make(const std::string& text,
                                                    const SchemaPtr& schema);
  // Binds `text` to `schema` alone (no system columns), for rows held in memory that
  // EvaluateBatch filters: merge-insert's joined target / source pair. Errors: as Make.
  static Result<std::shared_ptr<const Filter>> MakeForBatch(const std::string& text,
                                                            const SchemaPtr& schema);

  const std::string& text() const { return text_; }
  const std::vector<Conjunct>& conjuncts() const { return conjuncts_; }
  // Every column some conjunct reads, in first-use order.
  const std::vector<std::string>& columns() const { return columns_; }

  // The rows of `rows` where the filter is TRUE, in the order of `rows`. `rows` are physical
  // rows of `fragment` inside the span [span_start, span_start + span_length), ascending for a
  // dense read to apply (span_length 0: only the rows themselves are read).
  Result<RowSelection> Evaluate(const FragmentReader& fragment, int64_t span_start,
                                int64_t span_length, const RowSelection& rows) const;
  // The rows of `batch` (holding every column of columns() by name, with the bound types)
  // where the filter is TRUE, ascending: the conjuncts in turn over the rows still in play --
  // the whole batch while more than a quarter of it is, else a take of those rows -- NULL and
  // FALSE dropping a row, as Evaluate. Errors: a conjunct's (integer division by zero in a row
  // in play, a failing CAST).
  Result<std::vector<int64_t>> EvaluateBatch(const RecordBatch& batch) const;
  // The number of rows Evaluate would return (without building the list where it can).
  Result<int64_t> Count(const FragmentReader& fragment, int64_t span_start, int64_t span_length,
                        const RowSelection& rows) const;

 private:
  Filter() = default;
  static Result<std::shared_ptr<const Filter>> Bind(const std::string& text, const SchemaPtr& schema,
                                                    bool system_columns);
  Result<RowSelection> Run(const FragmentReader& fragment, int64_t span_start,
                           int64_t span_length, const RowSelection& rows, int64_t* count) const;

  std::string text_;
  std::vector<Conjunct> conjuncts_;
  std::vector<std::string> columns_;
};

}  // namespace lance::query
