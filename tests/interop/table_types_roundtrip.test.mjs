// Every type through every operation, lance-cpp writing and lance 12 reading (issue 4 item 7):
//   * `lance` builds a dataset whose rows carry every type lance 12 stores in a table
//     (lib/type_matrix.mjs: ~100 columns, nullable and non-null variants, dictionaries,
//     large_utf8/large_binary, maps, time/duration/decimal of every unit) through create,
//     append, delete, update with expressions, merge-insert in each variant (update + insert,
//     insert only, update only, delete by source), add columns from an expression and from
//     data, drop, rename, nullability and type changes, compaction, a tag and a restore;
//   * lance 12 reads every version equal, row for row and column for column, to a model of the
//     operations (and so does `lance scan`);
//   * lance 12 then appends, deletes and merge-inserts (each variant) on top; after each of its
//     commits `lance scan` reads what the model says, and lance 12 reads our next commit;
//   * the same types but maps (which 2.1 files cannot hold) in a 2.1 dataset: create, append,
//     delete, update read by lance 12 version by version; its upsert and append read by us.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { diffRows, expectedRows, rowsText } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';
import { ipcBytes, linesById, matrixTable, Model, times2, byId } from './lib/type_matrix.mjs';

// The schema after our evolution steps, for rows written later (by us or the reference).
const NOTE = { name: 'note', type: new A.Utf8(), value: (id) => (id % 4 === 0 ? null : `n${id}`) };
const TAGS = { name: 'tags', type: new A.List(new A.Field('item', new A.Utf8(), true)),
               value: (id) => (id % 5 === 0 ? null : id % 5 === 1 ? [] : [`t${id}`, null]) };
const PLUS = { name: 'plus', type: new A.Int64(), value: (id) => BigInt(id * 3) };
const DROPPED = ['int8', 'struct', 'map_utf8_int32', 'dict_int32_utf8'];
const EVOLVED = {
  drop: DROPPED,
  rename: { utf8: 'text' },
  retype: { int16: { type: new A.Int64(), map: BigInt } },
  extra: [PLUS, NOTE, TAGS],
};

function writeInput(dir, name, table) {
  const p = path.join(dir, `${name}.arrows`);
  fs.writeFileSync(p, ipcBytes(table, 'stream'));
  return p;
}

async function referenceText(t, version) {
  if (version !== undefined) await t.checkout(version); else await t.checkoutLatest();
  return rowsTextOf(await t.query().toArrow());
}

// Canonical lines of a table lance 12 returned, sorted by id.
const rowsTextOf = (arrowTable) => rowsText(expectedRows(arrowTable).slice().sort(byId));

const ourText = (uri, version) =>
  linesById(lanceOk(version === undefined ? ['scan', uri] : ['scan', uri, '--version', String(version)]).stdout);

