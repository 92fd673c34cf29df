// Vector indexes we build (`lance create-index ... --type ivf_flat|ivf_pq|ivf_hnsw_sq|ivf_hnsw_pq`) as lance 12 sees
// them: it lists them with its type names, its plan searches them (ANNIvfPartition over our
// uuid, no flat KNN), and its nearestTo(...) over our index returns exactly what our
// `lance search` returns (row ids in order, distances bit for bit; IVF_FLAT cosine
// to 1 ulp) for l2 / cosine / dot,
// nprobes 1 / 4 / all, with and without a refine factor (IVF_HNSW_SQ: also ef 40 / 300). Recall@10 against exact search is at
// least the median of five of the reference's own builds with the same parameters on the same
// data (ours: the median of three seeds), minus 0.08 (l2: IVF_PQ / IVF_HNSW_PQ 0.05, IVF_HNSW_SQ 0.12) (lance
// 12's k-means is not deterministic, see FORMAT-NOTES §14).
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';
import { assertSame, lcg, cpuUlps, near, ours } from './lib/vector_search.mjs';

const DIM = 16;
const ROWS = 3000;

function clustered(seed, n) {
  const r = lcg(seed);
  const centres = Array.from({ length: 12 }, () => Array.from({ length: DIM }, () => r() * 3));
  return Array.from({ length: n }, (_, i) => centres[i % 12].map((x) => Math.fround(x + r())));
}

function table(vs, start = 0) {
  return makeTable([
    { name: 'id', type: new A.Int32(), nullable: false, values: vs.map((_, i) => start + i) },
    { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)),
      values: vs.map((v, i) => (i === 5 ? null : v)) },
  ], [vs.length]);
}

async function reference(t, q, metric, s, k, bypass = false) {
  let query = t.query().nearestTo(q).distanceType(metric).limit(k).withRowId(true).select(['_distance']);
  if (bypass) query = query.bypassVectorIndex();
  else query = query.nprobes(s.nprobes);
  if (s.refineFactor) query = query.refineFactor(s.refineFactor);
  if (s.ef) query = query.ef(s.ef);
  return (await query.toArray()).map((r) => ({ rowid: BigInt(r._rowid), distance: r._distance }));
}


function assertOverlap(got, want, what, min) {
  assert.equal(got.length, want.length, `${what}: ${got.length} rows, lance 12 ${want.length}`);
  const theirs = new Map(want.map((x) => [x.rowid, x.distance]));
  let shared = 0;
  for (const x of got) {
    if (!theirs.has(x.rowid)) continue;
    shared += 1;
    assert.ok(near(x.distance, theirs.get(x.rowid), cpuUlps), `${what}: row ${x.rowid} distance ${x.distance}, lance 12 ${theirs.get(x.rowid)}`);
  }
  assert.ok(shared >= min * want.length, `${what}: ${shared} of ${want.length} rows shared with lance 12`);
}

const recallOf = (got, exact) => {
  const want = new Set(exact.map((x) => x.rowid));
  return got.filter((x) => want.has(x.rowid)).length / exact.length;
};

const CASES = [
  ['ivf_flat', 'l2', 'IvfFlat'], ['ivf_flat', 'cosine', 'IvfFlat'], ['ivf_flat', 'dot', 'IvfFlat'],
  ['ivf_pq', 'l2', 'IvfPq'], ['ivf_pq', 'cosine', 'IvfPq'], ['ivf_pq', 'dot', 'IvfPq'],
  ['ivf_hnsw_sq', 'l2', 'IvfHnswSq'], ['ivf_hnsw_sq', 'cosine', 'IvfHnswSq'], ['ivf_hnsw_sq', 'dot', 'IvfHnswSq'],
  ['ivf_hnsw_pq', 'l2', 'IvfHnswPq'], ['ivf_hnsw_pq', 'cosine', 'IvfHnswPq'], ['ivf_hnsw_pq', 'dot', 'IvfHnswPq'],
];
const SEARCHES = [{ nprobes: 1 }, { nprobes: 4 }, { nprobes: 8 }, { nprobes: 2, refineFactor: 4 }];
// IVF_HNSW_SQ also with ef: small (the walk over our graph decides) and large (every reachable
// row of the probed partitions).
const HNSW_SEARCHES = [{ nprobes: 2, ef: 40 }, { nprobes: 4, ef: 300 }, { nprobes: 2, refineFactor: 2, ef: 80 }];

