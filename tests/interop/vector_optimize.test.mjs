// `lance index optimize` of vector indexes both ways with lance 12 (@lancedb/lancedb 0.39.0):
//   * we build IVF_FLAT / IVF_SQ / IVF_PQ (4 partitions); lance 12 appends a fragment; we
//     optimize: one new segment (lance 12's indexStats: numIndices 1, no unindexed row, every
//     row indexed), its plan searches our new uuid with no flat KNN beside it, its search at
//     every partition with a full refine equals its own brute force, and its nearestTo at
//     nprobes 1 / 2 / 4 over our merged index returns exactly what our `lance search` returns;
//   * lance 12 builds IVF_PQ and appends; we optimize its index: the same checks;
//   * lance 12 builds IVF_PQ, appends and optimizes itself; our search of its merged index
//     equals its own (row ids in order, distances).
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { FIRST, MORE, checkMerged, jsonLines, optimizeOne, queries, table } from './lib/vector_optimize.mjs';
import { assertSame, ours, referenceSearch } from './lib/vector_search.mjs';

const qs = queries(5);

describe('lance index optimize merges appended rows into vector indexes', () => {
  let dir, db;
  before(async () => {
    dir = scratchDir('lance-vector-optimize-');
    db = await lancedb.connect(dir);
  });

  for (const [type, metric] of [['ivf_flat', 'l2'], ['ivf_sq', 'l2'], ['ivf_pq', 'l2'], ['ivf_pq', 'cosine']]) {
    test(`ours ${type} ${metric}, appended by lance 12, optimized by us, read by lance 12`, async () => {
      const name = `ours_${type}_${metric}`;
      const uri = path.join(dir, `${name}.lance`);
      const t = await db.createTable(name, table(0, FIRST));
      const args = ['create-index', uri, 'vec', '--type', type, '--metric', metric, '--partitions', '4', '--seed', '3'];
      if (type === 'ivf_pq') args.push('--sub-vectors', '4');
      const made = JSON.parse(lanceOk(args).stdout);
      await t.checkoutLatest();
      await t.add(table(FIRST, MORE));
      assert.equal((await t.indexStats('vec_idx')).numUnindexedRows, MORE);
      const x = optimizeOne(uri, made.uuid);
      await t.checkoutLatest();
      await checkMerged(t, uri, x.uuid, metric, type, qs);
      const again = jsonLines(lanceOk(['index', 'optimize', uri]).stdout);
      assert.equal(again[0].outcome, 'up_to_date');
    });
  }

  test('lance 12 IVF_PQ, appended, optimized by us, read by lance 12', async () => {
    const uri = path.join(dir, 'theirs_by_us.lance');
    const t = await db.createTable('theirs_by_us', table(0, FIRST));
    await t.createIndex('vec', { config: lancedb.Index.ivfPq({ numPartitions: 4, numSubVectors: 4 }) });
    const [old] = await t.listIndices();
    await t.add(table(FIRST, MORE));
    const x = optimizeOne(uri);
    await t.checkoutLatest();
    assert.equal((await t.listIndices())[0].name, old.name);
    await checkMerged(t, uri, x.uuid, 'l2', 'lance 12 ivf_pq', qs);
  });

  test('lance 12 IVF_PQ optimized by lance 12: our search of its merged index equals its own', async () => {
    const uri = path.join(dir, 'theirs_by_them.lance');
    const t = await db.createTable('theirs_by_them', table(0, FIRST));
    await t.createIndex('vec', { config: lancedb.Index.ivfPq({ numPartitions: 4, numSubVectors: 4 }) });
    await t.add(table(FIRST, MORE));
    await t.optimize();
    const stats = await t.indexStats('vec_idx');
    assert.equal(stats.numUnindexedRows, 0);
    for (const [qi, q] of qs.entries()) {
      for (const s of [{ nprobes: 1 }, { nprobes: 2 }, { nprobes: 4 }, { nprobes: 4, refineFactor: 300 }]) {
        const want = await referenceSearch(t, q, 'l2', s, 10);
        assertSame(ours(uri, q, 'l2', s, 10), want, `lance 12 merged q${qi} ${JSON.stringify(s)}`, 0);
      }
    }
  });
});
