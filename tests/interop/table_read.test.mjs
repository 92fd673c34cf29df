// Reading reference-written datasets: for every version of a table lance 12 built (appends,
// small and large deletions, a tag), `lance scan/count/take/versions/manifest` must give
// exactly the reference's rows (every row, every column, nulls included).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { diffRows, expectedRows, Obj } from './lib/canonical.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { schemaToJson } from './lib/schema.mjs';
import { buildBigDeletes, buildEvolved, buildHistory } from './lib/table_gen.mjs';

// Our schema JSON without the Lance field ids (the Arrow view has none).
function withoutIds(v) {
  if (Array.isArray(v)) return v.map(withoutIds);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'id').map(([k, x]) => [k, withoutIds(x)]));
  }
  return v;
}

// Output lines ordered by their _rowid (stable row ids need not follow scan order).
function byRowId(text) {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const key = (l) => BigInt(/"_rowid":(\d+)/.exec(l)[1]);
  return lines.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).map((l) => l + '\n').join('');
}

// The reference's rows of one version, ordered by row address (= scan order of fragments).
async function referenceRows(table, version, { columns, withRowId = false } = {}) {
  await table.checkout(version);
  const t = await table.query().withRowId().toArrow();
  const ids = t.getChild('_rowid').toArray();
  const rows = expectedRows(t);
  const names = t.schema.fields.map((f) => f.name);
  const order = Array.from(rows.keys()).sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
  const keep = columns ?? names.filter((n) => n !== '_rowid');
  const want = withRowId ? [...keep, '_rowid'] : keep;
  return order.map((i) => {
    const entries = new Map(rows[i].entries.map(([k, v]) => [k, v]));
    return new Obj(want.map((k) => [k, entries.get(k)]));
  });
}

