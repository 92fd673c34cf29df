// Writes into datasets older Lance writers left (tests/golden/legacy: vectordb 0.4.20,
// lancedb 0.14.1 / 0.21.3 and the upstream corpus), both ways: lance-cpp deletes rows of a
// copy, lance 12 reads the result (every row, in order, with row ids) and keeps writing
// (a delete, and an append where its data storage version is one lance-cpp writes too), and
// lance-cpp reads what lance 12 wrote. What lance-cpp writes is what lance 12 writes into the
// same dataset (checked on a second copy): container 0.2, the dataset's manifest names and
// data storage version, its flags, the version hint, an untouched _latest.manifest, and for
// legacy (0.1) datasets the dictionary values the manifest file holds (v0_4_20/types: lance
// 12 reads its dictionary column through them). Where lance 12 refuses to write, lance-cpp
// refuses too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as lancedb from '@lancedb/lancedb';

import { diffRows, expectedRows } from './lib/canonical.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const legacy = path.join(here, '../golden/legacy');

// dataset (under tests/golden/legacy), first column, what lance-cpp can do there.
const DATASETS = [
  { rel: 'v0_4_20/types.lance', append: false },
  { rel: 'v0_4_20/vectors.lance', append: false },
  { rel: 'v0_4_20/batches.lance', append: false },
  { rel: 'v0_14_1/types.lance', append: false },
  { rel: 'v0_14_1/types_legacy.lance', append: false },
  { rel: 'v0_14_1/vectors.lance', append: false },
  { rel: 'v0_21_3/types.lance', append: true },
  { rel: 'v0_21_3/vectors.lance', append: true },
  { rel: 'upstream/v0.7.5/with_deletions.lance', append: false },
  { rel: 'upstream/v0.8.0/migrated_from_v0.7.5.lance', append: false },
  { rel: 'upstream/v0.20.0/old_btree_bitmap_indices.lance', append: false },
  { rel: 'upstream/0.36.0/btree_in_index_pkg.lance', append: false },
];

// A copy of dataset `rel` in a fresh directory: { dir, name, uri }.
function copy(rel, scratch, suffix) {
  const name = path.basename(rel, '.lance').replace(/[^A-Za-z0-9_]/g, '_') + suffix;
  const dir = fs.mkdtempSync(path.join(scratch, 'ds-'));
  fs.cpSync(path.join(legacy, rel), path.join(dir, `${name}.lance`), { recursive: true });
  return { dir, name, uri: path.join(dir, `${name}.lance`) };
}

// The newest version file of a dataset: its name, container version and the members of the
// manifest message this test compares (flags, data format, its files' versions).
function newest(uri) {
  const dir = path.join(uri, '_versions');
  const parse = (n) => {
    const m = /^(\d+)\.manifest$/.exec(n);
    if (!m) return null;
    return m[1].length === 20 ? 18446744073709551615n - BigInt(m[1]) : BigInt(m[1]);
  };
  const names = fs.readdirSync(dir).filter((n) => parse(n) !== null);
  names.sort((a, b) => (parse(a) < parse(b) ? -1 : 1));
  const name = names[names.length - 1];
  const buf = fs.readFileSync(path.join(dir, name));
  const pos = Number(buf.readBigUInt64LE(buf.length - 16));
  const container = `${buf.readUInt16LE(buf.length - 8)}.${buf.readUInt16LE(buf.length - 6)}`;
  const m = pb(buf.subarray(pos + 4, buf.length - 16));
  const df = m[15] ? pb(m[15][0]) : {};
  const text = (x) => (x ? Buffer.from(x[0]).toString('utf8') : '');
  const files = (m[2] || []).flatMap((f) => (pb(f)[2] || []).map((d) => {
    const x = pb(d);
    return `${Number(x[4]?.[0] ?? 0)}.${Number(x[5]?.[0] ?? 0)}`;
  }));
  return {
    naming: name.length === '18446744073709551615.manifest'.length ? 'v2' : 'legacy',
    container,
    reader_flags: Number(m[9]?.[0] ?? 0),
    writer_flags: Number(m[10]?.[0] ?? 0),
    data_format: `${text(df[1])} ${text(df[2])}`,
    file_versions: [...new Set(files)].sort(),
    hint: fs.existsSync(path.join(dir, 'latest_version_hint.json')),
    latest_manifest: fs.existsSync(path.join(uri, '_latest.manifest'))
      ? fs.readFileSync(path.join(uri, '_latest.manifest')).toString('base64') : null,
  };
}

