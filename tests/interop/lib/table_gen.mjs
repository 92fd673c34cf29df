// Builds reference (lance 12) datasets with a history for the table interop tests: several
// fragments through appends, small deletions (Arrow IPC deletion files) and large ones
// (> 5000 rows in a fragment -> Roaring bitmap), many versions and a tag. Rows carry many
// column types (nulls included) and a unique int64 `id`.
import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { makeTable, typeColumns } from './gen.mjs';

// Types taken from gen.mjs's catalogue (values cycle through its 12 interesting values).
export const TABLE_TYPES = [
  'bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float16',
  'float32', 'float64', 'utf8', 'binary', 'fixed_size_binary',
  'date32', 'timestamp_us', 'timestamp_ns_utc', 'decimal_38_10', 'list_int32', 'list_utf8',
  'list_struct', 'vector_float32_nonnull_items', 'struct',
];

function columnsFor(start, n) {
  const catalogue = new Map(typeColumns().map((c) => [c.name, c]));
  const cols = [{ name: 'id', type: new A.Int64(), nullable: false,
                  values: Array.from({ length: n }, (_, i) => BigInt(start + i)) }];
  for (const name of TABLE_TYPES) {
    const c = catalogue.get(name);
    if (!c) throw new Error(`unknown catalogue type ${name}`);
    const k = c.values.length;
    cols.push({ name: c.name, type: c.type, values: Array.from({ length: n }, (_, i) => c.values[(start + i * 7) % k]) });
  }
  return cols;
}

export function rowsTable(start, n) {
  return makeTable(columnsFor(start, n), [n]);
}

// Creates `{dir}/{name}.lance` and returns { table, uri, versions, tags }. Every type above,
// several fragments, small deletions (Arrow IPC deletion files), many versions, a tag:
//   v1 create 300 rows (ids 0..299)   v2 append 6200 rows  v3 append 50 rows
//   v4 delete id % 10 = 3             v5 delete 100 <= id < 200 or 400 <= id < 5800 (Roaring)
//   v6 append 10 rows                 v7 delete id < 5 (second deletion file of fragment 0)
//   tag "before_range_delete" -> v4
export async function buildHistory(dir, name = 'history') {
  const db = await lancedb.connect(dir);
  const t = await db.createTable(name, rowsTable(0, 300), { mode: 'overwrite' });
  await t.add(rowsTable(300, 6200));
  await t.add(rowsTable(6500, 50));
  await t.delete('id % 10 = 3');
  await t.delete('(id >= 100 AND id < 200) OR (id >= 400 AND id < 5800)');
  await t.add(rowsTable(6550, 10));
  await t.delete('id < 5');
  await (await t.tags()).create('before_range_delete', 4);
  const versions = (await t.listVersions()).map((v) => v.version);
  return { table: t, uri: `${dir}/${name}.lance`, versions, tags: { before_range_delete: 4 } };
}

// A narrow table (int64 id, nullable utf8, nullable float64) with a 6200-row fragment, so a
// delete of more than 5000 of its rows gets a Roaring bitmap deletion file:
//   v1 create 10 rows   v2 append 6200 rows   v3 delete id % 4 = 1
//   v4 delete id >= 400 AND id < 5800          tag "small_deletes" -> v3
export async function buildBigDeletes(dir, name = 'big') {
  const narrow = (start, n) => {
    const ids = BigInt64Array.from({ length: n }, (_, i) => BigInt(start + i));
    const s = A.vectorFromArray(Array.from({ length: n }, (_, i) => ((start + i) % 3 === 0 ? null : `s${start + i}`)), new A.Utf8());
    const f = A.vectorFromArray(Array.from({ length: n }, (_, i) => ((start + i) % 5 === 0 ? null : (start + i) / 8)), new A.Float64());
    return new A.Table({ id: A.makeVector(ids), s, f });
  };
  const db = await lancedb.connect(dir);
  const t = await db.createTable(name, narrow(0, 10), { mode: 'overwrite' });
  await t.add(narrow(10, 6200));
  await t.delete('id % 4 = 1');
  await t.delete('id >= 400 AND id < 5800');
  await (await t.tags()).create('small_deletes', 3);
  const versions = (await t.listVersions()).map((v) => v.version);
  return { table: t, uri: `${dir}/${name}.lance`, versions, tags: { small_deletes: 3 } };
}

// Stable row ids and schema evolution:
//   v1 create 10 rows (stable row ids)   v2 append 20 rows   v3 delete id % 3 = 0
//   v4 update x where id = 4 (the row moves to a new fragment, keeping its row id)
//   v5 add column doubled = x * 2         v6 rename x -> xx
export async function buildEvolved(dir, name = 'evolved') {
  const mk = (start, n) => new A.Table({
    id: A.makeVector(BigInt64Array.from({ length: n }, (_, i) => BigInt(start + i))),
    x: A.vectorFromArray(Array.from({ length: n }, (_, i) => ((start + i) % 7 === 0 ? null : (start + i) * 1.5)), new A.Float64()),
  });
  const db = await lancedb.connect(dir);
  const t = await db.createTable(name, mk(0, 10), {
    mode: 'overwrite', storageOptions: { newTableEnableStableRowIds: 'true' } });
  await t.add(mk(10, 20));
  await t.delete('id % 3 = 0');
  await t.update({ where: 'id = 4', values: { x: '100.5' } });
  await t.addColumns([{ name: 'doubled', valueSql: 'x * 2' }]);
  await t.alterColumns([{ path: 'x', rename: 'xx' }]);
  const versions = (await t.listVersions()).map((v) => v.version);
  return { table: t, uri: `${dir}/${name}.lance`, versions };
}
