// Writes `scalar.lance/`: a table the reference (@lancedb/lancedb 0.39.0, Rust lance 12.0.0)
// indexed with every scalar index node can build, for the C++ readers' tests
// (src/index/scalar/*_test.cc) and the interop tests:
//   v1 create ids 0..199 (tests/interop/lib/scalar_rows.mjs), v2 append ids 200..299,
//   v3 delete id % 50 = 7, then one index per column: BTREE on id, i32, f64, s, d, ts, BITMAP
//   on b, cat, LABEL_LIST on tags (named {col}_idx), v13 append ids 300..339 (unindexed).
// Usage (from the repository root): node tests/golden/scalar_index/gen.mjs
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../interop/package.json'));
const lancedb = require('@lancedb/lancedb');
const { scalarTable, SCALAR_INDEXES } = await import(path.join(here, '../../interop/lib/scalar_rows.mjs'));

fs.rmSync(path.join(here, 'scalar.lance'), { recursive: true, force: true });
const db = await lancedb.connect(here);
const t = await db.createTable('scalar', scalarTable(0, 200), { mode: 'overwrite' });
await t.add(scalarTable(200, 100));
await t.delete('id % 50 = 7');
for (const [col, kind] of SCALAR_INDEXES) {
  await t.createIndex(col, { config: lancedb.Index[kind](), name: `${col}_idx` });
}
await t.add(scalarTable(300, 40));
fs.rmSync(path.join(here, 'scalar.lance', '_transactions'), { recursive: true, force: true });
console.log('version', await t.version(), (await t.listIndices()).map((x) => `${x.name}:${x.indexType}`).join(' '));
