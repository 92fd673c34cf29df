// `lance index optimize` both ways with lance 12 (@lancedb/lancedb 0.39.0), on a table lance 12
// wrote (two fragments, deletions) with the scalar indexes of lib/scalar_rows.mjs (BTREE on six
// key types, BITMAP on two, LABEL_LIST):
//   * we build the indexes; lance 12 appends a fragment; we optimize: every index is one new
//     segment covering all three fragments (lance 12's indexStats: no unindexed row), lance 12
//     plans every filter through it and returns the rows of an unindexed twin table, and our
//     scans plan through it with no fragment left to scan beside it, equal to --no-index;
//   * lance 12 appends again and runs its own optimize() (compaction, index remap, index
//     update) on top of our optimized indexes; both readers still agree with the twin;
//   * lance 12 builds the indexes and appends; we optimize its indexes; lance 12 reads ours
//     with no unindexed row and the twin's rows, and so do our scans;
//   * `lance index list | describe` say what the manifest holds, and optimizing again does
//     nothing.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { canonicalLines } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { scalarTable, SCALAR_INDEXES } from './lib/scalar_rows.mjs';

const sortedLines = (text) => text.split('\n').filter((l) => l).sort().join('\n');
const TYPE = { btree: 'BTREE', bitmap: 'BITMAP', labelList: 'LABEL_LIST' };
const CLI_TYPE = { btree: 'btree', bitmap: 'bitmap', labelList: 'label_list' };
const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));

const FILTERS = [
  ['id = 42', 'id_idx'], ['id >= 150 AND id < 330', 'id_idx'], ['id IN (3, 4, 199, 305, 333, 1000)', 'id_idx'],
  ['i32 = 7', 'i32_idx'], ['i32 < -40', 'i32_idx'], ['i32 IS NULL', 'i32_idx'],
  ['f64 > 20.5', 'f64_idx'], ['f64 <= -24', 'f64_idx'],
  ["s = 's010'", 's_idx'], ["s < 's005'", 's_idx'], ['s IS NULL', 's_idx'],
  ["d > DATE '2019-07-10'", 'd_idx'],
  ['b = true', 'b_idx'], ["cat IN ('c1', 'c9')", 'cat_idx'], ['cat IS NULL', 'cat_idx'],
];
const LIST_FILTERS = [
  ["array_has_any(tags, make_array('t1', 't4'))", 'tags_idx'],
  ["array_contains(tags, 't5')", 'tags_idx'],
];

async function makeTable(dir) {
  const db = await lancedb.connect(dir);
  const t = await db.createTable('t', scalarTable(0, 200));
  await t.add(scalarTable(200, 100));
  await t.delete('id % 50 = 7');
  return t;
}

const rowsOf = async (t, filter) => sortedLines(canonicalLines(await t.query().where(filter).toArrow()));

// lance 12 over `t`: every index covers every row, every filter plans through its index and
// returns the twin's rows.
async function checkTheirs(t, twin, rows) {
  for (const x of await t.listIndices()) {
    const stats = await t.indexStats(x.name);
    assert.equal(stats.numUnindexedRows, 0, x.name);
    if (rows !== undefined && x.name !== 'tags_idx') assert.equal(stats.numIndexedRows, rows, x.name);
  }
  for (const [filter, index] of [...FILTERS, ...LIST_FILTERS]) {
    const plan = await t.query().where(filter).explainPlan(true);
    assert.match(plan, new RegExp(`@${index}\\(`), `${filter}:\n${plan}`);
    assert.equal(await rowsOf(t, filter), await rowsOf(twin, filter), filter);
  }
}

// Our scans of `uri`: planned through the index with no fragment scanned beside it (unless
// `unindexed`), equal to --no-index and to the twin's rows.
async function checkOurs(uri, twin, { unindexed = false } = {}) {
  for (const [filter, index] of [...FILTERS, ...LIST_FILTERS]) {
    const plan = lanceOk(['scan', uri, '--where', filter, '--explain']).stdout;
    assert.match(plan, new RegExp(`ScalarIndexLookup: .*@${index}\\(`), `${filter}:\n${plan}`);
    if (!unindexed) assert.doesNotMatch(plan, /FragmentScan/, `${filter}:\n${plan}`);
    const ours = lanceOk(['scan', uri, '--where', filter]).stdout;
    assert.equal(ours, lanceOk(['scan', uri, '--where', filter, '--no-index']).stdout, `--no-index: ${filter}`);
    assert.equal(sortedLines(ours), await rowsOf(twin, filter), filter);
  }
}

