// Compressed Arrow IPC against a real peer: the reference lance 12 (Rust arrow-ipc inside
// @lancedb/lancedb 0.39.0). apache-arrow JS cannot read or write IPC body compression, so:
//  - lance writes deletion files as ZSTD-compressed Arrow IPC files: `lance ipc cat` must
//    print exactly the deleted row offsets, and `lance ipc convert` must turn the file into
//    one apache-arrow reads with the same rows;
//  - the Rust reader must accept our compressed (zstd, lz4) and uncompressed IPC files: a
//    lance table is created straight from our bytes (the native createTable takes an Arrow
//    IPC file) and scanned back, rows equal to the apache-arrow original.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';
import * as A from 'apache-arrow';

import { canonicalLines, diffRows, expectedRows, Obj, parseJsonLines } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { allColumns, BATCHES, makeTable, toIPC } from './lib/gen.mjs';
import { describeSchema } from './lib/schema.mjs';

const dir = scratchDir();

function listFiles(d) {
  return fs.readdirSync(d, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(d, e.name)) : [path.join(d, e.name)]));
}

// The deletion file of fragment 0 with the highest read version (the cumulative one).
function latestDeletionFile(tableDir) {
  const files = listFiles(path.join(tableDir, '_deletions')).filter((f) => f.endsWith('.arrow'));
  assert.ok(files.length > 0, 'lance wrote no .arrow deletion file');
  const version = (f) => Number(path.basename(f).split('-')[1]);
  return files.sort((a, b) => version(a) - version(b)).at(-1);
}

function rowIdsOf(jsonLines) {
  return parseJsonLines(jsonLines).map((row) => {
    assert.ok(row instanceof Obj && row.entries.length === 1 && row.entries[0][0] === 'row_id',
              'deletion rows are {"row_id": n}');
    assert.match(row.entries[0][1].raw, /^\d+$/);
    return Number(row.entries[0][1].raw);
  });
}

describe('lance 12 writes ZSTD-compressed IPC, lance-cpp reads it', () => {
  test('deletion files: cat gives the deleted offsets; convert gives a file apache-arrow reads', async () => {
    const db = await lancedb.connect(path.join(dir, 'deletions'));
    const n = 300;
    const tbl = await db.createTable('t', Array.from({ length: n }, (_, i) => ({ id: i, s: `row ${i}` })));
    const tableDir = path.join(dir, 'deletions', 't.lance');
    const deleted = new Set();

    for (const [predicate, pick] of [['id % 7 = 3', (i) => i % 7 === 3], ['id < 20 OR id >= 290', (i) => i < 20 || i >= 290]]) {
      await tbl.delete(predicate);
      for (let i = 0; i < n; i++) if (pick(i)) deleted.add(i);
      const file = latestDeletionFile(tableDir);
      const bytes = fs.readFileSync(file);
      assert.throws(() => A.tableFromIPC(bytes), /compression not implemented/, 'lance compresses deletion files');

      const out = lanceOk(['ipc', 'cat', file]).stdout;
      const ids = rowIdsOf(out);
      assert.deepEqual([...ids].sort((a, b) => a - b), [...deleted].sort((a, b) => a - b), `after ${predicate}`);

      const plain = path.join(dir, `deletions_${deleted.size}.arrow`);
      lanceOk(['ipc', 'convert', file, plain]);
      const back = A.tableFromIPC(fs.readFileSync(plain));
      assert.equal(describeSchema(back.schema), describeSchema(
        new A.Schema([new A.Field('row_id', new A.Uint32(), false)])));
      assert.equal(diffRows(expectedRows(back), out), null, 'same rows, same order');
    }
    assert.equal(await tbl.countRows(), n - deleted.size);
  });
});