describe('every type through every operation we commit, read by lance 12', () => {
  let dir;
  let uri;
  const name = 'matrix';
  const model = new Model();
  const snapshots = [];  // { what, version, rows }
  const commit = (what, args) => {
    const info = JSON.parse(lanceOk(args).stdout);
    snapshots.push({ what, version: info.version, rows: model.sorted() });
    return info;
  };

  before(() => {
    dir = scratchDir('lance-types-roundtrip-');
    uri = path.join(dir, `${name}.lance`);
    // v1 create: 60 rows in 3 fragments.
    let t = matrixTable({ start: 0, n: 60, batches: [25, 0, 35] });
    model.append(t);
    let info = commit('create', ['create', uri, '--input', writeInput(dir, 'v1', t), '--max-rows-per-file', '25']);
    assert.deepEqual(info.fragment_ids, [0, 1, 2]);
    // v2 append.
    t = matrixTable({ start: 60, n: 40 });
    model.append(t);
    commit('append', ['create', uri, '--mode', 'append', '--input', writeInput(dir, 'v2', t)]);
    // v3 delete by filter.
    const gone = model.deleteWhere((id) => id % 5n === 2n);
    info = commit('delete', ['delete', uri, '--where', 'id % 5 = 2']);
    assert.equal(info.deleted_rows, gone);
    // v4 update with expressions.
    const n = model.set({ int16: () => 7n, utf8: () => 'updated', float64: times2 }, (id) => id % 6n === 1n);
    info = commit('update', ['update', uri, '--set', 'int16=7', '--set', "utf8='updated'",
                             '--set', 'float64=float64 * 2', '--where', 'id % 6 = 1']);
    assert.equal(info.rows_updated, n);
    // v5 merge-insert: update matched, insert the rest. Merge-inserts of 5 rows or fewer: their
    // apache-arrow inputs hold all-null bool buffers (B6) and the fragments we write all-null
    // struct pages (B7) and constant pages with nulls.
    t = matrixTable({ start: 97, n: 5, shift: 3 });
    let r = model.merge(t);
    info = commit('merge-insert upsert', ['merge-insert', uri, '--input', writeInput(dir, 'v5', t), '--on', 'id']);
    assert.deepEqual([info.rows_updated, info.rows_inserted], [r.updated, r.inserted]);
    // v6 merge-insert: insert only (matched rows left alone).
    t = matrixTable({ start: 99, n: 6, shift: 5 });
    r = model.merge(t, { update: false });
    info = commit('merge-insert insert-only', ['merge-insert', uri, '--input', writeInput(dir, 'v6', t), '--on', 'id',
                                               '--when-matched', 'nothing']);
    assert.deepEqual([info.rows_updated, info.rows_inserted], [0, r.inserted]);
    assert.equal(r.inserted, 3);
    // v7 merge-insert: update only (unmatched source rows dropped).
    // ids 6, 18, 30 share every column's value position, the struct's null one: constant pages
    // of every type (large_utf8 / large_binary ones with 64-bit offsets: B8) and an all-null
    // struct page (B7).
    t = matrixTable({ ids: [6, 18, 30, 200], shift: 7 });
    r = model.merge(t, { insert: false });
    info = commit('merge-insert update-only', ['merge-insert', uri, '--input', writeInput(dir, 'v7', t), '--on', 'id',
                                               '--when-not-matched', 'nothing']);
    assert.deepEqual([info.rows_updated, info.rows_inserted], [r.updated, 0]);
    // v8 merge-insert: upsert and delete target rows the source lacks.
    t = matrixTable({ start: 0, n: 50, shift: 9 });
    r = model.merge(t, { deleteBySource: () => true });
    info = commit('merge-insert delete-by-source', ['merge-insert', uri, '--input', writeInput(dir, 'v8', t), '--on', 'id',
                                                    '--when-not-matched-by-source', 'delete']);
    assert.ok(r.deleted > 0 && r.inserted > 0 && r.updated > 0, JSON.stringify(r));
    // v9 add a column from an expression.
    model.addColumn('plus', PLUS.value);
    commit('add-columns expr', ['add-columns', uri, '--expr', 'plus=id * 3']);
    // v10 add columns from data, one row per dataset row in scan order.
    const order = lanceOk(['scan', uri, '--columns', 'id']).stdout.trim().split('\n').map((l) => Number(JSON.parse(l).id));
    const cols = [NOTE, TAGS].map((c) => ({ name: c.name, type: c.type, values: order.map(c.value) }));
    model.addColumn('note', NOTE.value);
    model.addColumn('tags', TAGS.value);
    commit('add-columns data', ['add-columns', uri, '--input', writeInput(dir, 'v10', makeTable(cols, [order.length]))]);
    // v11 drop columns, v12 rename, v13 nullability, v14 type, v15-17 appends and a delete,
    // v18 compaction.
    model.drop(DROPPED);
    commit('drop-columns', ['drop-columns', uri, '--columns', DROPPED.join(',')]);
    model.rename('utf8', 'text');
    commit('rename-column', ['rename-column', uri, 'utf8', 'text']);
    commit('alter nullability', ['alter-column', uri, 'int32_nn', '--nullable', 'true']);
    commit('alter type', ['alter-column', uri, 'int16', '--type', 'bigint']);
    // Two small fragments in the evolved schema and a deletion, for the compaction to merge.
    for (const start of [400, 420]) {
      t = matrixTable({ start, n: 20, shape: EVOLVED });
      model.append(t);
      commit('append in the evolved schema',
             ['create', uri, '--mode', 'append', '--input', writeInput(dir, `e${start}`, t)]);
    }
    model.deleteWhere((id) => id % 3n === 0n);
    commit('delete before compaction', ['delete', uri, '--where', 'id % 3 = 0']);
    info = commit('compact', ['compact', uri, '--target-rows-per-fragment', '1000']);
    assert.ok(info.fragments_removed > 1, JSON.stringify(info));
  });

  test('lance 12 reads every version equal to the model, and so do we', async () => {
    assert.deepEqual(snapshots.map((s) => s.version), Array.from({ length: snapshots.length }, (_, i) => i + 1));
    const t = await (await lancedb.connect(dir)).openTable(name);
    // Every version is checked before failing, so one message lists every version that differs.
    const problems = [];
    for (const s of snapshots) {
      const at = `${s.what} (version ${s.version})`;
      try {
        const theirs = await referenceText(t, s.version);
        const d = diffRows(s.rows, theirs);
        if (d) problems.push(`lance 12 reading our ${at}: ${d}`);
      } catch (e) {
        problems.push(`lance 12 cannot read our ${at}: ${e.message}`);
      }
      const d = diffRows(s.rows, ourText(uri, s.version));
      if (d) problems.push(`our scan of ${at}: ${d}`);
    }
    assert.deepEqual(problems, []);
    // The schema changes as lance 12 sees them.
    await t.checkoutLatest();
    const fields = new Map((await t.schema()).fields.map((f) => [f.name, f]));
    assert.equal(String(fields.get('int16').type), 'Int64');
    assert.equal(fields.get('int32_nn').nullable, true);
    assert.equal(fields.get('int64_nn').nullable, false);
    assert.ok(fields.has('text') && !fields.has('utf8') && !fields.has('struct'));
  });

  test('lance 12 appends, deletes and merge-inserts (each variant) on ours; we read each result', async () => {
    const t = await (await lancedb.connect(dir)).openTable(name);
    await t.checkoutLatest();
    // The reference's writes go through its native IPC-file entry points (its JS schema
    // sanitizer refuses large_utf8 / large_binary).
    const file = (x) => ipcBytes(x, 'file');
    const rows = (opts) => matrixTable({ ...opts, noNaN: true, shape: EVOLVED });
    const check = async (what) => {
      const want = model.sorted();
      assert.equal(diffRows(want, ourText(uri)), null, `our scan after lance 12's ${what}: ${diffRows(want, ourText(uri))}`);
      assert.equal(diffRows(want, await referenceText(t)), null, `lance 12 after its ${what}`);
    };
    let x = rows({ start: 300, n: 30 });
    model.append(x);
    await t.inner.add(file(x), 'append');
    await check('append');
    model.deleteWhere((id) => id % 4n === 3n);
    await t.delete('id % 4 = 3');
    await check('delete');
    x = rows({ start: 325, n: 10, shift: 2 });
    model.merge(x);
    await t.inner.mergeInsert(['id']).whenMatchedUpdateAll(null).whenNotMatchedInsertAll().execute(file(x));
    await check('merge-insert upsert');
    x = rows({ start: 333, n: 7, shift: 4 });
    model.merge(x, { update: false });
    await t.inner.mergeInsert(['id']).whenNotMatchedInsertAll().execute(file(x));
    await check('merge-insert insert-only');
    x = rows({ ids: [...Array.from({ length: 40 }, (_, i) => i), 500, 501], shift: 6 });
    model.merge(x, { insert: false });
    await t.inner.mergeInsert(['id']).whenMatchedUpdateAll(null).execute(file(x));
    await check('merge-insert update-only');
    x = rows({ start: 300, n: 30, shift: 8 });
    model.merge(x, { insert: false, deleteBySource: (id) => id >= 330n });
    await t.inner.mergeInsert(['id']).whenMatchedUpdateAll(null).whenNotMatchedBySourceDelete('id >= 330').execute(file(x));
    await check('merge-insert delete-by-source');

    // We continue on top of the reference's commits: append, update, compaction.
    x = rows({ start: 600, n: 12 });
    model.append(x);
    lanceOk(['create', uri, '--mode', 'append', '--input', writeInput(dir, 'after', x)]);
    model.set({ text: () => 'after' }, (id) => id >= 300n);
    lanceOk(['update', uri, '--set', "text='after'", '--where', 'id >= 300']);
    const c = JSON.parse(lanceOk(['compact', uri, '--target-rows-per-fragment', '1000']).stdout);
    assert.ok(c.fragments_removed > 1, JSON.stringify(c));
    const t2 = await (await lancedb.connect(dir)).openTable(name);
    assert.equal(diffRows(model.sorted(), await referenceText(t2)), null, 'lance 12 reading our commits after its own');
  });

  test('tags and restore we write are read by lance 12', async () => {
    const s = snapshots.find((x) => x.what === 'merge-insert upsert');
    lanceOk(['tag', 'create', uri, 'upserted', '--version', String(s.version)]);
    const restored = JSON.parse(lanceOk(['restore', uri, '--version', String(s.version)]).stdout);
    const t = await (await lancedb.connect(dir)).openTable(name);
    assert.equal(await t.version(), restored.version);
    assert.equal(diffRows(s.rows, await referenceText(t)), null, 'lance 12 reading our restore');
    await t.checkout('upserted');
    assert.equal(await t.version(), s.version);
    assert.equal(diffRows(s.rows, rowsTextOf(await t.query().toArrow())), null, 'lance 12 reading our tag');
    assert.equal(diffRows(s.rows, linesById(lanceOk(['scan', uri, '--tag', 'upserted']).stdout)), null);
  });
});

