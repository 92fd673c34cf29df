// Datasets written by lance-cpp, read and continued by the reference (lance 12):
//   * for data storage versions 2.1 and 2.2 we create a dataset with every type of the
//     catalogue (nulls included) in several fragments, append, delete (Arrow IPC and Roaring
//     deletion files, a whole fragment), append a big fragment and overwrite; lance 12 must
//     read every version equal, row for row and column for column, to the rows we wrote;
//   * lance 12 then appends, deletes and merge-inserts on top of ours, and `lance scan` must
//     read its result equal to what the reference reads;
//   * we append again on top of the reference's commits and it reads that too.
// The expected rows come from the input tables (a model of the dataset), not from either
// reader.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { diffRows, expectedRows, rowsText } from './lib/canonical.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable, toIPC, typeColumns } from './lib/gen.mjs';
import { TABLE_TYPES } from './lib/table_gen.mjs';

// The table catalogue plus the other types lance 12 accepts in a table.
const TYPES = [
  ...TABLE_TYPES, 'null', 'float64_more', 'date64', 'time32_s', 'time32_ms', 'time64_us',
  'time64_ns', 'timestamp_s', 'timestamp_ms', 'timestamp_ns', 'duration_s', 'duration_ms',
  'duration_us', 'duration_ns', 'decimal_5_2', 'decimal_10_0', 'decimal_38_38',
  'list_list_int64', 'fixed_size_list_float32', 'map_utf8_int32', 'map_int64_list',
];

// `noNaN`: lance 12 refuses to write NaN into fixed-size float lists (it takes them for
// vectors), so the rows the reference writes replace NaN items by 0.
const withoutNaN = (v) => (Array.isArray(v) ? v.map((x) => (Number.isNaN(x) ? 0 : x)) : v);

// Maps need data storage 2.2 (lance 12 refuses them in 2.1 files, and so do we).
const typesFor = (dsv) => TYPES.filter((t) => dsv === '2.2' || !t.startsWith('map_'));

function columns(start, n, noNaN, dsv) {
  const catalogue = new Map(typeColumns().map((c) => [c.name, c]));
  const cols = [{ name: 'id', type: new A.Int64(), nullable: false,
                  values: Array.from({ length: n }, (_, i) => BigInt(start + i)) }];
  for (const name of typesFor(dsv)) {
    const c = catalogue.get(name);
    if (!c) throw new Error(`unknown catalogue type ${name}`);
    const k = c.values.length;
    const fix = noNaN && c.name === 'fixed_size_list_float32' ? withoutNaN : (v) => v;
    cols.push({ name: c.name, type: c.type, values: Array.from({ length: n }, (_, i) => fix(c.values[(start + i * 7) % k])) });
  }
  return cols;
}

// Rows [start, start + n) in two record batches.
function rows(start, n, { noNaN = false, dsv = '2.2' } = {}) {
  const a = Math.ceil(n / 2);
  return makeTable(columns(start, n, noNaN, dsv), [a, n - a]);
}

const idOf = (row) => row.entries[0][1];
const byId = (a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0);

// The model: rows by id.
class Model {
  constructor() { this.rows = new Map(); }
  add(table) { for (const r of expectedRows(table)) this.rows.set(idOf(r), r); }
  overwrite(table) { this.rows = new Map(); this.add(table); }
  deleteWhere(pred) {
    let n = 0;
    for (const id of [...this.rows.keys()]) if (pred(id)) { this.rows.delete(id); n++; }
    return n;
  }
  sorted() { return [...this.rows.values()].sort(byId); }
}

function writeInput(dir, name, table) {
  const p = path.join(dir, `${name}.arrows`);
  fs.writeFileSync(p, toIPC(table, 'stream'));
  return p;
}

async function referenceText(table, version) {
  if (version !== undefined) await table.checkout(version); else await table.checkoutLatest();
  const t = await table.query().toArrow();
  return rowsText(expectedRows(t).slice().sort(byId));
}

// Our history (each step one version), applied to the model as well.
async function buildOurs(dir, dsv) {
  const name = `ours_${dsv.replace('.', '_')}`;
  const uri = path.join(dir, `${name}.lance`);
  const model = new Model();
  const snapshots = [];
  const commit = (args) => JSON.parse(lanceOk(args).stdout);
  const step = (info) => { snapshots.push({ version: info.version, rows: model.sorted() }); return info; };

  const v1 = rows(0, 300, { dsv });
  let info = commit(['create', uri, '--input', writeInput(dir, `${name}_v1`, v1), '--data-storage-version', dsv,
                     '--max-rows-per-file', '128']);
  model.add(v1);
  step(info);
  assert.deepEqual(info.fragment_ids, [0, 1, 2]);
  const v2 = rows(300, 200, { dsv });
  info = commit(['create', uri, '--mode', 'append', '--input', writeInput(dir, `${name}_v2`, v2)]);
  model.add(v2);
  step(info);
  info = commit(['delete', uri, '--where', 'id % 7 = 3']);
  assert.equal(info.deleted_rows, model.deleteWhere((id) => id % 7n === 3n));
  step(info);
  const v4 = rows(500, 6000, { dsv });
  info = commit(['create', uri, '--mode', 'append', '--input', writeInput(dir, `${name}_v4`, v4)]);
  model.add(v4);
  step(info);
  info = commit(['delete', uri, '--filter', 'id >= 600 AND id < 6200']);
  assert.equal(info.deleted_rows, model.deleteWhere((id) => id >= 600n && id < 6200n));
  step(info);
  info = commit(['delete', uri, '--where', 'id < 128']);  // every row of fragment 0
  assert.equal(info.deleted_rows, model.deleteWhere((id) => id < 128n));
  step(info);
  assert.deepEqual(info.removed_fragment_ids, [0]);
  const v7 = rows(10000, 50, { dsv });
  info = commit(['create', uri, '--mode', 'overwrite', '--input', writeInput(dir, `${name}_v7`, v7)]);
  model.overwrite(v7);
  step(info);
  return { uri, name, model, snapshots, dsv };
}

