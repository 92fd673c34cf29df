// Compaction remaps the scalar indexes of a table without stable row ids, both ways with lance 12
// (@lancedb/lancedb 0.39.0), compared against unindexed twin tables (brute force):
//   (a) on a table lance 12 wrote (three fragments, two more appended unindexed), we build one
//       index of every scalar type (a BTREE with pages of 64 rows, so that deleted rows shift
//       page boundaries), delete rows, compact:
//         * the BTREE, BITMAP, LABEL_LIST and NGRAM indexes are remapped as lance 12 remaps them
//           (new uuid, files under _indices/{new uuid}/, the new fragments in the bitmap;
//           name, fields, dataset version kept) and cover every fragment but the unindexed
//           ones; ZONEMAP and BLOOMFILTER (zones of row positions, which cannot be remapped)
//           are trained again over the same fragments and listed the same way (lance 12 leaves
//           them covering the vanished fragments until its optimize of the indexes);
//         * the Rewrite transaction lists them (rewritten_indices, with files), after a
//           ReserveFragments version, as lance 12 writes its own compactions;
//         * lance 12 counts the rows each covers, plans every filter through it, and returns
//           the twin's rows; so do our index scans (= our --no-index scans);
//         * lance 12 appends and optimizes on top; its answers and ours stay the twin's;
//   (b) lance 12 builds BTREE / BITMAP / LABEL_LIST, deletes and runs optimize() (its compaction
//       remaps them): we list them covering every fragment, plan through them, and return its
//       rows (= our --no-index scans = the twin's);
//   (c) on two copies of one table (lance 12's BTREE / BITMAP / LABEL_LIST, our NGRAM / ZONEMAP /
//       BLOOMFILTER, deletions) lance 12's optimize() and our compaction remap the same four
//       kinds (its Rewrite lists them) into the same files: rows (BTree pages in order),
//       schemas and metadata equal; our Rewrite also trains the ZONEMAP and BLOOMFILTER again,
//       into the files lance 12's optimize() of the indexes writes after its Rewrite;
//   (d) the same for an IVF_PQ, an IVF_FLAT and an IVF_RQ index lance 12 built: the segment its
//       Rewrite writes and ours have the same auxiliary.idx and index.idx (rows in order,
//       schemas, global buffers; RQ codes packed again per partition), and lance 12 searches
//       our IVF_RQ remap as its own.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { canonicalLines } from './lib/canonical.mjs';
import { readTransaction, rewriteReadAt } from './lib/protobuf.mjs';
import { assertSameLanceFile, lanceOk, scratchDir } from './lib/cli.mjs';
import { sortedLines } from './lib/inexact_index.mjs';
import { indexedRows } from './lib/indexed_rows.mjs';
import { scalarTable } from './lib/scalar_rows.mjs';

// [column, our --type, extra flags, lance 12's plan name]: every one rewritten by our compaction
const OURS = [
  ['id', 'btree', ['--batch-size', '64'], 'BTree'],
  ['d', 'btree', [], 'BTree'],
  ['cat', 'bitmap', [], 'Bitmap'],
  ['b', 'bitmap', [], 'Bitmap'],
  ['tags', 'label_list', [], 'LabelList'],
  ['s', 'ngram', [], 'NGram'],
  ['f64', 'zonemap', ['--rows-per-zone', '16'], 'ZoneMap'],
  ['i32', 'bloomfilter', ['--bloom-items', '16'], 'BloomFilter'],
];
const TYPE = { btree: 'BTREE', bitmap: 'BITMAP', label_list: 'LABEL_LIST', ngram: 'NGRAM', zonemap: 'ZONEMAP', bloomfilter: 'BLOOMFILTER' };

