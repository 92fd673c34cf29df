// Arrow dictionary columns written by the reference (lance 12 via @lancedb/lancedb): the file
// schema carries logical types `dict:<value>:<index>:<ordered>`; `lance file cat` must print
// the dictionary values row for row, for whole files, --rows and --range, in every data storage
// version the reference writes dictionaries to.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { diffRows, expectedRows } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { dictionaryColumns, makeTable, nonNullColumn, ROWS } from './lib/gen.mjs';
import { writeWithReference } from './lib/reference_file.mjs';

const dir = scratchDir('lance-file-dict-');

for (const version of ['2.0', '2.1', '2.2']) {
  describe(`dictionary columns, data storage version ${version}`, () => {
    test('schema, all rows, --rows and --range', async () => {
      const { cols, dicts } = dictionaryColumns();
      const all = [...cols, ...cols.map(nonNullColumn)];
      const table = makeTable(all, [ROWS], { dicts });
      const file = await writeWithReference(dir, version, 'dicts', table);

      const info = JSON.parse(lanceOk(['file', 'info', file]).stdout);
      assert.equal(info.num_rows, ROWS);
      assert.equal(info.schema.fields.length, all.length);

      const rows = expectedRows(table);
      const problem = diffRows(rows, lanceOk(['file', 'cat', file]).stdout);
      assert.equal(problem, null, problem ?? '');
      const picked = [ROWS - 1, 0, 3, 3, 11];
      assert.equal(diffRows(picked.map((r) => rows[r]),
                            lanceOk(['file', 'cat', file, '--rows', picked.join(',')]).stdout), null);
      assert.equal(diffRows(rows.slice(2, 9),
                            lanceOk(['file', 'cat', file, '--range', '2:9']).stdout), null);
    });
  });
}