function optimize(uri, newFragment) {
  const out = jsonLines(lanceOk(['index', 'optimize', uri]).stdout);
  assert.deepEqual(out.map((x) => x.name).sort(), SCALAR_INDEXES.map(([c]) => `${c}_idx`).sort());
  for (const x of out) {
    assert.equal(x.outcome, 'merged', JSON.stringify(x));
    assert.deepEqual(x.new_fragments, [newFragment], x.name);
    assert.notEqual(x.uuid, x.replaced_uuid);
  }
  return out;
}

describe('lance index optimize over our indexes, read and optimized again by lance 12', () => {
  let dir, twinDir, uri, t, twin;
  before(async () => {
    dir = scratchDir('lance-optimize-');
    twinDir = scratchDir('lance-optimize-twin-');
    uri = path.join(dir, 't.lance');
    t = await makeTable(dir);
    twin = await makeTable(twinDir);
    for (const [col, kind] of SCALAR_INDEXES) lanceOk(['index', 'create', uri, '--column', col, '--type', CLI_TYPE[kind]]);
    await t.add(scalarTable(300, 40));
    await twin.add(scalarTable(300, 40));
  });

  test('lance index list shows the appended rows unindexed, then optimize indexes them', async () => {
    const listed = jsonLines(lanceOk(['index', 'list', uri]).stdout);
    assert.equal(listed.length, SCALAR_INDEXES.length);
    for (const x of listed) {
      assert.deepEqual(x.indexed_fragments, [0, 1], x.name);
      assert.equal(x.unindexed_rows, 40, x.name);
      assert.equal(x.segments, 1);
    }
    const types = Object.fromEntries(SCALAR_INDEXES.map(([c, k]) => [`${c}_idx`, TYPE[k]]));
    for (const x of listed) assert.equal(x.type, types[x.name]);
    const done = optimize(uri, 2);
    const after = jsonLines(lanceOk(['index', 'list', uri]).stdout);
    for (const x of after) {
      assert.deepEqual(x.indexed_fragments, [0, 1, 2], x.name);
      assert.equal(x.unindexed_rows, 0, x.name);
      assert.equal(x.uuid, done.find((d) => d.name === x.name).uuid);
    }
    const described = JSON.parse(lanceOk(['index', 'describe', uri, 'id_idx']).stdout);
    assert.equal(described.type, 'BTREE');
    assert.deepEqual(described.unindexed_fragments, []);
    assert.equal(described.parameters.batch_size, 4096);
    assert.equal(described.segment_details.length, 1);
    assert.ok(described.size_bytes > 0);
    // Nothing left to do: no new version.
    const before = jsonLines(lanceOk(['versions', uri]).stdout).length;
    const again = jsonLines(lanceOk(['index', 'optimize', uri]).stdout);
    for (const x of again) assert.equal(x.outcome, 'up_to_date', x.name);
    assert.equal(jsonLines(lanceOk(['versions', uri]).stdout).length, before);
  });

  test('lance 12 reads our optimized indexes covering every row', async () => {
    t = await (await lancedb.connect(dir)).openTable('t');
    await checkTheirs(t, twin, 294 + 40);
    await checkOurs(uri, twin);
  });

  test('lance 12 appends and optimizes on top of ours; both readers agree', async () => {
    await t.add(scalarTable(340, 30));
    await twin.add(scalarTable(340, 30));
    await t.optimize({ cleanupOlderThan: new Date(Date.now() + 86400000), deleteUnverified: true });
    await checkTheirs(t, twin, 294 + 70);
    await checkOurs(uri, twin);
  });
});

describe('lance index optimize over lance 12 indexes', () => {
  let dir, twinDir, uri, t, twin;
  before(async () => {
    dir = scratchDir('lance-optimize-ref-');
    twinDir = scratchDir('lance-optimize-ref-twin-');
    uri = path.join(dir, 't.lance');
    t = await makeTable(dir);
    twin = await makeTable(twinDir);
    for (const [col, kind] of SCALAR_INDEXES) await t.createIndex(col, { config: lancedb.Index[kind]() });
    await t.add(scalarTable(300, 40));
    await twin.add(scalarTable(300, 40));
  });

  test('our scans use lance 12 indexes and scan the appended fragment', async () => {
    await checkOurs(uri, twin, { unindexed: true });
  });

  test('we optimize lance 12 indexes; lance 12 reads them covering every row', async () => {
    optimize(uri, 2);
    t = await (await lancedb.connect(dir)).openTable('t');
    await checkTheirs(t, twin, 294 + 40);
    await checkOurs(uri, twin);
    await t.add(scalarTable(340, 30));
    await twin.add(scalarTable(340, 30));
    await t.optimize({ cleanupOlderThan: new Date(Date.now() + 86400000), deleteUnverified: true });
    await checkTheirs(t, twin, 294 + 70);
    await checkOurs(uri, twin);
  });
});
