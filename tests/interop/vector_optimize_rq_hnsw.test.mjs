// `lance index optimize` of the IVF_RQ and IVF_HNSW_* indexes we build, read by lance 12
// (@lancedb/lancedb 0.39.0): IVF_RQ (l2, cosine), IVF_HNSW_SQ (l2, cosine), IVF_HNSW_PQ (l2,
// cosine) and IVF_HNSW_FLAT (l2) on 2000 rows (one null vector); lance 12 appends 600; we
// optimize: one new segment (lance 12's indexStats: numIndices 1, no unindexed row), its plan
// searches our new uuid alone, its search at every partition with a full refine equals its own
// brute force, and its nearestTo at nprobes 1 / 2 / 4, with ef and a prefilter (HNSW) or a
// refine and a prefilter, over our merged index returns exactly what our `lance search`
// returns (row ids in order, distances). The other direction: vector_optimize_lance.test.mjs.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { FIRST, MORE, checkMerged, cpuUlps, jsonLines, optimizeOne, queries, table } from './lib/vector_optimize.mjs';

const qs = queries(4);
// HNSW indexes also with ef and a prefilter through the graph walk; the others with a refine.
const extraFor = (type) => (type.startsWith('ivf_hnsw')
  ? [{ nprobes: 2, ef: 40 }, { nprobes: 3, ef: 20, filter: 'id % 3 = 1' }]
  : [{ nprobes: 2, refineFactor: 3 }, { nprobes: 3, filter: 'id % 3 = 1' }]);
// Float l2 over stored vectors (IVF_HNSW_FLAT) may differ in the last bits on AVX-512 CPUs.
const ulpsOf = (type) => (type === 'ivf_hnsw_flat' ? cpuUlps : 0);

describe('lance index optimize merges appended rows into our IVF_RQ and IVF_HNSW_* indexes', () => {
  let dir, db;
  before(async () => {
    dir = scratchDir('lance-vector-optimize-rq-hnsw-');
    db = await lancedb.connect(dir);
  });

  for (const [type, metric] of [['ivf_rq', 'l2'], ['ivf_rq', 'cosine'], ['ivf_hnsw_sq', 'l2'], ['ivf_hnsw_sq', 'cosine'],
    ['ivf_hnsw_pq', 'l2'], ['ivf_hnsw_pq', 'cosine'], ['ivf_hnsw_flat', 'l2']]) {
    test(`ours ${type} ${metric}, appended by lance 12, optimized by us, read by lance 12`, async () => {
      const name = `ours_${type}_${metric}`;
      const uri = path.join(dir, `${name}.lance`);
      const t = await db.createTable(name, table(0, FIRST, 7));
      const args = ['create-index', uri, 'vec', '--type', type, '--metric', metric, '--partitions', '4', '--seed', '3'];
      if (type === 'ivf_hnsw_pq') args.push('--sub-vectors', '4');
      const made = JSON.parse(lanceOk(args).stdout);
      await t.checkoutLatest();
      await t.add(table(FIRST, MORE, 7));
      assert.equal((await t.indexStats('vec_idx')).numUnindexedRows, MORE);
      const x = optimizeOne(uri, made.uuid);
      assert.equal(x.num_indexed_rows, FIRST + MORE - 1);
      await t.checkoutLatest();
      await checkMerged(t, uri, x.uuid, metric, type, qs, { extra: extraFor(type), ulps: ulpsOf(type) });
      assert.equal(jsonLines(lanceOk(['index', 'optimize', uri]).stdout)[0].outcome, 'up_to_date');
    });
  }
});
