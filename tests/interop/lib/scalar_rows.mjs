// Deterministic rows for the scalar-index tests: one column per key type the reference's
// BTREE / BITMAP / LABEL_LIST indexes take, nulls in every nullable column.
//   id int64 (unique), i32 int32 (id*7 % 101 - 50, null every 11th), f64 float64 (with -0, NaN,
//   +-inf, nulls), s utf8 ("s" + 3 digits, shared by ~3 rows, null every 13th, one ""), b bool
//   (null every 17th), d date32, ts timestamp[us, UTC], cat utf8 ("c0".."c9", null every 19th),
//   tags list<utf8> (0-3 labels of "t0".."t5", null lists every 23rd, null items every 29th).
import * as A from 'apache-arrow';

import { makeTable } from './gen.mjs';

export function scalarColumns(start, n) {
  const ids = Array.from({ length: n }, (_, k) => start + k);
  const f64 = (i) => {
    if (i % 31 === 3) return null;
    if (i === 5) return NaN;
    if (i === 6) return Infinity;
    if (i === 7) return -Infinity;
    if (i === 8) return -0;
    return ((i * 37) % 200) / 4 - 25;
  };
  const tags = (i) => {
    if (i % 23 === 4) return null;
    const k = (i * 5) % 4;
    const out = [];
    for (let j = 0; j < k; j++) out.push(`t${(i + j * 2) % 6}`);
    if (i % 29 === 9) out.push(null);
    return out;
  };
  return [
    { name: 'id', type: new A.Int64(), nullable: false, values: ids.map(BigInt) },
    { name: 'i32', type: new A.Int32(), values: ids.map((i) => (i % 11 === 2 ? null : ((i * 7) % 101) - 50)) },
    { name: 'f64', type: new A.Float64(), values: ids.map(f64) },
    { name: 's', type: new A.Utf8(), values: ids.map((i) => (i % 13 === 1 ? null : i === 10 ? '' : `s${String(Math.floor(((i * 53) % 311) / 3)).padStart(3, '0')}`)) },
    { name: 'b', type: new A.Bool(), values: ids.map((i) => (i % 17 === 0 ? null : i % 3 === 0)) },
    { name: 'd', type: new A.DateDay(), values: ids.map((i) => (i % 37 === 1 ? null : 18000 + ((i * 13) % 97))) },
    { name: 'ts', type: new A.TimestampMicrosecond('UTC'), values: ids.map((i) => (i % 41 === 2 ? null : 1700000000000000n + BigInt(((i * 17) % 89) * 1000003))) },
    { name: 'cat', type: new A.Utf8(), values: ids.map((i) => (i % 19 === 5 ? null : `c${(i * 3) % 10}`)) },
    { name: 'tags', type: new A.List(new A.Field('item', new A.Utf8(), true)), values: ids.map(tags) },
  ];
}

export function scalarTable(start, n) {
  return makeTable(scalarColumns(start, n), [n]);
}

// The indexes the reference builds on it: [column, kind].
export const SCALAR_INDEXES = [
  ['id', 'btree'], ['i32', 'btree'], ['f64', 'btree'], ['s', 'btree'], ['d', 'btree'],
  ['ts', 'btree'], ['b', 'bitmap'], ['cat', 'bitmap'], ['tags', 'labelList'],
];
