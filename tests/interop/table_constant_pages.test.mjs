// Constant pages with nulls, as lance 12 writes them: a column whose non-null values are all
// equal and that also holds nulls becomes a ConstantLayout page whose buffers are
// [value (unless inline)] then the pair [repetition (empty when nothing repeats), definition].
// We read such datasets equal to lance 12's own reading of them, in 2.1 and 2.2, for inline
// fixed-width values, strings in a value buffer, structs whose leaf is null under valid and null
// parents, and lists; and `lance file info` shows the constant pages are really there. The
// other way, lance 12 reads the constant pages we write (the value buffer's offsets as wide as
// the Arrow type's: 64-bit for large_utf8 / large_binary, which lance 12 refused at 32).
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { canonicalLines, diffRows, expectedRows, rowsText } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';

function constantTable(rows) {
  const pick = (i, v) => (i % 3 === 1 ? null : v);
  const st = new A.Struct([new A.Field('a', new A.Int32(), true), new A.Field('b', new A.Utf8(), true)]);
  return A.tableFromArrays({
    id: Int32Array.from({ length: rows }, (_, i) => i),
    c_int: A.vectorFromArray(Array.from({ length: rows }, (_, i) => pick(i, 5)), new A.Int32()),
    c_f64: A.vectorFromArray(Array.from({ length: rows }, (_, i) => pick(i, 2.5)), new A.Float64()),
    c_bool: A.vectorFromArray(Array.from({ length: rows }, (_, i) => pick(i, true)), new A.Bool()),
    c_str: A.vectorFromArray(Array.from({ length: rows }, (_, i) => pick(i, 'same text')), new A.Utf8()),
    c_struct: A.vectorFromArray(
      Array.from({ length: rows }, (_, i) => (i % 3 === 1 ? null : { a: null, b: i % 3 === 0 ? 'k' : null })), st),
    c_list: A.vectorFromArray(
      Array.from({ length: rows }, (_, i) => (i % 3 === 1 ? null : [7, 7])),
      new A.List(new A.Field('item', new A.Int32(), true))),
  });
}

for (const version of ['2.1', '2.2']) {
  for (const rows of [4, 3000]) {
    test(`lance ${version}, ${rows} rows: constant pages with nulls read as lance 12 reads them`, async () => {
      const dir = scratchDir();
      const db = await lancedb.connect(dir);
      await db.createTable('t', constantTable(rows), {
        storageOptions: { new_table_data_storage_version: version },
      });
      const table = await db.openTable('t');
      const theirs = expectedRows(await table.query().toArrow());
      const uri = path.join(dir, 't.lance');
      assert.equal(diffRows(theirs, lanceOk(['scan', uri]).stdout), null);
      if (version === '2.2') {
        const files = fs.readdirSync(path.join(uri, 'data'));
        const info = JSON.parse(lanceOk(['file', 'info', path.join(uri, 'data', files[0])]).stdout);
        const constants = info.columns.flatMap((c) => c.pages).filter((p) => p.encoding.startsWith('constant'));
        assert.ok(constants.length >= 3, `expected constant pages, got ${JSON.stringify(info.columns.map((c) => c.pages.map((p) => p.encoding)))}`);
      }
    });
  }
}

test('lance 12 reads our 2.2 constant pages of every width of offsets', async () => {
  const dir = scratchDir();
  const n = 300;
  const same = (v) => Array.from({ length: n }, () => v);
  const table = A.tableFromArrays({
    id: Int32Array.from({ length: n }, (_, i) => i),
    s: A.vectorFromArray(same('ab'), new A.Utf8()),
    ls: A.vectorFromArray(same('long enough text'), new A.LargeUtf8()),
    b: A.vectorFromArray(same(new Uint8Array([1, 2])), new A.Binary()),
    lb: A.vectorFromArray(same(new Uint8Array([3, 4, 5])), new A.LargeBinary()),
    i: A.vectorFromArray(same(7n), new A.Int64()),
  });
  const input = path.join(dir, 'in.arrows');
  fs.writeFileSync(input, A.tableToIPC(table, 'stream'));
  const uri = path.join(dir, 'ours.lance');
  lanceOk(['create', uri, '--input', input, '--data-storage-version', '2.2']);
  const files = fs.readdirSync(path.join(uri, 'data'));
  const info = JSON.parse(lanceOk(['file', 'info', path.join(uri, 'data', files[0])]).stdout);
  const constants = info.columns.flatMap((c) => c.pages).filter((p) => p.encoding.startsWith('constant'));
  assert.ok(constants.length >= 4, JSON.stringify(info.columns.map((c) => c.pages.map((p) => p.encoding))));
  const db = await lancedb.connect(dir);
  const theirs = await (await db.openTable('ours')).query().toArrow();
  assert.equal(canonicalLines(theirs), rowsText(expectedRows(table)));
});
