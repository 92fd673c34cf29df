// Filtered scans: lance 12 writes a table with many types (nulls, NaN, -0.0, dates,
// timestamps, decimals (128 and 256 bits), a nested struct, a column name with a space) in two fragments with a
// deletion; for every filter below, `lance scan --filter` must return exactly the rows of
// lance 12's `query().where(filter)` (every column, canonical JSON), and `lance count --filter`
// its countRows(filter).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { diffRows, expectedRows } from './lib/canonical.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';

const STRINGS = ['apple', 'Banana', 'cherry', '', 'a_c%d', "it's", 'h\u00e9llo', 'APPLE pie', 'zebra', null,
                 'ban', 'Cherry'];

function rows(start, n) {
  const ids = Array.from({ length: n }, (_, k) => start + k);
  const f = (name, type, values, nullable = true) => ({ name, type, nullable, values });
  const f64 = (i) => {
    if (i % 7 === 0) return null;
    if (i % 29 === 0) return NaN;
    if (i % 31 === 0) return -0;
    if (i % 97 === 0) return Infinity;
    if (i % 37 === 0) return 0;
    return (i % 50) / 4 - 5;
  };
  const struct = (i) => {
    if (i % 10 === 4) return null;
    return { a: i % 6 === 0 ? null : (i * 7) % 40, b: i % 3 === 0 ? null : `s${i % 5}`,
             c: i % 8 === 0 ? null : { d: i % 9 === 0 ? null : (i % 13) / 10 } };
  };
  return makeTable([
    f('id', new A.Int64(), ids.map(BigInt), false),
    f('i32', new A.Int32(), ids.map((i) => (i % 11 === 0 ? null : ((i * 37) % 201) - 100))),
    f('i8', new A.Int8(), ids.map((i) => (i % 13 === 0 ? null : (i % 250) - 125))),
    f('u32', new A.Uint32(), ids.map((i) => (i * 1000003) % 4000000000)),
    f('f64', new A.Float64(), ids.map(f64)),
    f('f32', new A.Float32(), ids.map((i) => (i % 5 === 0 ? null : Math.fround(i * 0.25)))),
    f('s', new A.Utf8(), ids.map((i) => STRINGS[i % STRINGS.length])),
    f('cat', new A.Utf8(), ids.map((i) => `c${i % 10}`)),
    f('b', new A.Bool(), ids.map((i) => [true, false, null][i % 3])),
    f('d', new A.DateDay(), ids.map((i) => (i % 9 === 0 ? null : 19000 + (i % 40) - 20))),
    f('ts', new A.TimestampMicrosecond(),
      ids.map((i) => (i % 8 === 0 ? null : 1704067200000000n + BigInt(i - 100) * 3600000000n))),
    f('tsz', new A.TimestampNanosecond('UTC'),
      ids.map((i) => (i % 12 === 0 ? null : 1704067200000000000n + BigInt(i - 50) * 1800000000000n))),
    f('dec', new A.Decimal(2, 10, 128), ids.map((i) => (i % 6 === 0 ? null : BigInt(((i * 137) % 20000) - 10000)))),
    f('wide', new A.Decimal(3, 60, 256),
      ids.map((i) => (i % 7 === 3 ? null : BigInt((i * 7919) % 3001 - 1500) * 10n ** BigInt(i % 40)))),
    f('st', new A.Struct([new A.Field('a', new A.Int32(), true), new A.Field('b', new A.Utf8(), true),
                          new A.Field('c', new A.Struct([new A.Field('d', new A.Float64(), true)]), true)]),
      ids.map(struct)),
    f('weird name', new A.Int32(), ids.map((i) => i % 5)),
  ], [n]);
}

