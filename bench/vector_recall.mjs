// Recall@10 of the vector indexes we build against lance 12's own builds of the same type and
// metric on the same data, both searched by lance 12 (`@lancedb/lancedb` 0.39.0 nearestTo), so
// the only difference is the index files: partitions (k-means), codes (PQ / SQ) and graphs.
// Data: the interop tests' clustered vectors (16 float32 dimensions around 12 centres, +-1
// noise), --rows rows, --queries queries (other seeds, scaled by 0.9), exact answers from
// lance 12's flat search. Each side builds --builds indexes (ours: seeds 1..B; lance 12's
// k-means is not seeded), each searched at every --nprobes (k 10, lance 12's default ef: 1.5 x
// k, and each --ef given, for the HNSW kinds); the per-build recalls, their mean and median, and ours - theirs.
//
//   LANCE_BIN=BUILD/lance node bench/vector_recall.mjs [--rows 12000] [--queries 200]
//        [--builds 3] [--partitions 8] [--nprobes 2,8] [--ef 0,300 (0: the default)] [--sub-vectors 4]
//        [--cases ivf_hnsw_sq:l2,ivf_hnsw_pq:dot,...] [--null R] [--ours-only 1]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../tests/interop/package.json'));
process.env.LANCEDB_LOG ??= 'error';
const lancedb = require('@lancedb/lancedb');
const A = await import(path.join(here, '../tests/interop/node_modules/apache-arrow/Arrow.node.mjs'));
const { makeTable } = await import(path.join(here, '../tests/interop/lib/gen.mjs'));
const { lanceOk, scratchDir } = await import(path.join(here, '../tests/interop/lib/cli.mjs'));
const { lcg } = await import(path.join(here, '../tests/interop/lib/vector_search.mjs'));

const args = { rows: '12000', queries: '200', builds: '3', partitions: '8', nprobes: '2,8', ef: '', 'sub-vectors': '4',
  cases: ['ivf_flat', 'ivf_pq', 'ivf_hnsw_sq', 'ivf_hnsw_pq'].flatMap((t) => ['l2', 'cosine', 'dot'].map((m) => `${t}:${m}`)).join(',') };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const DIM = 16, ROWS = Number(args.rows), NQ = Number(args.queries), B = Number(args.builds), P = Number(args.partitions);
// --null R: row R's vector null (vector_index_write's table: --rows 3000 --queries 32 --null 5).
const NULL_ROW = args.null === undefined ? -1 : Number(args.null);
const NPROBES = args.nprobes.split(',').map(Number);
// --ef: a list; 0 is lance 12's default (1.5 x k).
const EFS = (args.ef || '0').split(',').map(Number);

function clustered(seed, n) {
  const r = lcg(seed);
  const centres = Array.from({ length: 12 }, () => Array.from({ length: DIM }, () => r() * 3));
  return Array.from({ length: n }, (_, i) => centres[i % 12].map((x) => Math.fround(x + r())));
}
const table = (vs) => makeTable([
  { name: 'id', type: new A.Int32(), nullable: false, values: vs.map((_, i) => i) },
  { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)),
    values: vs.map((v, i) => (i === NULL_ROW ? null : v)) },
], [vs.length]);

async function search(t, q, metric, nprobes, bypass, ef = 0) {
  let query = t.query().nearestTo(q).distanceType(metric).limit(10).withRowId(true).select(['_distance']);
  query = bypass ? query.bypassVectorIndex() : query.nprobes(nprobes);
  if (!bypass && ef) query = query.ef(ef);
  return (await query.toArray()).map((r) => BigInt(r._rowid));
}

const vs = clustered(11, ROWS);
const qs = clustered(41, NQ).map((v) => v.map((x) => Math.fround(x * 0.9)));
const dir = scratchDir('lance-vector-recall-');
const db = await lancedb.connect(dir);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sd = (xs) => Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / Math.max(1, xs.length - 1));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

for (const c of args.cases.split(',')) {
  const [type, metric] = c.split(':');
  const m = metric === 'dot' ? '16' : args['sub-vectors'];
  const base = await db.createTable(`${type}_${metric}_exact`, table(vs));
  const exact = [];
  for (const q of qs) exact.push(new Set(await search(base, q, metric, 0, true)));
  async function recall(t) {
    const out = [];
    for (const np of NPROBES) {
      for (const ef of type.startsWith('ivf_hnsw') ? EFS : [0]) {
        let r = 0;
        for (const [i, q] of qs.entries()) r += (await search(t, q, metric, np, false, ef)).filter((x) => exact[i].has(x)).length / 10;
        out.push(r / NQ);
      }
    }
    return out;
  }
  const ours = [], theirs = [];
  for (let b = 0; b < B; b++) {
    const name = `${type}_${metric}_ours${b}`;
    const t = await db.createTable(name, table(vs));
    const a = ['create-index', path.join(dir, `${name}.lance`), 'vec', '--type', type, '--metric', metric,
      '--partitions', String(P), '--seed', String(b + 1)];
    if (type.endsWith('pq')) a.push('--sub-vectors', m);
    lanceOk(a);
    await t.checkoutLatest();
    ours.push(await recall(t));
  }
  for (let b = 0; b < (args['ours-only'] ? 0 : B); b++) {
    const t = await db.createTable(`${type}_${metric}_ref${b}`, table(vs));
    const cfg = type === 'ivf_pq' ? lancedb.Index.ivfPq({ numPartitions: P, numSubVectors: Number(m), distanceType: metric })
      : type === 'ivf_hnsw_sq' ? lancedb.Index.hnswSq({ numPartitions: P, distanceType: metric })
        : type === 'ivf_hnsw_pq' ? lancedb.Index.hnswPq({ numPartitions: P, numSubVectors: Number(m), distanceType: metric })
          : lancedb.Index.ivfFlat({ numPartitions: P, distanceType: metric });
    await t.createIndex('vec', { config: cfg });
    theirs.push(await recall(t));
  }
  const settings = NPROBES.flatMap((np) => (type.startsWith('ivf_hnsw') ? EFS : [0]).map((ef) => [np, ef]));
  for (const [j, [np, ef]] of settings.entries()) {
    const o = ours.map((x) => x[j]), r = theirs.map((x) => x[j]);
    console.log(`${type} ${metric} nprobes ${np}${ef ? ` ef ${ef}` : ''}: ours ${o.map((x) => x.toFixed(3)).join(' ')} `
      + `(mean ${mean(o).toFixed(3)}, median ${median(o).toFixed(3)}) lance 12 ${r.map((x) => x.toFixed(3)).join(' ')} `
      + (r.length ? `(mean ${mean(r).toFixed(3)}, median ${median(r).toFixed(3)}, sd ${sd(r).toFixed(3)}) ours - lance ${(mean(o) - mean(r)).toFixed(3)}` : ''));
  }
}
