// Schema evolution beyond top-level columns, on a dataset lance 12 wrote, read back by lance 12:
//   * `lance drop-columns --columns s.b,s.t.x` drops fields inside structs (nested two deep);
//   * `lance add-columns --input extra.csv --on id` adds columns joined on a key (input rows
//     in another order, keys missing on either side, nulls);
// after each, lance 12 reads every row equal to a model of the operations, then appends with
// the new schema, and we read its result equal to what it reads.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { canonicalLines, diffRows, expectedRows } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';

const N = 50;
const f = (name, type, nullable = true) => new A.Field(name, type, nullable);
const T_FULL = new A.Struct([f('x', new A.Int8()), f('y', new A.Utf8())]);
const S_FULL = new A.Struct([f('a', new A.Int32()), f('b', new A.Utf8()), f('t', T_FULL)]);
const T_DROPPED = new A.Struct([f('y', new A.Utf8())]);
const S_DROPPED = new A.Struct([f('a', new A.Int32()), f('t', T_DROPPED)]);

const sOf = (i, dropped) => {
  if (i % 9 === 0) return null;
  const t = i % 4 === 0 ? null : dropped ? { y: `y${i}` } : { x: i % 100, y: `y${i}` };
  return dropped ? { a: i % 5 === 0 ? null : i * 10, t } : { a: i % 5 === 0 ? null : i * 10, b: `b,${i}`, t };
};
// The CSV adds `label` and `weight` to the ids divisible by 3 (and to ids the dataset lacks).
const extraOf = (i) => (i % 3 === 0 ? { label: i % 6 === 0 ? `l "${i}"` : '', weight: i % 12 === 0 ? null : i / 4 } : null);

function table(ids, { dropped = false, extra = false } = {}) {
  const cols = [
    { name: 'id', type: new A.Int64(), nullable: false, values: ids.map(BigInt) },
    { name: 's', type: dropped ? S_DROPPED : S_FULL, values: ids.map((i) => sOf(i, dropped)) },
    { name: 'v', type: new A.Float64(), values: ids.map((i) => (i % 7 === 0 ? null : i + 0.5)) },
  ];
  if (extra) {
    // in the CSV's column order
    cols.push({ name: 'weight', type: new A.Float64(), values: ids.map((i) => extraOf(i)?.weight ?? null) });
    cols.push({ name: 'label', type: new A.Utf8(), values: ids.map((i) => extraOf(i)?.label ?? null) });
  }
  return makeTable(cols, [ids.length]);
}

const range = (a, b) => Array.from({ length: b - a }, (_, k) => a + k);
const idOf = (line) => BigInt(/^\{"id":(-?\d+)/.exec(line)[1]);
const byId = (text) => text.split('\n').filter((l) => l)
  .sort((x, y) => (idOf(x) < idOf(y) ? -1 : idOf(x) > idOf(y) ? 1 : 0)).map((l) => l + '\n').join('');

describe('nested drops and key-joined columns, read by lance 12', () => {
  let dir;
  let uri;
  let live;
  before(async () => {
    dir = scratchDir('lance-evolve-nested-');
    uri = path.join(dir, 't.lance');
    const db = await lancedb.connect(dir);
    const t = await db.createTable('t', table(range(0, 30)));
    await t.add(table(range(30, N)));
    await t.delete('id = 7 OR id = 33');
    live = range(0, N).filter((i) => i !== 7 && i !== 33);
  });

  async function referenceText() {
    const t = await (await lancedb.connect(dir)).openTable('t');
    return byId(canonicalLines(await t.query().toArrow()));
  }

  test('drop struct children: lance 12 reads the narrower struct', async () => {
    lanceOk(['drop-columns', uri, '--columns', 's.b,s.t.x']);
    const want = expectedRows(table(live, { dropped: true }));
    assert.equal(diffRows(want, await referenceText()), null);
    assert.equal(diffRows(want, byId(lanceOk(['scan', uri]).stdout)), null);
    const schema = JSON.parse(lanceOk(['schema', uri]).stdout);
    assert.deepEqual(schema.fields[1].type.fields.map((x) => x.name), ['a', 't']);
  });

  test('add columns from a CSV joined on id: lance 12 reads the join', async () => {
    const lines = ['weight,id,label'];
    for (const i of [...range(0, N + 10)].reverse()) {  // other order, ids beyond the dataset
      const e = extraOf(i);
      if (!e) continue;
      const label = e.label === '' ? '""' : `"${e.label.replaceAll('"', '""')}"`;
      lines.push(`${e.weight ?? ''},${i},${label}`);
    }
    const file = path.join(dir, 'extra.csv');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    lanceOk(['add-columns', uri, '--input', file, '--on', 'id']);
    const want = expectedRows(table(live, { dropped: true, extra: true }));
    assert.equal(diffRows(want, await referenceText()), null);
    assert.equal(diffRows(want, byId(lanceOk(['scan', uri]).stdout)), null);
  });

  test('lance 12 appends with the new schema; we read it equal', async () => {
    const t = await (await lancedb.connect(dir)).openTable('t');
    await t.add(table(range(100, 110), { dropped: true, extra: true }));
    const theirs = await referenceText();
    const want = expectedRows(table([...live, ...range(100, 110)], { dropped: true, extra: true }));
    assert.equal(diffRows(want, theirs), null);
    assert.equal(byId(lanceOk(['scan', uri]).stdout), theirs);
  });
});
