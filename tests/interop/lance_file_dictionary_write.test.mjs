// Arrow dictionary-typed columns written by our FileWriter (`lance create`, `lance update`,
// `lance compact`) and read back by lance 12 (@lancedb/lancedb) as the same dictionary types
// with equal values, row for row, nulls included, in data storage versions 2.1 and 2.2.
// Dictionary columns are stored as lance 12 stores them: logical type
// `dict:<value>:<index>:<ordered>` and mini-block pages whose values are the indices (at the
// index type's width) with the dictionary items in the page's dictionary buffer.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';

import { diffRows, expectedRows, rowsText } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { dataFrom, makeTable, toIPC } from './lib/gen.mjs';
import * as A from 'apache-arrow';

const require = createRequire(import.meta.url);
const lancedb = require('@lancedb/lancedb');

const dir = scratchDir('lance-dict-write-');
const N = 3000;

const COLORS = ['red', 'green', 'blue', '', 'ünïcode', 'violet', 'x'.repeat(40), 'unused'];
const pick = (m, nulls) => Array.from({ length: N }, (_, i) => (nulls && i % 11 === 3 ? null : (i * 3 + (i >> 4)) % m));

// Columns of dictionary type; `dicts` maps dictionary ids to their value vectors.
function dictionaryTable({ withLarge }) {
  const dicts = new Map();
  let id = 200;
  const col = (name, valueType, items, indexType, values) => {
    dicts.set(++id, new A.Vector([dataFrom(valueType, items)]));
    return { name, type: new A.Dictionary(valueType, indexType, id), values };
  };
  const enc = new TextEncoder();
  const cols = [
    { name: 'id', type: new A.Int32(), nullable: false, values: Array.from({ length: N }, (_, i) => i) },
    col('s_i8', new A.Utf8(), COLORS, new A.Int8(), pick(7, true)),
    col('s_i16_nn', new A.Utf8(), COLORS, new A.Int16(), pick(8, false)),
    col('b_u8', new A.Binary(), COLORS.map((s) => enc.encode(s)), new A.Uint8(), pick(7, true)),
    col('i64_i32', new A.Int64(), [5n, 900n, -7n, 123456789012n], new A.Int32(), pick(4, true)),
    col('f32_u16', new A.Float32(), [0.5, 1.5, -2], new A.Uint16(), pick(3, false)),
    col('s_i64', new A.Utf8(), COLORS, new A.Int64(), pick(7, true)),
    // A null item: rows pointing at it read back as null rows.
    col('s_null_item', new A.Utf8(), ['a', null, 'c'], new A.Int32(), pick(3, false)),
    // Every row null.
    col('s_all_null', new A.Utf8(), ['q'], new A.Int8(), Array(N).fill(null)),
    // Many distinct items (page dictionary of 2000 strings).
    col('s_wide', new A.Utf8(), Array.from({ length: 2000 }, (_, i) => `item-${i}-${'z'.repeat(i % 13)}`),
        new A.Int16(), Array.from({ length: N }, (_, i) => (i * 7) % 2000)),
  ];
  if (withLarge) cols.push(col('ls_i16', new A.LargeUtf8(), COLORS, new A.Int16(), pick(7, true)));
  return makeTable(cols, [1000, 0, 2000], { dicts });
}

// The dictionary type of every field, as apache-arrow prints it.
const typesOf = (schema) => schema.fields.map((f) => `${f.name}: ${f.type}`);

function assertRowsEqual(want, have, what) {
  assert.equal(have.length, want.length, `${what}: row count`);
  for (let i = 0; i < want.length; i++) {
    const w = rowsText([want[i]]);
    const h = rowsText([have[i]]);
    if (w !== h) assert.fail(`${what}: row ${i}: want ${w.slice(0, 300)} got ${h.slice(0, 300)}`);
  }
}

async function readAll(uri, version) {
  const db = await lancedb.connect(path.dirname(uri));
  const t = await db.openTable(path.basename(uri, '.lance'));
  if (version !== undefined) await t.checkout(version);
  return t.query().limit(1e9).toArrow();
}

