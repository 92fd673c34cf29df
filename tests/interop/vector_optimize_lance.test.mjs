// `lance index optimize` of the IVF_RQ and IVF_HNSW_* indexes lance 12 (@lancedb/lancedb
// 0.39.0) builds, and our search of its own optimize:
//   * lance 12 builds IVF_RQ (l2, cosine) / IVF_HNSW_SQ / IVF_HNSW_PQ on 2000 rows and appends
//     600; we optimize a copy and lance 12 reads it (one segment, plan over our uuid, full
//     search = brute force, answers = ours); lance 12 optimizes the original (at this size it
//     joins the small partitions into one: docs/vector-interop-matrix.md) and our search of its
//     index equals its own; recall@10 of ours, every partition probed, is at least its own's;
//   * lance 12 builds IVF_RQ over 20000 rows spread evenly along a line (its k-means cuts it
//     into 4 partitions of ~5000 rows, too large to join) and appends: its optimize writes a delta segment of the new rows;
//     ours merges them, and every partition of ours is the old segment's rows (in order) then
//     the delta's, with the same factors (functions of each row's sign code and residual) --
//     the new rows coded bit for bit. Should its k-means still leave a partition near the join
//     size, its optimize joins instead (one segment): then that is asserted, with our old rows
//     first in order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';
import * as A from 'apache-arrow';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';
import { field, varint } from './lib/protobuf.mjs';
import { DIM, FIRST, MORE, checkMerged, jsonLines, optimizeOne, queries, segmentOf, table } from './lib/vector_optimize.mjs';
import { assertSame, clustered, lcg, ours, referenceSearch } from './lib/vector_search.mjs';

const qs = queries(4);
// HNSW indexes also with ef and a prefilter through the graph walk; the others with a refine.
const extraFor = (type) => (type.startsWith('ivf_hnsw')
  ? [{ nprobes: 2, ef: 40 }, { nprobes: 3, ef: 20, filter: 'id % 3 = 1' }]
  : [{ nprobes: 2, refineFactor: 3 }, { nprobes: 3, filter: 'id % 3 = 1' }]);

// The partition lengths of an index file's IVF message (global buffer 1; protos/index.proto
// IVF.lengths, field 3), read through the Lance file footer (global buffer offset table).
function ivfLengths(file) {
  const b = fs.readFileSync(file);
  const foot = b.length - 40;
  const gbo = Number(b.readBigUInt64LE(foot + 16));
  const [pos, size] = [Number(b.readBigUInt64LE(gbo + 16)), Number(b.readBigUInt64LE(gbo + 24))];
  const packed = field(b.subarray(pos, pos + size), 3);
  const out = [];
  for (const bytes of packed) {
    const at = { i: 0 };
    while (at.i < bytes.length) out.push(Number(varint(bytes, at)));
  }
  return out;
}

const fileOf = (uri, uuid, file) => path.join(uri, '_indices', uuid, file);

