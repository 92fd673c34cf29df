// Writes the golden dataset used by src/table/*_test.cc: `history.lance/`, a table written by
// the reference (@lancedb/lancedb 0.39.0, Rust lance 12.0.0) with this history:
//   v1 create ids 0..9 (int64 `id`, nullable utf8 `s`, nullable float64 `f`)
//   v2 append ids 10..6009                     (second fragment)
//   v3 delete id % 4 = 1                       (Arrow IPC deletion files)
//   v4 delete id >= 100 AND id < 5800          (> 5000 rows of fragment 1: Roaring bitmap)
//   tag "v3tag" -> version 3
// and `expected_v{N}.jsonl`: the reference's own rows of each version in row-address order,
// in the canonical JSON-lines form (plus `_rowid`).
//
// Usage (from the repository root): node tests/golden/lance_table/gen.mjs
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../interop/package.json'));
const A = require('apache-arrow');
const lancedb = require('@lancedb/lancedb');
const { canonicalLines } = await import(path.join(here, '../../interop/lib/canonical.mjs'));

function rows(start, n) {
  const ids = BigInt64Array.from({ length: n }, (_, i) => BigInt(start + i));
  const s = A.vectorFromArray(Array.from({ length: n }, (_, i) => ((start + i) % 3 === 0 ? null : `s${start + i}`)), new A.Utf8());
  const f = A.vectorFromArray(Array.from({ length: n }, (_, i) => ((start + i) % 5 === 0 ? null : (start + i) / 8)), new A.Float64());
  return new A.Table({ id: A.makeVector(ids), s, f });
}

fs.rmSync(path.join(here, 'history.lance'), { recursive: true, force: true });
const db = await lancedb.connect(here);
const t = await db.createTable('history', rows(0, 10), { mode: 'overwrite' });
await t.add(rows(10, 6000));
await t.delete('id % 4 = 1');
await t.delete('id >= 100 AND id < 5800');
await (await t.tags()).create('v3tag', 3);
for (const { version } of await t.listVersions()) {
  await t.checkout(version);
  const table = await t.query().withRowId().toArrow();
  const order = Array.from({ length: table.numRows }, (_, i) => i);
  const ids = table.getChild('_rowid').toArray();
  order.sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
  const lines = canonicalLines(table).split('\n').filter((l) => l.length > 0);
  fs.writeFileSync(path.join(here, `expected_v${version}.jsonl`), order.map((i) => lines[i] + '\n').join(''));
}
// The reference's transaction files are not needed to read; keep the fixture small.
fs.rmSync(path.join(here, 'history.lance', '_transactions'), { recursive: true, force: true });
