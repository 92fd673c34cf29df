// The C ABI (include/lance/lance.h) against the reference (lance 12), through the C driver
// tests/capi/capi_interop.c (env LANCE_CAPI_INTEROP, set by ctest):
//   * a history written through the C ABI (create from an Arrow C stream, append, delete,
//     update, merge-insert, add columns by SQL and all-null, compact) is read by lance 12 version
//     by version, every row equal to a model of the writes, and by the C ABI equally;
//   * a dataset lance 12 wrote and indexed (BTREE) is read through the C ABI equal to lance 12's
//     own reading, its index listed with lance 12's uuid; rows appended and the index dropped
//     through the C ABI are then seen by lance 12.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';

const DRIVER = process.env.LANCE_CAPI_INTEROP;

function driver(args) {
  if (!DRIVER) throw new Error('LANCE_CAPI_INTEROP is not set (ctest sets it to the capi_interop driver)');
  const r = spawnSync(DRIVER, args, { maxBuffer: 1 << 28, timeout: 120000 });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`capi_interop ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout.toString('utf8');
}

// The people rows of tests/capi/arrow_rows.h.
const person = (i) => ({ id: i, name: i % 3 === 0 ? null : `n${i}`, score: i % 4 === 0 ? null : i / 2 });

function peopleTable(start, n) {
  const ids = Array.from({ length: n }, (_, i) => start + i);
  return makeTable([
    { name: 'id', type: new A.Int64(), nullable: false, values: ids.map(BigInt) },
    { name: 'name', type: new A.Utf8(), values: ids.map((i) => person(i).name) },
    { name: 'score', type: new A.Float64(), values: ids.map((i) => person(i).score) },
  ], [n]);
}

// Rows as plain objects with numbers (int64 read as BigInt by lance 12's JS), sorted by id.
const plain = (rows) => rows
  .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])))
  .sort((a, b) => a.id - b.id);

const dumped = (text) => plain(text.split('\n').filter((l) => l).map((l) => JSON.parse(l)));

async function referenceRows(t, version) {
  await t.checkout(version);
  return plain((await t.query().toArray()).map((r) => ({ ...r })));
}

describe('C ABI and lance 12', () => {
  let dir;
  before(() => { dir = scratchDir('lance-capi-'); });

  test('lance 12 reads every version of a history written through the C ABI', async () => {
    const uri = path.join(dir, 'ours.lance');
    const done = JSON.parse(driver(['write', uri]));
    assert.equal(done.version, 8);
    assert.ok(done.compacted_fragments > 1, JSON.stringify(done));
    // The model, version by version.
    let model = new Map();
    const snapshots = [];
    const snap = () => snapshots.push([...model.values()].map((r) => ({ ...r })).sort((a, b) => a.id - b.id));
    for (let i = 0; i < 30; ++i) model.set(i, person(i));
    snap();
    for (let i = 30; i < 40; ++i) model.set(i, person(i));
    snap();
    for (const id of [...model.keys()]) if (id % 7 === 3) model.delete(id);
    snap();
    for (const r of model.values()) if (r.id < 5) r.name = 'upd';
    snap();
    for (let i = 35; i < 45; ++i) model.set(i, person(i));
    snap();
    for (const r of model.values()) r.twice = r.id * 2;
    snap();
    for (const r of model.values()) r.later = null;
    snap();
    snap();  // compaction changes no row

    const t = await (await lancedb.connect(dir)).openTable('ours');
    assert.deepEqual((await t.listVersions()).map((v) => v.version), [1, 2, 3, 4, 5, 6, 7, 8]);
    for (let v = 1; v <= 8; ++v) {
      const theirs = await referenceRows(t, v);
      assert.deepEqual(theirs, snapshots[v - 1], `lance 12 reading version ${v}`);
      assert.deepEqual(dumped(driver(['dump', uri, String(v)])), snapshots[v - 1], `C ABI reading version ${v}`);
    }
    await t.checkoutLatest();
    assert.equal(await t.countRows(), snapshots[7].length);
    assert.equal(await t.countRows('twice >= 60'), snapshots[7].filter((r) => r.twice >= 60).length);
    // lance 12 writes on top of ours, and the C ABI reads it.
    await t.add([{ id: 200n, name: 'x', score: 1.5, twice: 400n, later: null }]);
    assert.deepEqual(dumped(driver(['dump', uri])), [...snapshots[7], { id: 200, name: 'x', score: 1.5, twice: 400, later: null }]);
  });

  test('the C ABI reads, appends to and drops an index of a dataset lance 12 indexed', async () => {
    const db = await lancedb.connect(dir);
    const t = await db.createTable('theirs', peopleTable(0, 50));
    await t.createIndex('id', { config: lancedb.Index.btree() });
    await t.delete('id % 10 = 0');
    const uri = path.join(dir, 'theirs.lance');
    const want = plain((await t.query().toArray()).map((r) => ({ ...r })));
    assert.deepEqual(dumped(driver(['dump', uri])), want);
    const [ref] = await t.listIndices();
    let info = JSON.parse(driver(['info', uri]));
    assert.equal(info.version, await t.version());
    assert.equal(info.count, want.length);
    assert.equal(info.indexes.length, 1);
    assert.deepEqual({ ...info.indexes[0], dataset_version: undefined },
      { name: ref.name, uuid: ref.indexUuid, columns: ['id'], type: 'BTree', dataset_version: undefined });

    driver(['append', uri, '100', '5']);
    await t.checkoutLatest();
    assert.equal(await t.countRows(), want.length + 5);
    const appended = plain((await t.query().where('id >= 100').toArray()).map((r) => ({ ...r })));
    assert.deepEqual(appended, [100, 101, 102, 103, 104].map(person));

    driver(['drop-index', uri, ref.name]);
    await t.checkoutLatest();
    assert.deepEqual(await t.listIndices(), []);
    assert.equal(await t.countRows('id < 20'), 18);
    info = JSON.parse(driver(['info', uri]));
    assert.deepEqual(info.indexes, []);
    assert.equal(info.count, want.length + 5);
  });
});
