// The row order of merge-insert against lance 12: a dataset of several fragments (2.1, with and
// without stable row ids) is copied; lance-cpp merges an input whose keys come shuffled (matches
// spread over the fragments, new keys between them) into one copy with `lance merge-insert`,
// lance 12 merges the same input into the other. Both copies must then read the same, row for
// row in scan order with their row ids, by lance 12 and by lance-cpp: lance 12 writes the
// updated rows in the input's order, then the inserted rows in the input's order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { diffRows, expectedRows } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable, toIPC } from './lib/gen.mjs';

function rows(ids, seed) {
  return makeTable([
    { name: 'id', type: new A.Int64(), nullable: false, values: ids.map(BigInt) },
    { name: 'v', type: new A.Int32(), values: ids.map((id) => (id * 31 + seed * 7) % 97) },
    { name: 's', type: new A.Utf8(), values: ids.map((id) => (id % 11 === 0 ? null : `s${id}-${seed}`)) },
  ], [ids.length]);
}

// A fixed shuffle (linear congruential) of `xs`.
function shuffled(xs, seed) {
  const out = xs.slice();
  let x = seed;
  for (let i = out.length - 1; i > 0; --i) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const range = (a, b, step = 1) => Array.from({ length: Math.ceil((b - a) / step) }, (_, i) => a + i * step);

// Without an index on the key lance 12 hash-joins and writes the updated rows in the input's
// order; through a BTREE or BITMAP index of the key, in the dataset's row order (unless it
// also deletes rows the input does not match, which scans the dataset).
const VARIANTS = [
  { what: 'update all + insert', stable: false },
  { what: 'update all + insert, stable row ids', stable: true },
  { what: 'conditional update + insert', stable: false, where: 'target.v < source.v' },
  { what: 'update all + insert through a BTREE index of the key', index: 'btree' },
  { what: 'conditional update + insert through a BITMAP index of the key', index: 'bitmap', where: 'target.v < source.v' },
  { what: 'update + insert + delete by source, with a BTREE index', index: 'btree', bySource: 'id % 10 = 3' },
];

const scratch = scratchDir('lance-merge-order-');

for (const [k, variant] of VARIANTS.entries()) {
  test(`merge-insert writes rows in lance 12's order: ${variant.what}`, async () => {
    const dir = path.join(scratch, `v${k}`);
    const refDir = path.join(dir, 'ref');
    fs.mkdirSync(refDir, { recursive: true });
    const ours = path.join(dir, 't.lance');
    const base = path.join(dir, 'base.arrows');
    fs.writeFileSync(base, toIPC(rows(range(0, 600), 0), 'stream'));
    lanceOk(['create', ours, '--input', base, '--max-rows-per-file', '200',
             ...(variant.stable ? ['--enable-stable-row-ids'] : [])]);
    lanceOk(['delete', ours, '--filter', 'id % 13 = 5']);
    if (variant.index) {
      lanceOk(['create-index', ours, 'id', '--type', variant.index]);
      // and rows the index does not cover, a key of the index repeated among them
      fs.writeFileSync(base, toIPC(rows([598, 5, 700, 8], 1), 'stream'));
      lanceOk(['create', ours, '--mode', 'append', '--input', base]);
    }
    const pristine = path.join(dir, 'pristine.lance');
    fs.cpSync(ours, pristine, { recursive: true });

    // Matches in every fragment (some of them deleted rows), new keys below, between and above.
    const keys = shuffled([...range(1, 600, 7), ...range(1000, 1040), ...range(600, 610)], 17 + k);
    const input = rows(keys, 3);
    const file = path.join(dir, 'in.arrows');
    fs.writeFileSync(file, toIPC(input, 'stream'));
    const args = ['merge-insert', ours, '--input', file, '--on', 'id'];
    if (variant.where) args.push('--when-matched-update-where', variant.where);
    if (variant.bySource) args.push('--when-not-matched-by-source-delete-where', variant.bySource);
    const info = JSON.parse(lanceOk(args).stdout);
    const t = await (await lancedb.connect(dir)).openTable('t');
    const got = expectedRows(await t.query().withRowId().toArrow());
    // Through an index of the key with rows it does not cover, lance 12 unions its index
    // lookup with a scan of those rows, and which comes first is a race (both orders seen): our
    // order must be one lance 12 writes, so a differing one is retried on a fresh copy (each
    // try's answer is checked in full; without an index one try decides).
    let want;
    for (let attempt = 0; attempt < (variant.index ? 6 : 1); ++attempt) {
      const tryDir = path.join(refDir, `try${attempt}`);
      fs.cpSync(pristine, path.join(tryDir, 't.lance'), { recursive: true });
      const ref = await (await lancedb.connect(tryDir)).openTable('t');
      let b = ref.mergeInsert('id').whenMatchedUpdateAll(variant.where ? { where: variant.where } : undefined)
        .whenNotMatchedInsertAll();
      if (variant.bySource) b = b.whenNotMatchedBySourceDelete({ where: variant.bySource });
      const r = await b.execute(input);
      assert.deepEqual([info.rows_updated, info.rows_inserted, info.rows_deleted],
                       [r.numUpdatedRows, r.numInsertedRows, r.numDeletedRows]);
      want = expectedRows(await ref.query().withRowId().toArrow());
      if (JSON.stringify(got, (_, x) => (typeof x === 'bigint' ? x.toString() : x)) ===
          JSON.stringify(want, (_, x) => (typeof x === 'bigint' ? x.toString() : x))) break;
    }
    assert.ok(info.rows_updated > 10 && info.rows_inserted > 10);
    assert.deepEqual(got, want, 'lance 12 reads our rows, in order with their ids, as its own');
    assert.equal(diffRows(want, lanceOk(['scan', ours, '--with-row-id']).stdout), null);
  });
}
