// Merge-insert from a partial-schema source (the input lacks some of the dataset's non-key
// columns) against the reference (lance 12): an updated row keeps the dataset row's values of
// the missing columns, an inserted row gets nulls there. The same dataset is copied; each step
// runs the same merge-insert with `lance merge-insert` on our copy and with lance 12's
// mergeInsert on the other, with and without stable row ids. After every step:
//   * our copy, read by us and by lance 12, equals lance 12's copy row for row in scan order
//     (updated rows move to new fragments, so the order is part of the answer);
//   * we read lance 12's copy equal too;
//   * the counts we print equal lance 12's.
// Then the refusals both make: a missing key column, a missing non-nullable column when rows
// would be inserted, and `source.COL` naming a column the input lacks.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { diffRows, expectedRows } from './lib/canonical.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable, toIPC } from './lib/gen.mjs';

const range = (a, b, step = 1) => Array.from({ length: Math.ceil((b - a) / step) }, (_, i) => a + i * step);

// Columns of a row table for ids `ids` (values vary with `seed`); `names` picks which, in
// that order (the key need not come first).
const COLUMNS = {
  id: (ids) => ({ name: 'id', type: new A.Int64(), nullable: false, values: ids.map(BigInt) }),
  score: (ids, seed) => ({ name: 'score', type: new A.Float64(),
    values: ids.map((id) => ((id + seed) % 9 === 0 ? null : ((id * 37 + seed * 11) % 101) + 0.5)) }),
  name: (ids, seed) => ({ name: 'name', type: new A.Utf8(),
    values: ids.map((id) => ((id + seed) % 13 === 0 ? null : `n${(id * 7 + seed) % 5}`)) }),
  grp: (ids, seed) => ({ name: 'grp', type: new A.Int32(), values: ids.map((id) => (id + seed) % 4) }),
};
const rows = (ids, seed, names = ['id', 'score', 'name', 'grp']) =>
  makeTable(names.map((n) => COLUMNS[n](ids, seed)), [ids.length]);

const STEPS = [
  { what: 'upsert of id + score (updated rows keep name and grp, inserted get nulls)',
    input: () => rows([...range(10, 40, 3), ...range(60, 66)], 1, ['id', 'score']), insert: true },
  { what: 'update only, name then id (column order differs), where target.grp = 1',
    input: () => rows(range(1, 70, 3), 2, ['name', 'id']), insert: false, update: 'target.grp = 1' },
  { what: 'update grp where it changes, delete unmatched rows scoring over 80',
    input: () => rows(range(20, 50), 3, ['id', 'grp']), insert: false,
    update: 'source.grp <> target.grp', del: 'score > 80' },
  { what: 'insert only, id + name (matched rows untouched)',
    input: () => rows(range(50, 80, 4), 4, ['id', 'name']), insert: true, matched: 'nothing' },
];

// A canonical value as a comparable primitive (floats are objects carrying their bits).
const plain = (v) => (v !== null && typeof v === 'object' && 'value' in v ? v.value : v);

function ourText(uri) {
  return lanceOk(['scan', uri]).stdout;
}

async function referenceRows(dir, name) {
  const t = await (await lancedb.connect(dir)).openTable(name);
  return expectedRows(await t.query().toArrow());
}

