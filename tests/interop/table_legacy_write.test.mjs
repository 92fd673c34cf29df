// Writes into datasets older Lance writers left (tests/golden/legacy: vectordb 0.4.20,
// lancedb 0.14.1 / 0.21.3 and the upstream corpus), both ways: lance-cpp deletes rows of a
// copy, lance 12 reads the result (every row, in order, with row ids) and keeps writing
// (a delete, and an append where its data storage version is one lance-cpp writes too), and
// lance-cpp reads what lance 12 wrote. What lance-cpp writes is what lance 12 writes into the
// same dataset (checked on a second copy): container 0.2, the dataset's manifest names and
// data storage version, its flags, the version hint, an untouched _latest.manifest, and for
// legacy (0.1) datasets the dictionary values the manifest file holds (v0_4_20/types: lance
// 12 reads its dictionary column through them). Where lance 12 refuses to write, lance-cpp
// refuses too. Into legacy (0.1) and 2.0 datasets lance-cpp appends, updates and merge-inserts
// v1 / 2.0 files (OLDER below): lance 12 reads them as the same rows it reads after doing the
// same itself, and continues (append + delete) on the result, which lance-cpp reads.
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
  // Older index entries lance 12 migrates on commit: vector details read from the index files,
  // fragment bitmaps recomputed from its row ids (a writer before 0.8.15; overlapping delta
  // bitmaps), index_version and the index files filled in.
  { rel: 'upstream/v0.8.14/corrupt_index.lance', append: false, filter: 'id = 100' },
  { rel: 'upstream/v0.21.0/bad_index_fragment_bitmap.lance', append: false, col: '_rowid' },
  { rel: 'upstream/v0.27.1/pq_in_schema.lance', append: false, col: 'id' },
  { rel: 'upstream/v0.18.2/index_no_details.lance', append: false },
  { rel: 'upstream/0.27.0/legacy_fts_index.lance', append: false, filter: "text = 'frodo was a puppy'" },
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
  // lance 12 records the size of every data file on commit (older writers left it unset).
  const unsized = (m[2] || []).flatMap((f) => (pb(f)[2] || []).filter((d) => !pb(d)[6])).length;
  const num = (x) => Number(x?.[0] ?? 0);
  // The schema with its field ids (lance 12 renumbers duplicated ids on commit).
  const schema = (m[1] || []).map((f) => {
    const x = pb(f);
    return `${text(x[2])}:${int32s(x[3])[0] ?? 0}:${int32s(x[4])[0] ?? 0}`;
  });
  // Each fragment's counts and its data files' field ids and columns (the paths of new files
  // differ; the schema fix drops files and renumbers their ids).
  const fragments = (m[2] || []).map((f) => {
    const x = pb(f);
    const del = x[3] ? pb(x[3][0]) : null;
    return {
      id: num(x[1]),
      physical_rows: num(x[4]),
      deleted: del ? num(del[4]) : null,
      files: (x[2] || []).map((d) => {
        const y = pb(d);
        return `${int32s(y[2]).join(',')}|${int32s(y[3]).join(',')}`;
      }),
    };
  });
  return {
    schema,
    fragments,
    indices: indexSection(buf, m),
    naming: name.length === '18446744073709551615.manifest'.length ? 'v2' : 'legacy',
    container,
    reader_flags: Number(m[9]?.[0] ?? 0),
    writer_flags: Number(m[10]?.[0] ?? 0),
    data_format: `${text(df[1])} ${text(df[2])}`,
    file_versions: [...new Set(files)].sort(),
    unsized,
    hint: fs.existsSync(path.join(dir, 'latest_version_hint.json')),
    latest_manifest: fs.existsSync(path.join(uri, '_latest.manifest'))
      ? fs.readFileSync(path.join(uri, '_latest.manifest')).toString('base64') : null,
  };
}

// The index section of a manifest file `buf` (message `m`), every member of every entry:
// what lance 12 migrates on commit (index_version, the files list, ...) and what it keeps.
// The files are compared as a set: lance 12 lists them in the directory's order.
function indexSection(buf, m) {
  if (!m[6]) return null;
  const pos = Number(m[6][0]);
  const sec = pb(buf.subarray(pos + 4, pos + 4 + buf.readUInt32LE(pos)));
  const hex = (x) => (x ? Buffer.from(x[0]).toString('hex') : null);
  return (sec[1] || []).map((e) => {
    const x = pb(e);
    const details = x[6] ? pb(x[6][0]) : null;
    return {
      uuid: x[1] ? hex(pb(x[1][0])[1]) : null,
      fields: int32s(x[2]),
      name: x[3] ? Buffer.from(x[3][0]).toString('utf8') : '',
      dataset_version: Number(x[4]?.[0] ?? 0),
      fragment_bitmap: hex(x[5]),
      details: details ? { type_url: Buffer.from(details[1]?.[0] ?? []).toString('utf8'), value: hex(details[2]) } : null,
      index_version: x[7] ? Number(x[7][0]) : null,
      created_at: x[8] ? Number(x[8][0]) : null,
      base_id: x[9] ? Number(x[9][0]) : null,
      files: (x[10] || []).map((f) => {
        const y = pb(f);
        return `${Buffer.from(y[1]?.[0] ?? []).toString('utf8')}:${Number(y[2]?.[0] ?? 0)}`;
      }).sort(),
      covering_fields: int32s(x[11]),
    };
  });
}

