// Conditional merge-insert against the reference (lance 12): the same dataset (written and
// partly deleted by us) is copied; each step runs the same conditional merge-insert with
// `lance merge-insert` on our copy and with lance 12's
// `mergeInsert(on).whenMatchedUpdateAll({where}).whenNotMatchedBySourceDelete({where})` on
// the other. After every step:
//   * lance 12 reads our copy equal, row for row (sorted by id), to its own copy;
//   * we read both copies equal to that too;
//   * the counts we print (updated, inserted, deleted) equal lance 12's.
// The update conditions name the dataset's columns target.COL and the input's source.COL;
// the delete conditions are plain filters over the dataset's columns (what lance 12 accepts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { diffRows, expectedRows } from './lib/canonical.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable, toIPC } from './lib/gen.mjs';

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const idOf = (line) => BigInt(/^\{"id":(-?\d+)/.exec(line)[1]);

// Rows for ids `ids`: a nullable float64 score, a nullable string name and an int32 group,
// all varying with `seed` so that conditions hold for some matched rows and not others.
function rows(ids, seed) {
  const n = ids.length;
  const at = (f) => ids.map((id, i) => f(Number(id), i));
  return makeTable([
    { name: 'id', type: new A.Int64(), nullable: false, values: ids.map(BigInt) },
    { name: 'score', type: new A.Float64(),
      values: at((id) => ((id + seed) % 9 === 0 ? null : ((id * 37 + seed * 11) % 101) + 0.5)) },
    { name: 'name', type: new A.Utf8(),
      values: at((id) => ((id + seed) % 13 === 0 ? null : `n${(id * 7 + seed) % 5}`)) },
    { name: 'grp', type: new A.Int32(), values: at((id) => (id + seed) % 4) },
  ], [n]);
}

const range = (a, b, step = 1) => Array.from({ length: Math.ceil((b - a) / step) }, (_, i) => a + i * step);

function ourLines(uri) {
  const lines = lanceOk(['scan', uri]).stdout.split('\n').filter((l) => l).map((l) => l + '\n');
  return lines.sort((x, y) => cmp(idOf(x), idOf(y)));
}

async function referenceRows(dir, name) {
  const t = await (await lancedb.connect(dir)).openTable(name);
  const r = expectedRows(await t.query().toArrow()).slice();
  return r.sort((a, b) => cmp(a.entries[0][1], b.entries[0][1]));
}

// Each step: the input rows and the clauses (lance 12's builder calls and our options).
const STEPS = [
  { what: 'update where the score grows, insert the rest',
    input: () => rows(range(150, 260), 1),
    update: 'target.score < source.score', insert: true },
  { what: 'update where the name changes (nulls included), delete unmatched high scores or group 2',
    input: () => rows(range(0, 120, 3), 2),
    update: 'source.name <> target.name OR (target.name IS NULL AND source.name IS NOT NULL)',
    insert: false, del: 'score > 80 OR grp = 2' },
  { what: 'update within the same group only, insert, delete unmatched rows without a name',
    input: () => rows([...range(100, 200, 2), ...range(300, 320)], 3),
    update: 'target.grp = source.grp AND source.score IS NOT NULL', insert: true, del: 'name IS NULL' },
  { what: 'unconditional update, delete unmatched rows by id and score (null scores stay)',
    input: () => rows(range(40, 90, 5), 4),
    update: null, insert: false, del: 'id % 2 = 1 AND score < 50' },
];

describe('conditional merge-insert: lance 12 and lance-cpp agree', () => {
  let dir, ours, refDir;
  let current;  // our rows before the step
  const NAME = 'cond';
  before(() => {
    dir = scratchDir('lance-merge-cond-');
    refDir = path.join(dir, 'ref');
    fs.mkdirSync(refDir);
    ours = path.join(dir, `${NAME}.lance`);
    const base = path.join(dir, 'base.arrows');
    fs.writeFileSync(base, toIPC(rows(range(0, 240), 0), 'stream'));
    lanceOk(['create', ours, '--input', base, '--max-rows-per-file', '50']);
    lanceOk(['delete', ours, '--where', 'id % 11 = 4']);
    fs.cpSync(ours, path.join(refDir, `${NAME}.lance`), { recursive: true });
    current = ourLines(ours);
  });

  test('every step: both copies read equal by both, counts equal', async () => {
    const refTable = await (await lancedb.connect(refDir)).openTable(NAME);
    let sawSkippedMatch = false;
    for (const [k, s] of STEPS.entries()) {
      const input = s.input();
      const file = path.join(dir, `step${k}.arrows`);
      fs.writeFileSync(file, toIPC(input, 'stream'));
      const args = ['merge-insert', ours, '--input', file, '--on', 'id',
                    '--when-not-matched', s.insert ? 'insert' : 'nothing'];
      if (s.update) args.push('--when-matched-update-where', s.update);
      if (s.del) args.push('--when-not-matched-by-source-delete-where', s.del);
      const info = JSON.parse(lanceOk(args).stdout);

      let b = refTable.mergeInsert('id').whenMatchedUpdateAll(s.update ? { where: s.update } : undefined);
      if (s.insert) b = b.whenNotMatchedInsertAll();
      if (s.del) b = b.whenNotMatchedBySourceDelete({ where: s.del });
      const ref = await b.execute(input);

      const what = `step ${k + 1} (${s.what})`;
      assert.deepEqual([info.rows_updated, info.rows_inserted, info.rows_deleted],
                       [ref.numUpdatedRows, ref.numInsertedRows, ref.numDeletedRows], `${what}: counts`);
      assert.ok(info.rows_updated + info.rows_inserted + info.rows_deleted > 0, `${what}: no change`);
      if (s.update) {
        // Some input rows matched without being updated (the condition was not TRUE).
        const present = new Set(current.map(idOf));
        const matched = input.getChild('id').toArray().filter((id) => present.has(id)).length;
        if (info.rows_updated < matched) sawSkippedMatch = true;
      }

      const refRows = await referenceRows(refDir, NAME);
      const oursByRef = await referenceRows(dir, NAME);
      const oursByUs = ourLines(ours);
      const refByUs = ourLines(path.join(refDir, `${NAME}.lance`));
      assert.equal(diffRows(refRows, oursByUs.join('')), null, `${what}: our copy differs from lance 12's`);
      assert.equal(diffRows(oursByRef, oursByUs.join('')), null, `${what}: lance 12 reads ours differently`);
      assert.equal(diffRows(refRows, refByUs.join('')), null, `${what}: we read lance 12's copy differently`);
      current = oursByUs;
    }
    assert.ok(sawSkippedMatch, 'no step left a matched row alone');
  });

  test('unqualified names in the update condition and qualified ones in the delete are refused, as lance 12 does', async () => {
    const file = path.join(dir, 'bad.arrows');
    const input = rows(range(0, 5), 9);
    fs.writeFileSync(file, toIPC(input, 'stream'));
    const t = await (await lancedb.connect(dir)).openTable(NAME);
    const versionBefore = await t.version();
    for (const extra of [['--when-matched-update-where', 'score < 1'],
                         ['--when-not-matched-by-source-delete-where', 'target.score > 1']]) {
      const r = lance(['merge-insert', ours, '--input', file, '--on', 'id', ...extra]);
      assert.notEqual(r.status, 0, extra.join(' '));
      assert.match(r.stderr, /condition/);
    }
    await t.checkoutLatest();
    assert.equal(await t.version(), versionBefore);
    const refT = await (await lancedb.connect(refDir)).openTable(NAME);
    await assert.rejects(refT.mergeInsert('id').whenMatchedUpdateAll({ where: 'score < 1' }).execute(input),
                         /Ambiguous reference/);
    await assert.rejects(refT.mergeInsert('id').whenNotMatchedBySourceDelete({ where: 'target.score > 1' })
      .execute(input), /No field named target/);
  });
});
