// `lance file write` (our FileWriter) on every type, read back by `lance file cat`, and
// realistic data (text for FSST, low-cardinality strings for dictionaries, sequential ids for
// bit-packing, runs, constants, 128-float vectors and 3 KB strings for full-zip, 40 KB strings
// for per-value zstd) written as a
// dataset through `lance create` and read back by lance 12 value for value.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';

import { diffRows, expectedRows, rowsText } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable, toIPC, typeColumns } from './lib/gen.mjs';
import * as A from 'apache-arrow';

const require = createRequire(import.meta.url);
const lancedb = require('@lancedb/lancedb');

const dir = scratchDir('lance-file-write-');
const ROWS = 3000;

// Every type, ROWS rows cycling through the generator's values (fixed_size_list<utf8> is not
// a Lance leaf type: lance 12 panics on it and our writer refuses it).
function allTypes() {
  return typeColumns().filter((c) => c.name !== 'fixed_size_list_utf8').map((c) => ({ ...c, values: Array.from({ length: ROWS }, (_, i) => c.values[(i * 7) % c.values.length]) }));
}

// Deterministic realistic columns.
function realistic(n) {
  let s = 12345;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const words = Array.from({ length: 400 }, (_, i) => `w${(i * 7919) % 1000}x${'abcdefgh'.slice(0, 1 + (i % 7))}`);
  const text = () => Array.from({ length: 5 + Math.floor(rnd() * 20) }, () => words[Math.floor(rnd() ** 2 * 400)]).join(' ');
  const vec = () => Float32Array.from({ length: 128 }, () => Math.round(rnd() * 1000) / 8);
  const cols = [
    { name: 'id', type: new A.Int64(), values: Array.from({ length: n }, (_, i) => BigInt(i)) },
    { name: 'category', type: new A.Utf8(), values: Array.from({ length: n }, () => (rnd() < 0.05 ? null : `c${Math.floor(rnd() * 50)}`)) },
    { name: 'runs', type: new A.Int32(), values: Array.from({ length: n }, (_, i) => Math.floor(i / 1000)) },
    { name: 'konst', type: new A.Float64(), values: Array(n).fill(2.5) },
    { name: 'score', type: new A.Float64(), values: Array.from({ length: n }, () => rnd() * 100) },
    { name: 'text', type: new A.Utf8(), values: Array.from({ length: n }, () => (rnd() < 0.02 ? null : text())) },
    { name: 'long', type: new A.Utf8(), values: Array.from({ length: n }, (_, i) => (i % 10 === 0 ? Array.from({ length: 40 }, text).join('|') : null)) },
    { name: 'vector', type: new A.FixedSizeList(128, new A.Field('item', new A.Float32(), true)), values: Array.from({ length: n }, (_, i) => (i % 17 === 3 ? null : vec())) },
    { name: 'pair', type: new A.Struct([new A.Field('a', new A.Int32(), true), new A.Field('b', new A.Utf8(), true)]),
      values: Array.from({ length: n }, (_, i) => (i % 13 === 0 ? null : { a: i % 7 === 0 ? null : i, b: words[i % 30] })) },
    { name: 'tags', type: new A.List(new A.Field('item', new A.Utf8(), true)),
      values: Array.from({ length: n }, () => (rnd() < 0.1 ? null : Array.from({ length: Math.floor(rnd() * 4) }, () => words[Math.floor(rnd() * 20)]))) },
    // A 40-70 KB value every 1000 rows among short ones: per-value zstd full-zip (as lance 12).
    { name: 'huge', type: new A.Utf8(), values: Array.from({ length: n }, (_, i) => (i % 1000 === 0 ? Array.from({ length: 400 + i / 20 }, text).join('/').slice(0, 40000 + i * 4) : i % 9 === 0 ? null : `h${i}`)) },
    // 12 repeating 64-bit values: lance 12 writes a dictionary in 2.2 (3.7 KB for 5000 rows).
    { name: 'lowcard', type: new A.Int64(), values: Array.from({ length: n }, (_, i) => (i % 97 === 5 ? null : BigInt([5, 900, 12345678901, 7, -3, 42, 1000, 2, 3, 4, 5, 6][i % 12]))) },
  ];
  return makeTable(cols, [n / 2, n / 2]);
}