describe('lance reads reference-written datasets', () => {
  let h;
  let big;
  let evo;
  before(async () => {
    const dir = scratchDir('lance-table-read-');
    h = await buildHistory(dir);
    big = await buildBigDeletes(dir);
    evo = await buildEvolved(dir);
  });

  test('stable row ids, update, added and renamed columns: every version', async () => {
    const m = JSON.parse(lanceOk(['manifest', evo.uri]).stdout);
    assert.deepEqual(m.reader_feature_flags.names, ['deletion_files', 'stable_row_ids']);
    for (const v of evo.versions) {
      const want = await referenceRows(evo.table, v, { withRowId: true });
      const out = byRowId(lanceOk(['scan', evo.uri, '--version', String(v), '--with-row-id']).stdout);
      const diff = diffRows(want, out);
      assert.equal(diff, null, `version ${v}: ${diff}`);
      const schema = withoutIds(JSON.parse(lanceOk(['schema', evo.uri, '--version', String(v)]).stdout));
      assert.deepEqual(schema, JSON.parse(schemaToJson(await evo.table.schema())), `schema at version ${v}`);
    }
  });

  test('take by row id (stable ids and row addresses) equals the reference', async () => {
    for (const t of [evo, h]) {
      await t.table.checkout(t.versions[t.versions.length - 1]);
      const all = await t.table.query().withRowId().toArrow();
      const ids = Array.from(all.getChild('_rowid').toArray());
      const pick = [ids[ids.length - 1], ids[0], ids[Math.floor(ids.length / 2)], ids[1]];
      // The reference returns the rows in its own order: compare both sides sorted by row id.
      const ref = await t.table.takeRowIds(pick).withRowId().toArrow();
      const refIds = ref.getChild('_rowid').toArray();
      const refRows = expectedRows(ref);
      const want = Array.from(refRows.keys())
        .sort((a, b) => (refIds[a] < refIds[b] ? -1 : refIds[a] > refIds[b] ? 1 : 0)).map((i) => refRows[i]);
      assert.equal(want.length, pick.length);
      const out = lanceOk(['take', t.uri, '--row-ids', pick.join(','), '--with-row-id']).stdout;
      assert.equal(out.trim().split('\n').length, pick.length);
      assert.equal(diffRows(want, byRowId(out)), null, t.uri);
    }
    // A deleted row's id gives nothing.
    const deleted = 3n;  // id 3 of the history table is deleted at v4 (id % 10 = 3), address 3
    assert.equal(lanceOk(['take', h.uri, '--row-ids', String(deleted)]).stdout, '');
  });

  test('schema of every type equals the reference', async () => {
    await h.table.checkout(h.versions[h.versions.length - 1]);
    const ours = withoutIds(JSON.parse(lanceOk(['schema', h.uri]).stdout));
    assert.deepEqual(ours, JSON.parse(schemaToJson(await h.table.schema())));
  });

  test('the histories have the expected shape (several fragments, both deletion formats)', () => {
    assert.deepEqual(h.versions, [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(big.versions, [1, 2, 3, 4]);
    const dels = fs.readdirSync(path.join(h.uri, '_deletions'));
    assert.ok(dels.some((f) => f.endsWith('.arrow')), dels.join(','));
    assert.ok(dels.some((f) => f.endsWith('.bin')), dels.join(','));
    const bigDels = fs.readdirSync(path.join(big.uri, '_deletions'));
    assert.ok(bigDels.some((f) => f.endsWith('.bin')), bigDels.join(','));
  });

  test('every version of both tables: scan and count equal the reference', async () => {
    for (const [t, v] of [...h.versions.map((v) => [h, v]), ...big.versions.map((v) => [big, v])]) {
      const want = await referenceRows(t.table, v, { withRowId: true });
      const out = lanceOk(['scan', t.uri, '--version', String(v), '--with-row-id']).stdout;
      const diff = diffRows(want, out);
      assert.equal(diff, null, `${t.uri} version ${v}: ${diff}`);
      assert.equal(lanceOk(['count', t.uri, '--version', String(v)]).stdout.trim(),
                   String(await t.table.countRows()), `count at version ${v}`);
    }
    const small = await referenceRows(big.table, 3);
    assert.equal(diffRows(small, lanceOk(['scan', big.uri, '--tag', 'small_deletes']).stdout), null);
  });

  test('every version without row ids (plain scan)', async () => {
    for (const v of h.versions) {
      const want = await referenceRows(h.table, v);
      const out = lanceOk(['scan', h.uri, '--version', String(v)]).stdout;
      const diff = diffRows(want, out);
      assert.equal(diff, null, `version ${v}: ${diff}`);
      assert.equal(lanceOk(['count', h.uri, '--version', String(v)]).stdout.trim(),
                   String(await h.table.countRows()), `count at version ${v}`);
    }
  });

  test('latest version opens by default and equals the newest', async () => {
    const latest = h.versions[h.versions.length - 1];
    const want = await referenceRows(h.table, latest);
    assert.equal(diffRows(want, lanceOk(['scan', h.uri]).stdout), null);
  });

  test('tag, projection, row ids, limit/offset and take', async () => {
    const tagged = await referenceRows(h.table, 4);
    assert.equal(diffRows(tagged, lanceOk(['scan', h.uri, '--tag', 'before_range_delete']).stdout), null);

    const cols = ['struct', 'id', 'utf8'];
    const proj = await referenceRows(h.table, 5, { columns: cols, withRowId: true });
    const out = lanceOk(['scan', h.uri, '--version', '5', '--columns', cols.join(','), '--with-row-id']).stdout;
    assert.equal(diffRows(proj, out), null);

    const all = await referenceRows(h.table, 7, { columns: ['id', 'float64'] });
    for (const [offset, limit] of [[0, 5], [250, 40], [all.length - 3, 10], [all.length, 5]]) {
      const got = lanceOk(['scan', h.uri, '--columns', 'id,float64', '--offset', String(offset),
                           '--limit', String(limit)]).stdout;
      assert.equal(diffRows(all.slice(offset, offset + limit), got), null, `offset ${offset} limit ${limit}`);
    }
    const offsets = [all.length - 1, 0, 7, 300, 299, 7];
    const took = lanceOk(['take', h.uri, '--columns', 'id,float64', '--offsets', offsets.join(',')]).stdout;
    assert.equal(diffRows(offsets.map((o) => all[o]), took), null);
    assert.notEqual(lance(['take', h.uri, '--offsets', String(all.length)]).status, 0);
  });

  test('versions and manifest agree with the reference', async () => {
    const ours = lanceOk(['versions', h.uri]).stdout.trim().split('\n').map((l) => JSON.parse(l));
    const ref = await h.table.listVersions();
    assert.deepEqual(ours.map((v) => v.version), ref.map((v) => v.version));
    for (let i = 0; i < ref.length; i++) {
      assert.equal(Math.floor(Number(BigInt(ours[i].timestamp_ns) / 1000000n)), ref[i].timestamp.getTime());
      assert.equal(String(ours[i].num_rows), ref[i].metadata.total_rows);
      assert.equal(String(ours[i].num_fragments), ref[i].metadata.total_fragments);
    }
    const m = JSON.parse(lanceOk(['manifest', h.uri, '--version', '5']).stdout);
    assert.equal(m.version, 5);
    assert.deepEqual(m.reader_feature_flags.names, ['deletion_files']);
    assert.equal(m.data_format.version, '2.2');
    assert.ok(m.fragments.some((f) => f.deletion_file && f.deletion_file.type === 'arrow_array'));
    const mb = JSON.parse(lanceOk(['manifest', big.uri]).stdout);
    assert.equal(mb.version, 4);
    assert.ok(mb.fragments.some((f) => f.deletion_file && f.deletion_file.type === 'bitmap'));
  });
});
