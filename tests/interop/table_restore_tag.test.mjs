// Commits lance-cpp makes without new data files — restore and tags — read and continued by
// the reference (lance 12), and the reference's commits on top read back by lance-cpp.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { diffRows, expectedRows, rowsText } from './lib/canonical.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { buildEvolved } from './lib/table_gen.mjs';

async function rowsByRowId(table) {
  const t = await table.query().withRowId().toArrow();
  const ids = t.getChild('_rowid').toArray();
  const rows = expectedRows(t);
  const order = Array.from(rows.keys()).sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
  return order.map((i) => rows[i]);
}

function sortByRowId(text) {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const key = (l) => BigInt(/"_rowid":(\d+)/.exec(l)[1]);
  return lines.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).map((l) => l + '\n').join('');
}

test('restore and tags written by lance-cpp are used by the reference, and back', async () => {
  const dir = scratchDir('lance-table-restore-');
  const evo = await buildEvolved(dir);
  const last = evo.versions[evo.versions.length - 1];

  // Restore version 2 (before deletions, update and schema changes) as a new version.
  const restored = JSON.parse(lanceOk(['restore', evo.uri, '--version', '2']).stdout);
  assert.equal(restored.version, last + 1);
  lanceOk(['tag', 'create', evo.uri, 'ours', '--version', '3']);
  assert.notEqual(lance(['tag', 'create', evo.uri, 'ours', '--version', '1']).status, 0);

  const db = await lancedb.connect(dir);
  const t = await db.openTable('evolved');
  assert.equal(await t.version(), last + 1);
  await t.checkout(2);
  const v2 = await rowsByRowId(t);
  await t.checkoutLatest();
  assert.deepEqual((await t.schema()).fields.map((f) => f.name), ['id', 'x']);
  const latest = await rowsByRowId(t);
  assert.equal(rowsText(latest), rowsText(v2));
  assert.deepEqual(Object.keys(await (await t.tags()).list()), ['ours']);
  await t.checkout('ours');
  assert.equal(await t.version(), 3);
  await t.checkoutLatest();

  // The reference continues on top of our commit; we read its result, row ids included.
  await t.add([{ id: 1000n, x: 2.5 }]);
  await t.delete('id = 2');
  await (await t.tags()).create('theirs', last + 1);
  const want = await rowsByRowId(t);
  const out = sortByRowId(lanceOk(['scan', evo.uri, '--with-row-id']).stdout);
  assert.equal(diffRows(want, out), null);
  const tags = lanceOk(['tag', 'list', evo.uri]).stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(tags, [{ name: 'ours', version: 3 }, { name: 'theirs', version: last + 1 }]);
  lanceOk(['tag', 'delete', evo.uri, 'ours']);
  assert.deepEqual(Object.keys(await (await t.tags()).list()), ['theirs']);
});

test('racing restores from real processes: each version committed exactly once, losers get CommitConflict', async () => {
  const { spawn } = await import('node:child_process');
  const { LANCE_BIN } = await import('./lib/cli.mjs');
  const dir = scratchDir('lance-table-race-');
  const evo = await buildEvolved(dir);
  const before = evo.versions[evo.versions.length - 1];
  const run = (v) => new Promise((resolve) => {
    const p = spawn(LANCE_BIN, ['restore', evo.uri, '--version', String(v)]);
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => resolve({ code, out, err, v }));
  });
  const results = await Promise.all([1, 2, 3, 4, 1, 2, 3, 4].map(run));
  const won = results.filter((r) => r.code === 0).map((r) => ({ ...r, version: JSON.parse(r.out).version }));
  const lost = results.filter((r) => r.code !== 0);
  assert.ok(won.length >= 1);
  for (const r of lost) assert.match(r.err, /CommitConflict/, r.err);
  // No version was claimed twice, and each committed version holds the content its winner restored.
  const versions = won.map((r) => r.version).sort((a, b) => a - b);
  assert.equal(new Set(versions).size, versions.length);
  const listed = lanceOk(['versions', evo.uri]).stdout.trim().split('\n').map((l) => JSON.parse(l).version);
  assert.deepEqual(listed.slice(before), versions);
  for (const r of won) {
    const mine = lanceOk(['scan', evo.uri, '--version', String(r.version), '--with-row-id']).stdout;
    const source = lanceOk(['scan', evo.uri, '--version', String(r.v), '--with-row-id']).stdout;
    assert.equal(mine, source, `version ${r.version} restores ${r.v}`);
  }
  const db = await lancedb.connect(dir);
  const t = await db.openTable('evolved');
  assert.equal(await t.version(), versions[versions.length - 1]);
});

test('our restore writes a transaction the reference resolves conflicts against', async () => {
  const dir = scratchDir('lance-table-txn-');
  const evo = await buildEvolved(dir);
  const db = await lancedb.connect(dir);
  const stale = await db.openTable('evolved');  // reads the latest version, then keeps it
  const at = await stale.version();
  const restored = JSON.parse(lanceOk(['restore', evo.uri, '--version', '2']).stdout);
  assert.equal(restored.version, at + 1);
  // The reference's append built on the older version meets our Restore transaction and is
  // refused as incompatible (it found and decoded the transaction file we wrote).
  await assert.rejects(stale.add([{ id: 2000n, xx: 3.5, doubled: 7 }]), /Restore at version/);
  const fresh = await db.openTable('evolved');
  assert.equal(await fresh.version(), at + 1);
  assert.deepEqual((await fresh.schema()).fields.map((f) => f.name), ['id', 'x']);
  const m = JSON.parse(lanceOk(['manifest', evo.uri]).stdout);
  assert.match(m.transaction_file, new RegExp(`^${at}-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\\.txn$`));
});