describe('lance 12 uses and answers from vector indexes lance-cpp built', () => {
  let dir;
  let db;
  const vs = clustered(11, ROWS);
  const qs = clustered(23, 6).map((v) => v.map((x) => Math.fround(x * 0.9)));
  before(async () => {
    dir = scratchDir('lance-vector-write-');
    db = await lancedb.connect(dir);
  });

  for (const [type, metric, listed] of CASES) {
    test(`${type} ${metric}`, async () => {
      const name = `${type}_${metric}`;
      const uri = path.join(dir, `${name}.lance`);
      const t = await db.createTable(name, table(vs));
      const args = ['create-index', uri, 'vec', '--type', type, '--metric', metric, '--partitions', '8',
        '--seed', '3'];
      // Dot PQ codes raw vectors (no residual): with few sub-vectors many rows of a cluster share
      // a code, and ties at the candidate cut are chosen arbitrarily by the reference.
      const m = metric === 'dot' ? '16' : '4';
      if (type === 'ivf_pq' || type === 'ivf_hnsw_pq') args.push('--sub-vectors', m);
      const made = JSON.parse(lanceOk(args).stdout);
      assert.equal(made.num_rows, ROWS - 1);
      await t.checkoutLatest();
      const indices = await t.listIndices();
      assert.deepEqual(indices.map((x) => [x.name, x.indexType, x.columns]), [['vec_idx', listed, ['vec']]]);
      const stats = await t.indexStats('vec_idx');
      assert.equal(stats.indexType, type.toUpperCase());
      assert.equal(stats.numIndexedRows, ROWS);
      assert.equal(stats.numUnindexedRows, 0);
      const plan = await t.query().nearestTo(qs[0]).distanceType(metric).nprobes(2).explainPlan(true);
      assert.match(plan, new RegExp(`ANNIvfPartition: uuid=${made.uuid}`));
      assert.doesNotMatch(plan, /KNNVectorDistance/);
      for (const s of type.startsWith('ivf_hnsw') ? [...SEARCHES, ...HNSW_SEARCHES] : SEARCHES) {
        for (const [qi, q] of qs.entries()) {
          for (const k of [1, 10, 40]) {
            if (s.ef && s.ef < k * (s.refineFactor ?? 1)) continue;  // lance 12 refuses ef < k x refine
            const want = await reference(t, q, metric, s, k);
            const got = ours(uri, q, metric, s, k);
            const what = `${name} q${qi} k${k} ${JSON.stringify(s)}`;
            if ((type === 'ivf_pq' || type === 'ivf_hnsw_pq') && s.refineFactor) {
              // PQ distances tie often (rows sharing a code); which tied rows fill the k x refine
              // candidate cut is the reference's arbitrary choice, and re-ranking exposes it. Both
              // must agree on most rows, with exact distances bit-equal where they agree.
              assertOverlap(got, want, what, 0.8);
            } else {
              assertSame(got, want, what, type === 'ivf_flat' && metric === 'cosine' ? 1 : 0);
            }
          }
        }
      }

      // Recall@10 at nprobes 2 against exact search, ours vs the median of five of the
      // reference's own builds (its k-means is not deterministic: one build ranged 0.80-0.95,
      // and medians of three moved from 0.797 to 0.944 between runs for IVF_FLAT l2).
      const cfg = () => (type === 'ivf_pq'
        ? lancedb.Index.ivfPq({ numPartitions: 8, numSubVectors: metric === 'dot' ? 16 : 4, distanceType: metric })
        : type === 'ivf_hnsw_sq' ? lancedb.Index.hnswSq({ numPartitions: 8, distanceType: metric })
          : type === 'ivf_hnsw_pq' ? lancedb.Index.hnswPq({ numPartitions: 8, numSubVectors: metric === 'dot' ? 16 : 4, distanceType: metric })
          : lancedb.Index.ivfFlat({ numPartitions: 8, distanceType: metric }));
      const rqs = clustered(41, 32).map((v) => v.map((x) => Math.fround(x * 0.9)));
      const exact = [];
      for (const q of rqs) exact.push(await reference(t, q, metric, {}, 10, true));
      // Ours: the median of three builds too (seeds 3, 4, 5), each searched by lance 12, so
      // neither side is judged on one k-means start.
      const ourBuilds = [];
      for (const seed of [3, 4, 5]) {
        let ot = t;
        if (seed !== 3) {
          ot = await db.createTable(`${name}_ours${seed}`, table(vs));
          const oargs = ['create-index', path.join(dir, `${name}_ours${seed}.lance`), 'vec', '--type', type,
            '--metric', metric, '--partitions', '8', '--seed', String(seed)];
          if (type === 'ivf_pq' || type === 'ivf_hnsw_pq') oargs.push('--sub-vectors', m);
          lanceOk(oargs);
          await ot.checkoutLatest();
        }
        let r = 0;
        for (const [i, q] of rqs.entries()) r += recallOf(await reference(ot, q, metric, { nprobes: 2 }, 10), exact[i]);
        ourBuilds.push(r / rqs.length);
      }
      const mine = [...ourBuilds].sort((a, b) => a - b)[1];
      const builds = [];
      for (let b = 0; b < 5; b++) {
        const rt = await db.createTable(`${name}_ref${b}`, table(vs));
        await rt.createIndex('vec', { config: cfg() });
        let r = 0;
        for (const [i, q] of rqs.entries()) r += recallOf(await reference(rt, q, metric, { nprobes: 2 }, 10), exact[i]);
        builds.push(r / rqs.length);
      }
      const theirs = [...builds].sort((a, b) => a - b)[2];
      console.log(`${name}: recall@10 nprobes 2: lance-cpp builds ${ourBuilds.map((x) => x.toFixed(3)).join(' ')}, lance 12 builds ${builds.map((x) => x.toFixed(3)).join(' ')}`);
      // Margins (median of three of our builds, of five of lance 12's): 0.08 for IVF_FLAT on every metric and for
      // cosine / dot on every type. That is the noise of a median of three, not a gap: lance
      // 12's own medians for one configuration moved by up to 0.07 between two runs
      // (2026-12-02: IVF_FLAT l2 0.847 / 0.797, IVF_PQ dot 0.797 / 0.850, IVF_HNSW_SQ l2
      // 0.903 / 0.856), while ours are seeded and fixed. l2 on IVF_PQ / IVF_HNSW_PQ: 0.05. Since
      // the IVF k-means starts from k-means++ (2026-12-03) ours sit above lance's medians (IVF_PQ
      // 0.619 vs 0.556-0.622, IVF_HNSW_PQ 0.613 vs 0.556; lance's single builds 0.487-0.631), so a
      // regression of our partitions or PQ codes fails here. IVF_HNSW_SQ l2 keeps 0.12, a KNOWN
      // GAP of the graph walk, not the k-means (issue 13): 0.825 against lance medians of
      // 0.819-0.903.
      const margin = type === 'ivf_hnsw_sq' && metric === 'l2' ? 0.12
        : (type === 'ivf_pq' || type === 'ivf_hnsw_pq') && metric === 'l2' ? 0.05 : 0.08;
      assert.ok(mine >= theirs - margin, `${name}: recall ${mine} below the reference's ${theirs} - ${margin}`);
    });
  }
});