// Filters both sides run. Every one must give identical rows.
const FILTERS = [
  'i32 > 50',
  'i32 >= 0 AND i32 < 20',
  'i32 = -3 OR i8 = 10',
  'NOT (i32 > 0)',
  'i32 IS NULL',
  'i32 IS NOT NULL AND b',
  'b IS TRUE',
  'b IS NOT FALSE',
  'b = false',
  'i32 IN (1, 2, 3, -100, 100, 11)',
  'i32 NOT IN (1, 2, 3)',
  'i32 BETWEEN -10 AND 10',
  'i32 NOT BETWEEN -10 AND 10',
  "s = 'apple'",
  "s <> 'apple'",
  "s > 'b'",
  "s LIKE 'a%'",
  "s LIKE '%e'",
  "s LIKE '%an%'",
  "s NOT LIKE '%a%'",
  "s LIKE 'h_llo'",
  "s ILIKE 'apple%'",
  "cat = 'c7' AND f64 > 0",
  'f64 > 5',
  'f64 = 0',
  'f64 < 0',
  'f64 >= 5.25 OR f64 IS NULL',
  'f32 >= 10.5',
  'i32 + i8 > 100',
  'i32 * 2 = i8',
  'i32 % 7 = 0',
  'i32 / 3 = 5',
  '-i32 > 90',
  "CAST(i32 AS string) = '42'",
  'CAST(f32 AS int) = 12',
  "d > DATE '2022-01-01'",
  "ts > TIMESTAMP '2024-01-01 00:00:00'",
  'dec > 50',
  'wide > 0',
  'wide < -1000',
  'wide IS NULL',
  'wide >= 2 AND dec < 0',
  'st.a > 10',
  "st.b = 's1'",
  'st.c.d < 0.5',
  'st IS NULL',
  'st.a IS NULL',
  '`weird name` = 3',
  'u32 > 200000000',
  "d = DATE '2022-01-08'",
  "d BETWEEN DATE '2021-12-25' AND DATE '2022-01-05'",
  "ts < TIMESTAMP '2023-12-30 12:00:00'",
  'f64 = -0.0',
  "tsz >= TIMESTAMP '2024-01-02 00:00:00'",
  "lower(s) = 'apple'",
  "upper(cat) = 'C3'",
  'length(s) > 5',
  'abs(i32) < 5',
  'coalesce(i32, 0) = 0',
  "starts_with(s, 'ch')",
  'i32 > 50 AND (b OR s IS NULL)',
  'id % 3 = 0 AND i32 IS NOT NULL AND f64 IS NOT NULL',
  'i32 = NULL',
];

// Where we legitimately differ: lance 12 refuses these literals ("could not convert to literal
// of type ..."): it does not coerce a string literal to a date or timestamp, nor a float
// literal to an integer or decimal column. We coerce them the way SQL engines (and DataFusion
// itself, below lance's literal check) do. Each row: [our filter, the filter lance 12 accepts
// that means the same]; the test checks that lance 12 still refuses ours and that our rows
// equal its rows for the equivalent.
const COERCIONS = [
  ["d = '2022-01-08'", "d = DATE '2022-01-08'"],
  ["d BETWEEN '2021-12-25' AND '2022-01-05'", "d BETWEEN DATE '2021-12-25' AND DATE '2022-01-05'"],
  ["ts < '2023-12-30 12:00:00'", "ts < TIMESTAMP '2023-12-30 12:00:00'"],
  ['i32 > 1e1', 'i32 > 10'],
  ['i32 < 2.5', 'i32 <= 2'],
  ['dec < -20.5', 'CAST(dec AS double) < -20.5'],
  ['wide >= 1.5 AND dec < 0', 'CAST(wide AS double) >= 1.5 AND dec < 0'],
];

// The reference's rows for `filter`, ordered by id (= scan order: ids ascend with the row address).
async function referenceRows(table, filter) {
  const t = await table.query().where(filter).toArrow();
  if (t.numRows === 0) return [];
  const ids = t.getChild('id').toArray();
  const all = expectedRows(t);
  const order = Array.from(all.keys()).sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
  return order.map((i) => all[i]);
}

