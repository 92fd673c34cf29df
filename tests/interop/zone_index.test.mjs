// ZONEMAP and BLOOMFILTER indexes lance-cpp builds, read by lance 12 (@lancedb/lancedb 0.39.0,
// which cannot build them itself). On a table lance 12 wrote (two fragments, deletions) we
// build zone maps (id int64, f64 float64 with NaN / +-inf / -0 / nulls, s utf8, d date32) and
// bloom filters (i32 int32, cat utf8), with zones of 16 rows so that zones matter. Then:
//   * lance 12 reports each through indexStats (as UNKNOWN: its node API has no name for
//     them) covering every row, and explainPlan shows its filters planned through our index
//     (`ScalarIndexQuery: ...@NAME(ZoneMap|BloomFilter)`);
//   * its answers equal those of its unindexed twin table (brute force) -- every row and column.
//     A bloom filter hashed otherwise than lance 12 hashes would drop matching zones here;
//   * our scans plan the same filters through the same indexes (with the recheck), equal
//     lance 12's rows and our --no-index scan, in scan order; counts too;
//   * after lance 12 appends a fragment, both still use the indexes for the old fragments and
//     scan the new one, with the same rows;
//   * lance 12's optimize() (compaction, then index optimization) rewrites our indexes to cover
//     every fragment with its own zonemap.lance / bloomfilter.lance: our reader plans and
//     answers through the files lance 12 wrote, with its rows; and what we build on that
//     version equals lance 12's files row for row (zones, min / max / counts, the bloom
//     filters' bytes), with the same schema and metadata.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { canonicalLines } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { checkRecheckedScan, sortedLines } from './lib/inexact_index.mjs';
import { scalarTable } from './lib/scalar_rows.mjs';

const INDEXES = [
  ['id', 'zonemap', 'ZONEMAP'], ['f64', 'zonemap', 'ZONEMAP'], ['s', 'zonemap', 'ZONEMAP'],
  ['d', 'zonemap', 'ZONEMAP'], ['i32', 'bloomfilter', 'BLOOMFILTER'], ['cat', 'bloomfilter', 'BLOOMFILTER'],
];
const PLAN_NAME = { ZONEMAP: 'ZoneMap', BLOOMFILTER: 'BloomFilter' };
const TYPE_OF = Object.fromEntries(INDEXES.map(([c, , t]) => [`${c}_idx`, t]));