// Minimal protobuf reader: field number -> [varint (BigInt) | bytes].
function pb(buf) {
  const out = {};
  let i = 0;
  const varint = () => {
    let r = 0n, s = 0n;
    for (;;) {
      const b = buf[i++];
      r |= BigInt(b & 0x7f) << s;
      s += 7n;
      if (!(b & 0x80)) return r;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const f = key >> 3, t = key & 7;
    if (t === 0) (out[f] ??= []).push(varint());
    else if (t === 2) {
      const l = Number(varint());
      (out[f] ??= []).push(buf.subarray(i, i + l));
      i += l;
    } else if (t === 1) i += 8;
    else if (t === 5) i += 4;
    else throw new Error(`wire type ${t}`);
  }
  return out;
}

async function lance12Rows(table) {
  return expectedRows(await table.query().withRowId().toArrow());
}

const scratch = scratchDir('lance-legacy-write-');

for (const d of DATASETS) {
  test(`lance-cpp writes into ${d.rel} as lance 12 does, and lance 12 continues`, async () => {
    const ours = copy(d.rel, scratch, '');
    const theirs = copy(d.rel, scratch, '_ref');
    const db = await lancedb.connect(ours.dir);
    const t = await db.openTable(ours.name);
    const col = (await t.schema()).fields[0].name;
    const before = await t.countRows();

    // The same delete by lance-cpp and by lance 12, on two copies.
    const res = JSON.parse(lanceOk(['delete', ours.uri, '--filter', `${col} = 1`]).stdout);
    const ref = await (await lancedb.connect(theirs.dir)).openTable(theirs.name);
    await ref.delete(`${col} = 1`);
    const a = newest(ours.uri), b = newest(theirs.uri);
    assert.deepEqual(a, b, 'the manifest lance-cpp writes matches lance 12\'s');
    assert.equal(a.container, '0.2');

    // lance 12 reads our version as its own.
    await t.checkoutLatest();
    assert.equal(await t.version(), res.version);
    assert.equal(await t.countRows(), before - res.deleted_rows);
    assert.equal(await t.countRows(), await ref.countRows());
    const want = await lance12Rows(ref);
    assert.equal(diffRows(await lance12Rows(t), lanceOk(['scan', ours.uri, '--with-row-id']).stdout), null);
    assert.equal(diffRows(want, lanceOk(['scan', ours.uri, '--with-row-id']).stdout), null);

    // lance 12 continues on our version; lance-cpp reads its result.
    await t.delete(`${col} = 2`);
    if (d.append) {
      const more = await t.query().limit(3).toArrow();
      await t.add(more);
      // and lance-cpp appends too (the dataset's storage version, 2.1)
      const file = path.join(scratch, 'more.jsonl');
      fs.writeFileSync(file, lanceOk(['scan', ours.uri, '--limit', '2']).stdout);
      const schema = path.join(scratch, 'schema.json');
      fs.writeFileSync(schema, lanceOk(['schema', ours.uri]).stdout);
      lanceOk(['create', ours.uri, '--mode', 'append', '--input', file, '--schema', schema]);
      assert.deepEqual(newest(ours.uri).file_versions, ['2.1']);
      await t.checkoutLatest();
    }
    assert.equal(diffRows(await lance12Rows(t), lanceOk(['scan', ours.uri, '--with-row-id']).stdout), null);
    assert.equal(Number(lanceOk(['count', ours.uri]).stdout.trim()), await t.countRows());
  });
}

test('where lance 12 refuses to write into an older dataset, lance-cpp refuses too', async () => {
  for (const rel of ['upstream/v0.16.0/wrong_data_version_can_fix.lance',
    'upstream/v0.16.0/wrong_data_version_no_fix.lance']) {
    const ours = copy(rel, scratch, '');
    const t = await (await lancedb.connect(ours.dir)).openTable(ours.name);
    const col = (await t.schema()).fields[0].name;
    await assert.rejects(t.delete(`${col} = 1`));
    const r = lance(['delete', ours.uri, '--filter', `${col} = 1`]);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /mixture of file versions/);
  }
  // Appends into legacy (0.1) and 2.0 storage need writers lance-cpp does not have: refused
  // with the reason (lance 12 writes legacy / 2.0 files there).
  for (const rel of ['v0_4_20/vectors.lance', 'v0_14_1/types.lance']) {
    const ours = copy(rel, scratch, '');
    const file = path.join(scratch, 'rows.jsonl');
    fs.writeFileSync(file, lanceOk(['scan', ours.uri, '--limit', '1']).stdout);
    const schema = path.join(scratch, 'schema.json');
    fs.writeFileSync(schema, lanceOk(['schema', ours.uri]).stdout);
    const r = lance(['create', ours.uri, '--mode', 'append', '--input', file, '--schema', schema]);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /NotSupported: data storage version '(0\.1|2\.0)' cannot be written/);
  }
});
