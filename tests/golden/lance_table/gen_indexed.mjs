// Writes `indexed.lance/`, a table the reference (@lancedb/lancedb 0.39.0, Rust lance 12.0.0)
// indexed, for the C ABI tests (tests/capi/): index listing, segments, drop.
//   v1 create ids 0..199 (int64 `id`, utf8 `cat` = "c<id % 5>", utf8 `text`, vec: 4 x float32)
//   v2 append ids 200..299                     (second fragment)
//   v3..v6 indexes: BTREE `id_idx` on id, BITMAP `cat_idx` on cat, FTS `text_idx` on text,
//          IVF_PQ `vec_idx` on vec (2 partitions, 2 sub-vectors)
// and `indexed_indices.json`: the reference's listIndices (name, uuid, columns, type) of the
// last version.
//
// Usage (from the repository root): node tests/golden/lance_table/gen_indexed.mjs
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../interop/package.json'));
const lancedb = require('@lancedb/lancedb');
const { indexedRows } = await import(path.join(here, '../../interop/lib/indexed_rows.mjs'));

fs.rmSync(path.join(here, 'indexed.lance'), { recursive: true, force: true });
const db = await lancedb.connect(here);
const t = await db.createTable('indexed', indexedRows(0, 200), { mode: 'overwrite' });
await t.add(indexedRows(200, 100));
await t.createIndex('id', { config: lancedb.Index.btree(), name: 'id_idx' });
await t.createIndex('cat', { config: lancedb.Index.bitmap(), name: 'cat_idx' });
await t.createIndex('text', { config: lancedb.Index.fts(), name: 'text_idx' });
await t.createIndex('vec', { config: lancedb.Index.ivfPq({ numPartitions: 2, numSubVectors: 2 }), name: 'vec_idx' });
const indices = (await t.listIndices()).map((x) => ({ name: x.name, uuid: x.indexUuid, columns: x.columns, type: x.indexType }));
indices.sort((a, b) => (a.name < b.name ? -1 : 1));
fs.writeFileSync(path.join(here, 'indexed_indices.json'),
  JSON.stringify({ version: await t.version(), indices }, null, 1) + '\n');
// The reference's transaction files are not needed to read; keep the fixture small.
fs.rmSync(path.join(here, 'indexed.lance', '_transactions'), { recursive: true, force: true });