for (const version of ['2.1', '2.2']) {
  describe(`lance file write, version ${version}`, () => {
    test('every type, read back by lance file cat', () => {
      const table = makeTable(allTypes(), [1000, 2000]);
      const ipc = path.join(dir, `types-${version}.arrows`);
      fs.writeFileSync(ipc, toIPC(table, 'stream'));
      for (const extra of [[], ['--plain'], ['--max-page-bytes', '20000']]) {
        const out = path.join(dir, `types-${version}-${extra.length}.lance`);
        const summary = JSON.parse(lanceOk(['file', 'write', ipc, out, '--version', version, ...extra]).stdout);
        assert.equal(summary.num_rows, ROWS);
        assert.equal(summary.version, version);
        assert.equal(summary.size_bytes, fs.statSync(out).size);
        const problem = diffRows(expectedRows(table), lanceOk(['file', 'cat', out]).stdout);
        assert.equal(problem, null, `${extra.join(' ')}: ${problem}`);
      }
    });

    // Our FSST compressor on bytes that stress it: a skewed alphabet holding 0x00 and 0xff
    // (the escape code's value, as a literal and inside symbols), long runs, empty values,
    // every byte value, values of 1 to 9 bytes (the compressor's tail) -- read byte for byte
    // by lance 12.
    test('FSST of adversarial bytes is read by lance 12 byte for byte', async () => {
      let s = 99;
      const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
      const alphabet = [0x00, 0xff, 0x61, 0x62, 0x20, 0xfe, 0x01, 0x7f];
      const n = 6000;
      const values = Array.from({ length: n }, (_, i) => {
        if (i % 97 === 0) return new Uint8Array(0);
        if (i % 89 === 0) return Uint8Array.from({ length: 256 }, (_, b) => (b + i) & 0xff);
        if (i % 83 === 0) return new Uint8Array(300 + (i % 700)).fill(i % 2 ? 0xff : 0x00);
        if (i % 7 === 0) return Uint8Array.from({ length: 1 + (i % 9) }, () => alphabet[Math.floor(rnd() ** 3 * 8)]);
        return Uint8Array.from({ length: 20 + Math.floor(rnd() * 60) }, () => alphabet[Math.floor(rnd() ** 3 * 8)]);
      });
      const table = makeTable([{ name: 'bytes', type: new A.Binary(), values }], [n / 2, n / 2]);
      const ipc = path.join(dir, `adversarial-${version}.arrows`);
      fs.writeFileSync(ipc, toIPC(table, 'stream'));
      const uri = path.join(dir, `adversarial-${version}`, 't.lance');
      lanceOk(['create', uri, '--input', ipc, '--data-storage-version', version]);
      const dataDir = path.join(uri, 'data');
      const info = JSON.parse(lanceOk(['file', 'info', path.join(dataDir, fs.readdirSync(dataDir)[0])]).stdout);
      assert.match(info.columns[0].pages[0].encoding, /fsst\(/);
      const db = await lancedb.connect(path.join(dir, `adversarial-${version}`));
      const got = await (await db.openTable('t')).query().limit(1e9).toArrow();
      assert.equal(got.numRows, n);
      const col = got.getChild('bytes');
      for (let i = 0; i < n; i++) {
        const have = col.get(i);
        assert.ok(have !== null && Buffer.from(have).equals(Buffer.from(values[i])),
          `row ${i}: want ${Buffer.from(values[i]).toString('hex').slice(0, 80)} got ${have && Buffer.from(have).toString('hex').slice(0, 80)}`);
      }
    });

    test('realistic data written by lance create is read by lance 12 value for value', async () => {
      const table = realistic(8000);
      const ipc = path.join(dir, `real-${version}.arrows`);
      fs.writeFileSync(ipc, toIPC(table, 'stream'));
      const uri = path.join(dir, `real-${version}`, 't.lance');
      lanceOk(['create', uri, '--input', ipc, '--data-storage-version', version]);
      const dataDir = path.join(uri, 'data');
      const file = path.join(dataDir, fs.readdirSync(dataDir)[0]);
      const info = JSON.parse(lanceOk(['file', 'info', file]).stdout);
      const enc = info.columns.map((c) => c.pages[0].encoding);
      assert.match(enc[0], /inline_bitpacking\(64\)/);
      assert.match(enc[1], /dictionary=/);
      assert.match(enc[2], /rle\(/);
      assert.equal(enc[3], version === '2.2' ? 'constant(inline)' : 'mini_block(values=rle(flat(64), flat(8)))');
      assert.match(enc[5], /fsst\(variable/);
      assert.match(enc[6], /^full_zip\(values=fsst/);
      assert.equal(enc[7], 'full_zip(values=fixed_size_list(128, flat(32)))');
      assert.equal(info.columns[7].pages[0].buffers.length, 1);
      const last = info.columns.length - 1;
      assert.equal(info.columns[last - 1].pages[0].encoding,
        'full_zip(values=general(zstd, variable(flat(32))))');
      assert.equal(info.schema.fields.at(-1).name, 'lowcard');
      assert.equal(info.columns[last].pages[0].encoding, version === '2.2'
        ? 'mini_block(values=inline_bitpacking(32), dictionary=general(lz4, flat(64)), def=out_of_line_bitpacking(16, flat(1)))'
        : 'mini_block(values=flat(64), def=out_of_line_bitpacking(16, flat(1)))');
      const db = await lancedb.connect(path.join(dir, `real-${version}`));
      const got = await (await db.openTable('t')).query().limit(1e9).toArrow();
      assert.equal(got.numRows, table.numRows);
      const want = expectedRows(table);
      const have = expectedRows(got);
      for (let i = 0; i < want.length; i++) {
        if (rowsText([want[i]]) !== rowsText([have[i]])) {
          assert.fail(`row ${i}: want ${rowsText([want[i]]).slice(0, 200)} got ${rowsText([have[i]]).slice(0, 200)}`);
        }
      }
    });
  });
}
