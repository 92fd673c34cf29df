// The rows of the index interop tests (table_indexes, table_compact_indexes): an int64 key, a
// low-cardinality string for BTREE/BITMAP, a text for full-text search and a small vector for
// IVF_PQ, each a function of the row's id so any range of ids can be made again.
import * as A from 'apache-arrow';

import { makeTable } from './gen.mjs';

export const DIM = 4;
export const vecOf = (i) => [i % 7, i % 3, i / 10, 1];
export const textOf = (i) => `doc ${i} ${i % 4 === 0 ? 'apple' : 'pear'} ${i % 9 === 0 ? 'kiwi' : ''}`;

// Rows with ids start .. start + n - 1, as one batch.
export function indexedRows(start, n) {
  return makeTable([
    { name: 'id', type: new A.Int64(), nullable: false, values: Array.from({ length: n }, (_, i) => BigInt(start + i)) },
    { name: 'cat', type: new A.Utf8(), values: Array.from({ length: n }, (_, i) => `c${(start + i) % 5}`) },
    { name: 'text', type: new A.Utf8(), values: Array.from({ length: n }, (_, i) => textOf(start + i)) },
    { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)),
      values: Array.from({ length: n }, (_, i) => vecOf(start + i)) },
  ], [n]);
}