// The int32 values of a repeated member (packed or not; negative ones as 10-byte varints).
function int32s(x) {
  const out = [];
  for (const v of x || []) {
    if (typeof v === 'bigint') {
      out.push(Number(BigInt.asIntN(32, v)));
      continue;
    }
    let r = 0n, s = 0n;
    for (const b of v) {
      r |= BigInt(b & 0x7f) << s;
      s += 7n;
      if (!(b & 0x80)) {
        out.push(Number(BigInt.asIntN(32, r)));
        r = 0n;
        s = 0n;
      }
    }
  }
  return out;
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
    const col = d.col ?? (await t.schema()).fields[0].name;
    const first = d.filter ?? `${col} = 1`;
    const before = await t.countRows();

    // The same delete by lance-cpp and by lance 12, on two copies.
    const res = JSON.parse(lanceOk(['delete', ours.uri, '--filter', first]).stdout);
    assert.ok(res.deleted_rows > 0, first);
    const ref = await (await lancedb.connect(theirs.dir)).openTable(theirs.name);
    await ref.delete(first);
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
    await t.delete(d.filter ? `not (${d.filter})` : `${col} = 2`);
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

// Datasets whose data storage version is legacy (0.1: v1 files, footer 0.2) or 2.0 (footer
// 0.3): lance 12 writes files of that version into them, and so does lance-cpp.
const OLDER = [
  // lance 12 refuses merge-inserts into the two legacy datasets with a dictionary column
  // (even of rows it read there: "dictionary for `dict` did not match expected dictionary":
  // it compares the input's schema with the manifest's stored dictionaries); so do we.
  { rel: 'v0_4_20/types.lance', storage: '0.1', mergeInsertRefused: true },
  { rel: 'v0_4_20/vectors.lance', storage: '0.1' },
  { rel: 'v0_4_20/batches.lance', storage: '0.1' },
  { rel: 'v0_14_1/types.lance', storage: '2.0' },
  { rel: 'v0_14_1/types_legacy.lance', storage: '0.1', mergeInsertRefused: true },
  { rel: 'v0_14_1/vectors.lance', storage: '2.0' },
  { rel: 'upstream/v0.7.5/with_deletions.lance', storage: '0.1' },
  { rel: 'upstream/v0.8.0/migrated_from_v0.7.5.lance', storage: '0.1' },
  { rel: 'upstream/v0.20.0/old_btree_bitmap_indices.lance', storage: '2.0' },
  { rel: 'upstream/0.36.0/btree_in_index_pkg.lance', storage: '2.0' },
];

// The page statistics (`lance file info`) of the data file of the newest fragment of `uri`.
function appendedStatistics(uri) {
  const m = JSON.parse(lanceOk(['manifest', uri]).stdout);
  const frag = m.fragments[m.fragments.length - 1];
  const info = JSON.parse(lanceOk(['file', 'info', path.join(uri, 'data', frag.files[0].path)]).stdout);
  return info.statistics ?? [];
}

// Rows of `uri` (lance-cpp's scan, first `n`) as a JSONL input with its schema file.
function inputOf(uri, n, scratchFile) {
  const file = `${scratchFile}.jsonl`;
  fs.writeFileSync(file, lanceOk(['scan', uri, '--limit', String(n)]).stdout);
  const schema = `${scratchFile}.schema.json`;
  fs.writeFileSync(schema, lanceOk(['schema', uri]).stdout);
  return { file, schema };
}

for (const d of OLDER) {
  test(`lance-cpp appends ${d.storage} files into ${d.rel} as lance 12 does, both continue`, async () => {
    const manifest = JSON.parse(lanceOk(['manifest', path.join(legacy, d.rel)]).stdout);
    assert.equal(manifest.data_format.version, d.storage);
    assert.equal(manifest.container_version, '0.1', 'older writers wrote container 0.1');
    const ours = copy(d.rel, scratch, '');
    const theirs = copy(d.rel, scratch, '_ref');
    const t = await (await lancedb.connect(ours.dir)).openTable(ours.name);
    const ref = await (await lancedb.connect(theirs.dir)).openTable(theirs.name);
    const col = (await t.schema()).fields[0].name;

    // The same three rows appended by lance-cpp (from its scan) and by lance 12 (from its own).
    const input = inputOf(ours.uri, 3, path.join(scratch, `${ours.name}-in`));
    lanceOk(['create', ours.uri, '--mode', 'append', '--input', input.file, '--schema', input.schema]);
    await ref.add(await ref.query().limit(3).toArrow());
    const a = newest(ours.uri), b = newest(theirs.uri);
    assert.deepEqual(a, b, 'the manifest lance-cpp writes matches lance 12\'s');
    assert.equal(a.container, '0.2');
    assert.equal(JSON.parse(lanceOk(['manifest', ours.uri]).stdout).container_version, '0.2');
    assert.ok(a.file_versions.includes(d.storage === '0.1' ? '0.2' : '2.0'), a.file_versions.join());
    if (d.storage === '0.1') {
      // lance 12's v1 writer keeps page statistics (null count, min, max per batch) of the
      // fields it supports; so does lance-cpp's, with the same values.
      const ourStats = appendedStatistics(ours.uri), theirStats = appendedStatistics(theirs.uri);
      assert.ok(theirStats.length > 0 && Object.keys(theirStats[0]).length > 0);
      assert.deepEqual(ourStats, theirStats, 'the appended v1 file\'s page statistics');
    }
    await t.checkoutLatest();
    const want = await lance12Rows(ref);
    assert.deepEqual(await lance12Rows(t), want, 'lance 12 reads our rows as its own');
    assert.equal(diffRows(want, lanceOk(['scan', ours.uri, '--with-row-id']).stdout), null);

    // Update by lance-cpp, the same by lance 12 on its copy: the same rows with the same ids.
    lanceOk(['update', ours.uri, '--set', `${col}=${col} + 1000`, '--where', `${col} = 3`]);
    await ref.update({ where: `${col} = 3`, valuesSql: { [col]: `${col} + 1000` } });
    assert.deepEqual(newest(ours.uri), newest(theirs.uri));
    await t.checkoutLatest();
    assert.deepEqual(await lance12Rows(t), await lance12Rows(ref), 'update');
    // Merge-insert: the same rows in the same order (updated rows in the input's order, then
    // the inserted ones) with the same ids.
    const up = inputOf(ours.uri, 2, path.join(scratch, `${ours.name}-up`));
    const merge = async () => ref.mergeInsert(col).whenMatchedUpdateAll().whenNotMatchedInsertAll()
      .execute(await ref.query().limit(2).toArrow());
    if (d.mergeInsertRefused) {
      // Both refuse, with the same words, and neither copy changes.
      const before = newest(ours.uri);
      await assert.rejects(merge(), /dictionary for `dict` did not match expected dictionary/);
      const r = lance(['merge-insert', ours.uri, '--input', up.file, '--schema', up.schema, '--on', col]);
      assert.notEqual(r.status, 0, 'lance-cpp refuses the merge-insert as lance 12 does');
      assert.match(r.stderr, /dictionary for `dict` did not match expected dictionary/);
      assert.ok(r.stderr.includes(`merge-insert into ${path.resolve(ours.uri)}:`), r.stderr);
      assert.deepEqual(newest(ours.uri), before, 'the refused merge-insert committed nothing');
    } else {
      lanceOk(['merge-insert', ours.uri, '--input', up.file, '--schema', up.schema, '--on', col]);
      await merge();
      assert.deepEqual(newest(ours.uri), newest(theirs.uri));
      await t.checkoutLatest();
      assert.deepEqual(await lance12Rows(t), await lance12Rows(ref), 'merge-insert');
    }

    // lance 12 continues on our result (append + delete); lance-cpp reads what it wrote.
    await t.add(await t.query().limit(2).toArrow());
    await t.delete(`${col} = 2`);
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
});

// lance 0.10's add/drop-columns bug left field ids listed by two data files of a fragment
// (upstream v0.10.5/corrupt_schema). On commit lance 12 gives each such id a new one in the
// last file listing it (fix_schema); in v1 data files, which find their columns by the ids of
// their own schema, that leaves a version lance 12 cannot read. lance-cpp refuses to commit
// instead, and the dataset keeps reading as before.
test('the duplicate-field-id fix into v1 files: lance 12 commits an unreadable version, lance-cpp refuses', async () => {
  const rel = 'upstream/v0.10.5/corrupt_schema.lance';
  const ours = copy(rel, scratch, '');
  const theirs = copy(rel, scratch, '_ref');
  const ref = await (await lancedb.connect(theirs.dir)).openTable(theirs.name);
  const before = await lance12Rows(ref);
  await ref.delete('x = 1');
  const fixed = newest(theirs.uri);
  // What lance 12's fix did: b and c (ids 2, 3) renumbered 4, 5 in the last file listing
  // them, the file left with neither dropped.
  assert.deepEqual(fixed.schema, ['x:0:-1', 'y:1:-1', 'b:4:-1', 'c:5:-1']);
  assert.deepEqual(fixed.fragments.map((f) => f.files),
    [['0|', '1,2|', '4,5|'], ['0,1,2,3|', '4,5|']]);
  await assert.rejects(ref.query().toArrow(), /No page info found for field: b, field_id=4/);

  const was = newest(ours.uri);
  const r = lance(['delete', ours.uri, '--filter', 'x = 1']);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /field id 2 is listed by more than one data file of fragment 0/);
  assert.match(r.stderr, /neither lance 12 nor lance-cpp can read/);
  assert.deepEqual(newest(ours.uri), was, 'nothing committed');
  const t = await (await lancedb.connect(ours.dir)).openTable(ours.name);
  assert.deepEqual(await lance12Rows(t), before);
  assert.equal(diffRows(before, lanceOk(['scan', ours.uri, '--with-row-id']).stdout), null);
});