// [filter, the index that must answer it]
const FILTERS = [
  ['id = 42', 'id_idx'], ['id = 43', 'id_idx'], ['id >= 100 AND id < 180', 'id_idx'],
  ['id IN (3, 4, 5, 250, 600, 777, 950, 1003)', 'id_idx'], ['id > 880', 'id_idx'], ['id < 70', 'id_idx'],
  ["d = DATE '2019-06-03'", 'd_idx'], ["d > DATE '2019-07-10'", 'd_idx'],
  ["cat = 'c3'", 'cat_idx'], ['cat IS NULL', 'cat_idx'], ["cat = 'c3' AND id > 500", 'cat_idx'],
  ['b = true', 'b_idx'],
  ["array_has_any(tags, make_array('t1', 't4'))", 'tags_idx'], ["array_has_all(tags, make_array('t0', 't2'))", 'tags_idx'],
  ["contains(s, 's01')", 's_idx'], ["contains(s, 's10')", 's_idx'],
  ['f64 > 20', 'f64_idx'], ['i32 = 12', 'i32_idx'],
];


async function rowsOf(t, filter) {
  return sortedLines(canonicalLines(await t.query().where(filter).toArrow()));
}
const listed = (uri) => lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
const byName = (uri) => Object.fromEntries(listed(uri).map((x) => [x.name, x]));

// Our scan of `filter` goes through index `name` (when given), equals --no-index and `want`.
function checkOurs(uri, filter, name, want) {
  if (name) {
    const plan = lanceOk(['scan', uri, '--where', filter, '--explain']).stdout;
    assert.match(plan, new RegExp(`ScalarIndexLookup: .*@${name}\\(`), `${filter}:\n${plan}`);
  }
  const ours = lanceOk(['scan', uri, '--where', filter]).stdout;
  assert.equal(ours, lanceOk(['scan', uri, '--where', filter, '--no-index']).stdout, `--no-index: ${filter}`);
  assert.equal(sortedLines(ours), want, filter);
}

// A lance 12 table of fragments [0, 300), [300, 600), [600, 900) (+ the appends the caller makes).
async function makeTable(dir) {
  const db = await lancedb.connect(dir);
  const t = await db.createTable('t', scalarTable(0, 300));
  await t.add(scalarTable(300, 300));
  await t.add(scalarTable(600, 300));
  return t;
}

