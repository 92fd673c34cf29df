// What lance 12 infers or recomputes when it reads a manifest an older writer left
// (rust/lance-table format/manifest.rs and rust/lance dataset/fragment.rs describe the rules;
// the goldens of tests/golden/legacy pin the results):
//
// * no data_format (writers before lance 0.16): the format of the first data file, all data
//   files agreeing ("lance" / "0.1" for legacy v1 files, recorded as 0.0, 0.1 or 0.2; "2.0"
//   for 0.3 or 2.0; "2.x"); without data files, "2.0" when the deprecated V2 writer flag (4)
//   is set, else "0.1". Data files of different formats: InvalidArgument, as lance 12.
// * physical_rows unset (0: lance 0.7) or untrusted (no writer version: lance up to 0.8,
//   whose migration stored the live row count, lancedb/lance#1531): the row count of the
//   fragment's first data file.
// * a deletion file without num_deleted_rows (lance 0.7): the rows the file lists.
//
// Applied by every load of a version (versions.h), so that readers and the commit path
// (which then stores the corrected values, as lance 12's migration does) see the same
// manifest. A count that needs a file that does not exist fails the load with NotFound
// (lance 12 opens such a version but fails on its first count or scan), unless
// `tolerate_missing` (version listings), which leaves the fragment as stored.
#pragma once

#include <vector>

#include "lance/columnar/array.h"
#include "lance/core/status.h"
#include "lance/table/location.h"
#include "lance/table/manifest.h"

namespace lance::table::internal {

// `path` names the manifest in errors.
Status ApplyReadFixups(const TableLocation& location, const std::string& path, Manifest* m,
                       bool tolerate_missing = false);

// The data storage version lance 12 gives a manifest without data_format ("0.1", "2.0",
// "2.1", ...). Errors: InvalidArgument (data files of different formats).
Result<std::string> InferDataStorageVersion(const Manifest& m, const std::string& path);

}  // namespace lance::table::internal

namespace lance::table::internal {

// What the latest version of an older writer's table must satisfy for lance-cpp to commit on
// top of it (checked by the commit loop before anything else):
// * a data storage version of 0.1 (legacy) with data files of another version (the lance 0.16
//   datasets of the upstream corpus): InvalidArgument, as lance 12, which refuses every write
//   to such a dataset;
// * legacy storage with a dictionary field whose values the manifest file holds
//   (Field.dictionary points into it) but DecodeManifest did not carry (a value type other
//   than binary-like or a fixed-width number): NotSupported.
Status CheckLegacyWritable(const Manifest& m, const std::string& root);

}  // namespace lance::table::internal

namespace lance::table::internal {

// The batches with every top-level Arrow dictionary column re-keyed to the dictionary the
// legacy (0.1) dataset `m` stores in its manifest (LegacyDictionaryValues of the field id,
// `schema` carrying the dataset's ids): lance 12 reads the keys of a v1 file against that
// dictionary, not the file's. Columns without stored values are left as they are. Errors:
// NotSupported naming the field and the value the dataset's dictionary lacks.
Result<std::vector<RecordBatchPtr>> ToDatasetDictionaries(const Manifest& m, const SchemaPtr& schema,
                                                          const std::vector<RecordBatchPtr>& batches);

}  // namespace lance::table::internal

namespace lance::table::internal {

// lance 12's commit-time migration of older manifests: every data file of `m` (in the
// dataset's own data/ folder) whose size is not recorded gets its size from the store, so the
// committed manifest records file_size_bytes for all of them (a file the store does not have
// is left unsized). Errors: the store's other than NotFound.
Status FillDataFileSizes(const TableLocation& loc, Manifest* m);

}  // namespace lance::table::internal

namespace lance::table::internal {

// lance 12's commit-time fix of the schema corruption lance 0.10's add/drop columns left
// (upstream corpus v0.10.5/corrupt_schema): a field id listed by more than one data file of a
// fragment. Each such id, ascending, gets a new id after the highest the schema or any data file
// uses; in every fragment the entry of the last data file listing it takes the new id, and so
// does the schema field; data files left with no field of the schema are dropped. Errors:
// NotSupported when the remapped entry is in a legacy v1 data file, whose embedded schema keeps
// the old id (lance 12 commits that, then cannot read the field; `root` names the table).
Status FixDuplicateFieldIds(Manifest* m, const std::string& root);

// lance 12's commit-time fill-in of index metadata older writers left unset: index_version 0
// when absent, and the index's files (name and size, as listed under _indices/{uuid}/) when it
// records none. Entries under another base path are left as stored.
Status MigrateIndexMetadata(const TableLocation& loc, Manifest* m);

// Every commit-time migration above, in lance 12's order: data file sizes, the schema fix, the
// index metadata. Run on the manifest a commit is about to publish.
Status ApplyCommitMigrations(const TableLocation& loc, Manifest* m);

}  // namespace lance::table::internal
