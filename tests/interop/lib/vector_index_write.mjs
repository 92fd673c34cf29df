// Shared by vector_index_write*.test.mjs: vector indexes we build (`lance create-index`) as
// lance 12 sees them, one test per index type x metric (see those files' comments).
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './cli.mjs';
import { makeTable } from './gen.mjs';
import { assertSame, lcg, cpuUlps, near, oursMany } from './vector_search.mjs';

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

export const CASES = [
  ['ivf_flat', 'l2', 'IvfFlat'], ['ivf_flat', 'cosine', 'IvfFlat'], ['ivf_flat', 'dot', 'IvfFlat'],
  ['ivf_pq', 'l2', 'IvfPq'], ['ivf_pq', 'cosine', 'IvfPq'], ['ivf_pq', 'dot', 'IvfPq'],
  ['ivf_hnsw_sq', 'l2', 'IvfHnswSq'], ['ivf_hnsw_sq', 'cosine', 'IvfHnswSq'], ['ivf_hnsw_sq', 'dot', 'IvfHnswSq'],
  ['ivf_hnsw_pq', 'l2', 'IvfHnswPq'], ['ivf_hnsw_pq', 'cosine', 'IvfHnswPq'], ['ivf_hnsw_pq', 'dot', 'IvfHnswPq'],
];
const SEARCHES = [{ nprobes: 1 }, { nprobes: 4 }, { nprobes: 8 }, { nprobes: 2, refineFactor: 4 }];
// IVF_HNSW_SQ also with ef: small (the walk over our graph decides) and large (every reachable
// row of the probed partitions).
const HNSW_SEARCHES = [{ nprobes: 2, ef: 40 }, { nprobes: 4, ef: 300 }, { nprobes: 2, refineFactor: 2, ef: 80 }];

// Recall@10 of our builds (seeds 3, 4, 5) against lance 12's own (five, unseeded: its k-means
// is not deterministic, FORMAT-NOTES §14), both searched by lance 12 against its exact search:
// at nprobes 2 and with every partition probed (8). `margins(type, metric)` gives the allowed
// shortfall [at nprobes 2, at nprobes 8] of our mean below the mean of its builds.
export function describeWrites(title, cases, margins) {
  describe(title, () => {
    let dir;
    let db;
    const vs = clustered(11, ROWS);
    const qs = clustered(23, 6).map((v) => v.map((x) => Math.fround(x * 0.9)));
    before(async () => {
      dir = scratchDir('lance-vector-write-');
      db = await lancedb.connect(dir);
    });

    for (const [type, metric, listed] of cases) {
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
          for (const k of [1, 10, 40]) {
            if (s.ef && s.ef < k * (s.refineFactor ?? 1)) continue;  // lance 12 refuses ef < k x refine
            // Ours: every query in one `lance search --queries` process.
            const gots = oursMany(uri, qs, metric, s, k);
            for (const [qi, q] of qs.entries()) {
              const want = await reference(t, q, metric, s, k);
              const got = gots[qi];
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

        const cfg = () => (type === 'ivf_pq'
          ? lancedb.Index.ivfPq({ numPartitions: 8, numSubVectors: metric === 'dot' ? 16 : 4, distanceType: metric })
          : type === 'ivf_hnsw_sq' ? lancedb.Index.hnswSq({ numPartitions: 8, distanceType: metric })
            : type === 'ivf_hnsw_pq' ? lancedb.Index.hnswPq({ numPartitions: 8, numSubVectors: metric === 'dot' ? 16 : 4, distanceType: metric })
              : lancedb.Index.ivfFlat({ numPartitions: 8, distanceType: metric }));
        const rqs = clustered(41, 32).map((v) => v.map((x) => Math.fround(x * 0.9)));
        const exact = [];
        for (const q of rqs) exact.push(await reference(t, q, metric, {}, 10, true));
        // [recall at nprobes 2, at nprobes 8] of one build, searched by lance 12.
        const recalls = async (bt) => {
          const out = [];
          for (const nprobes of [2, 8]) {
            let r = 0;
            for (const [i, q] of rqs.entries()) r += recallOf(await reference(bt, q, metric, { nprobes }, 10), exact[i]);
            out.push(r / rqs.length);
          }
          return out;
        };
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
          ourBuilds.push(await recalls(ot));
        }
        const builds = [];
        for (let b = 0; b < 5; b++) {
          const rt = await db.createTable(`${name}_ref${b}`, table(vs));
          await rt.createIndex('vec', { config: cfg() });
          builds.push(await recalls(rt));
        }
        const [m2, m8] = margins(type, metric);
        for (const [j, nprobes, margin] of [[0, 2, m2], [1, 8, m8]]) {
          const mine = ourBuilds.reduce((a, x) => a + x[j], 0) / ourBuilds.length;
          const theirs = builds.reduce((a, x) => a + x[j], 0) / builds.length;
          console.log(`${name}: recall@10 nprobes ${nprobes}: lance-cpp builds ${ourBuilds.map((x) => x[j].toFixed(3)).join(' ')} `
            + `(mean ${mine.toFixed(3)}), lance 12 builds ${builds.map((x) => x[j].toFixed(3)).join(' ')} (mean ${theirs.toFixed(3)})`);
          assert.ok(mine >= theirs - margin,
            `${name}: recall@10 at nprobes ${nprobes} ${mine} below the reference's ${theirs} - ${margin}`);
        }
      });
    }
  });
}