describe('(a) our compaction remaps the indexes we built; lance 12 reads them', () => {
  let dir, uri, twin, before_;
  before(async () => {
    dir = scratchDir('lance-remap-ours-');
    uri = path.join(dir, 't.lance');
    await makeTable(dir);
    twin = await makeTable(scratchDir('lance-remap-ours-twin-'));
    for (const [col, type, flags] of OURS) lanceOk(['create-index', uri, col, '--type', type, ...flags]);
    const t = await (await lancedb.connect(dir)).openTable('t');
    for (const [lo, n] of [[900, 50], [950, 50]]) {
      await t.add(scalarTable(lo, n));
      await twin.add(scalarTable(lo, n));
    }
    // Fragments 0 and 1 lose rows; 2 keeps all of them (it stays); 3 and 4 are unindexed.
    const del = 'id < 600 AND (id % 7 = 3 OR id % 50 = 0)';
    lanceOk(['delete', uri, '--where', del]);
    await twin.delete(del);
    before_ = byName(uri);
    for (const x of Object.values(before_)) assert.deepEqual(x.fragment_ids, [0, 1, 2], x.name);
  });

  test('the compaction remaps BTREE, BITMAP, LABEL_LIST and NGRAM and trains ZONEMAP and BLOOMFILTER again', () => {
    const versionBefore = JSON.parse(lanceOk(['manifest', uri]).stdout).version;
    const r = JSON.parse(lanceOk(['compact', uri, '--target-rows-per-fragment', '500']).stdout);
    assert.equal(r.fragments_removed, 4);
    const m = JSON.parse(lanceOk(['manifest', uri]).stdout);
    // A ReserveFragments version, then the Rewrite.
    assert.equal(m.version, versionBefore + 2);
    const live = 600 - [...Array(600).keys()].filter((i) => i % 7 === 3 || i % 50 === 0).length;
    // Group [0, 1] -> 5 and 6 (500 rows a fragment), fragment 2 (no deletions) stays, the
    // unindexed [3, 4] -> 7: the ids reserved before the remap.
    assert.deepEqual(m.fragments.map((f) => [f.id, f.physical_rows]), [[5, 500], [6, live - 500], [2, 300], [7, 100]]);
    const after = byName(uri);
    for (const [col, type] of OURS) {
      const name = `${col}_idx`;
      const [a, b] = [before_[name], after[name]];
      assert.equal(b.type, TYPE[type], name);
      assert.deepEqual([b.columns, b.fields, b.dataset_version, b.created_at_ms, b.index_version, b.details_type_url],
        [a.columns, a.fields, a.dataset_version, a.created_at_ms, a.index_version, a.details_type_url], name);
      assert.notEqual(b.uuid, a.uuid, name);
      assert.deepEqual(b.fragment_ids, [2, 5, 6], name);
      assert.deepEqual(b.unindexed_fragment_ids, [7], name);
      assert.equal(b.num_indexed_rows, live + 300, name);
      assert.deepEqual(b.files.map((f) => f.path), a.files.map((f) => f.path), name);
      for (const f of b.files) {
        assert.equal(fs.statSync(path.join(uri, '_indices', b.uuid, f.path)).size, f.size_bytes, `${name} ${f.path}`);
      }
    }
    // The transactions: a ReserveFragments (107) read at the version compacted, then the Rewrite
    // (104) listing every remapped index, old uuid -> new, with its details, version and files.
    const txns = fs.readdirSync(path.join(uri, '_transactions')).filter((f) => f.startsWith(`${versionBefore}-`));
    const ops = txns.map((f) => readTransaction(path.join(uri, '_transactions', f)));
    assert.deepEqual(ops.map((o) => o.op).sort(), [104, 107]);
    assert.equal(m.transaction_file.startsWith(`${versionBefore}-`), true);
    const rewrite = readTransaction(path.join(uri, '_transactions', m.transaction_file));
    assert.deepEqual(rewrite.indices.sort(), OURS.map(([col]) => {
      const n = `${col}_idx`;
      return [before_[n].uuid, after[n].uuid, after[n].details_type_url, after[n].index_version,
        after[n].files.map((f) => f.path)];
    }).sort());
  });

  test('lance 12 counts, plans through and answers from the remapped indexes as the twin', async () => {
    const t = await (await lancedb.connect(dir)).openTable('t');
    const live = Number(lanceOk(['count', uri]).stdout.trim());
    for (const [col] of OURS) {
      const s = await t.indexStats(`${col}_idx`);
      // Fragments 5, 6 and 2; the unindexed 7 (100 rows) is not.
      assert.equal(s.numIndexedRows, live - 100, col);
      assert.equal(s.numUnindexedRows, 100, col);
    }
    for (const [filter, index] of FILTERS) {
      const plan = await t.query().where(filter).explainPlan(true);
      assert.match(plan, new RegExp(`ScalarIndexQuery: .*@${index}\\(`), `${filter}:\n${plan}`);
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      assert.ok(theirs.length > 0, `${filter} matches rows`);
      checkOurs(uri, filter, index, theirs);
    }
    assert.equal(sortedLines(canonicalLines(await t.query().toArrow())), await rowsOf(twin, 'true'));
  });

  test('lance 12 appends and optimizes on top; its answers and ours stay the twin\'s', async () => {
    const t = await (await lancedb.connect(dir)).openTable('t');
    await t.add(scalarTable(1000, 40));
    await twin.add(scalarTable(1000, 40));
    await t.optimize();
    for (const [col] of OURS) assert.equal((await t.indexStats(`${col}_idx`)).numUnindexedRows, 0, col);
    for (const [filter, index] of FILTERS) {
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      checkOurs(uri, filter, index, theirs);
    }
  });
});

