// Row versions with stable row ids (_row_created_at_version / _row_last_updated_at_version),
// ours against lance 12 for the same sequence of operations: create, append, update, delete,
// merge-insert, compaction.
//   * rows an update or merge-insert moves keep their created-at version and are last
//     updated at the commit's version; inserted rows are created then; compaction keeps both;
//   * lance 12 reads those columns from every version of our dataset equal to its own
//     dataset's at the same version, and after both compactions;
//   * where the fragment layouts coincide (create .. delete), the manifests' version runs,
//     expanded per row, and row-id sequences are equal fragment by fragment.
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable, toIPC } from './lib/gen.mjs';

const narrow = (start, n, salt = 'a') => makeTable([
  { name: 'id', type: new A.Int64(), nullable: false, values: Array.from({ length: n }, (_, i) => BigInt(start + i)) },
  { name: 'v', type: new A.Utf8(), values: Array.from({ length: n }, (_, i) => `${salt}${start + i}`) },
], [n]);

// --- a minimal protobuf reader for the manifest's fragments --------------------------------
function fields(buf) {
  const out = [];
  let p = 0;
  const varint = () => {
    let r = 0n;
    let s = 0n;
    for (;;) {
      const b = buf[p++];
      r |= BigInt(b & 0x7f) << s;
      s += 7n;
      if (!(b & 0x80)) return r;
    }
  };
  while (p < buf.length) {
    const key = Number(varint());
    const f = key >> 3;
    const w = key & 7;
    if (w === 0) out.push([f, varint()]);
    else if (w === 2) {
      const l = Number(varint());
      out.push([f, buf.subarray(p, p + l)]);
      p += l;
    } else if (w === 1) {
      out.push([f, buf.readBigUInt64LE(p)]);
      p += 8;
    } else if (w === 5) {
      out.push([f, buf.readUInt32LE(p)]);
      p += 4;
    } else throw new Error(`wire type ${w}`);
  }
  return out;
}
const get = (fs_, k) => fs_.find(([x]) => x === k)?.[1];
const num = (v) => Number(v ?? 0n);

// The values of a U64Segment (rowids.proto): ranges, ranges with holes or a bitmap (bit i,
// least significant first, = start + i present), sorted or unsorted arrays.
function arrayValues(bytes) {
  const [[width, arr]] = fields(bytes);
  const a = fields(arr);
  const base = num(get(a, 1));
  const raw = get(a, 2) ?? Buffer.alloc(0);
  const w = width === 1 ? 2 : width === 2 ? 4 : 8;
  const out = [];
  for (let i = 0; i < raw.length; i += w) {
    out.push(base + (w === 2 ? raw.readUInt16LE(i) : w === 4 ? raw.readUInt32LE(i) : Number(raw.readBigUInt64LE(i))));
  }
  return out;
}
function segmentValues(bytes) {
  const [[kind, body]] = fields(bytes);
  if (kind === 4 || kind === 5) return arrayValues(body);
  const b = fields(body);
  const start = num(get(b, 1));
  const end = num(get(b, 2));
  const holes = kind === 2 && get(b, 3) ? new Set(arrayValues(get(b, 3))) : new Set();
  const bits = kind === 3 ? get(b, 3) : null;
  if (kind < 1 || kind > 3) throw new Error(`segment kind ${kind}`);
  const out = [];
  for (let v = start; v < end; v++) {
    const i = v - start;
    if (holes.has(v) || (bits && !(bits[i >> 3] & (1 << (i & 7))))) continue;
    out.push(v);
  }
  return out;
}
const expandRuns = (bytes) => (bytes ? fields(bytes).flatMap(([, run]) => {
  const r = fields(run);
  return Array(segmentValues(get(r, 1)).length).fill(num(get(r, 2)));
}) : null);

// Per fragment: id, physical rows, row ids, created-at and last-updated-at per physical row.
function manifestFragments(uri, version) {
  const dir = path.join(uri, '_versions');
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.manifest'))) {
    const buf = fs.readFileSync(path.join(dir, name));
    const pos = Number(buf.readBigUInt64LE(buf.length - 16));
    const m = fields(buf.subarray(pos + 4, pos + 4 + buf.readUInt32LE(pos)));
    if (num(get(m, 3)) !== version) continue;
    return m.filter(([k]) => k === 2).map(([, b]) => {
      const f = fields(b);
      return {
        id: num(get(f, 1)),
        rows: num(get(f, 4)),
        rowIds: fields(get(f, 5)).flatMap(([, s]) => segmentValues(s)),
        created: expandRuns(get(f, 9)),
        updated: expandRuns(get(f, 7)),
      };
    });
  }
  throw new Error(`no manifest of version ${version} in ${uri}`);
}

// lance 12's reading of the row-version columns, keyed by id.
async function versionRows(t) {
  const rows = await t.query().select(['id', 'v', '_row_created_at_version', '_row_last_updated_at_version'])
    .withRowId().toArray();
  return rows.map((r) => `${r.id} ${r.v} rowid=${r._rowid} created=${r._row_created_at_version} ` +
                         `updated=${r._row_last_updated_at_version}`).sort();
}

