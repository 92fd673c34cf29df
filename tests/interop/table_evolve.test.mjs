// Datasets changed in place by lance-cpp (update, merge-insert, add/drop/rename columns,
// compaction, cleanup), read and continued by the reference (lance 12):
//   * after each of our operations lance 12 reads every version of the dataset equal, row for
//     row and column for column, to what `lance scan` reads (whole tables, sorted by id), and
//     the set of ids equals a model of the operations;
//   * lance 12 then appends, deletes and merge-inserts on top of ours and we read its result
//     equal to what it reads;
//   * racing `lance update` / `lance delete` processes on disjoint rows of the same fragments
//     all land (deletion vectors merged); updates of the same rows never land twice.
// Rows carry every type of the table catalogue (nulls included) and a unique int64 `id`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { diffRows, expectedRows } from './lib/canonical.mjs';
import { lance, lanceAll, lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable, toIPC, typeColumns } from './lib/gen.mjs';
import { TABLE_TYPES } from './lib/table_gen.mjs';

// Rows for ids [start, start + n); `shift` changes every value but the id (an "update").
function columns(start, n, shift = 0, { drop = [], rename = {}, extra = false } = {}) {
  const catalogue = new Map(typeColumns().map((c) => [c.name, c]));
  const cols = [{ name: 'id', type: new A.Int64(), nullable: false,
                  values: Array.from({ length: n }, (_, i) => BigInt(start + i)) }];
  for (const name of TABLE_TYPES) {
    if (drop.includes(name)) continue;
    const c = catalogue.get(name);
    const k = c.values.length;
    cols.push({ name: rename[name] ?? c.name, type: c.type,
                values: Array.from({ length: n }, (_, i) => c.values[(start + i * 7 + shift) % k]) });
  }
  if (extra) {
    cols.push({ name: 'twice', type: new A.Int64(), values: Array.from({ length: n }, (_, i) => BigInt(2 * (start + i))) });
    cols.push({ name: 'flag', type: new A.Bool(), values: Array.from({ length: n }, (_, i) => (i % 3 === 0 ? null : i % 2 === 0)) });
  }
  return cols;
}

const table = (start, n, shift, opts) => makeTable(columns(start, n, shift, opts), [n]);

function writeInput(dir, name, t) {
  const p = path.join(dir, `${name}.arrows`);
  fs.writeFileSync(p, toIPC(t, 'stream'));
  return p;
}

const idOf = (line) => BigInt(/^\{"id":(-?\d+)/.exec(line)[1]);
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

// Our scan of `version` (latest when undefined), lines sorted by id.
function ourLines(uri, version) {
  const args = ['scan', uri];
  if (version !== undefined) args.push('--version', String(version));
  const lines = lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => l + '\n');
  return lines.sort((x, y) => cmp(idOf(x), idOf(y)));
}

// The reference's rows of `version`, sorted by id.
async function referenceRows(t, version) {
  if (version !== undefined) await t.checkout(version); else await t.checkoutLatest();
  const rows = expectedRows(await t.query().toArrow()).slice();
  return rows.sort((a, b) => cmp(a.entries[0][1], b.entries[0][1]));
}

async function assertSame(t, uri, version, ids, what) {
  const ref = await referenceRows(t, version);
  const ours = ourLines(uri, version);
  assert.equal(diffRows(ref, ours.join('')), null, `${what}: lance 12 and lance-cpp differ`);
  if (ids) {
    assert.deepEqual(ours.map(idOf), [...ids].sort(cmp), `${what}: ids differ from the model`);
  }
  return ours;
}