for (const version of ['2.1', '2.2']) {
  describe(`dictionary columns written by lance-cpp, version ${version}`, () => {
    test('lance 12 reads every dictionary column row for row, as the same dictionary type', async () => {
      const table = dictionaryTable({ withLarge: true });
      const ipc = path.join(dir, `dict-${version}.arrows`);
      fs.writeFileSync(ipc, toIPC(table, 'stream'));
      const uri = path.join(dir, `ours-${version}`, 't.lance');
      lanceOk(['create', uri, '--input', ipc, '--data-storage-version', version]);

      const dataDir = path.join(uri, 'data');
      const file = path.join(dataDir, fs.readdirSync(dataDir)[0]);
      const info = JSON.parse(lanceOk(['file', 'info', file]).stdout);
      const enc = Object.fromEntries(info.schema.fields.map((f, k) => [f.name, info.columns[k].pages.map((p) => p.encoding)]));
      const items = version === '2.2' ? (inner) => `general(lz4, ${inner})` : (inner) => inner;
      assert.match(enc.s_i8[0], new RegExp(`^mini_block\\(values=inline_bitpacking\\(8\\), dictionary=${items('variable(flat(32))').replace(/[()]/g, '\\$&')}`));
      assert.match(enc.i64_i32[0], new RegExp(`dictionary=${items('flat(64)').replace(/[()]/g, '\\$&')}`));
      assert.match(enc.f32_u16[0], /values=(rle\(flat\(16\)|inline_bitpacking\(16\))/);
      assert.match(enc.ls_i16[0], new RegExp(`dictionary=${items('variable(flat(64))').replace(/[()]/g, '\\$&')}`));
      assert.match(enc.s_i64[0], /values=inline_bitpacking\(64\)/);

      const got = await readAll(uri);
      assert.deepEqual(typesOf(got.schema), typesOf(table.schema));
      assertRowsEqual(expectedRows(table), expectedRows(got), 'lance 12 read');

      // Our own reader, every column (the large_utf8 items carry the 64-bit block header).
      const mine = lanceOk(['file', 'cat', file]).stdout;
      const problem = diffRows(expectedRows(table), mine);
      assert.equal(problem, null, problem ?? '');
    });

    test('a dictionary that changes between batches is merged per page', async () => {
      const type = new A.Dictionary(new A.Utf8(), new A.Int16(), 7);
      const schema = new A.Schema([new A.Field('d', type, true), new A.Field('i', new A.Int32(), false)]);
      const batch = (items, idx) => {
        const dicts = new Map([[7, new A.Vector([dataFrom(new A.Utf8(), items)])]]);
        const children = [dataFrom(type, idx, dicts), dataFrom(new A.Int32(), idx.map((_, k) => k))];
        return new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: idx.length, nullCount: 0, children }));
      };
      const batches = [batch(['a', 'b'], [0, 1, null, 1]), batch(['x', 'a', 'z'], [2, 0, 1, 1]),
                       batch(['b', 'b', 'y'], [1, 0, 2, null])];
      const w = new A.RecordBatchStreamWriter();
      w.reset(undefined, schema);
      for (const b of batches) w.write(b);
      const ipc = path.join(dir, `evolving-${version}.arrows`);
      fs.writeFileSync(ipc, w.finish().toUint8Array(true));
      const uri = path.join(dir, `evolving-${version}`, 't.lance');
      lanceOk(['create', uri, '--input', ipc, '--data-storage-version', version]);
      const got = await readAll(uri);
      assert.equal(String(got.schema.fields[0].type), String(type));
      const want = new A.Table(schema, batches);
      assertRowsEqual(expectedRows(want), expectedRows(got), 'lance 12 read');
      assert.deepEqual(expectedRows(got).map((r) => r.entries[0][1]),
                       ['a', 'b', null, 'b', 'z', 'x', 'a', 'a', 'b', 'b', 'y', null]);
    });

    test('lance 12 creates a dataset with dictionary columns; we update and compact it; lance 12 reads every version', async () => {
      // No large_utf8 dictionary here: @lancedb/lancedb's createTable refuses that Arrow type.
      const table = dictionaryTable({ withLarge: false });
      const base = path.join(dir, `table-${version}`);
      const db = await lancedb.connect(base);
      // Three fragments, so that compaction has something to merge.
      const created = await db.createTable('t', table.slice(0, 1000), { storageOptions: { new_table_data_storage_version: version } });
      await created.add(table.slice(1000, 2000));
      await created.add(table.slice(2000, N));
      const uri = path.join(base, 't.lance');
      const model = [expectedRows(await readAll(uri))];
      assert.equal(model[0].length, N);
      // Each step changes ids only; the dictionary columns are rewritten as they were.
      const steps = [
        { args: ['update', uri, '--set', 'id = id + 100000', '--where', 'id % 5 = 1'], f: (x) => (x % 5 === 1 ? x + 100000 : x) },
        { args: ['update', uri, '--set', 'id = -id', '--where', 'id > 2500 AND id < 2600'], f: (x) => (x > 2500 && x < 2600 ? -x : x) },
        { args: ['compact', uri], f: (x) => x },
      ];
      const sortedText = (rows) => rows.map((r) => rowsText([r])).sort().join('');
      const wantTexts = [sortedText(model[0])];
      let text = model[0].map((r) => rowsText([r]));
      for (const step of steps) {
        const out = JSON.parse(lanceOk(step.args).stdout);
        if (step.args[0] === 'compact') assert.ok(out.fragments_removed > 1, JSON.stringify(out));
        text = text.map((t) => t.replace(/^\{"id":(-?\d+)/, (_, d) => `{"id":${step.f(Number(d))}`));
        wantTexts.push([...text].sort().join(''));
      }

      // Every version, as lance 12 reads it.
      const t = await (await lancedb.connect(base)).openTable('t');
      const versions = (await t.listVersions()).map((v) => v.version);
      assert.deepEqual(versions, [1, 2, 3, 4, 5, 6]);
      for (const v of versions) {
        const got = await readAll(uri, v);
        assert.deepEqual(typesOf(got.schema), typesOf(table.schema), `version ${v}`);
        // Versions 1 and 2 hold the first 1000 / 2000 rows (lance 12's own appends).
        const want = v < 3 ? sortedText(model[0].slice(0, 1000 * v)) : wantTexts[v - 3];
        assert.equal(sortedText(expectedRows(got)), want, `version ${v}`);
      }
      // And our reader agrees on the latest.
      const mine = lanceOk(['scan', uri]).stdout.split('\n').filter((l) => l).sort().join('\n') + '\n';
      assert.equal(mine, wantTexts[3].split('\n').filter((l) => l).sort().join('\n') + '\n');
    });

    test('merge-insert of dictionary rows into a dataset lance 12 created, read by lance 12', async () => {
      const dtype = (id) => new A.Dictionary(new A.Utf8(), new A.Int8(), id);
      const base = path.join(dir, `merge-${version}`);
      const target = makeTable([
        { name: 'id', type: new A.Int32(), nullable: false, values: Array.from({ length: 100 }, (_, i) => i) },
        { name: 's', type: dtype(301), values: Array.from({ length: 100 }, (_, i) => (i % 3 === 2 ? null : i % 2)) },
      ], [100], { dicts: new Map([[301, new A.Vector([dataFrom(new A.Utf8(), ['red', 'green'])])]]) });
      const db = await lancedb.connect(base);
      await db.createTable('t', target, { storageOptions: { new_table_data_storage_version: version } });
      // The source's dictionary differs from the target's (new item, other order).
      const source = makeTable([
        { name: 'id', type: new A.Int32(), nullable: false, values: [1, 2, 5000, 5001] },
        { name: 's', type: dtype(302), values: [0, 1, 2, null] },
      ], [4], { dicts: new Map([[302, new A.Vector([dataFrom(new A.Utf8(), ['zz', 'red', 'new'])])]]) });
      const ipc = path.join(dir, `merge-${version}.arrows`);
      fs.writeFileSync(ipc, toIPC(source, 'stream'));
      const uri = path.join(base, 't.lance');
      const out = JSON.parse(lanceOk(['merge-insert', uri, '--input', ipc, '--on', 'id']).stdout);
      assert.equal(out.rows_updated, 2);
      assert.equal(out.rows_inserted, 2);
      const got = await readAll(uri);
      assert.equal(String(got.schema.fields[1].type), String(dtype(301)));
      const have = new Map(expectedRows(got).map((r) => [Number(r.entries[0][1].raw ?? r.entries[0][1]), r.entries[1][1]]));
      const want = new Map(Array.from({ length: 100 }, (_, i) => [i, i % 3 === 2 ? null : ['red', 'green'][i % 2]]));
      want.set(1, 'zz').set(2, 'red').set(5000, 'new').set(5001, null);
      assert.deepEqual([...have.entries()].sort((a, b) => a[0] - b[0]), [...want.entries()].sort((a, b) => a[0] - b[0]));
    });
  });
}