for (const stable of [false, true]) {
  describe(`merge-insert from a partial source${stable ? ', stable row ids' : ''}: lance 12 and lance-cpp agree`, () => {
    test('every step: both copies read equal by both, in scan order, counts equal', async () => {
      const dir = scratchDir('lance-merge-partial-');
      const refDir = path.join(dir, 'ref');
      fs.mkdirSync(refDir);
      const NAME = 'part';
      const ours = path.join(dir, `${NAME}.lance`);
      const base = path.join(dir, 'base.arrows');
      fs.writeFileSync(base, toIPC(rows(range(0, 60), 0), 'stream'));
      lanceOk(['create', ours, '--input', base, '--max-rows-per-file', '25',
               ...(stable ? ['--enable-stable-row-ids'] : [])]);
      lanceOk(['delete', ours, '--where', 'id % 11 = 4']);
      fs.cpSync(ours, path.join(refDir, `${NAME}.lance`), { recursive: true });
      const refTable = await (await lancedb.connect(refDir)).openTable(NAME);

      let kept = 0;  // updated rows whose missing columns held a non-null value before
      for (const [k, s] of STEPS.entries()) {
        const input = s.input();
        const file = path.join(dir, `step${k}.arrows`);
        fs.writeFileSync(file, toIPC(input, 'stream'));
        const before = new Map(expectedRows(await refTable.query().toArrow())
          .map((r) => [r.entries[0][1], r]));
        const args = ['merge-insert', ours, '--input', file, '--on', 'id',
                      '--when-not-matched', s.insert ? 'insert' : 'nothing',
                      '--when-matched', s.matched ?? 'update'];
        if (s.update) args.push('--when-matched-update-where', s.update);
        if (s.del) args.push('--when-not-matched-by-source-delete-where', s.del);
        const info = JSON.parse(lanceOk(args).stdout);

        let b = refTable.mergeInsert('id');
        if (!s.matched) b = b.whenMatchedUpdateAll(s.update ? { where: s.update } : undefined);
        if (s.insert) b = b.whenNotMatchedInsertAll();
        if (s.del) b = b.whenNotMatchedBySourceDelete({ where: s.del });
        const ref = await b.execute(input);

        const what = `step ${k + 1} (${s.what})`;
        assert.deepEqual([info.rows_updated, info.rows_inserted, info.rows_deleted],
                         [ref.numUpdatedRows, ref.numInsertedRows, ref.numDeletedRows], `${what}: counts`);
        assert.ok(info.rows_updated + info.rows_inserted > 0, `${what}: no change`);

        const refRows = await referenceRows(refDir, NAME);
        const oursByUs = ourText(ours);
        assert.equal(diffRows(refRows, oursByUs), null, `${what}: our copy differs from lance 12's`);
        assert.equal(diffRows(await referenceRows(dir, NAME), oursByUs), null,
                     `${what}: lance 12 reads ours differently`);
        assert.equal(diffRows(refRows, ourText(path.join(refDir, `${NAME}.lance`))), null,
                     `${what}: we read lance 12's copy differently`);

        // The missing columns of updated rows were kept, not nulled (checked on the values).
        const given = new Set(input.schema.fields.map((f) => f.name));
        for (const r of refRows) {
          const old = before.get(r.entries[0][1]);
          if (!old) continue;
          for (const [i, [col, v]] of r.entries.entries()) {
            if (given.has(col)) continue;
            assert.equal(plain(v), plain(old.entries[i][1]), `${what}: id ${r.entries[0][1]} column ${col}`);
            if (v !== null) kept++;
          }
        }
      }
      assert.ok(kept > 50, `only ${kept} kept values were checked`);
    });
  });
}

describe('merge-insert from a partial source: refusals, as lance 12 refuses', () => {
  test('a missing key, a missing non-nullable column for inserts, source.COL of a missing column', async () => {
    const dir = scratchDir('lance-merge-partial-bad-');
    const schema = new A.Schema([new A.Field('id', new A.Int64(), false),
                                 new A.Field('name', new A.Utf8(), false),
                                 new A.Field('score', new A.Float64(), true)]);
    const db = await lancedb.connect(dir);
    const t = await db.createTable('strict', lancedb.makeArrowTable(
      [{ id: 1n, name: 'a', score: 1.5 }, { id: 2n, name: 'b', score: 2.5 }], { schema }));
    const uri = path.join(dir, 'strict.lance');
    const write = (name, cols) => {
      const file = path.join(dir, `${name}.arrows`);
      fs.writeFileSync(file, toIPC(makeTable(cols, [2]), 'stream'));
      return file;
    };
    const scoreOnly = write('score', [COLUMNS.score([2, 3], 0)]);
    const idScore = write('idscore', [COLUMNS.id([2, 3]), COLUMNS.score([2, 3], 0)]);
    const versionBefore = await t.version();
    const before = ourText(uri);

    let r = lance(['merge-insert', uri, '--input', scoreOnly, '--on', 'id']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /lacks the key column 'id'/);
    r = lance(['merge-insert', uri, '--input', idScore, '--on', 'id']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /non-nullable column\(s\) 'name'/);
    r = lance(['merge-insert', uri, '--input', idScore, '--on', 'id', '--when-not-matched', 'nothing',
               '--when-matched-update-where', "source.name = 'x'"]);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /update condition/);
    assert.equal(ourText(uri), before);
    await t.checkoutLatest();
    assert.equal(await t.version(), versionBefore);

    const input = makeTable([COLUMNS.id([2, 3]), COLUMNS.score([2, 3], 0)], [2]);
    await assert.rejects(t.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(input),
                         /non-nullable and not provided by the source/);
    await assert.rejects(t.mergeInsert('id').whenMatchedUpdateAll({ where: "source.name = 'x'" }).execute(input),
                         /No field named source.name/);
    // Without inserts the same partial source updates, keeping the non-nullable name.
    const info = JSON.parse(lanceOk(['merge-insert', uri, '--input', idScore, '--on', 'id',
                                     '--when-not-matched', 'nothing']).stdout);
    assert.equal(info.rows_updated, 1);
    assert.equal(info.rows_inserted, 0);
    await t.checkoutLatest();
    assert.deepEqual((await t.query().toArray()).map((x) => [Number(x.id), x.name, x.score]),
                     [[1, 'a', 1.5], [2, 'b', input.getChild('score').get(0)]]);
  });
});
