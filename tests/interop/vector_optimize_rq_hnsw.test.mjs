// `lance index optimize` of IVF_RQ and IVF_HNSW_* indexes both ways with lance 12
// (@lancedb/lancedb 0.39.0), whose optimize() merges the appended rows into one segment:
//   * we build IVF_RQ (l2, cosine), IVF_HNSW_SQ (l2, cosine), IVF_HNSW_PQ (l2, cosine) and
//     IVF_HNSW_FLAT (l2); lance 12 appends a fragment; we optimize: one new segment (lance 12's
//     indexStats: numIndices 1, no unindexed row), its plan searches our new uuid alone, its
//     search at every partition with a full refine equals its own brute force, and its
//     nearestTo at nprobes 1 / 2 / 4 (HNSW: also ef 40) over our merged index returns exactly
//     what our `lance search` returns (row ids in order, distances);
//   * lance 12 builds IVF_RQ / IVF_HNSW_SQ / IVF_HNSW_PQ and appends; we optimize a copy and
//     lance 12 reads it as above; lance 12 optimizes the original (at 2600 rows it joins the
//     small partitions into one) and our search of its index equals its own;
//   * lance 12 builds IVF_RQ over 20000 rows (partitions too large to join) and appends: its
//     optimize writes a delta segment of the new rows; ours merges them, and every partition
//     of ours is the old segment's rows (in order) then the delta's, with the same factors
//     (functions of each row's sign code and residual) -- the new rows coded bit for bit.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';
import { field, varint } from './lib/protobuf.mjs';
import { assertSame, clustered, cpuUlps, ours, referenceSearch } from './lib/vector_search.mjs';

const DIM = 16;
const FIRST = 2000;
const MORE = 600;
const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));

const vs = clustered(5, FIRST + MORE, DIM, 10, 3);
const qs = clustered(77, 4, DIM, 10, 3).map((v) => v.map((x) => Math.fround(x * 0.9)));

function table(start, n) {
  return makeTable([
    { name: 'id', type: new A.Int32(), nullable: false, values: Array.from({ length: n }, (_, i) => start + i) },
    { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)),
      values: vs.slice(start, start + n).map((v, i) => (start + i === 7 ? null : v)) },
  ], [n]);
}

const isHnsw = (type) => type.startsWith('ivf_hnsw');
// Float l2 over stored vectors (IVF_HNSW_FLAT) may differ in the last bits on AVX-512 CPUs.
const ulpsOf = (type) => (type === 'ivf_hnsw_flat' ? cpuUlps : 0);

// lance 12 over the optimized `t`: one segment covering every row, searched through `uuid`
// alone; full nprobes + refine equals brute force; its answers equal ours.
async function checkMerged(t, uri, uuid, metric, type) {
  const stats = await t.indexStats('vec_idx');
  assert.equal(stats.numIndices, 1);
  assert.equal(stats.numUnindexedRows, 0);
  assert.equal(stats.numIndexedRows, FIRST + MORE);
  const plan = await t.query().nearestTo(qs[0]).distanceType(metric).nprobes(2).explainPlan(true);
  assert.match(plan, new RegExp(`ANNIvfPartition: uuid=${uuid}`));
  assert.doesNotMatch(plan, /KNNVectorDistance/);
  const searches = [{ nprobes: 1 }, { nprobes: 2 }, { nprobes: 4 }];
  if (isHnsw(type)) searches.push({ nprobes: 2, ef: 40 }, { nprobes: 3, ef: 20, filter: 'id % 3 = 1' });
  else searches.push({ nprobes: 2, refineFactor: 3 }, { nprobes: 3, filter: 'id % 3 = 1' });
  for (const [qi, q] of qs.entries()) {
    const exact = await referenceSearch(t, q, metric, {}, 10, true);
    const full = await referenceSearch(t, q, metric, { nprobes: 4, refineFactor: 300 }, 10);
    assertSame(full, exact, `${type} ${metric} q${qi} full nprobes + refine vs brute force`, 0);
    assertSame(ours(uri, q, metric, { nprobes: 4, refineFactor: 300 }, 10), exact,
      `ours ${type} ${metric} q${qi} full nprobes + refine vs brute force`, 0);
    for (const s of searches) {
      const want = await referenceSearch(t, q, metric, s, 10);
      assertSame(ours(uri, q, metric, s, 10), want, `${type} ${metric} q${qi} ${JSON.stringify(s)}`, ulpsOf(type));
    }
  }
}

function optimizeOne(uri, replaced) {
  const out = jsonLines(lanceOk(['index', 'optimize', uri]).stdout);
  assert.equal(out.length, 1);
  const [x] = out;
  assert.equal(x.outcome, 'merged', JSON.stringify(x));
  assert.deepEqual(x.new_fragments, [1]);
  if (replaced) assert.equal(x.replaced_uuid, replaced);
  assert.notEqual(x.uuid, x.replaced_uuid);
  return x;
}

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