// [filter, the index that must answer it]
const FILTERS = [
  ['id = 42', 'id_idx'], ['id = 57', 'id_idx'], ['id >= 150 AND id < 170', 'id_idx'],
  ['id IN (3, 4, 5, 199, 250, 1000)', 'id_idx'], ['id BETWEEN 10 AND 20', 'id_idx'], ['id > 290', 'id_idx'],
  ['f64 > 20.5', 'f64_idx'], ['f64 <= -24', 'f64_idx'], ['f64 = 0.5', 'f64_idx'], ['f64 IS NULL', 'f64_idx'],
  ["s = 's010'", 's_idx'], ["s < 's005'", 's_idx'], ["s IN ('s050', 's051', 'zz')", 's_idx'],
  ["s LIKE 's01%'", 's_idx'], ['s IS NULL', 's_idx'],
  ["d = DATE '2019-06-03'", 'd_idx'], ["d > DATE '2019-07-10'", 'd_idx'],
  ['i32 = 7', 'i32_idx'], ['i32 IN (7, -40, 1000)', 'i32_idx'], ['i32 IS NULL', 'i32_idx'], ['i32 = 12345', 'i32_idx'],
  ["cat = 'c3'", 'cat_idx'], ["cat IN ('c1', 'c9')", 'cat_idx'], ['cat IS NULL', 'cat_idx'],
  ["cat = 'c2' AND i32 > 0", 'cat_idx'],
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

describe('zone map and bloom filter indexes lance-cpp builds, read by lance 12', () => {
  let dir, twinDir, uri, t, twin;
  before(async () => {
    dir = scratchDir('lance-zone-');
    twinDir = scratchDir('lance-zone-twin-');
    uri = path.join(dir, 't.lance');
    t = await makeTable(dir);
    twin = await makeTable(twinDir);
    for (const [col, cli, type] of INDEXES) {
      const out = JSON.parse(lanceOk(['create-index', uri, col, '--type', cli, '--rows-per-zone', '16',
        '--bloom-items', '16']).stdout);
      assert.equal(out.name, `${col}_idx`);
      assert.equal(out.type, type);
      assert.deepEqual(out.indexed_fragments, [0, 1]);
      assert.equal(out.num_indexed_rows, 294);
      assert.deepEqual(out.files.map((f) => f.path), [type === 'ZONEMAP' ? 'zonemap.lance' : 'bloomfilter.lance']);
    }
    t = await (await lancedb.connect(dir)).openTable('t');
  });

  test('lance 12 reports our indexes covering every row; we list them with their types', async () => {
    for (const [col] of INDEXES) {
      const stats = await t.indexStats(`${col}_idx`);
      assert.equal(stats.numIndexedRows, 294, col);
      assert.equal(stats.numUnindexedRows, 0, col);
      assert.equal(stats.numIndices, 1, col);
    }
    const ours = lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
    assert.deepEqual(ours.map((x) => [x.name, x.type]).sort(), INDEXES.map(([c, , ty]) => [`${c}_idx`, ty]).sort());
  });

  test('lance 12 plans filters through our indexes and returns the unindexed rows; so do we', async () => {
    for (const [filter, index] of FILTERS) {
      const plan = await t.query().where(filter).explainPlan(true);
      assert.match(plan, new RegExp(`ScalarIndexQuery: .*@${index}\\(${PLAN_NAME[TYPE_OF[index]]}\\)`),
        `${filter} uses ${index}:\n${plan}`);
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      assert.ok(theirs.length > 0 || ['id = 57', 'i32 = 12345'].includes(filter), `${filter} matches rows`);
      checkRecheckedScan(uri, filter, index, TYPE_OF[index], theirs, { unindexed: false });
    }
  });

  test('after lance 12 appends, the indexes cover the old fragments and the new one is scanned', async () => {
    await t.add(scalarTable(300, 40));
    await twin.add(scalarTable(300, 40));
    for (const [col] of INDEXES) assert.equal((await t.indexStats(`${col}_idx`)).numUnindexedRows, 40, col);
    for (const [filter, index] of FILTERS) {
      const plan = await t.query().where(filter).explainPlan(true);
      assert.match(plan, new RegExp(`@${index}\\(`), `${filter}:\n${plan}`);
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      checkRecheckedScan(uri, filter, index, TYPE_OF[index], theirs, { unindexed: true });
    }
  });

  test('lance 12 optimizes our indexes (writing its own zone files); we read what it wrote', async () => {
    await t.optimize();
    for (const [col] of INDEXES) {
      const stats = await t.indexStats(`${col}_idx`);
      assert.equal(stats.numUnindexedRows, 0, col);
      assert.equal(stats.numIndexedRows, 334, col);
    }
    const listed = lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
    // optimize() also compacts: the indexes cover the rewritten fragments, none is left out.
    assert.deepEqual(listed.map((x) => [x.name, x.type, x.unindexed_fragment_ids]).sort(),
      INDEXES.map(([c, , ty]) => [`${c}_idx`, ty, []]).sort());
    for (const [filter, index] of FILTERS) {
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      checkRecheckedScan(uri, filter, index, TYPE_OF[index], theirs, { unindexed: false });
    }
    // lance 12 retrained each index on the compacted fragments: ours, built now on the same
    // version with the same zone size, has the same zones, statistics and bloom filter bytes
    // (every row of the file), the same schema and the same schema metadata.
    for (const [col, cli, type] of INDEXES) {
      const file = type === 'ZONEMAP' ? 'zonemap.lance' : 'bloomfilter.lance';
      const mine = JSON.parse(lanceOk(['create-index', uri, col, '--type', cli, '--rows-per-zone', '16',
        '--bloom-items', '16', '--name', `${col}_ours`]).stdout);
      const theirsIdx = listed.find((x) => x.name === `${col}_idx`);
      const paths = [theirsIdx.uuid, mine.uuid].map((u) => path.join(uri, '_indices', u, file));
      const [a, b] = paths.map((p) => lanceOk(['file', 'cat', p]).stdout);
      assert.ok(a.split('\n').length > 2, `${col}: zones in lance 12's file`);
      assert.equal(b, a, `${col}: our ${file} rows = lance 12's`);
      const [sa, sb] = paths.map((p) => JSON.parse(lanceOk(['file', 'info', p]).stdout).schema);
      assert.deepEqual(sb, sa, `${col}: our ${file} schema = lance 12's`);
      // The index details lance 12 committed equal ours (ZoneMapIndexDetails decoded).
      const ourEntry = lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l))
        .find((x) => x.name === `${col}_ours`);
      assert.equal(ourEntry.details_type_url, theirsIdx.details_type_url, col);
      assert.deepEqual(ourEntry.details, theirsIdx.details, col);
      assert.equal(ourEntry.index_version, theirsIdx.index_version, col);
      if (type === 'ZONEMAP') {
        assert.deepEqual(theirsIdx.details, { rows_per_zone: 16, use_seeds: col === 's', has_null_bitmap: true }, col);
      }
    }
  });
});
