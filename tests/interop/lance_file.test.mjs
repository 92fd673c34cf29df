// `lance file cat` on data files the reference (lance 12 via @lancedb/lancedb) writes right now,
// for every type lance accepts, in data storage versions 2.0, 2.1 and 2.2: the printed rows
// must equal the canonical rows of the Arrow table handed to the writer, byte for byte.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import { diffRows, expectedRows } from './lib/canonical.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable, ROWS, typeColumns } from './lib/gen.mjs';
import { writeWithReference } from './lib/reference_file.mjs';
import * as A from 'apache-arrow';

// Types lance 12 refuses to write (or panics on) are left out: large_utf8/large_binary built by
// this apache-arrow copy are not recognised by lancedb's (covered by tests/golden/lance_file),
// '+05:30' timezones panic, fixed_size_list<utf8> panics; map needs 2.2; 2.0 has no struct
// validity (struct nulls are refused).
const REFUSED = new Set(['large_utf8', 'large_binary', 'timestamp_ms_offset', 'fixed_size_list_utf8']);
const REFUSED_BEFORE_2_2 = new Set(['map_utf8_int32', 'map_int64_list']);
const REFUSED_2_0 = new Set(['list_struct', 'struct']);

function columnsFor(version) {
  return typeColumns().filter((c) => !REFUSED.has(c.name) &&
    !(version !== '2.2' && REFUSED_BEFORE_2_2.has(c.name)) &&
    !(version === '2.0' && REFUSED_2_0.has(c.name)));
}

const dir = scratchDir('lance-file-interop-');

for (const version of ['2.0', '2.1', '2.2']) {
  describe(`lance file cat, data storage version ${version}`, () => {
    for (const c of columnsFor(version)) {
      test(c.name, async () => {
        const table = makeTable([c], [ROWS]);
        const file = await writeWithReference(dir, version, c.name, table);
        const out = lanceOk(['file', 'cat', file]).stdout;
        const problem = diffRows(expectedRows(table), out);
        assert.equal(problem, null, problem ?? '');
      });
    }

    test('all columns in one file, then --rows and --range', async () => {
      const cols = columnsFor(version);
      const table = makeTable(cols, [ROWS]);
      const file = await writeWithReference(dir, version, 'all_types', table);
      const rows = expectedRows(table);
      assert.equal(diffRows(rows, lanceOk(['file', 'cat', file]).stdout), null);
      const picked = [ROWS - 1, 0, 3, 3];
      assert.equal(diffRows(picked.map((r) => rows[r]),
                            lanceOk(['file', 'cat', file, '--rows', picked.join(',')]).stdout), null);
      assert.equal(diffRows(rows.slice(2, 7),
                            lanceOk(['file', 'cat', file, '--range', '2:7']).stdout), null);
      const info = JSON.parse(lanceOk(['file', 'info', file]).stdout);
      assert.equal(info.version, version);
      assert.equal(info.num_rows, ROWS);
      assert.equal(info.schema.fields.length, cols.length);
    });
  });
}

// Columns split over several pages: 2.0 honours LANCE_FILE_WRITER_MAX_PAGE_BYTES at small
// sizes; 2.1+ split list columns once they are large (~36k rows per page at 300k rows).
for (const [version, rows] of [['2.0', 3000], ['2.2', 300000]]) {
  test(`multi-page columns (${version}, ${rows} rows)`, async () => {
    const table = makeTable([
      { name: 'id', type: new A.Int64(), values: Array.from({ length: rows }, (_, i) => BigInt(i)) },
      { name: 's', type: new A.Utf8(), values: Array.from({ length: rows }, (_, i) => (i % 9 ? `v${i}` : null)) },
      { name: 'l', type: new A.List(new A.Field('item', new A.Int32(), true)),
        values: Array.from({ length: rows }, (_, i) => (i % 5 ? [i, i % 3 ? i + 1 : null] : null)) },
    ], [rows]);
    process.env.LANCE_FILE_WRITER_MAX_PAGE_BYTES = '4096';
    let file;
    try {
      file = await writeWithReference(dir, version, `paged_${rows}`, table);
    } finally {
      delete process.env.LANCE_FILE_WRITER_MAX_PAGE_BYTES;
    }
    const info = JSON.parse(lanceOk(['file', 'info', file]).stdout);
    assert.ok(info.columns.some((c) => c.pages.length > 1), 'some column has several pages');
    const expected = expectedRows(table);
    assert.equal(diffRows(expected, lanceOk(['file', 'cat', file]).stdout), null);
    const picked = [rows - 1, 0, Math.floor(rows / 2) + 1, 45];
    assert.equal(diffRows(picked.map((r) => expected[r]),
                          lanceOk(['file', 'cat', file, '--rows', picked.join(',')]).stdout), null);
  });
}

test('a truncated file is an error, not a crash', async () => {
  const table = makeTable(columnsFor('2.2').slice(0, 5), [ROWS]);
  const file = await writeWithReference(dir, '2.2', 'truncated', table);
  const bytes = fs.readFileSync(file);
  const cut = path.join(dir, 'cut.lance');
  fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 7));
  const r = lance(['file', 'cat', cut]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /Corruption/);
});