const segmentOf = (uri) => jsonLines(lanceOk(['indexes', uri]).stdout).find((x) => x.name === 'vec_idx');
const fileOf = (uri, uuid, file) => path.join(uri, '_indices', uuid, file);

describe('lance index optimize merges appended rows into IVF_RQ and IVF_HNSW_* indexes', () => {
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
      const t = await db.createTable(name, table(0, FIRST));
      const args = ['create-index', uri, 'vec', '--type', type, '--metric', metric, '--partitions', '4', '--seed', '3'];
      if (type === 'ivf_hnsw_pq') args.push('--sub-vectors', '4');
      const made = JSON.parse(lanceOk(args).stdout);
      await t.checkoutLatest();
      await t.add(table(FIRST, MORE));
      assert.equal((await t.indexStats('vec_idx')).numUnindexedRows, MORE);
      const x = optimizeOne(uri, made.uuid);
      assert.equal(x.num_indexed_rows, FIRST + MORE - 1);
      await t.checkoutLatest();
      await checkMerged(t, uri, x.uuid, metric, type);
      assert.equal(jsonLines(lanceOk(['index', 'optimize', uri]).stdout)[0].outcome, 'up_to_date');
    });
  }

  for (const [kind, metric, config] of [
    ['IVF_RQ', 'l2', () => lancedb.Index.ivfRq({ numPartitions: 4 })],
    ['IVF_RQ', 'cosine', () => lancedb.Index.ivfRq({ numPartitions: 4, distanceType: 'cosine' })],
    ['IVF_HNSW_SQ', 'l2', () => lancedb.Index.hnswSq({ numPartitions: 4 })],
    ['IVF_HNSW_PQ', 'l2', () => lancedb.Index.hnswPq({ numPartitions: 4, numSubVectors: 4 })]]) {
    test(`lance 12 ${kind} ${metric}, appended: lance 12 reads our optimize, we read its`, async () => {
      const name = `theirs_${kind}_${metric}`;
      const uri = path.join(dir, `${name}.lance`);
      const t = await db.createTable(name, table(0, FIRST));
      await t.createIndex('vec', { config: config() });
      await t.add(table(FIRST, MORE));
      const oursDir = scratchDir('lance-vector-optimize-ours-');
      const oursUri = path.join(oursDir, `${name}.lance`);
      fs.cpSync(uri, oursUri, { recursive: true });
      const old = segmentOf(uri);
      const x = optimizeOne(oursUri, old.uuid);
      const mine = segmentOf(oursUri);
      assert.deepEqual([mine.uuid, mine.type, mine.details, mine.index_version, mine.fragment_ids],
        [x.uuid, kind, old.details, old.index_version, [0, 1]]);
      const ot = await (await lancedb.connect(oursDir)).openTable(name);
      await checkMerged(ot, oursUri, mine.uuid, metric, kind.toLowerCase());
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
    });
  }

  // Partitions of more than a quarter of lance's target size (8192 rows for IVF_RQ) are not
  // joined: lance 12's optimize then writes a delta segment of the new rows over the same
  // centroids and rotation. Each new row's partition and factors (functions of its
  // sign code) in our merged segment are those of lance 12's delta segment; the old rows are the
  // old segment's, in order.
  test('lance 12 IVF_RQ, 20000 rows: our merged new rows are coded as its delta segment codes them', async () => {
    const BIG = 20000;
    const big = clustered(8, BIG + MORE, DIM, 10, 3);
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
    await t.optimize();
    const segs = jsonLines(lanceOk(['indexes', uri]).stdout).filter((x) => x.name === 'vec_idx');
    assert.deepEqual(segs.map((x) => x.fragment_ids), [[0], [1]], 'lance 12 wrote a delta segment');
    const delta = segs[1];
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
    const [o, d, m] = [partitions(uri, old.uuid), partitions(uri, delta.uuid), partitions(oursUri, x.uuid)];
    assert.equal(m.length, 4);
    // Lance 12's delta rows come in its shuffle's order, ours in scan order: compared by row id.
    const byRow = (rs) => [...rs].sort((x, y) => x[0] - y[0]);
    for (let p = 0; p < 4; p++) {
      assert.deepEqual(m[p].slice(0, o[p].length), o[p], `partition ${p}: the old rows first, in order`);
      assert.deepEqual(byRow(m[p].slice(o[p].length)), byRow(d[p]), `partition ${p}: then lance 12's delta rows`);
    }
    assert.equal(d.flat().length, MORE);
  });
});
