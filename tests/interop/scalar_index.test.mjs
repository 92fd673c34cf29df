// Scalar indexes both ways with lance 12 (@lancedb/lancedb 0.39.0):
//   * we build BTREE (int64, int32, float64, utf8, date32, timestamp), BITMAP (bool, utf8) and
//     LABEL_LIST (list<utf8>) indexes with `lance create-index` on a table lance 12 wrote (two
//     fragments, deletions); lance 12 lists each with its type, plans its filters through our
//     index (explainPlan names ScalarIndexQuery and the index), and returns the rows it returns
//     on an unindexed twin table and our own scans return (planned through the same indexes) --
//     every row and column;
//   * after lance 12 appends a fragment, its filters still use our indexes for the indexed
//     fragments and scan the new one, with the same rows;
//   * lance 12 builds the same indexes: our scans plan those filters through its indexes
//     (`lance scan --explain` names each index lookup and the fragment scanned without one),
//     and return lance 12's rows, and our --no-index scan's, before and after its append;
//   * a BITMAP of lance 12 wide enough to store its bitmaps per-value zstd compressed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { canonicalLines } from './lib/canonical.mjs';
import { makeTable as arrowTable } from './lib/gen.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { scalarTable, SCALAR_INDEXES } from './lib/scalar_rows.mjs';

const sortedLines = (text) => text.split('\n').filter((l) => l).sort().join('\n');
const TYPE = { btree: 'BTREE', bitmap: 'BITMAP', labelList: 'LABEL_LIST' };
const CLI_TYPE = { btree: 'btree', bitmap: 'bitmap', labelList: 'label_list' };
const LIST_TYPE = { BTree: 'BTREE', Bitmap: 'BITMAP', LabelList: 'LABEL_LIST' };

// [filter, the index lance 12 must use]; our scan evaluates each too, planned through the same
// index.
const FILTERS = [
  ['id = 42', 'id_idx'], ['id = 57', 'id_idx'], ['id >= 150 AND id < 260', 'id_idx'],
  ['id IN (3, 4, 5, 199, 250, 1000)', 'id_idx'], ['id BETWEEN 10 AND 20', 'id_idx'],
  ['i32 = 7', 'i32_idx'], ['i32 < -40', 'i32_idx'], ['i32 >= 45', 'i32_idx'], ['i32 IS NULL', 'i32_idx'],
  ['f64 > 20.5', 'f64_idx'], ['f64 <= -24', 'f64_idx'], ['f64 = 0.5', 'f64_idx'],
  ["s = 's010'", 's_idx'], ["s < 's005'", 's_idx'], ["s IN ('s050', 's051', 'zz')", 's_idx'],
  ["s = ''", 's_idx'], ['s IS NULL', 's_idx'],
  ["d = DATE '2019-06-03'", 'd_idx'], ["d > DATE '2019-07-10'", 'd_idx'],
  ['b = true', 'b_idx'], ['b IS NULL', 'b_idx'],
  ["cat = 'c3'", 'cat_idx'], ["cat IN ('c1', 'c9')", 'cat_idx'], ['cat IS NULL', 'cat_idx'],
  ["cat = 'c2' AND i32 > 0", 'cat_idx'],
];
const LIST_FILTERS = [
  ["array_has_any(tags, make_array('t1', 't4'))", 'tags_idx'],
  ["array_has_all(tags, make_array('t0', 't2'))", 'tags_idx'],
  ["array_contains(tags, 't5')", 'tags_idx'],
];

async function makeTable(dir) {
  const db = await lancedb.connect(dir);
  const t = await db.createTable('t', scalarTable(0, 200));
  await t.add(scalarTable(200, 100));
  await t.delete('id % 50 = 7');
  return t;
}

async function rowsOf(t, filter) {
  return sortedLines(canonicalLines(await t.query().where(filter).toArrow()));
}

