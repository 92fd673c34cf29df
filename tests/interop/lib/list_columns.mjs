// List columns big enough that the reference spreads them over many mini-block chunks and
// several pages (and, for long strings, full-zip pages), for tests and benches of ranged reads
// of lists: every row is a pure function of its index, so any row can be checked alone.
import * as A from 'apache-arrow';

import { makeTable } from './gen.mjs';

// A deterministic hash of a row index (32-bit, well mixed).
function mix(i) {
  let h = (i + 0x9e3779b9) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// Null every 17th row, empty every 13th, else 0..max items.
function listLength(i, max) {
  if (i % 17 === 5) return null;
  if (i % 13 === 7) return 0;
  return mix(i) % (max + 1);
}

const item = (type) => new A.Field('item', type, true);

// Columns: id (= row index), list<int64> of 0..20 items with some null items, list<utf8>,
// list<struct<a: int32, b: utf8>>, list<list<int32>>.
export function listColumns(rows) {
  const ids = Array.from({ length: rows }, (_, i) => BigInt(i));
  const ints = Array.from({ length: rows }, (_, i) => {
    const n = listLength(i, 20);
    if (n === null) return null;
    return Array.from({ length: n }, (_, k) => (i % 11 === 3 && k % 4 === 1 ? null : BigInt(i) * 100n + BigInt(k)));
  });
  const strings = Array.from({ length: rows }, (_, i) => {
    const n = listLength(i + 1, 6);
    if (n === null) return null;
    return Array.from({ length: n }, (_, k) => (k === 2 && i % 9 === 0 ? null : `s${i}-${k}-${'x'.repeat(mix(i + k) % 12)}`));
  });
  const structType = new A.Struct([new A.Field('a', new A.Int32(), true), new A.Field('b', new A.Utf8(), true)]);
  const structs = Array.from({ length: rows }, (_, i) => {
    const n = listLength(i + 2, 4);
    if (n === null) return null;
    return Array.from({ length: n }, (_, k) => (k === 1 && i % 7 === 0 ? null : { a: i * 10 + k, b: k % 3 ? `b${i % 50}` : null }));
  });
  const nested = Array.from({ length: rows }, (_, i) => {
    const n = listLength(i + 3, 3);
    if (n === null) return null;
    return Array.from({ length: n }, (_, k) => {
      const m = listLength(i * 5 + k, 4);
      return m === null ? null : Array.from({ length: m }, (_, j) => i + k + j);
    });
  });
  return [
    { name: 'id', type: new A.Int64(), nullable: false, values: ids },
    { name: 'l_int64', type: new A.List(item(new A.Int64())), values: ints },
    { name: 'l_utf8', type: new A.List(item(new A.Utf8())), values: strings },
    { name: 'l_struct', type: new A.List(item(structType)), values: structs },
    { name: 'l_list', type: new A.List(item(new A.List(item(new A.Int32())))), values: nested },
  ];
}

// id plus list<utf8> of 0..3 strings of 300..900 bytes: the reference writes it full-zip.
export function longListColumns(rows) {
  const ids = Array.from({ length: rows }, (_, i) => BigInt(i));
  const docs = Array.from({ length: rows }, (_, i) => {
    const n = listLength(i, 3);
    if (n === null) return null;
    return Array.from({ length: n }, (_, k) => (k === 1 && i % 6 === 0 ? null : `d${i}.${k}:` + 'abcdefghij'.repeat(30 + (mix(i * 3 + k) % 60))));
  });
  return [
    { name: 'id', type: new A.Int64(), nullable: false, values: ids },
    { name: 'l_long', type: new A.List(item(new A.Utf8())), values: docs },
  ];
}

// The columns as one Arrow table in batches of at most 50000 rows.
export function tableOf(columns) {
  const rows = columns[0].values.length;
  const sizes = [];
  for (let left = rows; left > 0; left -= 50000) sizes.push(Math.min(50000, left));
  return makeTable(columns, sizes);
}