describe('(b) lance 12 compacts and remaps its indexes; we read them', () => {
  test('we list them covering every fragment and answer through them with its rows', async () => {
    const dir = scratchDir('lance-remap-ref-');
    const uri = path.join(dir, 't.lance');
    const t = await makeTable(dir);
    const twin = await makeTable(scratchDir('lance-remap-ref-twin-'));
    // Pages of 4096 rows: 3 x 2000 rows make two pages, the deletions move their boundary.
    for (const x of [t, twin]) {
      for (const lo of [900, 2900, 4900]) await x.add(scalarTable(lo, 2000));
    }
    await t.createIndex('id', { config: lancedb.Index.btree() });
    await t.createIndex('d', { config: lancedb.Index.btree() });
    await t.createIndex('cat', { config: lancedb.Index.bitmap() });
    await t.createIndex('tags', { config: lancedb.Index.labelList() });
    const del = 'id < 4000 AND (id % 7 = 3 OR id % 50 = 0)';
    await t.delete(del);
    await twin.delete(del);
    const beforeIdx = byName(uri);
    await t.optimize();
    const after = byName(uri);
    const frags = JSON.parse(lanceOk(['manifest', uri]).stdout).fragments.map((f) => f.id);
    assert.ok(!frags.includes(0), `lance 12 compacted: fragments ${frags}`);
    for (const name of ['id_idx', 'd_idx', 'cat_idx', 'tags_idx']) {
      assert.notEqual(after[name].uuid, beforeIdx[name].uuid, `${name}: remapped`);
      assert.deepEqual(after[name].fragment_ids, frags, name);
      assert.deepEqual(after[name].unindexed_fragment_ids, [], name);
      assert.equal(after[name].dataset_version, beforeIdx[name].dataset_version, name);
    }
    const live = Number(lanceOk(['count', uri]).stdout.trim());
    assert.equal((await t.indexStats('id_idx')).numIndexedRows, live);
    const filters = FILTERS.filter(([, i]) => after[i]).concat([
      ['id >= 4090 AND id < 4110', 'id_idx'], ['id IN (3990, 4095, 4096, 4097, 6899)', 'id_idx'], ['id > 6800', 'id_idx'],
    ]);
    for (const [filter, index] of filters) {
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      assert.ok(theirs.length > 0, `${filter} matches rows`);
      checkOurs(uri, filter, index, theirs);
    }
  });
});