describe('the reference reads and continues datasets we change in place', () => {
  for (const dsv of ['2.1', '2.2']) {
    const name = `evolve_${dsv.replace('.', '_')}`;
    let dir, uri, steps, ids;
    before(async () => {
      dir = scratchDir('lance-table-evolve-');
      uri = path.join(dir, `${name}.lance`);
      steps = [];
      const run = (what, args) => {
        const info = JSON.parse(lanceOk(args).stdout);
        steps.push({ what, version: info.version, ids: new Set(ids) });
        return info;
      };
      ids = new Set(Array.from({ length: 600 }, (_, i) => BigInt(i)));
      run('create', ['create', uri, '--input', writeInput(dir, 'v1', table(0, 600)),
                     '--data-storage-version', dsv, '--max-rows-per-file', '150']);
      for (const id of [...ids]) if (id % 7n === 3n) ids.delete(id);
      run('delete', ['delete', uri, '--where', 'id % 7 = 3']);
      let info = run('update', ['update', uri, '--set', 'float64=float64 + 1', '--set', 'utf8=upper(utf8)',
                                '--where', 'id % 10 = 1']);
      assert.equal(info.rows_updated, [...ids].filter((id) => id % 10n === 1n).length);
      // ids 500..699 with other values: 500..599 update (those still present), 600..699 insert.
      let fresh = 0;
      for (let i = 500n; i < 700n; i++) if (!ids.has(i)) fresh++;
      for (let i = 500n; i < 700n; i++) ids.add(i);
      info = run('merge-insert', ['merge-insert', uri, '--input', writeInput(dir, 'upsert', table(500, 200, 5)),
                                  '--on', 'id']);
      assert.equal(info.rows_inserted, fresh);
      assert.equal(info.rows_updated, 200 - fresh);
      run('add-columns', ['add-columns', uri, '--expr', 'twice=id * 2', '--expr', 'flag=int32 > 0']);
      run('drop-columns', ['drop-columns', uri, '--columns', 'int8,struct']);
      run('rename-column', ['rename-column', uri, 'utf8', 'text']);
      info = run('compact', ['compact', uri, '--target-rows-per-fragment', '400']);
      assert.ok(info.fragments_removed > 1, JSON.stringify(info));
    });

    test(`data storage ${dsv}: lance 12 reads every version equal to ours`, async () => {
      assert.deepEqual(steps.map((s) => s.version), [1, 2, 3, 4, 5, 6, 7, 8]);
      const t = await (await lancedb.connect(dir)).openTable(name);
      for (const s of steps) await assertSame(t, uri, s.version, s.ids, `${s.what} (version ${s.version})`);
      // Spot checks against the model of the operations.
      await t.checkoutLatest();
      const schema = (await t.schema()).fields.map((f) => f.name);
      assert.ok(schema.includes('text') && schema.includes('twice') && schema.includes('flag'), schema.join(','));
      assert.ok(!schema.includes('utf8') && !schema.includes('int8') && !schema.includes('struct'), schema.join(','));
      const twice = await t.query().where('twice <> id * 2').toArray();
      assert.equal(twice.length, 0);
      assert.equal(await t.countRows(), ids.size);
      // Updated rows: the float64 of id 11 is its original value + 1.
      const orig = expectedRows(table(0, 12))[11].entries.find(([k]) => k === 'float64')[1];
      const now = ourLines(uri).find((l) => idOf(l) === 11n);
      if (orig !== null && Number.isFinite(orig.value)) {
        assert.equal(JSON.parse(now).float64, orig.value + 1);
      }
    });

    test(`data storage ${dsv}: cleanup keeps what the kept versions need`, async () => {
      // Versions 6-8 still use every data file (compaction at 8 rewrote what 6 and 7 use);
      // the deletion files superseded by the update went with versions 1-5.
      let info = JSON.parse(lanceOk(['cleanup', uri, '--keep', '3']).stdout);
      assert.deepEqual(info.removed_versions, [1, 2, 3, 4, 5]);
      assert.equal(info.data_files_removed, 0, JSON.stringify(info));
      assert.ok(info.deletion_files_removed >= 1, JSON.stringify(info));
      const t = await (await lancedb.connect(dir)).openTable(name);
      assert.deepEqual((await t.listVersions()).map((v) => v.version), [6, 7, 8]);
      for (const s of steps.slice(5)) await assertSame(t, uri, s.version, s.ids, `after cleanup, version ${s.version}`);
      assert.notEqual(lance(['scan', uri, '--version', '2']).status, 0);
      // Everything but the latest: the files compaction replaced go.
      const before = fs.readdirSync(path.join(uri, 'data')).length;
      info = JSON.parse(lanceOk(['cleanup', uri, '--older-than', '0s']).stdout);
      assert.deepEqual(info.removed_versions, [6, 7]);
      assert.ok(info.data_files_removed >= 1, JSON.stringify(info));
      assert.equal(fs.readdirSync(path.join(uri, 'data')).length, before - info.data_files_removed);
      const t2 = await (await lancedb.connect(dir)).openTable(name);
      assert.deepEqual((await t2.listVersions()).map((v) => v.version), [8]);
      await assertSame(t2, uri, 8, steps[7].ids, 'after cleaning all but the latest');
    });

    test(`data storage ${dsv}: lance 12 appends, deletes and merge-inserts on ours; we read it`, async () => {
      const t = await (await lancedb.connect(dir)).openTable(name);
      await t.checkoutLatest();
      const shape = { drop: ['int8', 'struct'], rename: { utf8: 'text' }, extra: true };
      await t.add(table(1000, 80, 0, shape));
      for (let i = 1000n; i < 1080n; i++) ids.add(i);
      await t.delete('id % 5 = 0');
      for (const id of [...ids]) if (id % 5n === 0n) ids.delete(id);
      await t.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll()
        .execute(table(1070, 20, 3, shape));  // 1070..1079 update (those left), 1080..1089 new
      for (let i = 1070n; i < 1090n; i++) ids.add(i);
      await assertSame(t, uri, undefined, ids, 'after the reference wrote on ours');
      // And we keep going on top of the reference's commits.
      const info = JSON.parse(lanceOk(['update', uri, '--set', 'twice=0', '--where', 'id >= 1000']).stdout);
      assert.equal(info.rows_updated, [...ids].filter((id) => id >= 1000n).length);
      const cinfo = JSON.parse(lanceOk(['compact', uri, '--target-rows-per-fragment', '100000']).stdout);
      const t2 = await (await lancedb.connect(dir)).openTable(name);
      await assertSame(t2, uri, cinfo.version, ids, 'our update + compaction after the reference');
      const zero = await t2.query().where('id >= 1000 AND twice <> 0').toArray();
      assert.equal(zero.length, 0);
    });
  }
});