test('created-at / last-updated-at versions equal lance 12 through update, merge-insert and compaction', async () => {
  const dir = scratchDir('lance-row-versions-');
  const write = (name, table) => {
    const p = path.join(dir, `${name}.arrows`);
    fs.writeFileSync(p, toIPC(table, 'stream'));
    return p;
  };
  // Theirs.
  const db = await lancedb.connect(dir);
  const ref = await db.createTable('ref', narrow(0, 10), { storageOptions: { new_table_enable_stable_row_ids: 'true' } });
  await ref.add(narrow(10, 10));
  await ref.update({ where: 'id >= 3 AND id < 6', values: { v: 'u' } });
  await ref.delete('id = 12');
  await ref.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(narrow(18, 4, 'm'));
  assert.equal(await ref.version(), 5);
  // Ours.
  const uri = path.join(dir, 'ours.lance');
  lanceOk(['create', uri, '--input', write('r1', narrow(0, 10)), '--enable-stable-row-ids']);
  lanceOk(['create', uri, '--mode', 'append', '--input', write('r2', narrow(10, 10))]);
  lanceOk(['update', uri, '--set', "v = 'u'", '--where', 'id >= 3 AND id < 6']);
  lanceOk(['delete', uri, '--where', 'id = 12']);
  lanceOk(['merge-insert', uri, '--input', write('r3', narrow(18, 4, 'm')), '--on', 'id']);

  const refUri = path.join(dir, 'ref.lance');
  // Same fragment layout up to the delete: the manifests agree row by row.
  for (let v = 1; v <= 4; v++) {
    assert.deepEqual(manifestFragments(uri, v), manifestFragments(refUri, v), `version ${v}`);
  }
  const v3 = manifestFragments(uri, 3).find((f) => f.id === 2);
  assert.deepEqual(v3, { id: 2, rows: 3, rowIds: [3, 4, 5], created: [1, 1, 1], updated: [3, 3, 3] });

  const ours = await (await lancedb.connect(dir)).openTable('ours');
  const theirs = await (await lancedb.connect(dir)).openTable('ref');
  for (let v = 1; v <= 5; v++) {
    await ours.checkout(v);
    await theirs.checkout(v);
    assert.deepEqual(await versionRows(ours), await versionRows(theirs), `version ${v}`);
  }
  await ours.checkoutLatest();
  await theirs.checkoutLatest();
  const atFive = await versionRows(theirs);
  assert.ok(atFive.includes('19 m19 rowid=19 created=2 updated=5'), atFive.join('\n'));
  assert.ok(atFive.includes('21 m21 rowid=21 created=5 updated=5'), atFive.join('\n'));
  assert.ok(atFive.includes('4 u rowid=4 created=1 updated=3'), atFive.join('\n'));

  // Both compact: the versions survive unchanged.
  lanceOk(['compact', uri]);
  await theirs.optimize();
  const oursCompacted = await (await lancedb.connect(dir)).openTable('ours');
  const frags = manifestFragments(uri, await oursCompacted.version());
  assert.equal(frags.length, 1);
  assert.deepEqual(await versionRows(oursCompacted), atFive);
  assert.deepEqual(await versionRows(theirs), atFive);
  // Per row id, our compacted manifest says what lance 12's says.
  const perRowId = (fr) => fr.flatMap((f) => f.rowIds.map((id, i) => `${id}:${f.created[i]}/${f.updated[i]}`)).sort();
  const refFrags = manifestFragments(refUri, await theirs.version());
  assert.equal(refFrags.length, 1);
  assert.deepEqual(perRowId(frags), perRowId(refFrags));

  // Adding a column and changing a column's type rewrite every row's values (lance 12: last
  // updated now); renaming a column does not.
  await theirs.addColumns([{ name: 'w', valueSql: 'CAST(id * 2 AS INT)' }]);
  await theirs.alterColumns([{ path: 'w', rename: 'w2' }]);
  lanceOk(['add-columns', uri, '--expr', 'w=CAST(id * 2 AS INT)']);
  lanceOk(['alter-column', uri, 'w', '--rename', 'w2']);
  const oursAdded = await (await lancedb.connect(dir)).openTable('ours');
  const added = await versionRows(theirs);
  assert.ok(added.includes(`4 u rowid=4 created=1 updated=${(await theirs.version()) - 1}`), added.join('\n'));
  const relabel = (rowsOf, version) => rowsOf.map((l) => l.replace(/updated=\d+$/, (u) => (u === `updated=${version}` ? 'updated=NOW' : u)));
  assert.deepEqual(relabel(await versionRows(oursAdded), (await oursAdded.version()) - 1),
                   relabel(added, (await theirs.version()) - 1));
  await theirs.alterColumns([{ path: 'w2', dataType: new A.Int64() }]);
  lanceOk(['alter-column', uri, 'w2', '--type', 'bigint']);
  const oursCast = await (await lancedb.connect(dir)).openTable('ours');
  const cast = await versionRows(theirs);
  assert.ok(cast.includes(`4 u rowid=4 created=1 updated=${await theirs.version()}`), cast.join('\n'));
  assert.deepEqual(relabel(await versionRows(oursCast), await oursCast.version()),
                   relabel(cast, await theirs.version()));
});