describe('(c) lance 12 and we remap the same indexes into the same files', () => {
  test('row for row (BTree pages in order), with the same schemas; zone map and bloom filter as lance 12 optimizes them', async () => {
    const dir = scratchDir('lance-remap-same-');
    const uri = path.join(dir, 't.lance');
    const t = await (await lancedb.connect(dir)).createTable('t', scalarTable(0, 3000));
    await t.add(scalarTable(3000, 3000));
    await t.add(scalarTable(6000, 3000));
    await t.createIndex('id', { config: lancedb.Index.btree() });
    await t.createIndex('cat', { config: lancedb.Index.bitmap() });
    await t.createIndex('tags', { config: lancedb.Index.labelList() });
    lanceOk(['create-index', uri, 's', '--type', 'ngram']);
    // Zones of 1024 rows: several in the compacted fragment, and lance 12 must train with the
    // parameters our segment was built with to write the same files.
    lanceOk(['create-index', uri, 'f64', '--type', 'zonemap', '--rows-per-zone', '1024']);
    lanceOk(['create-index', uri, 'i32', '--type', 'bloomfilter', '--bloom-items', '1024']);
    await t.delete('id < 6000 AND (id % 7 = 3 OR id % 50 = 0)');
    const oursDir = scratchDir('lance-remap-same-ours-');
    fs.cpSync(dir, oursDir, { recursive: true });
    const oursUri = path.join(oursDir, 't.lance');
    const v = JSON.parse(lanceOk(['manifest', uri]).stdout).version;
    // Both put the three fragments into one, fragment 3 (reserved), and remap.
    await t.optimize();
    lanceOk(['compact', oursUri]);
    // lance 12's Rewrite (read at v) remaps four kinds; ours remaps the same four and trains the
    // zone map and the bloom filter again.
    assert.deepEqual(rewriteReadAt(uri, v).map((x) => x[2]).sort(), ['/lance.table.BTreeIndexDetails',
      '/lance.table.BitmapIndexDetails', '/lance.table.LabelListIndexDetails', '/lance.table.NGramIndexDetails']);
    const ourTxn = readTransaction(path.join(oursUri, '_transactions',
      JSON.parse(lanceOk(['manifest', oursUri]).stdout).transaction_file));
    assert.deepEqual(ourTxn.indices.map((x) => x[2]).sort(), ['/lance.index.pb.BloomFilterIndexDetails',
      '/lance.table.BTreeIndexDetails', '/lance.table.BitmapIndexDetails', '/lance.table.LabelListIndexDetails',
      '/lance.table.NGramIndexDetails', '/lance.table.ZoneMapIndexDetails']);
    const [theirs, ours] = [byName(uri), byName(oursUri)];
    // The zone map and the bloom filter: our Rewrite trained them again over fragment 3; lance 12's
    // optimize() indexed fragment 3 after its Rewrite: the same rows, schemas and metadata.
    for (const name of ['f64_idx', 'i32_idx']) {
      assert.deepEqual(ours[name].fragment_ids, [3], name);
      assert.deepEqual(theirs[name].unindexed_fragment_ids, [], name);
    }
    for (const name of ['id_idx', 'cat_idx', 'tags_idx', 's_idx', 'f64_idx', 'i32_idx']) {
      assert.deepEqual(ours[name].fragment_ids, [3], name);
      assert.deepEqual(theirs[name].fragment_ids.filter((f) => f === 3), [3], name);
      assert.deepEqual(ours[name].files.map((f) => f.path), theirs[name].files.map((f) => f.path), name);
      // (lance 12's optimize() gives the zone map and the bloom filter a new segment of the
      // version it indexes; our Rewrite keeps the version, as for every index it rewrites.)
      if (!['f64_idx', 'i32_idx'].includes(name)) assert.equal(ours[name].dataset_version, theirs[name].dataset_version, name);
      for (const { path: file } of theirs[name].files) {
        const [a, b] = [[uri, theirs], [oursUri, ours]].map(([u, x]) => path.join(u, '_indices', x[name].uuid, file));
        const [ra, rb] = [a, b].map((p) => lanceOk(['file', 'cat', p]).stdout);
        assert.ok(ra.split('\n').length > 2, `${name} ${file}: rows`);
        // A BTree in order; bitmap keys are in hash order in lance 12's label lists.
        if (name === 'id_idx') assert.equal(rb, ra, `${name} ${file}`);
        else assert.equal(sortedLines(rb), sortedLines(ra), `${name} ${file}`);
        const [sa, sb] = [a, b].map((p) => JSON.parse(lanceOk(['file', 'info', p]).stdout).schema);
        assert.deepEqual(sb, sa, `${name} ${file}: schema`);
      }
    }
  });
});