describe('the reference reads and continues datasets we write', () => {
  const built = {};
  let dir;
  before(async () => {
    dir = scratchDir('lance-table-write-');
    for (const dsv of ['2.1', '2.2']) built[dsv] = await buildOurs(dir, dsv);
  });

  for (const dsv of ['2.1', '2.2']) {
    test(`data storage ${dsv}: lance 12 reads every version equal to the rows written`, async () => {
      const b = built[dsv];
      assert.deepEqual(b.snapshots.map((s) => s.version), [1, 2, 3, 4, 5, 6, 7]);
      const dels = fs.readdirSync(path.join(b.uri, '_deletions'));
      assert.ok(dels.some((f) => f.endsWith('.arrow')), dels.join(','));
      assert.ok(dels.some((f) => f.endsWith('.bin')), dels.join(','));
      const db = await lancedb.connect(dir);
      const t = await db.openTable(b.name);
      for (const s of b.snapshots) {
        const diff = diffRows(s.rows, await referenceText(t, s.version));
        assert.equal(diff, null, `version ${s.version}: ${diff}`);
        // Our own reader agrees.
        const ours = lanceOk(['scan', b.uri, '--version', String(s.version)]).stdout;
        assert.equal(diffRows(s.rows, ours), null, `our scan of version ${s.version}`);
        await t.checkout(s.version);
        assert.equal(await t.countRows(), s.rows.length, `count at ${s.version}`);
      }
      const m = JSON.parse(lanceOk(['manifest', b.uri, '--version', '6']).stdout);
      assert.equal(m.data_storage_version ?? m.data_format?.version ?? dsv, dsv);
    });

    test(`data storage ${dsv}: lance 12 appends, deletes and merge-inserts on ours; we read it`, async () => {
      const b = built[dsv];
      const db = await lancedb.connect(dir);
      const t = await db.openTable(b.name);
      await t.checkoutLatest();
      if (dsv === '2.1') {
        // A map column cannot go into a 2.1 dataset: refused before anything is written.
        const withMap = path.join(dir, 'with_map.arrows');
        fs.writeFileSync(withMap, toIPC(makeTable(columns(0, 4, false, '2.2'), [4]), 'stream'));
        const r = lance(['create', path.join(dir, 'map21.lance'), '--input', withMap, '--data-storage-version', '2.1']);
        assert.equal(r.status, 1);
        assert.match(r.stderr, /NotSupported: field 'map_utf8_int32': map columns need data storage version 2.2/);
        assert.equal(fs.existsSync(path.join(dir, 'map21.lance')), false);
      }
      const extra = rows(20000, 100, { noNaN: true, dsv });
      await t.add(extra);
      b.model.add(extra);
      await t.delete('id % 5 = 0');
      b.model.deleteWhere((id) => id % 5n === 0n);
      const upsert = rows(10040, 20, { noNaN: true, dsv });  // 10040..10049 update rows, 10050..10059 are new
      await t.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(upsert);
      b.model.add(upsert);
      const want = b.model.sorted();
      assert.equal(diffRows(want, await referenceText(t)), null, 'reference view');
      const ours = lanceOk(['scan', b.uri]).stdout.split('\n').filter((l) => l).map((l) => l + '\n');
      // Rows are unordered after a merge-insert: compare sorted by id.
      const key = (l) => BigInt(/^\{"id":(-?\d+)/.exec(l)[1]);
      ours.sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
      assert.equal(diffRows(want, ours.join('')), null, 'our scan of the reference commits');
      assert.equal(lanceOk(['count', b.uri]).stdout.trim(), String(want.length));

      // And we continue on top of the reference's commits.
      const more = rows(30000, 30, { dsv });
      const info = JSON.parse(lanceOk(['create', b.uri, '--mode', 'append', '--input',
                                        writeInput(dir, `${b.name}_more`, more)]).stdout);
      b.model.add(more);
      const t2 = await (await lancedb.connect(dir)).openTable(b.name);
      assert.equal(diffRows(b.model.sorted(), await referenceText(t2, info.version)), null);
    });
  }
});
