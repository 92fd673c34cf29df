// Shared by vector_remap_metrics*.test.mjs (see their comments).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { assertSameLanceFile, lanceOk, scratchDir } from './cli.mjs';
import { makeTable } from './gen.mjs';
import { rewriteReadAt } from './protobuf.mjs';
import { assertSame, clustered, cpuUlps, lcg, ours, referenceSearch } from './vector_search.mjs';

const DIM = 16;
const PER = 400;
const DELETE = 'id < 800 AND id % 5 = 3';
const KEPT = 3 * PER - 160;
const fvs = clustered(13, 3 * PER, DIM, 8, 3);
const fqs = clustered(37, 3, DIM, 8, 3).map((v) => v.map((x) => Math.fround(x * 0.9)));

// Binary vectors (16 bytes) around 6 random ones, each bit flipped with probability 0.15.
function binary(seed, n) {
  const r = lcg(seed);
  const byte = () => Math.floor((r() + 1) * 128) & 255;
  const cs = Array.from({ length: 6 }, () => Array.from({ length: DIM }, byte));
  return Array.from({ length: n }, (_, i) => cs[i % 6].map((x) => {
    let y = x;
    for (let b = 0; b < 8; b++) if ((r() + 1) / 2 < 0.15) y ^= 1 << b;
    return y;
  }));
}
const bvs = binary(17, 3 * PER);
const bqs = binary(18, 3);

const rows = (metric) => (start, n) => makeTable([
  { name: 'id', type: new A.Int32(), nullable: false, values: Array.from({ length: n }, (_, i) => start + i) },
  { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', metric === 'hamming' ? new A.Uint8() : new A.Float32(), true)),
    values: (metric === 'hamming' ? bvs : fvs).slice(start, start + n) },
], [n]);

async function threeFragments(db, metric) {
  const r = rows(metric);
  const t = await db.createTable('t', r(0, PER));
  await t.add(r(PER, PER));
  await t.add(r(2 * PER, PER));
  return t;
}

const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));
const segmentOf = (uri) => jsonLines(lanceOk(['indexes', uri]).stdout).find((x) => x.name === 'vec_idx');
const fileOf = (uri, uuid, file) => path.join(uri, '_indices', uuid, file);
const subVectors = (metric) => (metric === 'dot' ? 16 : 4);

// 'ivf_rq' is IVF_RQ with 1 bit, 'ivf_rqN' with N bits (Index.ivfRq({numBits}), ours --num-bits).
const rqBits = (type) => (type.startsWith('ivf_rq') ? Number(type.slice(6) || 1) : 0);
const kindOf = (type) => (rqBits(type) ? 'IVF_RQ' : type.toUpperCase());

function config(type, metric) {
  const p = { numPartitions: 2, distanceType: metric };
  if (rqBits(type)) return lancedb.Index.ivfRq({ ...p, numBits: rqBits(type) });
  if (type === 'ivf_flat') return lancedb.Index.ivfFlat(p);
  if (type === 'ivf_pq') return lancedb.Index.ivfPq({ ...p, numSubVectors: subVectors(metric) });
  if (type === 'ivf_hnsw_sq') return lancedb.Index.hnswSq(p);
  return lancedb.Index.hnswPq({ ...p, numSubVectors: subVectors(metric) });
}

// Our search of `uri` equals lance 12's of `t` for every query and search; a full search with
// a refine equals its brute force.
async function sameAnswers(t, uri, type, metric, what, ulps = 0) {
  const searches = [{ nprobes: 1 }, { nprobes: 2 }, { nprobes: 2, filter: 'id % 3 = 1' }];
  if (type.startsWith('ivf_hnsw')) searches.push({ nprobes: 2, ef: 40 }, { nprobes: 1, refineFactor: 2, ef: 40 });
  for (const [qi, q] of (metric === 'hamming' ? bqs : fqs).entries()) {
    const exact = await referenceSearch(t, q, metric, {}, 10, true);
    const full = { nprobes: 2, refineFactor: 200 };
    if (metric !== 'hamming') {
      // (lance 12 has no refine over binary vectors worth comparing: its flat rows are exact)
      assertSame(await referenceSearch(t, q, metric, full, 10), exact, `${what} q${qi}: lance 12 full search vs brute force`, 0);
      assertSame(ours(uri, q, metric, full, 10), exact, `${what} q${qi}: ours full search vs brute force`, 0);
    }
    for (const s of searches) {
      assertSame(ours(uri, q, metric, s, 10), await referenceSearch(t, q, metric, s, 10),
        `${what} q${qi} ${JSON.stringify(s)}`, ulps);
    }
  }
}