// Columns lance 12 can store: it rejects timestamps with an offset time zone ("+05:30", it
// panics), NaN in fixed_size_list<float32> ("vector column contains NaN") and panics on
// fixed_size_list<utf8>.
function lanceFriendlyTable() {
  const { cols, dicts } = allColumns();
  const ok = cols.filter((c) => !/^(timestamp_ms_offset|fixed_size_list_float32|fixed_size_list_utf8)/.test(c.name));
  return makeTable(ok, BATCHES, { dicts, metadata: { source: 'lance-cpp interop' } });
}

describe('lance-cpp writes IPC files, lance 12 reads them', () => {
  const table = lanceFriendlyTable();
  const input = path.join(dir, 'friendly.arrow');
  fs.writeFileSync(input, toIPC(table, 'file'));
  let db;

  for (const codec of ['zstd', 'lz4', 'none']) {
    test(`${codec}: a lance table created from our IPC file scans back equal`, async () => {
      db ??= await lancedb.connect(path.join(dir, 'readers'));
      const ours = path.join(dir, `friendly_${codec}.arrow`);
      lanceOk(['ipc', 'convert', input, ours, ...(codec === 'none' ? [] : ['--compression', codec])]);
      const bytes = fs.readFileSync(ours);
      if (codec !== 'none') {
        assert.throws(() => A.tableFromIPC(bytes), /compression not implemented/, 'output is compressed');
      }
      // The native createTable reads an Arrow IPC file with Rust's arrow-ipc.
      await db.inner.createTable(`t_${codec}`, bytes, 'create', [], undefined);
      const back = await (await db.openTable(`t_${codec}`)).query().toArrow();
      const d = diffRows(expectedRows(table), canonicalLines(back));
      if (d) assert.fail(d);
    });
  }
});

// apache-arrow has no large_list type, so large_list (and large_utf8 offsets) written by
// lance-cpp from JSON lines are checked by lance 12 itself: it scans our zstd file and
// projects element, length and string values that apache-arrow can then decode.
describe('types apache-arrow cannot write, read by lance 12', () => {
  test('large_list<int64> and large_utf8 from jsonl, zstd file', async () => {
    const rows = [
      { id: 0, ll: [1, 2, 3], ls: 'a' },
      { id: 1, ll: [], ls: '' },
      { id: 2, ll: null, ls: null },
      { id: 3, ll: [null, -5], ls: 'ünï' },
      { id: 4, ll: [9007199254740993n, -9223372036854775808n], ls: 'x'.repeat(100) },
    ];
    const jsonl = path.join(dir, 'large_list.jsonl');
    fs.writeFileSync(jsonl, rows.map((r) => JSON.stringify(r, (k, v) => (typeof v === 'bigint' ? `@${v}@` : v))
      .replace(/"@(-?\d+)@"/g, '$1')).join('\n') + '\n');
    const schema = JSON.stringify({ fields: [
      { name: 'id', type: 'int32', nullable: false },
      { name: 'll', type: { name: 'large_list', item: { name: 'item', type: 'int64', nullable: true } }, nullable: true },
      { name: 'ls', type: 'large_utf8', nullable: true },
    ] });
    const ours = path.join(dir, 'large_list.arrow');
    lanceOk(['ipc', 'convert', jsonl, ours, '--schema', schema, '--compression', 'zstd']);
    const db = await lancedb.connect(path.join(dir, 'large'));
    await db.inner.createTable('t', fs.readFileSync(ours), 'create', [], undefined);
    const back = await (await db.openTable('t')).query()
      .select({ id: 'id', first: 'll[1]', second: 'll[2]', len: 'array_length(ll)', ls: 'ls' }).toArrow();
    const got = back.toArray().map((r) => r.toJSON()).sort((a, b) => a.id - b.id);
    const big = (v) => (v === null || v === undefined ? null : BigInt(v));
    assert.deepEqual(got.map((r) => [r.id, big(r.first), big(r.second), big(r.len), r.ls]), rows.map((r) => [
      r.id, r.ll?.[0] == null ? null : BigInt(r.ll[0]), r.ll?.[1] == null ? null : BigInt(r.ll[1]),
      r.ll === null ? null : BigInt(r.ll.length), r.ls]));
  });
});