// Data storage 2.1 (no maps: 2.1 files cannot hold them): create, append, delete and an
// update of every other type, read by lance 12 version by version; lance 12 appends and
// merge-inserts on top and we read it.
describe('every type but maps in a 2.1 dataset, read and continued by lance 12', () => {
  test('create, append, delete, update; lance 12 appends and upserts', async () => {
    const dir = scratchDir('lance-types-roundtrip-21-');
    const uri = path.join(dir, 'm21.lance');
    const shape = { drop: ['map_utf8_int32', 'map_int64_list', 'map_utf8_int32_nn', 'map_int64_list_nn'] };
    const model = new Model();
    const snapshots = [];
    const commit = (args) => {
      const info = JSON.parse(lanceOk(args).stdout);
      snapshots.push({ version: info.version, rows: model.sorted() });
    };
    let t = matrixTable({ start: 0, n: 50, shape });
    model.append(t);
    commit(['create', uri, '--input', writeInput(dir, 'a', t), '--data-storage-version', '2.1', '--max-rows-per-file', '20']);
    t = matrixTable({ start: 50, n: 30, shape });
    model.append(t);
    commit(['create', uri, '--mode', 'append', '--input', writeInput(dir, 'b', t)]);
    model.deleteWhere((id) => id % 4n === 1n);
    commit(['delete', uri, '--where', 'id % 4 = 1']);
    // A null struct above lists with null items, all-null struct pages (B2, B7 in 2.1).
    model.set({ utf8: () => 'u', float64: times2 }, (id) => id % 3n === 0n);
    commit(['update', uri, '--set', "utf8='u'", '--set', 'float64=float64 * 2', '--where', 'id % 3 = 0']);
    const m = JSON.parse(lanceOk(['manifest', uri]).stdout);
    assert.ok(m.fragments.every((f) => f.files.every((x) => x.file_version === '2.1')), JSON.stringify(m.fragments));
    const ref = await (await lancedb.connect(dir)).openTable('m21');
    for (const s of snapshots) {
      assert.equal(diffRows(s.rows, await referenceText(ref, s.version)), null, `lance 12 reading version ${s.version}`);
    }
    await ref.checkoutLatest();
    // 5 rows; not shift 1 or 3: lance 12 (arrow-rs) refuses apache-arrow's 0-byte bool buffer
    // of the all-null struct.c.e items those shifts give (a JS/reference limit, not ours).
    const x = matrixTable({ start: 78, n: 5, shift: 2, noNaN: true, shape });
    model.merge(x);
    await ref.inner.mergeInsert(['id']).whenMatchedUpdateAll(null).whenNotMatchedInsertAll().execute(ipcBytes(x, 'file'));
    const y = matrixTable({ start: 200, n: 20, noNaN: true, shape });
    model.append(y);
    await ref.inner.add(ipcBytes(y, 'file'), 'append');
    assert.equal(diffRows(model.sorted(), ourText(uri)), null, 'our scan after lance 12 wrote on our 2.1 dataset');
  });
});
