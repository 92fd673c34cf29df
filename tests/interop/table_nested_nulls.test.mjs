// Lists under nullable structs, written by us and read by lance 12. A list layer that has no
// null list of its own but sits under a struct with nulls is written nullable (as lance 12
// writes it); with an all-valid list layer there lance 12 refused the page ("Structural
// validity has 4 entries for an array with 3 values"). Pages without one valid value carry
// their definition levels whenever the column has more than one layer (lance 12 panicked on an
// all-null struct page without them). Every case: `lance create` from an apache-arrow stream,
// lance 12 reads rows equal to the input, and so do we.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { canonicalLines, diffRows, expectedRows, rowsText } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';

const item = (t) => new A.Field('item', t, true);
const e = new A.Field('e', new A.List(item(new A.Int32())), true);
const eb = new A.Field('eb', new A.List(item(new A.Bool())), true);
const c = new A.Field('c', new A.Struct([e, eb]), true);
const outer = new A.Struct([c]);

const CASES = {
  'null struct above a list with a null item': [{ c: null }, { c: { e: [null], eb: [null] } }, { c: { e: [1, 2], eb: [true] } }],
  'null struct, empty list, null item': [{ c: null }, { c: { e: [], eb: [] } }, { c: { e: [null], eb: [false, null] } }],
  'null outer struct and null inner struct': [null, { c: { e: [], eb: null } }, { c: { e: [null, 3], eb: [] } }, { c: null }],
  'no nulls above, null items': [{ c: { e: [null], eb: [null] } }, { c: { e: [4], eb: [true] } }],
};

const small = new A.Struct([new A.Field('a', new A.Int32(), true)]);
const list = new A.List(item(new A.Int32()));
const ALL_NULL = {
  s: A.vectorFromArray([null, null, null], small),
  mixed: A.vectorFromArray([{ a: null }, null, { a: null }], small),
  c: A.vectorFromArray([null, null, null], new A.Int32()),
  ls: A.vectorFromArray([null, [], [null]], list),
  sl: A.vectorFromArray([null, { x: null }, { x: [null] }], new A.Struct([new A.Field('x', list, true)])),
};

const TABLES = Object.entries(CASES).map(([name, rows]) =>
  [name, () => A.tableFromArrays({ s: A.vectorFromArray(rows, outer) })]);
TABLES.push(['columns without one valid value', () => A.tableFromArrays(ALL_NULL)]);

for (const version of ['2.1', '2.2']) {
  for (const [name, make] of TABLES) {
    test(`${version}: ${name}`, async () => {
      const dir = scratchDir();
      const table = make();
      const input = path.join(dir, 'in.arrows');
      fs.writeFileSync(input, A.tableToIPC(table, 'stream'));
      const uri = path.join(dir, 't.lance');
      lanceOk(['create', uri, '--input', input, '--data-storage-version', version]);
      const want = expectedRows(table);
      assert.equal(diffRows(want, lanceOk(['scan', uri]).stdout), null, 'our reading');
      const db = await lancedb.connect(dir);
      const theirs = await (await db.openTable('t')).query().toArrow();
      assert.equal(canonicalLines(theirs), rowsText(want), 'lance 12 reading');
    });
  }
}