describe('filtered scans equal lance 12', () => {
  let table;
  let uri;
  before(async () => {
    const dir = scratchDir('lance-table-filter-');
    const db = await lancedb.connect(dir);
    table = await db.createTable('filters', rows(0, 300));
    await table.add(rows(300, 200));
    await table.delete('id % 17 = 5');
    uri = `${dir}/filters.lance`;
  });

  for (const filter of FILTERS) {
    test(`filter: ${filter}`, async () => {
      const want = await referenceRows(table, filter);
      const out = lanceOk(['scan', uri, '--filter', filter]).stdout;
      const diff = diffRows(want, out);
      assert.equal(diff, null, `${filter}: ${diff}`);
      assert.equal(lanceOk(['count', uri, '--where', filter]).stdout.trim(),
                   String(await table.countRows(filter)), `count ${filter}`);
    });
  }

  for (const [ours, theirs] of COERCIONS) {
    test(`coerced literal: ${ours}`, async () => {
      await assert.rejects(table.query().where(ours).toArrow(), /could not convert to literal/);
      const want = await referenceRows(table, theirs);
      assert.ok(want.length > 0, theirs);
      const diff = diffRows(want, lanceOk(['scan', uri, '--filter', ours]).stdout);
      assert.equal(diff, null, `${ours}: ${diff}`);
    });
  }

  test('the battery selects a spread of rows', async () => {
    // Guards against a battery where everything is empty or everything matches.
    let empty = 0;
    let all = 0;
    const total = await table.countRows();
    for (const filter of FILTERS) {
      const n = await table.countRows(filter);
      if (n === 0) empty++;
      if (n === total) all++;
    }
    assert.ok(empty <= 2, `${empty} filters select nothing`);
    assert.equal(all, 0);
  });

  test('offset and limit count filtered rows; projection and row addresses', async () => {
    const filter = 'i32 > 0 AND f64 IS NOT NULL';
    const want = await referenceRows(table, filter);
    const page = lanceOk(['scan', uri, '--filter', filter, '--offset', '5', '--limit', '7']).stdout;
    assert.equal(diffRows(want.slice(5, 12), page), null);
    const tail = lanceOk(['scan', uri, '--filter', filter, '--offset', String(want.length - 2)]).stdout;
    assert.equal(diffRows(want.slice(-2), tail), null);
    assert.equal(lanceOk(['scan', uri, '--filter', filter, '--offset', String(want.length)]).stdout, '');

    // Projection need not include the filter's columns; row ids are the reference's.
    const ref = await table.query().where(filter).select(['id']).withRowId().toArrow();
    const refIds = new Map();
    const idCol = ref.getChild('id').toArray();
    const rowIdCol = ref.getChild('_rowid').toArray();
    for (let k = 0; k < ref.numRows; k++) refIds.set(idCol[k], rowIdCol[k]);
    const lines = lanceOk(['scan', uri, '--filter', filter, '--columns', 'id', '--with-row-addr'])
      .stdout.trim().split('\n');
    assert.equal(lines.length, want.length);
    for (const line of lines) {
      const m = /^\{"id":(\d+),"_rowaddr":(\d+)\}$/.exec(line);
      assert.ok(m, line);
      assert.equal(BigInt(m[2]), refIds.get(BigInt(m[1])), line);
    }
    // A filter on the row address itself (the second fragment starts at 1 << 32).
    const second = lanceOk(['count', uri, '--filter', '_rowaddr >= 4294967296']).stdout.trim();
    assert.equal(second, String(await table.countRows('id >= 300')));
  });

  test('fragments larger than one filter chunk (8192 rows), with deletions', async () => {
    const dir = scratchDir('lance-table-filter-big-');
    const db = await lancedb.connect(dir);
    const big = await db.createTable('big', rows(0, 20000));
    await big.add(rows(20000, 9000));
    await big.delete('id % 1000 = 7 OR (id >= 8000 AND id < 8400)');
    const bigUri = `${dir}/big.lance`;
    for (const filter of ["cat = 'c7' AND f64 > 0", 'i32 IS NULL OR st.a > 30', "s LIKE '%an%'",
                          'id BETWEEN 8100 AND 16500 AND NOT b']) {
      const want = await referenceRows(big, filter);
      assert.ok(want.length > 100, filter);
      assert.equal(diffRows(want, lanceOk(['scan', bigUri, '--filter', filter]).stdout), null, filter);
      assert.equal(lanceOk(['count', bigUri, '--filter', filter]).stdout.trim(),
                   String(await big.countRows(filter)), filter);
      const page = lanceOk(['scan', bigUri, '--filter', filter, '--offset', '100', '--limit', '50']).stdout;
      assert.equal(diffRows(want.slice(100, 150), page), null, `${filter} page`);
    }
  });

  test('errors point at the filter position', () => {
    const r = lance(['scan', uri, '--filter', 'scroe > 5']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /unknown column 'scroe' at position 0 in filter "scroe > 5"; columns are: id, i32,/);
    const s = lance(['count', uri, '--filter', 'i32 > > 5']);
    assert.notEqual(s.status, 0);
    assert.match(s.stderr, /syntax error at position 6/);
  });
});