// One pair of tests per [type, metric] of CASES (lance 12 builds it / we do), one test per
// [type, metric] of OURS_ONLY (kinds lance 12's node API cannot build: our build, remapped by
// us, read by lance 12).
export function describeRemaps(title, CASES, OURS_ONLY) {
describe(title, () => {
  for (const [type, metric] of [...CASES, ...OURS_ONLY]) {
    const lanceBuilds = !OURS_ONLY.some(([a, b]) => a === type && b === metric);
    if (lanceBuilds) test(`lance 12 ${type} ${metric}: its remap and ours hold the same storage; each answers from the other's`, async () => {
      const dir = scratchDir('lance-remap-metrics-');
      const uri = path.join(dir, 't.lance');
      const t = await threeFragments(await lancedb.connect(dir), metric);
      await t.createIndex('vec', { config: config(type, metric) });
      await t.delete(DELETE);
      const oursDir = scratchDir('lance-remap-metrics-ours-');
      fs.cpSync(dir, oursDir, { recursive: true });
      const oursUri = path.join(oursDir, 't.lance');
      const v = JSON.parse(lanceOk(['manifest', uri]).stdout).version;
      const old = segmentOf(uri);
      await t.optimize();
      lanceOk(['compact', oursUri]);
      const [[oldId, theirUuid]] = rewriteReadAt(uri, v);
      assert.equal(oldId, old.uuid);
      const mine = segmentOf(oursUri);
      assert.equal(mine.type, kindOf(type));
      assert.notEqual(mine.uuid, old.uuid);
      assert.deepEqual(mine.fragment_ids, [3]);
      assert.deepEqual([mine.details, mine.index_version, mine.dataset_version], [old.details, old.index_version, old.dataset_version]);
      const rb = assertSameLanceFile(fileOf(uri, theirUuid, 'auxiliary.idx'), fileOf(oursUri, mine.uuid, 'auxiliary.idx'),
        'auxiliary.idx');
      assert.equal(rb.split('\n').filter((l) => l).length, KEPT);
      if (type.startsWith('ivf_hnsw')) {
        const graphRows = (p) => jsonLines(lanceOk(['file', 'cat', p]).stdout);
        const [ga, gb] = [graphRows(fileOf(uri, theirUuid, 'index.idx')), graphRows(fileOf(oursUri, mine.uuid, 'index.idx'))];
        assert.deepEqual(Object.keys(gb[0]), Object.keys(ga[0]));
        assert.ok(gb.length >= KEPT && ga.length >= KEPT, `graph rows: ours ${gb.length}, lance 12 ${ga.length}`);
      } else {
        assertSameLanceFile(fileOf(uri, theirUuid, 'index.idx'), fileOf(oursUri, mine.uuid, 'index.idx'), 'index.idx');
      }

      // Lance 12 on our remapped table; we on its Rewrite (a copy restored to it: its
      // optimize() may build more after).
      const mt = await (await lancedb.connect(oursDir)).openTable('t');
      assert.equal((await mt.indexStats('vec_idx')).numIndexedRows, KEPT);
      const q0 = (metric === 'hamming' ? bqs : fqs)[0];
      const plan = await mt.query().nearestTo(q0).distanceType(metric).nprobes(2).explainPlan(true);
      assert.match(plan, new RegExp(`ANNIvfPartition: uuid=${mine.uuid}`));
      assert.doesNotMatch(plan, /KNNVectorDistance/);
      await sameAnswers(mt, oursUri, type, metric, `lance 12 on our remapped ${type} ${metric}`);
      const rewriteDir = scratchDir('lance-remap-metrics-rewrite-');
      fs.cpSync(dir, rewriteDir, { recursive: true });
      const rewriteUri = path.join(rewriteDir, 't.lance');
      lanceOk(['restore', rewriteUri, '--version', String(v + 2)]);
      assert.equal(segmentOf(rewriteUri).uuid, theirUuid);
      const tt = await (await lancedb.connect(rewriteDir)).openTable('t');
      await sameAnswers(tt, rewriteUri, type, metric, `ours on lance 12's remapped ${type} ${metric}`);
    });

    test(`ours ${type} ${metric}: remapped by our compaction, read by lance 12`, async () => {
      const dir = scratchDir('lance-remap-metrics-ours-');
      const uri = path.join(dir, 't.lance');
      const t = await threeFragments(await lancedb.connect(dir), metric);
      const args = ['create-index', uri, 'vec', '--type', rqBits(type) ? 'ivf_rq' : type, '--metric', metric,
        '--partitions', '2', '--seed', '5'];
      if (type.endsWith('pq')) args.push('--sub-vectors', String(subVectors(metric)));
      if (rqBits(type)) args.push('--num-bits', String(rqBits(type)));
      const made = JSON.parse(lanceOk(args).stdout);
      await t.checkoutLatest();
      await t.delete(DELETE);
      lanceOk(['compact', uri]);
      const seg = segmentOf(uri);
      assert.notEqual(seg.uuid, made.uuid);
      assert.deepEqual(seg.fragment_ids, [3]);
      await t.checkoutLatest();
      const stats = await t.indexStats('vec_idx');
      assert.deepEqual([stats.numIndexedRows, stats.numUnindexedRows, stats.indexType], [KEPT, 0, kindOf(type)]);
      const q0 = (metric === 'hamming' ? bqs : fqs)[0];
      const plan = await t.query().nearestTo(q0).distanceType(metric).nprobes(2).explainPlan(true);
      assert.match(plan, new RegExp(`ANNIvfPartition: uuid=${seg.uuid}`));
      await sameAnswers(t, uri, type, metric, `our remapped ${type} ${metric}`, type === 'ivf_hnsw_flat' ? cpuUlps : 0);
    });
  }
});
}
