// Shared by vector_optimize_metrics*.test.mjs (see their comments).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './cli.mjs';
import { FIRST, MORE, checkMerged, optimizeOne, queries, segmentOf, table } from './vector_optimize.mjs';
import { assertSame, cpuUlps, near, ours, referenceSearch } from './vector_search.mjs';

const qs = queries(3);
const TYPES = ['ivf_flat', 'ivf_pq', 'ivf_hnsw_sq', 'ivf_hnsw_pq'];

const subVectors = (metric) => (metric === 'dot' ? 16 : 4);
// 'ivf_rq' is IVF_RQ with 1 bit, 'ivf_rqN' with N bits (Index.ivfRq({numBits}), ours --num-bits).
const rqBits = (type) => (type.startsWith('ivf_rq') ? Number(type.slice(6) || 1) : 0);
// (IVF_PQ's refine: see refinedOverlap.)
const extraFor = (type) => (type.startsWith('ivf_hnsw')
  ? [{ nprobes: 2, ef: 40 }, { nprobes: 3, ef: 20, filter: 'id % 3 = 1' }]
  : type === 'ivf_pq' ? [{ nprobes: 3, filter: 'id % 3 = 1' }]
    : [{ nprobes: 2, refineFactor: 3 }, { nprobes: 3, filter: 'id % 3 = 1' }]);

// IVF_PQ with a refine factor: PQ distances tie often (rows sharing a code; with dot, the
// extreme rows of a cluster all take the extreme centroids), and which tied rows fill the k x
// refine candidate cut is the reference's arbitrary choice, which the re-ranking exposes. Both
// share most rows, and where they share one its exact distance is bit-equal.
async function refinedOverlap(t, uri, metric, what) {
  for (const [qi, q] of qs.entries()) {
    const s = { nprobes: 2, refineFactor: 3 };
    const want = await referenceSearch(t, q, metric, s, 10);
    const got = ours(uri, q, metric, s, 10);
    assert.equal(got.length, want.length, `${what} q${qi}: ${got.length} rows, lance 12 ${want.length}`);
    const theirs = new Map(want.map((x) => [x.rowid, x.distance]));
    const shared = got.filter((x) => theirs.has(x.rowid));
    for (const x of shared) assert.ok(near(x.distance, theirs.get(x.rowid), cpuUlps), `${what} q${qi}: row ${x.rowid} distance ${x.distance}, lance 12 ${theirs.get(x.rowid)}`);
    assert.ok(shared.length >= 0.8 * want.length, `${what} q${qi}: ${shared.length} of ${want.length} rows shared with lance 12`);
  }
}

function config(type, metric) {
  const p = { numPartitions: 4, distanceType: metric };
  if (type === 'ivf_flat') return lancedb.Index.ivfFlat(p);
  if (type === 'ivf_pq') return lancedb.Index.ivfPq({ ...p, numSubVectors: subVectors(metric) });
  if (rqBits(type)) return lancedb.Index.ivfRq({ ...p, numBits: rqBits(type) });
  if (type === 'ivf_hnsw_sq') return lancedb.Index.hnswSq(p);
  return lancedb.Index.hnswPq({ ...p, numSubVectors: subVectors(metric) });
}

// lance 12's optimize of `t` (its own copy): every row indexed, and our search of the result
// equals its own.
async function theirOptimizeReadByUs(t, uri, type, metric, what) {
  await t.optimize();
  const stats = await t.indexStats('vec_idx');
  if (stats.numUnindexedRows !== 0) throw new Error(`${what}: ${stats.numUnindexedRows} rows left unindexed`);
  const searches = [{ nprobes: 1 }, { nprobes: 2 }, { nprobes: 4 }, ...extraFor(type)];
  for (const [qi, q] of qs.entries()) {
    for (const s of searches) {
      const want = await referenceSearch(t, q, metric, s, 10);
      assertSame(ours(uri, q, metric, s, 10), want, `${what} q${qi} ${JSON.stringify(s)}`, 0);
    }
  }
  if (type === 'ivf_pq') await refinedOverlap(t, uri, metric, what);
}

// One test per case of `metrics` x `types` both ways, and per [type, metric] of `oursOnly` (kinds
// lance 12's node API cannot build: ours only, which lance 12 still optimizes).
export function describeOptimizes(title, metrics, oursOnly, types = TYPES) {
describe(title, () => {
  let dir, db;
  before(async () => {
    dir = scratchDir('lance-vector-optimize-metrics-');
    db = await lancedb.connect(dir);
  });

  const cases = [...metrics.flatMap((metric) => types.flatMap((type) => [['ours', type, metric], ['lance 12', type, metric]])),
    ...oursOnly.map(([type, metric]) => ['ours', type, metric])];
  for (const [builder, type, metric] of cases) {
    test(`${builder} ${type} ${metric}, appended: lance 12 reads our optimize, we read its`, async () => {
      const name = `${builder === 'ours' ? 'ours' : 'theirs'}_${type}_${metric}`;
      const uri = path.join(dir, `${name}.lance`);
      const t = await db.createTable(name, table(0, FIRST));
      if (builder === 'ours') {
        const args = ['create-index', uri, 'vec', '--type', rqBits(type) ? 'ivf_rq' : type, '--metric', metric,
          '--partitions', '4', '--seed', '3'];
        if (type.endsWith('pq')) args.push('--sub-vectors', String(subVectors(metric)));
        if (rqBits(type)) args.push('--num-bits', String(rqBits(type)));
        lanceOk(args);
        await t.checkoutLatest();
      } else {
        await t.createIndex('vec', { config: config(type, metric) });
      }
      await t.add(table(FIRST, MORE));
      const oursDir = scratchDir('lance-vector-optimize-metrics-ours-');
      const oursUri = path.join(oursDir, `${name}.lance`);
      fs.cpSync(uri, oursUri, { recursive: true });
      const x = optimizeOne(oursUri, segmentOf(uri).uuid);
      const ot = await (await lancedb.connect(oursDir)).openTable(name);
      await checkMerged(ot, oursUri, x.uuid, metric, `${builder} ${type}`, qs, { extra: extraFor(type) });
      if (type === 'ivf_pq') await refinedOverlap(ot, oursUri, metric, `lance 12 on our optimize of ${builder} ${type} ${metric}`);
      await theirOptimizeReadByUs(t, uri, type, metric, `lance 12's optimize of ${builder} ${type} ${metric}`);
    });
  }
});
}
