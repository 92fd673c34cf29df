// Compaction remap of IVF_HNSW_* indexes both ways with lance 12 (@lancedb/lancedb 0.39.0),
// which builds each partition's graph anew over the rows left (its levels are random, so only
// the storage can be compared file to file):
//   * lance 12 builds IVF_HNSW_SQ / IVF_HNSW_PQ on three fragments and deletes rows; of two
//     copies its optimize() compacts one, our `lance compact` the other: the segment its
//     Rewrite writes and ours have the same auxiliary.idx (row ids at their new addresses in
//     partition order, codes, schema, global buffers) and index.idx schema columns and a graph
//     node per kept row on level 0; lance 12 answers from our remapped index exactly as our
//     `lance search` does, and we answer from its remapped index exactly as it does (row ids in
//     order, distances; nprobes 1 / 2, ef, a prefilter, a full search = brute force);
//   * we build IVF_HNSW_SQ (cosine), IVF_HNSW_PQ and IVF_HNSW_FLAT, delete and compact: lance 12
//     lists the remapped segment over the new fragment, plans through it and answers as we do.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { assertSameLanceFile, lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';
import { rewriteReadAt } from './lib/protobuf.mjs';
import { assertSame, clustered, cpuUlps, ours, referenceSearch } from './lib/vector_search.mjs';

const DIM = 16;
const PER = 600;
const vs = clustered(9, 3 * PER, DIM, 8, 3);
const qs = clustered(31, 3, DIM, 8, 3).map((v) => v.map((x) => Math.fround(x * 0.9)));
const DELETE = 'id < 1200 AND id % 5 = 3';
const KEPT = 3 * PER - 240;

function rows(start, n) {
  return makeTable([
    { name: 'id', type: new A.Int32(), nullable: false, values: Array.from({ length: n }, (_, i) => start + i) },
    { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)),
      values: vs.slice(start, start + n) },
  ], [n]);
}

async function threeFragments(db, name) {
  const t = await db.createTable(name, rows(0, PER));
  await t.add(rows(PER, PER));
  await t.add(rows(2 * PER, PER));
  return t;
}

const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));
const segmentOf = (uri) => jsonLines(lanceOk(['indexes', uri]).stdout).find((x) => x.name === 'vec_idx');
const fileOf = (uri, uuid, file) => path.join(uri, '_indices', uuid, file);
const SEARCHES = [{ nprobes: 1 }, { nprobes: 2 }, { nprobes: 2, ef: 40 }, { nprobes: 2, ef: 30, filter: 'id % 3 = 1' },
  { nprobes: 1, refineFactor: 2, ef: 40 }];

// Our search of `uri` equals lance 12's of `t` for every query and search; a full search with
// a refine equals its brute force.
async function sameAnswers(t, uri, metric, what, ulps = 0) {
  for (const [qi, q] of qs.entries()) {
    const exact = await referenceSearch(t, q, metric, {}, 10, true);
    assertSame(await referenceSearch(t, q, metric, { nprobes: 2, refineFactor: 200 }, 10), exact,
      `${what} q${qi}: lance 12 full search vs brute force`, 0);
    assertSame(ours(uri, q, metric, { nprobes: 2, refineFactor: 200 }, 10), exact, `${what} q${qi}: ours full search vs brute force`, 0);
    for (const s of SEARCHES) {
      assertSame(ours(uri, q, metric, s, 10), await referenceSearch(t, q, metric, s, 10),
        `${what} q${qi} ${JSON.stringify(s)}`, ulps);
    }
  }
}

