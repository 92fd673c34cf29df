// Index metadata of datasets indexed by the reference (lance 12):
//   * lance 12 builds a BTREE, a BITMAP, an FTS and an IVF_PQ index; `lance indexes` and
//     `lance manifest` list each with the name, uuid, columns, type, index version, creation
//     time and fragment coverage lance 12's listIndices/indexStats report;
//   * we append and delete on the indexed dataset: lance 12 still lists the same indexes,
//     counts the appended fragment as unindexed, plans its queries through the indexes, and
//     those queries give the rows our scans with the same filters give.
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { canonicalLines } from './lib/canonical.mjs';
import { indexedRows as rows, vecOf } from './lib/indexed_rows.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { toIPC } from './lib/gen.mjs';


const TYPE_OF = { BTree: 'BTREE', Bitmap: 'BITMAP', FTS: 'INVERTED', IvfPq: 'IVF_PQ' };
const idsOf = (text) => text.split('\n').filter((l) => l).map((l) => BigInt(/"id":(-?\d+)/.exec(l)[1]));
const sortedLines = (text) => text.split('\n').filter((l) => l).sort().join('\n');

async function open(dir) {
  return (await lancedb.connect(dir)).openTable('t');
}

// Our listing agrees with lance 12's listIndices + indexStats.
async function checkListing(t, uri, { unindexedFragments, version }) {
  const ours = lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  const theirs = await t.listIndices();
  assert.equal(ours.length, 4);
  assert.equal(theirs.length, 4);
  const manifest = JSON.parse(lanceOk(['manifest', uri]).stdout);
  assert.equal(manifest.num_indices, 4);
  assert.deepEqual(manifest.indices, ours);
  const fragments = manifest.fragments.map((f) => f.id);
  for (const ref of theirs) {
    const o = ours.find((x) => x.name === ref.name);
    assert.ok(o, `index ${ref.name} listed`);
    assert.equal(o.uuid, ref.indexUuid);
    assert.equal(o.type, TYPE_OF[ref.indexType], ref.name);
    assert.deepEqual(o.columns, ref.columns);
    assert.equal(o.details_type_url, ref.typeUrl);
    assert.equal(o.index_version, ref.indexVersion);
    assert.equal(o.created_at_ms, new Date(ref.createdAt).getTime());
    assert.ok(o.dataset_version >= 1 && o.dataset_version <= version, `${o.name} built on ${o.dataset_version}`);
    const stats = await t.indexStats(ref.name);
    assert.equal(o.num_indexed_rows, stats.numIndexedRows, `${ref.name} indexed rows`);
    assert.deepEqual(o.unindexed_fragment_ids, unindexedFragments, ref.name);
    assert.deepEqual(fragments.filter((f) => !o.fragment_ids.includes(f)), unindexedFragments, ref.name);
    const dirFiles = fs.readdirSync(path.join(uri, '_indices', o.uuid)).sort();
    assert.deepEqual(o.files.map((f) => f.path).sort(), dirFiles, `${ref.name} files`);
    for (const f of o.files) assert.equal(f.size_bytes, fs.statSync(path.join(uri, '_indices', o.uuid, f.path)).size);
  }
  const vec = ours.find((x) => x.name === 'vec_idx');
  assert.deepEqual({ ...vec.details, runtime_hints: undefined },
    { metric: 'l2', compression: 'pq', num_bits: 8, num_sub_vectors: 2, runtime_hints: undefined });
  assert.equal(vec.details.runtime_hints['lance.pq.max_iters'], '50');
  for (const x of ours.filter((i) => i.name !== 'vec_idx')) assert.equal(x.details, null);
  return ours;
}

