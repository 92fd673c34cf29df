// Streamed scans through the query layer, checked against lance 12: a table lance 12 wrote in
// several fragments (appends, then a deletion) is scanned by `lance scan` in batches of
// --batch-size rows into Arrow IPC streams / files and JSON lines: apache-arrow JS reads every
// batch (none longer than the batch size) and the rows equal lance 12's, in scan order;
// filtered scans with offset / limit, a choice of fragments, counts, and `--explain` (the
// plan's operators, without running it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { canonicalLines, diffRows, expectedRows } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';

function rows(start, n) {
  const ids = Array.from({ length: n }, (_, k) => start + k);
  return makeTable([
    { name: 'id', type: new A.Int64(), nullable: false, values: ids.map(BigInt) },
    { name: 'cat', type: new A.Utf8(), values: ids.map((i) => (i % 13 === 0 ? null : `c${i % 7}`)) },
    { name: 'x', type: new A.Float64(), values: ids.map((i) => (i % 9 === 0 ? null : (i % 100) / 4)) },
    { name: 'v', type: new A.FixedSizeList(4, new A.Field('item', new A.Float32(), true)),
      values: ids.map((i) => [i, i + 0.5, -i, 0]) },
  ], [n]);
}

// The reference's rows (every column, canonical JSON) ordered by id = scan order.
async function referenceRows(table, filter) {
  const q = table.query();
  const t = await (filter ? q.where(filter) : q).toArrow();
  if (t.numRows === 0) return [];
  const ids = t.getChild('id').toArray();
  const all = expectedRows(t);
  const order = Array.from(all.keys()).sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
  return order.map((i) => all[i]);
}

describe('streamed scans equal lance 12', () => {
  let dir;
  let table;
  let uri;
  before(async () => {
    dir = scratchDir('lance-scan-stream-');
    const db = await lancedb.connect(dir);
    table = await db.createTable('stream', rows(0, 9000));
    await table.add(rows(9000, 6000));
    await table.add(rows(15000, 2500));
    await table.delete('id % 11 = 3 OR (id >= 9100 AND id < 9400)');
    uri = path.join(dir, 'stream.lance');
  });

  test('batches of at most --batch-size rows hold every row lance 12 reads', async () => {
    const want = await referenceRows(table);
    assert.equal(want.length, await table.countRows());
    for (const batchSize of [7, 1000, 8192, 20000]) {
      for (const ext of ['arrows', 'arrow']) {
        const file = path.join(dir, `all-${batchSize}.${ext}`);
        const info = JSON.parse(lanceOk(['scan', uri, '--batch-size', String(batchSize), '--output', file]).stdout);
        assert.equal(info.num_rows, want.length);
        const t = A.tableFromIPC(fs.readFileSync(file));
        assert.ok(t.batches.length >= Math.ceil(want.length / batchSize), `${ext} ${batchSize}: ${t.batches.length} batches`);
        for (const b of t.batches) {
          assert.ok(b.numRows > 0 && b.numRows <= batchSize, `${ext} ${batchSize}: a batch of ${b.numRows} rows`);
        }
        assert.equal(diffRows(want, canonicalLines(t)), null, `${ext} ${batchSize}`);
      }
      const stdout = lanceOk(['scan', uri, '--batch-size', String(batchSize)]).stdout;
      assert.equal(diffRows(want, stdout), null, `stdout ${batchSize}`);
    }
  });

  test('filtered scans with offset and limit, and counts', async () => {
    for (const filter of ["cat = 'c3' AND x > 5", 'x IS NULL OR id % 5 = 0', 'id > 16000', 'id < 0']) {
      const want = await referenceRows(table, filter);
      assert.equal(lanceOk(['count', uri, '--filter', filter]).stdout.trim(),
                   String(await table.countRows(filter)), filter);
      const file = path.join(dir, 'filtered.arrows');
      lanceOk(['scan', uri, '--filter', filter, '--batch-size', '300', '--output', file]);
      const t = A.tableFromIPC(fs.readFileSync(file));
      for (const b of t.batches) assert.ok(b.numRows <= 300, `${filter}: a batch of ${b.numRows} rows`);
      assert.equal(diffRows(want, canonicalLines(t)), null, filter);
      const page = lanceOk(['scan', uri, '--filter', filter, '--offset', '10', '--limit', '2500',
                            '--batch-size', '64']).stdout;
      assert.equal(diffRows(want.slice(10, 2510), page), null, `${filter} offset 10 limit 2500`);
    }
  });

  test('a choice of fragments reads those fragments in manifest order', async () => {
    const all = lanceOk(['scan', uri, '--columns', 'id,_rowaddr']).stdout.trim().split('\n');
    const fragmentOf = (line) => BigInt(JSON.parse(line.replace(/("_rowaddr":)(\d+)/, '$1"$2"'))._rowaddr) >> 32n;
    const want = all.filter((l) => [0n, 2n].includes(fragmentOf(l)));
    assert.ok(want.length > 0 && want.length < all.length);
    const got = lanceOk(['scan', uri, '--columns', 'id,_rowaddr', '--fragments', '2,0']).stdout.trim().split('\n');
    assert.deepEqual(got, want);
    assert.equal(lanceOk(['count', uri, '--fragments', '2,0', '--filter', 'id >= 0']).stdout.trim(),
                 String(want.length));
  });

  test('--explain prints the plan instead of rows', () => {
    const scan = lanceOk(['scan', uri, '--columns', 'id', '--with-row-id', '--filter', "cat = 'c1' AND x > 3",
                          '--limit', '5', '--batch-size', '100', '--explain']).stdout;
    const lines = scan.trimEnd().split('\n');
    assert.equal(lines.length, 4, scan);
    assert.match(lines[0], /^Project: columns \[id, _rowid\], batches of at most 100 rows; reads \[id\] for the rows that reach it, computes \[_rowid\]$/);
    assert.match(lines[1], /^ {2}Limit: at most 5 rows$/);
    assert.match(lines[2], /^ {4}Filter: "cat = 'c1' AND x > 3"; conjuncts in order: 1\) cat = 'c1' reads \[cat\].*2\) x > 3 reads \[x\]/);
    assert.match(lines[3], /^ {6}FragmentScan: fragments \[0, 1, 2\] \(3 of 3\), \d+ live rows \(\d+ deleted skipped\), spans of 8192 rows$/);
    const take = lanceOk(['take', uri, '--offsets', '3,1', '--explain']).stdout;
    assert.match(take, /^Project: columns \[id, cat, x, v\], batches of at most 8192 rows.*\n {2}Take: 2 rows by scan position \[3, 1\], in that order\n$/);
    const count = lanceOk(['count', uri, '--filter', 'x > 3', '--explain']).stdout;
    assert.match(count, /^Count: the rows that reach it \(no column read for them\)\n {2}Filter: "x > 3"/);
  });
});