describe('compaction remaps IVF_HNSW_* indexes, graphs built anew', () => {
  for (const [kind, config] of [['IVF_HNSW_SQ', () => lancedb.Index.hnswSq({ numPartitions: 2 })],
    ['IVF_HNSW_PQ', () => lancedb.Index.hnswPq({ numPartitions: 2, numSubVectors: 4 })]]) {
    test(`lance 12 ${kind}: its remap and ours hold the same storage; each answers from the other's`, async () => {
      const dir = scratchDir('lance-remap-hnsw-');
      const uri = path.join(dir, 't.lance');
      const t = await threeFragments(await lancedb.connect(dir), 't');
      await t.createIndex('vec', { config: config() });
      await t.delete(DELETE);
      const oursDir = scratchDir('lance-remap-hnsw-ours-');
      fs.cpSync(dir, oursDir, { recursive: true });
      const oursUri = path.join(oursDir, 't.lance');
      const v = JSON.parse(lanceOk(['manifest', uri]).stdout).version;
      const old = segmentOf(uri);
      await t.optimize();
      lanceOk(['compact', oursUri]);
      const [[oldId, theirUuid]] = rewriteReadAt(uri, v);
      assert.equal(oldId, old.uuid);
      const mine = segmentOf(oursUri);
      assert.equal(mine.type, kind);
      assert.notEqual(mine.uuid, old.uuid);
      assert.deepEqual(mine.fragment_ids, [3]);
      assert.deepEqual([mine.details, mine.index_version, mine.dataset_version], [old.details, old.index_version, old.dataset_version]);
      const rb = assertSameLanceFile(fileOf(uri, theirUuid, 'auxiliary.idx'), fileOf(oursUri, mine.uuid, 'auxiliary.idx'),
        'auxiliary.idx');
      assert.equal(rb.split('\n').filter((l) => l).length, KEPT);
      // index.idx: one graph row per node and level; every kept row is a node of level 0.
      const graphRows = (p) => jsonLines(lanceOk(['file', 'cat', p]).stdout);
      const [ga, gb] = [graphRows(fileOf(uri, theirUuid, 'index.idx')), graphRows(fileOf(oursUri, mine.uuid, 'index.idx'))];
      assert.deepEqual(Object.keys(gb[0]), Object.keys(ga[0]));
      assert.ok(gb.length >= KEPT && ga.length >= KEPT, `graph rows: ours ${gb.length}, lance 12 ${ga.length}`);

      // Lance 12 on our remapped table; we on its (its Rewrite: its optimize() may build more after).
      const mt = await (await lancedb.connect(oursDir)).openTable('t');
      assert.equal((await mt.indexStats('vec_idx')).numIndexedRows, KEPT);
      const plan = await mt.query().nearestTo(qs[0]).nprobes(2).explainPlan(true);
      assert.match(plan, new RegExp(`ANNIvfPartition: uuid=${mine.uuid}`));
      assert.doesNotMatch(plan, /KNNVectorDistance/);
      await sameAnswers(mt, oursUri, 'l2', `lance 12 on our remapped ${kind}`);
      // Our search reads the latest version: a copy restored to its Rewrite's.
      const rewriteDir = scratchDir('lance-remap-hnsw-rewrite-');
      fs.cpSync(dir, rewriteDir, { recursive: true });
      const rewriteUri = path.join(rewriteDir, 't.lance');
      lanceOk(['restore', rewriteUri, '--version', String(v + 2)]);
      assert.equal(segmentOf(rewriteUri).uuid, theirUuid);
      const tt = await (await lancedb.connect(rewriteDir)).openTable('t');
      assert.deepEqual((await tt.listIndices()).map((x) => x.indexUuid), [theirUuid]);
      await sameAnswers(tt, rewriteUri, 'l2', `ours on lance 12's remapped ${kind}`);
    });
  }

  for (const [type, metric] of [['ivf_hnsw_sq', 'cosine'], ['ivf_hnsw_pq', 'l2'], ['ivf_hnsw_flat', 'l2']]) {
    test(`ours ${type} ${metric}: remapped by our compaction, read by lance 12`, async () => {
      const dir = scratchDir('lance-remap-hnsw-ours-');
      const uri = path.join(dir, 't.lance');
      const db = await lancedb.connect(dir);
      const t = await threeFragments(db, 't');
      const args = ['create-index', uri, 'vec', '--type', type, '--metric', metric, '--partitions', '2', '--seed', '5'];
      if (type === 'ivf_hnsw_pq') args.push('--sub-vectors', '4');
      const made = JSON.parse(lanceOk(args).stdout);
      await t.checkoutLatest();
      await t.delete(DELETE);
      lanceOk(['compact', uri]);
      const seg = segmentOf(uri);
      assert.notEqual(seg.uuid, made.uuid);
      assert.deepEqual(seg.fragment_ids, [3]);
      await t.checkoutLatest();
      const stats = await t.indexStats('vec_idx');
      assert.deepEqual([stats.numIndexedRows, stats.numUnindexedRows, stats.indexType], [KEPT, 0, type.toUpperCase()]);
      const plan = await t.query().nearestTo(qs[0]).distanceType(metric).nprobes(2).explainPlan(true);
      assert.match(plan, new RegExp(`ANNIvfPartition: uuid=${seg.uuid}`));
      await sameAnswers(t, uri, metric, `our remapped ${type}`, type === 'ivf_hnsw_flat' ? cpuUlps : 0);
    });
  }
});
