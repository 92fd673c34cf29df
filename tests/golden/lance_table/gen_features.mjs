// Writes `features.lance/`, a fixture of the manifest and transaction codecs: the _versions/ and
// _transactions/ of a table written by the reference (@lancedb/lancedb 0.39.0, Rust lance
// 12.0.0) through most of the operations lance 12 commits, on a table with stable row ids:
//   create (Overwrite), add (Append), btree + bitmap indexes (CreateIndex), delete (Delete),
//   update and merge-insert (Update), add a column (Merge), rename (Project), field metadata
//   and the unenforced primary key (UpdateConfig), optimize (ReserveFragments, Rewrite, index
//   optimize), an LSM write spec (the __lance_mem_wal system index), drop a column (Project).
// Data files, deletion files and index files are removed (the codecs do not read them), so the
// fixture is small; it cannot be scanned.
//
// Usage (from the repository root): node tests/golden/lance_table/gen_features.mjs
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../interop/package.json'));
const A = require('apache-arrow');
const lancedb = require('@lancedb/lancedb');

function rows(start, n) {
  const ids = BigInt64Array.from({ length: n }, (_, i) => BigInt(start + i));
  const cat = A.vectorFromArray(Array.from({ length: n }, (_, i) => `c${(start + i) % 4}`), new A.Utf8());
  const v = A.vectorFromArray(Array.from({ length: n }, (_, i) => (start + i) / 4), new A.Float64());
  return new A.Table({ id: A.makeVector(ids), cat, v });
}

fs.rmSync(path.join(here, 'features.lance'), { recursive: true, force: true });
const db = await lancedb.connect(here);
const t = await db.createTable('features', rows(0, 100), {
  mode: 'overwrite',
  storageOptions: { new_table_enable_stable_row_ids: 'true' },
});
await t.add(rows(100, 50));
await t.createIndex('id', { config: lancedb.Index.btree() });
await t.createIndex('cat', { config: lancedb.Index.bitmap() });
await t.delete('id % 10 = 3');
await t.update({ where: 'id < 10', valuesSql: { v: '0' } });
await t.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows(140, 20));
await t.addColumns([{ name: 'plus', valueSql: 'id * 2' }]);
await t.alterColumns([{ path: 'v', rename: 'value' }]);
await t.updateFieldMetadata([{ path: 'cat', metadata: { 'lancedb:description': 'category' } }]);
await t.setUnenforcedPrimaryKey('id');
await t.optimize();
await t.setLsmWriteSpec({ specType: 'unsharded', maintainedIndexes: ['id_idx'] });
await t.dropColumns(['plus']);
const root = path.join(here, 'features.lance');
for (const entry of fs.readdirSync(root)) {
  if (entry !== '_versions' && entry !== '_transactions') fs.rmSync(path.join(root, entry), { recursive: true, force: true });
}
console.log(`features.lance: ${(await t.listVersions()).length} versions`);