describe('scalar indexes lance-cpp builds, read by lance 12', () => {
  let dir, twinDir, uri, t, twin;
  before(async () => {
    dir = scratchDir('lance-scalar-');
    twinDir = scratchDir('lance-scalar-twin-');
    uri = path.join(dir, 't.lance');
    t = await makeTable(dir);
    twin = await makeTable(twinDir);
    for (const [col, kind] of SCALAR_INDEXES) {
      const out = JSON.parse(lanceOk(['create-index', uri, col, '--type', CLI_TYPE[kind]]).stdout);
      assert.equal(out.name, `${col}_idx`);
      assert.equal(out.type, TYPE[kind]);
      assert.deepEqual(out.indexed_fragments, [0, 1]);
      assert.equal(out.num_indexed_rows, 294);
    }
    t = await (await lancedb.connect(dir)).openTable('t');
  });

  test('lance 12 lists our indexes with their types and coverage', async () => {
    const theirs = await t.listIndices();
    assert.deepEqual(theirs.map((x) => [x.name, LIST_TYPE[x.indexType], x.columns]).sort(),
      SCALAR_INDEXES.map(([c, k]) => [`${c}_idx`, TYPE[k], [c]]).sort());
    for (const x of theirs) {
      const stats = await t.indexStats(x.name);
      assert.equal(stats.numIndexedRows, 294, x.name);
      assert.equal(stats.numUnindexedRows, 0, x.name);
    }
    const ours = lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
    assert.deepEqual(ours.map((x) => x.uuid).sort(), theirs.map((x) => x.indexUuid).sort());
  });

  test('create-index refuses a taken name and a column it cannot key', () => {
    const again = lance(['create-index', uri, 'id']);
    assert.notEqual(again.status, 0);
    assert.match(again.stderr, /already has an index named 'id_idx'/);
    const bad = lance(['create-index', uri, 'tags', '--type', 'btree', '--name', 'x']);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /cannot key a column of type/);
    const help = lanceOk(['create-index', '--help']).stdout;
    for (const w of ['btree', 'bitmap', 'label_list', 'array_has_any', '--replace']) assert.match(help, new RegExp(w));
  });

  test('lance 12 plans filters through our indexes and returns the unindexed rows', async () => {
    for (const [filter, index] of [...FILTERS, ...LIST_FILTERS]) {
      const plan = await t.query().where(filter).explainPlan(true);
      assert.match(plan, /ScalarIndexQuery/, `${filter} uses an index:\n${plan}`);
      assert.match(plan, new RegExp(`@${index}\\(`), `${filter} names ${index}:\n${plan}`);
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      assert.ok(theirs.length > 0 || filter === 'id = 57', `${filter} matches rows`);  // 57: deleted
      checkOurScan(uri, filter, index, theirs, { unindexed: false });
    }
  });

  test('after lance 12 appends, our indexes cover the old fragments and the new one is scanned', async () => {
    await t.add(scalarTable(300, 40));
    await twin.add(scalarTable(300, 40));
    for (const x of await t.listIndices()) {
      assert.equal((await t.indexStats(x.name)).numUnindexedRows, 40, x.name);
    }
    for (const [filter, index] of [...FILTERS, ...LIST_FILTERS]) {
      const plan = await t.query().where(filter).explainPlan(true);
      assert.match(plan, new RegExp(`@${index}\\(`), `${filter}:\n${plan}`);
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      checkOurScan(uri, filter, index, theirs, { unindexed: true });
    }
  });
});

// Our scan of `uri` with `filter`: planned through `index` (by its explain), equal to `want`
// and to our scan without indexes -- every row and column, in scan order.
function checkOurScan(uri, filter, index, want, { unindexed }) {
  const plan = lanceOk(['scan', uri, '--where', filter, '--explain']).stdout;
  assert.match(plan, new RegExp(`ScalarIndexLookup: .*@${index}\\(`), `${filter}:\n${plan}`);
  if (unindexed) assert.match(plan, /FragmentScan: fragments \[2\]/, `${filter}:\n${plan}`);
  const ours = lanceOk(['scan', uri, '--where', filter]).stdout;
  assert.equal(ours, lanceOk(['scan', uri, '--where', filter, '--no-index']).stdout, `--no-index: ${filter}`);
  assert.equal(sortedLines(ours), want, filter);
  assert.equal(lanceOk(['count', uri, '--where', filter]).stdout.trim(), String(want ? want.split('\n').length : 0), filter);
}

