// Ranged reads of list columns in files the reference (lance 12) writes with many mini-block
// chunks and pages (list<int64>, list<utf8>, list<struct>, list<list<int32>>, with null and
// empty lists) and full-zip list<utf8> pages: `lance file cat --rows` (scattered, repeated)
// and `--range` (across chunk and page boundaries) print exactly the rows that went in.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { diffRows, expectedRows } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { listColumns, longListColumns, tableOf } from './lib/list_columns.mjs';
import { writeWithReference } from './lib/reference_file.mjs';

const dir = scratchDir('lance-take-lists-');
const ROWS = 30000;

// Page boundaries (first rows of pages after the first) of every column, from `lance file info`.
function pageStarts(info) {
  const starts = new Set();
  for (const c of info.columns) {
    let row = 0;
    for (const p of c.pages) {
      if (row > 0) starts.add(row);
      row += p.num_rows;
    }
  }
  return [...starts].sort((a, b) => a - b);
}

function checkFile(file, table, { minPages }) {
  const rows = expectedRows(table);
  const n = rows.length;
  const info = JSON.parse(lanceOk(['file', 'info', file]).stdout);
  const starts = pageStarts(info);
  assert.ok(info.columns.some((c) => c.pages.length >= minPages),
    `some column has at least ${minPages} pages: ${info.columns.map((c) => c.pages.length)}`);

  const picked = [];
  for (let i = 0; i < 400; i++) picked.push((i * 7919 + 11) % n);
  picked.push(n - 1, 0, 5, 5, ...starts.slice(0, 20), ...starts.slice(0, 5).map((s) => s - 1));
  const out = lanceOk(['file', 'cat', file, '--rows', picked.join(',')]).stdout;
  const problem = diffRows(picked.map((r) => rows[r]), out);
  assert.equal(problem, null, problem ?? '');

  const ranges = [[0, 1], [0, 3000], [n - 700, n]];
  for (const s of starts.slice(0, 6)) ranges.push([Math.max(0, s - 40), Math.min(n, s + 60)]);
  for (const [a, b] of ranges) {
    const got = lanceOk(['file', 'cat', file, '--range', `${a}:${b}`]).stdout;
    const p = diffRows(rows.slice(a, b), got);
    assert.equal(p, null, `range ${a}:${b}: ${p}`);
  }
}

for (const version of ['2.1', '2.2']) {
  describe(`take of list columns, data storage version ${version}`, () => {
    test(`${ROWS} rows of lists in mini-block chunks over several pages`, async () => {
      const table = tableOf(listColumns(ROWS));
      const file = await writeWithReference(dir, version, 'lists', table);
      checkFile(file, table, { minPages: 4 });
    });

    test('long strings in lists: full-zip pages', async () => {
      const table = tableOf(longListColumns(ROWS / 10));
      const file = await writeWithReference(dir, version, 'long_lists', table);
      const info = JSON.parse(lanceOk(['file', 'info', file]).stdout);
      assert.match(info.columns[1].pages[0].encoding, /^full_zip/);
      checkFile(file, table, { minPages: 1 });
    });
  });
}