describe('lance index optimize of lance 12\'s IVF_RQ and IVF_HNSW_* indexes', () => {
  let dir, db;
  before(async () => {
    dir = scratchDir('lance-vector-optimize-lance-');
    db = await lancedb.connect(dir);
  });

  for (const [kind, metric, config] of [
    ['IVF_RQ', 'l2', () => lancedb.Index.ivfRq({ numPartitions: 4 })],
    ['IVF_RQ', 'cosine', () => lancedb.Index.ivfRq({ numPartitions: 4, distanceType: 'cosine' })],
    ['IVF_HNSW_SQ', 'l2', () => lancedb.Index.hnswSq({ numPartitions: 4 })],
    ['IVF_HNSW_PQ', 'l2', () => lancedb.Index.hnswPq({ numPartitions: 4, numSubVectors: 4 })]]) {
    test(`lance 12 ${kind} ${metric}, appended: lance 12 reads our optimize, we read its`, async () => {
      const name = `theirs_${kind}_${metric}`;
      const uri = path.join(dir, `${name}.lance`);
      const t = await db.createTable(name, table(0, FIRST, 7));
      await t.createIndex('vec', { config: config() });
      await t.add(table(FIRST, MORE, 7));
      const oursDir = scratchDir('lance-vector-optimize-ours-');
      const oursUri = path.join(oursDir, `${name}.lance`);
      fs.cpSync(uri, oursUri, { recursive: true });
      const old = segmentOf(uri);
      const x = optimizeOne(oursUri, old.uuid);
      const mine = segmentOf(oursUri);
      assert.deepEqual([mine.uuid, mine.type, mine.details, mine.index_version, mine.fragment_ids],
        [x.uuid, kind, old.details, old.index_version, [0, 1]]);
      const ot = await (await lancedb.connect(oursDir)).openTable(name);
      await checkMerged(ot, oursUri, mine.uuid, metric, kind, qs, { extra: extraFor(kind.toLowerCase()) });
      // Its own optimize (at this size it joins the small partitions into one: see
      // docs/vector-interop-matrix.md): our search of it equals its own.
      await t.optimize();
      assert.equal((await t.indexStats('vec_idx')).numUnindexedRows, 0);
      const searches = [{ nprobes: 1 }, { nprobes: 2 }, { nprobes: 4, refineFactor: 300 }];
      if (kind.startsWith('IVF_HNSW')) searches.push({ nprobes: 1, ef: 40 }, { nprobes: 1, ef: 30, filter: 'id % 3 = 1' });
      for (const [qi, q] of qs.entries()) {
        for (const s of searches) {
          const want = await referenceSearch(t, q, metric, s, 10);
          assertSame(ours(uri, q, metric, s, 10), want, `lance 12 optimized ${kind} q${qi} ${JSON.stringify(s)}`, 0);
        }
      }
      // Recall@10 against brute force with every partition probed and no refine, both searched
      // by lance 12: our merged index (4 partitions) at least its optimized one (at this size,
      // one partition), within 0.05. 64 queries: 1-bit RQ recall is ~0.15 here, and over 16
      // queries the two sides' difference had a standard error near 0.04 (a flaky margin).
      const rqs = clustered(91, 64, DIM, 10, 3).map((v) => v.map((x) => Math.fround(x * 0.9)));
      let ourRecall = 0, theirRecall = 0;
      for (const q of rqs) {
        const want = new Set((await referenceSearch(t, q, metric, {}, 10, true)).map((r) => r.rowid));
        const hit = (rs) => rs.filter((r) => want.has(r.rowid)).length / 10;
        ourRecall += hit(await referenceSearch(ot, q, metric, { nprobes: 4 }, 10)) / rqs.length;
        theirRecall += hit(await referenceSearch(t, q, metric, { nprobes: 4 }, 10)) / rqs.length;
      }
      console.log(`${name}: recall@10 after optimize, all partitions: ours ${ourRecall.toFixed(3)}, lance 12 ${theirRecall.toFixed(3)}`);
      assert.ok(ourRecall >= theirRecall - 0.05, `${name}: recall ${ourRecall} below lance 12 ${theirRecall}`);
    });
  }

  // Partitions of more than a quarter of lance's target size (8192 rows for IVF_RQ) are not
  // joined: lance 12's optimize then writes a delta segment of the new rows over the same
  // centroids and rotation. Each new row's partition and factors (functions of its
  // sign code) in our merged segment are those of lance 12's delta segment; the old rows are the
  // old segment's, in order.
  // The rows are spread evenly along one axis (little noise in the others): over such a
  // distribution k-means has one stable cut, into equal quarters, whatever its start. (Ten
  // clusters, as before, let one of its 4 partitions fall under the join size on some runs;
  // four far-apart ones too: one centroid may take two clusters and two split one unevenly.)
  test('lance 12 IVF_RQ, 20000 rows: our merged new rows are coded as its delta segment codes them', async () => {
    const BIG = 20000;
    const JOIN = 8192 / 4;
    const r = lcg(8);
    const big = Array.from({ length: BIG + MORE }, () => Array.from({ length: DIM }, (_, d) => Math.fround(r() * (d === 0 ? 20 : 0.5))));
    const bigTable = (start, n) => makeTable([
      { name: 'id', type: new A.Int32(), nullable: false, values: Array.from({ length: n }, (_, i) => start + i) },
      { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)),
        values: big.slice(start, start + n) },
    ], [n]);
    const uri = path.join(dir, 'rq_big.lance');
    const t = await db.createTable('rq_big', bigTable(0, BIG));
    await t.createIndex('vec', { config: lancedb.Index.ivfRq({ numPartitions: 4 }) });
    await t.add(bigTable(BIG, MORE));
    const oursDir = scratchDir('lance-vector-optimize-rq-big-');
    const oursUri = path.join(oursDir, 'rq_big.lance');
    fs.cpSync(uri, oursUri, { recursive: true });
    const old = segmentOf(uri);
    const oldLengths = ivfLengths(fileOf(uri, old.uuid, 'auxiliary.idx'));
    assert.equal(oldLengths.reduce((a, b) => a + b, 0), BIG);
    await t.optimize();
    const segs = jsonLines(lanceOk(['indexes', uri]).stdout).filter((x) => x.name === 'vec_idx');
    const x = optimizeOne(oursUri, old.uuid);
    // Rows of an auxiliary.idx by partition: [[[rowid, add, scale, error]]].
    const partitions = (u, uuid) => {
      const p = fileOf(u, uuid, 'auxiliary.idx');
      const rows = jsonLines(lanceOk(['file', 'cat', p]).stdout);
      let first = 0;
      return ivfLengths(p).map((len) => {
        first += len;
        return rows.slice(first - len, first).map((r) => [r._rowid, r.__add_factors, r.__scale_factors, r.__error_factors]);
      });
    };
    const [o, m] = [partitions(uri, old.uuid), partitions(oursUri, x.uuid)];
    assert.equal(m.length, 4);
    if (segs.length === 1) {
      // Joined: only when a partition was near the join size (with its share of the new rows).
      console.log(`rq_big: lance 12 joined partitions of ${oldLengths.join(' / ')} rows`);
      assert.ok(Math.min(...oldLengths) < JOIN + MORE, `lance 12 joined partitions of ${oldLengths.join(' / ')} rows`);
      assert.deepEqual(segs[0].fragment_ids, [0, 1]);
      for (let p = 0; p < 4; p++) assert.deepEqual(m[p].slice(0, o[p].length), o[p], `partition ${p}: the old rows first, in order`);
      assert.equal(m.flat().length, BIG + MORE);
      return;
    }
    console.log(`rq_big: old partitions ${oldLengths.join(' / ')} rows, lance 12 wrote ${segs.length} segments`);
    assert.deepEqual(segs.map((x) => x.fragment_ids), [[0], [1]], `lance 12 wrote a delta segment (old partitions ${oldLengths.join(' / ')})`);
    const d = partitions(uri, segs[1].uuid);
    // Lance 12's delta rows come in its shuffle's order, ours in scan order: compared by row id.
    const byRow = (rs) => [...rs].sort((x, y) => x[0] - y[0]);
    for (let p = 0; p < 4; p++) {
      assert.deepEqual(m[p].slice(0, o[p].length), o[p], `partition ${p}: the old rows first, in order`);
      assert.deepEqual(byRow(m[p].slice(o[p].length)), byRow(d[p]), `partition ${p}: then lance 12's delta rows`);
    }
    assert.equal(d.flat().length, MORE);
  });
});