describe('index metadata of datasets lance 12 indexed', () => {
  let dir;
  let uri;
  let before_ours;
  before(async () => {
    dir = scratchDir('lance-indexes-');
    uri = path.join(dir, 't.lance');
    const db = await lancedb.connect(dir);
    const t = await db.createTable('t', rows(0, 300));
    await t.add(rows(300, 300));
    await t.createIndex('id', { config: lancedb.Index.btree() });
    await t.createIndex('cat', { config: lancedb.Index.bitmap() });
    await t.createIndex('text', { config: lancedb.Index.fts() });
    await t.createIndex('vec', { config: lancedb.Index.ivfPq({ numPartitions: 2, numSubVectors: 2 }) });
  });

  test('lance indexes / manifest list what lance 12 lists', async () => {
    const t = await open(dir);
    before_ours = await checkListing(t, uri, { unindexedFragments: [], version: await t.version() });
    for (const x of before_ours) {
      assert.deepEqual(x.fragment_ids, [0, 1]);
      assert.equal(x.num_indexed_rows, 600);
    }
    assert.deepEqual(before_ours.map((x) => [x.name, x.columns, x.type]).sort(),
      [['cat_idx', ['cat'], 'BITMAP'], ['id_idx', ['id'], 'BTREE'], ['text_idx', ['text'], 'INVERTED'],
       ['vec_idx', ['vec'], 'IVF_PQ']]);
    // an old version has none
    const v1 = lanceOk(['indexes', uri, '--version', '1']).stdout;
    assert.equal(v1, '');
  });

  test('after our append and delete lance 12 still uses the indexes, with equal rows', async () => {
    const input = path.join(dir, 'more.arrows');
    fs.writeFileSync(input, toIPC(rows(600, 100), 'stream'));
    const append = JSON.parse(lanceOk(['create', uri, '--mode', 'append', '--input', input]).stdout);
    lanceOk(['delete', uri, '--where', 'id % 10 = 3']);
    const t = await open(dir);
    const ours = await checkListing(t, uri, { unindexedFragments: append.fragment_ids, version: await t.version() });
    assert.deepEqual(ours.map((x) => x.uuid).sort(), before_ours.map((x) => x.uuid).sort());
    for (const x of ours) assert.equal(x.num_indexed_rows, 540);  // 600 - 60 deleted
    for (const ref of await t.listIndices()) {
      assert.equal((await t.indexStats(ref.name)).numUnindexedRows, 90, ref.name);
    }

    // Scalar filters: planned through the index, rows equal to our filtered scans.
    for (const [filter, index] of [['id = 42', 'id_idx'], ['id = 43', 'id_idx'], ['id >= 590 AND id < 615', 'id_idx'],
                                   ['id = 650', 'id_idx'], ["cat = 'c3'", 'cat_idx']]) {
      const q = t.query().where(filter);
      const plan = await q.explainPlan(true);
      assert.match(plan, /ScalarIndexQuery|MaterializeIndex|ScalarIndex/, `${filter} uses an index:\n${plan}`);
      assert.match(plan, new RegExp(index.replace('_idx', '')), `${filter} names ${index}`);
      const theirs = sortedLines(canonicalLines(await q.toArrow()));
      const mine = sortedLines(lanceOk(['scan', uri, '--where', filter]).stdout);
      assert.equal(theirs, mine, filter);
      assert.ok(theirs.length > 0 || filter === 'id = 43', filter);
    }
    assert.equal(lanceOk(['scan', uri, '--where', 'id = 43']).stdout, '');

    // Full-text search: the live rows holding the word, indexed or appended.
    const fts = await t.query().fullTextSearch('kiwi').select(['id']).limit(1000).toArray();
    const ftsIds = fts.map((r) => BigInt(r.id)).sort((a, b) => (a < b ? -1 : 1));
    const want = idsOf(lanceOk(['scan', uri, '--columns', 'id', '--where', "text LIKE '%kiwi%'"]).stdout);
    assert.deepEqual(ftsIds, want);

    // Vector search: the distances of an exhaustive (refined) search equal the exact nearest
    // live rows; deleted rows never come back.
    const key = [3, 1, 31.2, 1];
    const hits = await t.query().nearestTo(key).nprobes(2).refineFactor(100).limit(10).select(['id']).toArray();
    const live = idsOf(lanceOk(['scan', uri, '--columns', 'id']).stdout).map(Number);
    const dist = (i) => vecOf(i).reduce((s, v, k) => s + (Math.fround(v) - key[k]) ** 2, 0);
    const exact = live.map(dist).sort((a, b) => a - b).slice(0, 10);
    assert.equal(hits.length, 10);
    for (const h of hits) assert.notEqual(Number(h.id) % 10, 3, 'a deleted row');
    const got = hits.map((h) => dist(Number(h.id))).sort((a, b) => a - b);
    for (let k = 0; k < 10; k++) assert.ok(Math.abs(got[k] - exact[k]) < 1e-3, `${got} vs ${exact}`);
    const vplan = await t.query().nearestTo(key).limit(10).explainPlan(true);
    assert.match(vplan, /ANN|KNNVectorDistance|IVF/i, vplan);

    // Our update and merge-insert: rows move to new (unindexed) fragments; lance 12 still
    // answers through the indexes, equal to our scans.
    lanceOk(['update', uri, '--set', "cat = 'c9'", '--where', 'id >= 100 AND id < 120']);
    const upsert = path.join(dir, 'upsert.arrows');
    fs.writeFileSync(upsert, toIPC(rows(690, 20), 'stream'));  // 690..699 exist, 700..709 new
    lanceOk(['merge-insert', uri, '--input', upsert, '--on', 'id']);
    const t2 = await open(dir);
    assert.equal((await t2.listIndices()).length, 4);
    for (const filter of ['id = 105', 'id = 695', 'id = 705', "cat = 'c9'", "cat = 'c1' AND id < 130"]) {
      const q = t2.query().where(filter);
      assert.match(await q.explainPlan(true), /ScalarIndexQuery|MaterializeIndex|ScalarIndex/, filter);
      assert.equal(sortedLines(canonicalLines(await q.toArrow())),
        sortedLines(lanceOk(['scan', uri, '--where', filter]).stdout), filter);
    }
    assert.equal(idsOf(lanceOk(['scan', uri, '--columns', 'id', '--where', "cat = 'c9'"]).stdout).length, 18);

    // Dropping or retyping an indexed column takes its index out of the index section (what
    // lance 12 does on every commit); lance 12 opens each version, lists the indexes left and
    // still answers through them, equal to our scans.
    lanceOk(['drop-columns', uri, '--columns', 'cat']);
    const t3 = await open(dir);
    assert.deepEqual((await t3.listIndices()).map((x) => x.name).sort(), ['id_idx', 'text_idx', 'vec_idx']);
    assert.equal(sortedLines(canonicalLines(await t3.query().where('id = 105').toArrow())),
                 sortedLines(lanceOk(['scan', uri, '--where', 'id = 105']).stdout));
    assert.match(await t3.query().where('id = 105').explainPlan(true), /ScalarIndexQuery|MaterializeIndex|ScalarIndex/);
    const ourIndexes = () => lanceOk(['indexes', uri]).stdout.trim().split('\n').map((l) => JSON.parse(l).name).sort();
    assert.deepEqual(ourIndexes(), ['id_idx', 'text_idx', 'vec_idx']);
    lanceOk(['alter-column', uri, 'id', '--type', 'double']);
    const t4 = await open(dir);
    assert.deepEqual((await t4.listIndices()).map((x) => x.name).sort(), ['text_idx', 'vec_idx']);
    assert.deepEqual(ourIndexes(), ['text_idx', 'vec_idx']);
    assert.equal(sortedLines(canonicalLines(await t4.query().where('id > 600').toArrow())),
                 sortedLines(lanceOk(['scan', uri, '--where', 'id > 600']).stdout));
  });
});