// Stable row ids: rows moved by our update, merge-insert and compaction keep their ids, which
// lance 12 reads back (withRowId) equal to ours, and its own writes on top keep them too.
describe('stable row ids survive our rewrites', () => {
  test('update, merge-insert and compaction keep row ids; lance 12 agrees', async () => {
    const dir = scratchDir('lance-table-evolve-rowid-');
    const name = 'rowids';
    const uri = path.join(dir, `${name}.lance`);
    const narrow = (start, n, salt = 0) => makeTable([
      { name: 'id', type: new A.Int64(), nullable: false, values: Array.from({ length: n }, (_, i) => BigInt(start + i)) },
      { name: 'v', type: new A.Utf8(), values: Array.from({ length: n }, (_, i) => ((start + i) % 9 === 0 ? null : `v${start + i}-${salt}`)) },
    ], [n]);
    lanceOk(['create', uri, '--input', writeInput(dir, 'r1', narrow(0, 300)), '--max-rows-per-file', '100',
             '--enable-stable-row-ids']);
    // Row ids start equal to ids (0..299, assigned in order).
    lanceOk(['update', uri, '--set', "v='updated'", '--where', 'id % 4 = 1']);
    lanceOk(['merge-insert', uri, '--input', writeInput(dir, 'r2', narrow(250, 100, 1)), '--on', 'id']);
    lanceOk(['delete', uri, '--where', 'id % 10 = 7']);
    lanceOk(['compact', uri, '--target-rows-per-fragment', '1000']);
    const ours = lanceOk(['scan', uri, '--with-row-id']).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
    // Ids below 300 kept their row id; inserted rows (300..349) got fresh ones above 299.
    for (const r of ours) {
      if (r.id < 300) assert.equal(r._rowid, r.id, JSON.stringify(r));
      else assert.ok(r._rowid >= 300, JSON.stringify(r));
    }
    assert.equal(new Set(ours.map((r) => r._rowid)).size, ours.length);
    const t = await (await lancedb.connect(dir)).openTable(name);
    const refRows = expectedRows(await t.query().withRowId().toArrow()).slice()
      .sort((a, b) => cmp(a.entries[0][1], b.entries[0][1]));
    const ourText = lanceOk(['scan', uri, '--with-row-id']).stdout.split('\n').filter((l) => l).map((l) => l + '\n')
      .sort((x, y) => cmp(idOf(x), idOf(y))).join('');
    assert.equal(diffRows(refRows, ourText), null);
    // lance 12 updates on top: ids still kept, and we read its result equal.
    await t.update({ where: 'id < 20', valuesSql: { v: "'ref'" } });
    const refAfter = expectedRows(await t.query().withRowId().toArrow()).slice()
      .sort((a, b) => cmp(a.entries[0][1], b.entries[0][1]));
    const ourAfter = lanceOk(['scan', uri, '--with-row-id']).stdout.split('\n').filter((l) => l).map((l) => l + '\n')
      .sort((x, y) => cmp(idOf(x), idOf(y))).join('');
    assert.equal(diffRows(refAfter, ourAfter), null);
  });
});

