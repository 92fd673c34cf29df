// Writes small vector-indexed tables the reference (@lancedb/lancedb 0.39.0, Rust lance 12.0.0)
// built, for the vector index readers (src/index/vector) and their interop tests:
//   {type}_{metric}.lance: 600 rows (int32 `id`, `vec`: 16 x float32, deterministic LCG values
//   clustered around 6 centres, row 17 a null vector), one index `vec_idx` of that type with
//   4 partitions (PQ: 4 sub-vectors of 8 bits)
// and `answers.json`: the reference's nearestTo over each index (row ids and distances, in
// order) for a few queries, nprobes and refine factors, so the C++ tests compare whole results
// without node.
//
// Index builds are not deterministic in lance 12 (k-means seeds): rerunning rewrites every
// file and answer; commit them together.
//
// Usage (from the repository root): node tests/golden/vector_index/gen.mjs
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
process.env.LANCEDB_LOG ??= 'error';
const require = createRequire(path.join(here, '../../interop/package.json'));
const lancedb = require('@lancedb/lancedb');
// The ES module build, the same instance lib/gen.mjs uses.
const A = await import(path.join(here, '../../interop/node_modules/apache-arrow/Arrow.node.mjs'));
const { makeTable } = await import(path.join(here, '../../interop/lib/gen.mjs'));

export const DIM = 16;
export const ROWS = 600;
export const NULL_ROW = 17;

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s / 4294967296) * 2 - 1;
  };
}

export function vectors(seed = 7) {
  const r = rng(seed);
  const centres = Array.from({ length: 6 }, () => Array.from({ length: DIM }, () => r() * 4));
  const out = [];
  for (let i = 0; i < ROWS; i++) {
    const c = centres[i % 6];
    out.push(c.map((x) => Math.fround(x + r())));
  }
  return out;
}

export function queries(seed = 99, n = 4) {
  const r = rng(seed);
  return Array.from({ length: n }, () => Array.from({ length: DIM }, () => Math.fround(r() * 4)));
}

function arrowTable(vs) {
  return makeTable([
    { name: 'id', type: new A.Int32(), nullable: false, values: vs.map((_, i) => i) },
    { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)),
      values: vs.map((v, i) => (i === NULL_ROW ? null : v)) },
  ], [vs.length]);
}

export const CASES = [
  ['ivf_flat', 'l2'], ['ivf_flat', 'cosine'], ['ivf_flat', 'dot'],
  ['ivf_pq', 'l2'], ['ivf_pq', 'cosine'], ['ivf_pq', 'dot'],
  ['ivf_rq', 'l2'],
  ['ivf_hnsw_sq', 'l2'], ['ivf_hnsw_pq', 'l2'],
];

function config(type, metric) {
  const common = { numPartitions: 4, distanceType: metric };
  switch (type) {
    case 'ivf_flat': return lancedb.Index.ivfFlat(common);
    case 'ivf_pq': return lancedb.Index.ivfPq({ ...common, numSubVectors: 4, numBits: 8 });
    case 'ivf_rq': return lancedb.Index.ivfRq({ ...common });
    case 'ivf_hnsw_sq': return lancedb.Index.hnswSq({ ...common });
    case 'ivf_hnsw_pq': return lancedb.Index.hnswPq({ ...common, numSubVectors: 4 });
    default: throw new Error(type);
  }
}

export const SEARCHES = [
  { nprobes: 1 }, { nprobes: 2 }, { nprobes: 4 }, { nprobes: 2, refineFactor: 3 },
];

export async function search(t, q, metric, s, k = 10) {
  let query = t.query().nearestTo(q).distanceType(metric).limit(k).withRowId(true).select(['id'])
    .nprobes(s.nprobes);
  if (s.refineFactor) query = query.refineFactor(s.refineFactor);
  const rows = await query.toArray();
  return rows.map((r) => [Number(r._rowid), r._distance]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const db = await lancedb.connect(here);
  const vs = vectors();
  const qs = queries();
  const answers = { dim: DIM, rows: ROWS, null_row: NULL_ROW, queries: qs, cases: [] };
  for (const [type, metric] of CASES) {
    const cfg = config(type, metric);
    if (!cfg) { console.error(`skip ${type}`); continue; }
    const name = `${type}_${metric}`;
    fs.rmSync(path.join(here, `${name}.lance`), { recursive: true, force: true });
    const t = await db.createTable(name, arrowTable(vs), { mode: 'overwrite' });
    await t.createIndex('vec', { config: cfg, name: 'vec_idx' });
    const stats = await t.indexStats('vec_idx');
    const results = [];
    for (const s of SEARCHES) {
      for (let qi = 0; qi < qs.length; qi++) {
        results.push({ query: qi, ...s, rows: await search(t, qs[qi], metric, s) });
      }
    }
    answers.cases.push({ name, type, metric, index_type: stats.indexType, results });
    fs.rmSync(path.join(here, `${name}.lance`, '_transactions'), { recursive: true, force: true });
  }
  fs.writeFileSync(path.join(here, 'answers.json'), JSON.stringify(answers) + '\n');
}
