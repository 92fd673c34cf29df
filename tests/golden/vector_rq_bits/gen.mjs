// Writes a small multi-bit IVF_RQ table the reference (@lancedb/lancedb 0.39.0, Rust lance
// 12.0.0) built, for src/index/vector/rabitq_test.cc:
//   ivf_rq4_l2.lance: 256 rows (int32 `id`, `vec`: 32 x float32, LCG values clustered around
//   4 centres), one index `vec_idx`: Index.ivfRq({numPartitions: 2, numBits: 4}) (l2)
// and `answers.json`: its nearestTo over the index (row ids and distances in order) for a few
// queries, nprobes and k, so the C++ test compares whole results without node.
//
// Index builds are not deterministic in lance 12 (k-means seeds, the random rotation):
// rerunning rewrites the files and answers; commit them together.
//
// Usage (from the repository root): node tests/golden/vector_rq_bits/gen.mjs
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
process.env.LANCEDB_LOG ??= 'error';
const require = createRequire(path.join(here, '../../interop/package.json'));
const lancedb = require('@lancedb/lancedb');
const A = await import(path.join(here, '../../interop/node_modules/apache-arrow/Arrow.node.mjs'));
const { makeTable } = await import(path.join(here, '../../interop/lib/gen.mjs'));

const DIM = 32;
const ROWS = 256;

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s / 4294967296) * 2 - 1;
  };
}

// rabitq_test.cc's RqBitsGoldenVectors() repeats this: 4 centres, each value rounded once.
function vectors() {
  const r = rng(13);
  const centres = Array.from({ length: 4 }, () => Array.from({ length: DIM }, () => r() * 4));
  return Array.from({ length: ROWS }, (_, i) => centres[i % 4].map((x) => Math.fround(x + r())));
}

const queries = () => {
  const r = rng(101);
  return Array.from({ length: 3 }, () => Array.from({ length: DIM }, () => Math.fround(r() * 4)));
};

const name = 'ivf_rq4_l2';
fs.rmSync(path.join(here, `${name}.lance`), { recursive: true, force: true });
const db = await lancedb.connect(here);
const vs = vectors();
const t = await db.createTable(name, makeTable([
  { name: 'id', type: new A.Int32(), nullable: false, values: vs.map((_, i) => i) },
  { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)), values: vs },
], [ROWS]));
await t.createIndex('vec', { config: lancedb.Index.ivfRq({ numPartitions: 2, numBits: 4 }), name: 'vec_idx' });
const results = [];
for (const [qi, q] of queries().entries()) {
  for (const nprobes of [1, 2]) {
    for (const k of [5, 40]) {
      const rows = (await t.query().nearestTo(q).limit(k).nprobes(nprobes).withRowId(true).select(['_distance'])
        .toArray()).map((r) => [Number(r._rowid), r._distance]);
      results.push({ query: qi, nprobes, k, rows });
    }
  }
}
fs.rmSync(path.join(here, name + '.lance', '_transactions'), { recursive: true, force: true });
fs.writeFileSync(path.join(here, 'answers.json'), JSON.stringify({ queries: queries(), results }) + '\n');