describe('(d) lance 12 and we remap the same IVF index into the same files', () => {
  for (const [kind, config] of [['IVF_PQ', () => lancedb.Index.ivfPq({ numPartitions: 2, numSubVectors: 2 })],
                                ['IVF_FLAT', () => lancedb.Index.ivfFlat({ numPartitions: 2 })]]) {
  test(`${kind}: auxiliary.idx and index.idx row for row, in order, with the same schemas`, async () => {
    const dir = scratchDir('lance-remap-ivf-');
    const uri = path.join(dir, 't.lance');
    const t = await (await lancedb.connect(dir)).createTable('t', indexedRows(0, 300));
    await t.add(indexedRows(300, 300));
    await t.add(indexedRows(600, 300));
    await t.createIndex('vec', { config: config() });
    await t.delete('id < 600 AND id % 5 = 3');
    const oursDir = scratchDir('lance-remap-ivf-ours-');
    fs.cpSync(dir, oursDir, { recursive: true });
    const oursUri = path.join(oursDir, 't.lance');
    const v = JSON.parse(lanceOk(['manifest', uri]).stdout).version;
    const old = byName(uri).vec_idx;
    await t.optimize();
    lanceOk(['compact', oursUri]);
    // The segment lance 12's Rewrite made (its optimize() may build another one after it).
    const [[oldId, theirUuid]] = rewriteReadAt(uri, v);
    assert.equal(oldId, old.uuid);
    const ours = byName(oursUri).vec_idx;
    assert.notEqual(ours.uuid, old.uuid);
    assert.deepEqual(ours.fragment_ids, [3]);
    assert.deepEqual([ours.details, ours.index_version, ours.dataset_version], [old.details, old.index_version, old.dataset_version]);
    for (const file of ['auxiliary.idx', 'index.idx']) {
      assertSameLanceFile(path.join(uri, '_indices', theirUuid, file), path.join(oursUri, '_indices', ours.uuid, file), file);
    }
    assert.equal(ours.type, kind);
    assert.ok(lanceOk(['file', 'cat', path.join(oursUri, '_indices', ours.uuid, 'auxiliary.idx')]).stdout.split('\n').length > 700);
  });
  }

  // IVF_RQ (its node API needs float32 vectors of a dimension divisible by 8): the RaBitQ codes
  // are packed per partition in 32-row batches, so the kept rows are packed again.
  test('IVF_RQ: auxiliary.idx (codes packed again per partition) and index.idx row for row', async () => {
    const schema = new A.Schema([new A.Field('id', new A.Int32(), false),
      new A.Field('vec', new A.FixedSizeList(16, new A.Field('item', new A.Float32(), true)), true)]);
    const rq = (lo, n) => Array.from({ length: n }, (_, k) => {
      const i = lo + k;
      return { id: i, vec: Array.from({ length: 16 }, (_, d) => Math.sin(i * 0.37 + d) * 3 + (i % 5)) };
    });
    const dir = scratchDir('lance-remap-rq-');
    const uri = path.join(dir, 't.lance');
    const t = await (await lancedb.connect(dir)).createTable('t', rq(0, 300), { schema });
    await t.add(rq(300, 300));
    await t.add(rq(600, 300));
    await t.createIndex('vec', { config: lancedb.Index.ivfRq({ numPartitions: 2 }) });
    await t.delete('id < 600 AND id % 5 = 3');
    const oursDir = scratchDir('lance-remap-rq-ours-');
    fs.cpSync(dir, oursDir, { recursive: true });
    const oursUri = path.join(oursDir, 't.lance');
    const v = JSON.parse(lanceOk(['manifest', uri]).stdout).version;
    const old = byName(uri).vec_idx;
    await t.optimize();
    lanceOk(['compact', oursUri]);
    const [[oldId, theirUuid]] = rewriteReadAt(uri, v);
    assert.equal(oldId, old.uuid);
    const ours = byName(oursUri).vec_idx;
    assert.equal(ours.type, 'IVF_RQ');
    assert.notEqual(ours.uuid, old.uuid);
    assert.deepEqual(ours.fragment_ids, [3]);
    for (const file of ['auxiliary.idx', 'index.idx']) {
      assertSameLanceFile(path.join(uri, '_indices', theirUuid, file), path.join(oursUri, '_indices', ours.uuid, file), file);
    }
    assert.equal(lanceOk(['file', 'cat', path.join(oursUri, '_indices', ours.uuid, 'auxiliary.idx')]).stdout.split('\n').length - 1, 780);
    // lance 12 searches our remapped index as its own (every row of an exhaustive search).
    const mine = await (await lancedb.connect(oursDir)).openTable('t');
    const q = rq(5, 1)[0].vec;
    const search = async (x) => (await x.search(q).nprobes(2).limit(1000).select(['id']).toArray())
      .map((r) => [r.id, r._distance]);
    const theirs = await (await lancedb.connect(dir)).openTable('t');
    await theirs.checkout(v + 2);  // its Rewrite (its optimize() retrains the index after it)
    assert.deepEqual((await theirs.listIndices()).map((x) => x.indexUuid), [theirUuid]);
    const want = await search(theirs);
    assert.equal(want.length, 780);
    assert.deepEqual(await search(mine), want);
  });
});