describe('racing updates and deletes', () => {
  test('disjoint rows: every commit lands once; same rows: never twice', async () => {
    const dir = scratchDir('lance-table-evolve-race-');
    const name = 'race';
    const uri = path.join(dir, `${name}.lance`);
    const narrow = (start, n) => makeTable([
      { name: 'id', type: new A.Int64(), nullable: false, values: Array.from({ length: n }, (_, i) => BigInt(start + i)) },
      { name: 'v', type: new A.Utf8(), values: Array.from({ length: n }, (_, i) => `v${start + i}`) },
    ], [n]);
    lanceOk(['create', uri, '--input', writeInput(dir, 'r', narrow(0, 400)), '--max-rows-per-file', '200']);
    // Each fragment gets rows of every command: updates of ids = k mod 8, deletes of k + 4 mod 8.
    const cmds = [];
    for (let k = 0; k < 4; k++) cmds.push(['update', uri, '--set', `v='u${k}'`, '--where', `id % 8 = ${k}`]);
    for (let k = 4; k < 6; k++) cmds.push(['delete', uri, '--where', `id % 8 = ${k}`]);
    const results = await lanceAll(cmds);
    for (const r of results) assert.equal(r.status, 0, r.stderr);
    const versions = results.map((r) => JSON.parse(r.stdout).version).sort((a, b) => a - b);
    assert.deepEqual(versions, [2, 3, 4, 5, 6, 7]);
    const expected = [];
    for (let id = 0; id < 400; id++) {
      const m = id % 8;
      if (m === 4 || m === 5) continue;
      expected.push({ id, v: m < 4 ? `u${m}` : `v${id}` });
    }
    const ours = lanceOk(['scan', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l))
      .sort((a, b) => a.id - b.id);
    assert.deepEqual(ours, expected);
    const t = await (await lancedb.connect(dir)).openTable(name);
    const ref = (await t.query().toArray()).map((r) => ({ id: Number(r.id), v: r.v })).sort((a, b) => a.id - b.id);
    assert.deepEqual(ref, expected);

    // Three updates of the same rows: each lands at most once, the losers that raced get a
    // retryable CommitConflict, and every row exists exactly once.
    const same = await lanceAll([0, 1, 2].map((k) => ['update', uri, '--set', `v='s${k}'`, '--where', 'id < 100']));
    const won = same.filter((r) => r.status === 0);
    assert.ok(won.length >= 1, same.map((r) => r.stderr).join('\n'));
    for (const r of same.filter((x) => x.status !== 0)) assert.match(r.stderr, /CommitConflict.*retryable/);
    const after = lanceOk(['scan', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
    assert.equal(after.length, expected.length);
    assert.equal(new Set(after.map((r) => r.id)).size, after.length);
    const low = after.filter((r) => r.id < 100);
    const winner = low[0].v;
    assert.ok(['s0', 's1', 's2'].includes(winner), winner);
    for (const r of low) assert.ok(['s0', 's1', 's2'].includes(r.v), JSON.stringify(r));
  });
});

describe('nullability', () => {
  test('alter-column changes nullability and type as lance 12 reads them; tightening checks for nulls', async () => {
    const dir = scratchDir('lance-table-evolve-null-');
    const uri = path.join(dir, 'n.lance');
    const t0 = makeTable([
      { name: 'id', type: new A.Int64(), nullable: false, values: [1n, 2n, 3n] },
      { name: 'a', type: new A.Utf8(), values: ['x', null, 'z'] },
      { name: 'b', type: new A.Float64(), values: [1.5, 2.5, 3.5] },
    ], [3]);
    lanceOk(['create', uri, '--input', writeInput(dir, 'n', t0)]);
    lanceOk(['alter-column', uri, 'id', '--nullable', 'true']);
    const bad = lance(['alter-column', uri, 'a', '--nullable', 'false']);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /holds nulls/);
    lanceOk(['alter-column', uri, 'b', '--nullable', 'false', '--rename', 'bee']);
    const t = await (await lancedb.connect(dir)).openTable('n');
    const fields = Object.fromEntries((await t.schema()).fields.map((f) => [f.name, f.nullable]));
    assert.deepEqual(fields, { id: true, a: true, bee: false });
    assert.equal(diffRows(expectedRows(await t.query().toArrow()), lanceOk(['scan', uri]).stdout), null);
    // lance 12 appends to the altered schema and we count its row.
    await t.add([{ id: 4n, a: 'w', bee: 4.5 }]);
    assert.equal(lanceOk(['count', uri]).stdout.trim(), '4');
    // A type change: the values are cast into new data files under a new field id.
    lanceOk(['alter-column', uri, 'bee', '--type', 'float']);
    lanceOk(['alter-column', uri, 'id', '--type', 'int']);
    const t2 = await (await lancedb.connect(dir)).openTable('n');
    const types = Object.fromEntries((await t2.schema()).fields.map((f) => [f.name, String(f.type)]));
    assert.deepEqual(types, { id: 'Int32', a: 'Utf8', bee: 'Float32' });
    const ref = expectedRows(await t2.query().toArrow()).slice().sort((x, y) => cmp(x.entries[0][1], y.entries[0][1]));
    const ours = lanceOk(['scan', uri]).stdout.split('\n').filter((l) => l).map((l) => l + '\n')
      .sort((x, y) => cmp(idOf(x), idOf(y))).join('');
    assert.equal(diffRows(ref, ours), null);
    assert.deepEqual(ref.map((r) => Number(r.entries[0][1])), [1, 2, 3, 4]);
  });
});
