// Writes `fts.lance/`: a text table the reference (@lancedb/lancedb 0.39.0, Rust lance 12.0.0)
// indexed for full-text search, for the C++ readers' tests (src/index/fts/*_test.cc) and the
// interop tests (tests/interop/fts_search.test.mjs):
//   create ids 0..399 (tests/interop/lib/fts_rows.mjs: `body` and `title` text with nulls and
//   empty strings), delete id % 23 = 5, FTS on `body` with positions (body_idx) and on `title`
//   without (title_idx), append ids 400..549, optimize (compaction into one fragment, the
//   indexes remapped, the appended rows indexed as a second partition: corpus statistics must
//   be summed across partitions), delete id % 31 = 3 (rows the indexes still hold), append ids
//   550..589 (unindexed). Old versions are cleaned up by the optimize.
// Usage (from the repository root): node tests/golden/fts_index/gen.mjs
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../interop/package.json'));
const lancedb = require('@lancedb/lancedb');
const { ftsTable } = await import(path.join(here, '../../interop/lib/fts_rows.mjs'));

fs.rmSync(path.join(here, 'fts.lance'), { recursive: true, force: true });
const db = await lancedb.connect(here);
const t = await db.createTable('fts', ftsTable(0, 400), { mode: 'overwrite' });
await t.delete('id % 23 = 5');
await t.createIndex('body', { config: lancedb.Index.fts({ withPosition: true }), name: 'body_idx' });
await t.createIndex('title', { config: lancedb.Index.fts({ withPosition: false }), name: 'title_idx' });
await t.add(ftsTable(400, 150));
// compacts the two fragments into one (the indexes remapped) and indexes the appended rows as
// a second partition of each index
await t.optimize({ cleanupOlderThan: new Date(Date.now() + 86400000), deleteUnverified: true });
await t.delete('id % 31 = 3');
await t.add(ftsTable(550, 40));
fs.rmSync(path.join(here, 'fts.lance', '_transactions'), { recursive: true, force: true });
// the optimize leaves the replaced index directories behind: drop what the manifest no longer names
const live = new Set((await t.listIndices()).map((x) => x.indexUuid));
for (const d of fs.readdirSync(path.join(here, 'fts.lance', '_indices'))) {
  if (!live.has(d)) fs.rmSync(path.join(here, 'fts.lance', '_indices', d), { recursive: true });
}
console.log('version', await t.version(), (await t.listIndices()).map((x) => `${x.name}:${x.indexType}`).join(' '));
