// Writes that change nothing still make a version, as lance 12 makes one: a delete whose
// filter matches no row, an update with no match, a merge-insert that neither updates nor
// inserts. Both ways: our versions are read by lance 12 (the same version numbers, the same
// rows at each, and it keeps writing on top), and we read the versions lance 12 makes
// (`lance versions` lists them, `lance scan --version` reads each equal to lance 12's reading).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { expectedRows, rowsText } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { toIPC } from './lib/gen.mjs';

const rowsOf = (ids, x) => A.tableFromArrays({ id: Int32Array.from(ids), x: Int32Array.from(ids.map(x)) });
const byId = (a, b) => a.id - b.id;
const textOf = (arrowTable) => rowsText(expectedRows(arrowTable).slice().sort((a, b) => Number(a.id) - Number(b.id)));
const ourText = (uri, version) =>
  lanceOk(['scan', uri, '--version', String(version)]).stdout.trim().split('\n').filter(Boolean)
    .map((l) => JSON.parse(l)).sort(byId).map((r) => JSON.stringify(r)).join('\n');
const normalized = (text) => text.trim().split('\n').filter(Boolean)
  .map((l) => JSON.stringify(JSON.parse(l))).join('\n');

describe('writes that change nothing make a version, both ways', () => {
  let dir;
  before(() => {
    dir = scratchDir('lance-noop-');
  });

  test('ours: empty delete, update and merge-insert are versions lance 12 reads and continues', async () => {
    const uri = path.join(dir, 'ours.lance');
    const input = path.join(dir, 'rows.arrows');
    fs.writeFileSync(input, toIPC(rowsOf([1, 2, 3], (i) => i * 10), 'stream'));
    lanceOk(['create', uri, '--input', input]);
    const upsert = path.join(dir, 'upsert.arrows');
    fs.writeFileSync(upsert, toIPC(rowsOf([1, 2], (i) => i * 100), 'stream'));
    const versions = [];
    versions.push(JSON.parse(lanceOk(['delete', uri, '--where', 'id > 100']).stdout).version);
    versions.push(JSON.parse(lanceOk(['update', uri, '--set', 'x=0', '--where', 'id > 100']).stdout).version);
    // Every input row matches and matched rows are left alone: nothing to insert or update.
    versions.push(JSON.parse(lanceOk(['merge-insert', uri, '--input', upsert, '--on', 'id',
                                      '--when-matched', 'nothing']).stdout).version);
    assert.deepEqual(versions, [2, 3, 4]);

    const db = await lancedb.connect(dir);
    const t = await db.openTable('ours');
    assert.equal(await t.version(), 4);
    const want = normalized(textOf(rowsOf([1, 2, 3], (i) => i * 10)));
    for (const v of [1, 2, 3, 4]) {
      await t.checkout(v);
      assert.equal(normalized(textOf(await t.query().toArrow())), want, `version ${v}`);
    }
    await t.checkoutLatest();
    await t.add(rowsOf([4], (i) => i));
    assert.equal(await t.version(), 5);
    assert.equal(ourText(uri, 5), normalized(textOf(rowsOf([1, 2, 3, 4], (i) => (i === 4 ? 4 : i * 10)))));
  });

  test('lance 12: its versions of no change are listed and read by us', async () => {
    const db = await lancedb.connect(dir);
    const t = await db.createTable('theirs', rowsOf([1, 2, 3], (i) => i * 10));
    await t.delete('id > 100');
    await t.update({ where: 'id > 100', values: { x: 0 } });
    await t.mergeInsert('id').whenMatchedUpdateAll().execute(rowsOf([9], (i) => i));
    await t.mergeInsert('id').whenNotMatchedInsertAll().execute(rowsOf([1], (i) => i));
    assert.equal(await t.version(), 5);
    const uri = path.join(dir, 'theirs.lance');
    const listed = lanceOk(['versions', uri]).stdout.trim().split('\n').map((l) => JSON.parse(l).version);
    assert.deepEqual(listed, [1, 2, 3, 4, 5]);
    for (const v of [1, 2, 3, 4, 5]) {
      await t.checkout(v);
      assert.equal(ourText(uri, v), normalized(textOf(await t.query().toArrow())), `version ${v}`);
    }
    // And we write on top of them.
    lanceOk(['delete', uri, '--where', 'id = 2']);
    await t.checkoutLatest();
    assert.equal(await t.version(), 6);
    assert.equal(await t.countRows(), 2);
  });
});