describe('scalar indexes lance 12 builds, used by our scans', () => {
  let dir, uri, t;
  before(async () => {
    dir = scratchDir('lance-scalar-ref-');
    uri = path.join(dir, 't.lance');
    t = await makeTable(dir);
    for (const [col, kind] of SCALAR_INDEXES) await t.createIndex(col, { config: lancedb.Index[kind]() });
  });

  test('our index-planned scans return lance 12 rows, before and after its append', async () => {
    for (const unindexed of [false, true]) {
      if (unindexed) await t.add(scalarTable(300, 40));
      for (const [filter, index] of [...FILTERS, ...LIST_FILTERS]) {
        checkOurScan(uri, filter, index, await rowsOf(t, filter), { unindexed });
      }
    }
  });
});

// A BITMAP wide enough that lance 12 stores its bitmaps per-value compressed: 400k rows in one
// fragment, four categories of ~15 % each spread at random (each roaring bitmap is then dense
// 8 KiB containers, ~56 KiB in all, over lance 12's 32 KiB per-value threshold), twenty rare
// ones and nulls. lance 12's bitmap_page_lookup.lance then holds
// full_zip(general(zstd, variable(flat(32)))) pages; our scans must plan through that index
// and return exactly lance 12's rows.
describe('a wide BITMAP of lance 12 (per-value zstd bitmaps)', () => {
  const N = 400_000;
  let dir, uri, t;
  before(async () => {
    dir = scratchDir('lance-scalar-wide-');
    uri = path.join(dir, 'w.lance');
    let seed = 0x2545f491;
    const rand = () => {
      seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0;
      return seed / 4294967296;
    };
    const cat = Array.from({ length: N }, () => {
      const r = rand();
      if (r < 0.6) return `wide${Math.floor(r / 0.15)}`;
      if (r < 0.62) return null;
      return `rare${String(Math.floor((r - 0.62) / 0.019)).padStart(2, '0')}`;
    });
    const table = arrowTable([
      { name: 'id', type: new A.Int64(), nullable: false, values: Array.from({ length: N }, (_, i) => BigInt(i)) },
      { name: 'cat', type: new A.Utf8(), values: cat },
    ], [N]);
    const db = await lancedb.connect(dir);
    t = await db.createTable('w', table);
    await t.createIndex('cat', { config: lancedb.Index.bitmap() });
  });

  test('lance 12 wrote per-value zstd bitmaps, and we read the index file', () => {
    const [idx] = fs.readdirSync(path.join(uri, '_indices'));
    const file = path.join(uri, '_indices', idx, 'bitmap_page_lookup.lance');
    const info = JSON.parse(lanceOk(['file', 'info', file]).stdout);
    const encodings = info.columns.flatMap((c) => c.pages.map((p) => p.encoding));
    assert.ok(encodings.some((e) => e.startsWith('full_zip(values=general(zstd, variable(flat(32)))')),
      encodings.join('\n'));
    const rows = lanceOk(['file', 'cat', file, '--columns', 'keys']).stdout.trim().split('\n');
    assert.equal(rows.length, 25);  // four wide, twenty rare, null
  });

  test('our scans plan through it and return lance 12 rows', async () => {
    for (const filter of ["cat = 'wide2'", "cat = 'rare07'", "cat IN ('wide0', 'rare19', 'zz')",
      'cat IS NULL', "cat = 'wide1' AND id < 200000", "cat = 'nothing'"]) {
      const plan = lanceOk(['scan', uri, '--where', filter, '--explain']).stdout;
      assert.match(plan, /ScalarIndexLookup: .*@cat_idx\(/, `${filter}:\n${plan}`);
      const theirs = canonicalLines(await t.query().where(filter).select(['id', 'cat']).toArrow());
      const ours = lanceOk(['scan', uri, '--where', filter]).stdout;
      assert.equal(sortedLines(ours), sortedLines(theirs), filter);
      assert.equal(ours, lanceOk(['scan', uri, '--where', filter, '--no-index']).stdout, `--no-index: ${filter}`);
    }
  });
});
