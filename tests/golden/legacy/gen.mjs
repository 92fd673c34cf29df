// Golden datasets written by older Lance writers, and lance 12's reading of every version.
//
// Two steps (from the repository root; each writer lives in writers/<w>/ with its own
// package.json and package-lock.json: `cd tests/golden/legacy/writers/<w> && npm install`):
//
//   node tests/golden/legacy/gen.mjs write v0_4_20    # vectordb 0.4.20      (lance 0.10.18)
//   node tests/golden/legacy/gen.mjs write v0_14_1    # @lancedb/lancedb 0.14.1 (lance 0.21.0)
//   node tests/golden/legacy/gen.mjs write v0_21_3    # @lancedb/lancedb 0.21.3 (lance 0.33.0)
//   node tests/golden/legacy/gen.mjs expect           # lance 12 (tests/interop/node_modules)
//
// `write` replaces tests/golden/legacy/<w>/ with freshly written datasets (file names carry
// random UUIDs, so a rerun changes every name: rerun `expect` after it). Each dataset goes
// through several versions: create, append, add a column, delete, update, indexes, append.
// Column types are probed first: a column the writer refuses is left out and named in
// <w>/refused.json.
//
// `expect` opens every version of every dataset with @lancedb/lancedb 0.39.0 (lance 12.0.0)
// and writes, per dataset, into expected/<w>/<dataset>/:
//   rows.jsonl   every distinct row lance 12 read (canonical JSON lines without _rowid), once
//   lance12.json {versions: {v: {container, num_rows, schema, indices, rows: [line numbers in
//                scan order], rowids: [_rowid of each]}}, files: [{path, fragment, version,
//                physical_rows, fields, file_version, columns, rows: [line of each offset]}]}
// For a data file, `version` is the first version whose manifest lists it and `columns` the
// top-level columns it holds; its rows are that version's rows of its fragment, in offset
// order (the script checks that the fragment has no deletions at that version, so every row
// of every file is covered). Manifests are decoded here with a minimal protobuf reader.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const WRITERS = {
  v0_4_20: { pkg: 'vectordb', lance: '0.10.18' },
  v0_14_1: { pkg: '@lancedb/lancedb', lance: '0.21.0' },
  v0_21_3: { pkg: '@lancedb/lancedb', lance: '0.33.0' },
};

// ---------------------------------------------------------------------------------------------
// Deterministic values (xorshift32 per column) so a rerun writes the same rows.
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}
const WORDS = ['lance', 'arrow', 'vector', 'table', 'column', 'index', 'query', 'fragment',
  'manifest', 'delta', 'river', 'stone', 'cloud', 'apple', 'orange'];

// Column candidates: [name, (arrow) => type or null when this apache-arrow lacks it,
// (id, arrow) => value (null for a null)]. Ids are the row's `id`.
function candidates() {
  const nul = (id, k) => (id % k === k - 1 ? null : undefined);
  const pick = (id, v, k) => (nul(id, k) === null ? null : v);
  return [
    ['i8', (a) => new a.Int8(), (id) => pick(id, ((id * 37) % 256) - 128, 5)],
    ['i16', (a) => new a.Int16(), (id) => pick(id, id * 311 - 20000, 6)],
    ['i32', (a) => new a.Int32(), (id) => pick(id, id * 1000003 - 50000000, 7)],
    ['u8', (a) => new a.Uint8(), (id) => pick(id, (id * 7) % 256, 8)],
    ['u16', (a) => new a.Uint16(), (id) => (id * 977) % 65536],
    ['u32', (a) => new a.Uint32(), (id) => pick(id, (id * 2654435761) % 4294967296, 9)],
    ['u64', (a) => new a.Uint64(), (id) => pick(id, (BigInt(id) * 1000000000007n + 18446744073709551000n) % 18446744073709551616n, 10)],
    ['f16', (a) => new a.Float16(), (id) => pick(id, (id - 20) / 8, 6)],
    ['f32', (a) => new a.Float32(), (id) => pick(id, Math.fround(id * 1.25 - 7.5), 5)],
    ['f64', (a) => new a.Float64(), (id) => pick(id, id * 3.141592653589793 - 100, 4)],
    ['flag', (a) => new a.Bool(), (id) => pick(id, id % 3 === 0, 7)],
    ['str', (a) => new a.Utf8(), (id) => (id % 9 === 4 ? null : id % 9 === 5 ? '' : `s${id}-${WORDS[id % WORDS.length]}`)],
    ['lstr', (a) => (a.LargeUtf8 ? new a.LargeUtf8() : null), (id) => pick(id, `large ${id}`, 6)],
    ['bin', (a) => new a.Binary(), (id) => pick(id, Uint8Array.from({ length: id % 5 }, (_, k) => (id * 13 + k) % 256), 8)],
    ['lbin', (a) => (a.LargeBinary ? new a.LargeBinary() : null), (id) => pick(id, Uint8Array.from([id % 256, 255 - (id % 256)]), 7)],
    ['fsb', (a) => new a.FixedSizeBinary(4), (id) => pick(id, Uint8Array.from([id % 256, 1, 2, 3]), 6)],
    ['day', (a) => new a.DateDay(), (id) => pick(id, new Date(86400000 * (19000 + id)), 5)],
    ['ms_date', (a) => new a.DateMillisecond(), (id) => pick(id, new Date(86400000 * (18000 + id)), 6)],
    ['ts_s', (a) => new a.TimestampSecond(), (id) => pick(id, 1700000000000 + id * 1000, 7)],
    ['ts_ms', (a) => new a.TimestampMillisecond(), (id) => pick(id, 1700000000000 + id * 17, 5)],
    ['ts_us', (a) => new a.TimestampMicrosecond(), (id) => pick(id, 1700000000000 + id, 6)],
    ['ts_ns', (a) => new a.TimestampNanosecond(), (id) => pick(id, 1700000000000 + id, 8)],
    ['ts_tz', (a) => new a.Timestamp(a.TimeUnit.MICROSECOND, 'UTC'), (id) => pick(id, 1600000000000 + id * 3, 5)],
    ['t32', (a) => new a.TimeMillisecond(), (id) => pick(id, (id * 12345) % 86400000, 6)],
    ['t64', (a) => new a.TimeMicrosecond(), (id) => pick(id, BigInt(id) * 1234567n, 7)],
    ['dur', (a) => (a.DurationMillisecond ? new a.DurationMillisecond() : null), (id) => pick(id, BigInt(id * 1001), 6)],
    ['dec', (a) => new a.Decimal(2, 12, 128), (id) => pick(id, id * 12345 - 99999, 5)],  // unscaled
    ['vec', (a) => new a.FixedSizeList(8, new a.Field('item', new a.Float32(), true)),
      (id) => Array.from({ length: 8 }, (_, k) => Math.round(Math.sin(id * 0.7 + k) * 40) / 4)],
    ['fsl_i16', (a) => new a.FixedSizeList(3, new a.Field('item', new a.Int16(), true)),
      (id) => pick(id, [id, -id, id * 2], 6)],
    ['lst', (a) => new a.List(new a.Field('item', new a.Int32(), true)),
      (id) => (id % 7 === 2 ? null : Array.from({ length: id % 4 }, (_, k) => id * 10 + k))],
    ['lst_str', (a) => new a.List(new a.Field('item', new a.Utf8(), true)),
      (id) => pick(id, Array.from({ length: (id % 3) + 1 }, (_, k) => WORDS[(id + k) % WORDS.length]), 8)],
    ['st', (a) => new a.Struct([new a.Field('a', new a.Int32(), true), new a.Field('b', new a.Utf8(), true),
      new a.Field('c', new a.Struct([new a.Field('d', new a.Float64(), true)]), true)]),
      (id) => (id % 10 === 9 ? null : { a: id % 6 === 1 ? null : id * 2, b: `b${id}`, c: { d: id / 4 } })],
    ['lst_st', (a) => new a.List(new a.Field('item', new a.Struct([new a.Field('x', new a.Int32(), true),
      new a.Field('y', new a.Utf8(), true)]), true)),
      (id) => Array.from({ length: id % 3 }, (_, k) => ({ x: id + k, y: `y${k}` }))],
    ['dict', (a) => new a.Dictionary(new a.Utf8(), new a.Int32()), (id) => pick(id, WORDS[id % 4], 6)],
    ['nothing', (a) => new a.Null(), () => null],
  ];
}

// One Arrow column from values; decimals are built from unscaled integers.
function makeVector(a, type, values) {
  if (type.typeId === a.Type.Decimal) {
    const words = new Uint32Array(values.length * 4);
    const valid = new Uint8Array(Math.ceil(values.length / 8));
    let nulls = 0;
    values.forEach((v, i) => {
      if (v === null) { nulls++; return; }
      valid[i >> 3] |= 1 << (i & 7);
      let x = BigInt(v);
      if (x < 0n) x += 1n << 128n;
      for (let k = 0; k < 4; k++) { words[i * 4 + k] = Number(x & 0xffffffffn); x >>= 32n; }
    });
    return a.makeVector(a.makeData({ type, length: values.length, nullCount: nulls,
      nullBitmap: nulls ? valid : null, data: words }));
  }
  if (type.typeId === a.Type.FixedSizeList) {
    // Null lists keep placeholder items (apache-arrow's builder drops them).
    const n = type.listSize;
    const child = a.vectorFromArray(values.flatMap((v) => (v === null ? Array(n).fill(0) : v)),
      type.children[0].type);
    const valid = new Uint8Array(Math.ceil(values.length / 8));
    let nulls = 0;
    values.forEach((v, i) => { if (v === null) nulls++; else valid[i >> 3] |= 1 << (i & 7); });
    return a.makeVector(a.makeData({ type, length: values.length, nullCount: nulls,
      nullBitmap: nulls ? valid : null, child: child.data[0] }));
  }
  if (type.typeId === a.Type.Dictionary) {
    // One fixed dictionary (WORDS[0..3]) for every batch: legacy files keep a single
    // dictionary in the schema, so appends must bring the same one.
    const dict = a.vectorFromArray(WORDS.slice(0, 4), type.dictionary);
    const keys = a.vectorFromArray(values.map((v) => (v === null ? null : WORDS.indexOf(v))), type.indices);
    return a.makeVector(a.makeData({ type, length: values.length, nullCount: keys.nullCount,
      nullBitmap: keys.data[0].nullBitmap, data: keys.data[0].values, dictionary: dict }));
  }
  return a.vectorFromArray(values, type);
}

function makeTable(a, cols, ids) {
  const fields = [new a.Field('id', new a.Int64(), false)];
  const vectors = [a.vectorFromArray(ids.map(BigInt), new a.Int64())];
  for (const [name, typeFn, valueFn] of cols) {
    const type = typeFn(a);
    fields.push(new a.Field(name, type, true));
    vectors.push(makeVector(a, type, ids.map((id) => valueFn(id, a))));
  }
  const schema = new a.Schema(fields);
  const data = a.makeData({ type: new a.Struct(fields), length: ids.length, nullCount: 0,
    children: vectors.map((v) => v.data[0]) });
  return new a.Table([new a.RecordBatch(schema, data)]);
}

const range = (lo, n) => Array.from({ length: n }, (_, i) => lo + i);

// ---------------------------------------------------------------------------------------------
// Writer adapters: the same operations through vectordb 0.4.x and @lancedb/lancedb.
async function openWriter(w) {
  const req = createRequire(path.join(here, 'writers', w, 'package.json'));
  const a = req('apache-arrow');
  const lib = req(WRITERS[w].pkg);
  const old = w === 'v0_4_20';
  return {
    arrow: a,
    old,
    async connect(dir) {
      const db = await lib.connect(dir);
      return {
        async create(name, table, { legacy = false } = {}) {
          if (old) return wrap(await db.createTable(name, table, { writeMode: lib.WriteMode.Create }));
          const opts = { mode: 'create' };
          if (legacy) opts.useLegacyFormat = true;
          if (legacy) opts.dataStorageVersion = 'legacy';
          // lance 0.33.0 still defaults to 2.0 files: ask for its newest stable one.
          else if (w === 'v0_21_3') opts.dataStorageVersion = '2.1';
          return wrap(await db.createTable(name, table, opts));
        },
      };
    },
  };
  function wrap(t) {
    return {
      add: (table) => t.add(table),
      delete: (filter) => t.delete(filter),
      update: (where, valuesSql) => t.update({ where, valuesSql }),
      addColumns: (cols) => t.addColumns(cols),
      async btree(col) {
        if (old) return t.createScalarIndex(col, true);
        return t.createIndex(col, { config: lib.Index.btree() });
      },
      async bitmap(col) { return t.createIndex(col, { config: lib.Index.bitmap() }); },
      async labelList(col) { return t.createIndex(col, { config: lib.Index.labelList() }); },
      async fts(col) { return t.createIndex(col, { config: lib.Index.fts() }); },
      async ivfPq(col) {
        if (old) {
          return t.createIndex({ type: 'ivf_pq', column: col, num_partitions: 2, num_sub_vectors: 2,
            metric_type: 'L2', replace: true });
        }
        return t.createIndex(col, { config: lib.Index.ivfPq({ numPartitions: 2, numSubVectors: 2 }) });
      },
      async compact() {
        if (old) return t.compactFiles();
        return t.optimize({ cleanupOlderThan: undefined });
      },
    };
  }
}

// Which candidate columns this writer stores (a tiny table per column in a scratch dir).
async function probe(W) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'legacy-probe-'));
  const db = await W.connect(scratch);
  const ok = [];
  const refused = {};
  for (const col of candidates()) {
    const [name, typeFn] = col;
    if (!typeFn(W.arrow)) { refused[name] = 'not in this apache-arrow'; continue; }
    try {
      await db.create(`p_${name}`, makeTable(W.arrow, [col], range(0, 12)));
      ok.push(col);
    } catch (e) {
      refused[name] = String(e.message || e).split('\n')[0].slice(0, 200);
    }
  }
  fs.rmSync(scratch, { recursive: true, force: true });
  return { ok, refused };
}

async function write(w) {
  const W = await openWriter(w);
  const out = path.join(here, w);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const { ok, refused } = await probe(W);
  const log = [];
  const step = async (ds, what, fn) => {
    try {
      await fn();
      log.push(`${ds}: ${what}`);
    } catch (e) {
      log.push(`${ds}: ${what} REFUSED: ${String(e.message || e).split('\n')[0].slice(0, process.env.FULL ? 2000 : 200)}`);
    }
  };
  const db = await W.connect(out);
  const a = W.arrow;
  const named = (names) => ok.filter(([n]) => names.includes(n));
  const variants = W.old ? [['', false]] : w === 'v0_14_1' ? [['', false], ['_legacy', true]] : [['', false]];

  for (const [suffix, legacy] of variants) {
    // types: every stored type, two fragments, a column added, deletions, an update, a BTree.
    const types = `types${suffix}`;
    let t;
    await step(types, 'v1 create 24 rows', async () => { t = await db.create(types, makeTable(a, ok, range(0, 24)), { legacy }); });
    await step(types, 'append 12 rows', () => t.add(makeTable(a, ok, range(24, 12))));
    await step(types, 'add column extra = id * 2 + 1', () => t.addColumns([{ name: 'extra', valueSql: 'id * 2 + 1' }]));
    await step(types, 'delete id % 7 = 3', () => t.delete('id % 7 = 3'));
    await step(types, "update str, i32 where id < 6", () => t.update('id < 6', { str: "'updated'", i32: 'i32 + 1' }));
    await step(types, 'btree on id', () => t.btree('id'));
    // The added column is given for new rows too.
    const withExtra = (ids, nullable) => {
      const base = makeTable(a, ok, ids);
      const extra = a.vectorFromArray(ids.map((id) => BigInt(id * 2 + 1)), new a.Int64());
      const fields = [...base.schema.fields, new a.Field('extra', new a.Int64(), nullable)];
      const data = a.makeData({ type: new a.Struct(fields), length: ids.length, nullCount: 0,
        children: [...base.batches[0].data.children, extra.data[0]] });
      return new a.Table([new a.RecordBatch(new a.Schema(fields), data)]);
    };
    // The added column's nullability differs between writers: try both.
    await step(types, 'append 6 rows', () => t.add(withExtra(range(36, 6), true))
      .catch(() => t.add(withExtra(range(36, 6), false))));

    // vectors: enough rows for IVF_PQ (256), scalar indexes, FTS, append + delete after indexing, compaction
    // (not again in legacy files: the index files are the same).
    if (!legacy) {
      const vectors = `vectors${suffix}`;
      const vcols = named(['vec', 'lst_str']);
      const textCol = ['text', (x) => new x.Utf8(), (id) => `${WORDS[id % 15]} ${WORDS[(id * 7) % 15]}`];
      const catCol = ['cat', (x) => new x.Utf8(), (id) => WORDS[id % 5]];
      const vall = [...vcols, catCol, textCol];
      let v;
      await step(vectors, 'v1 create 260 rows', async () => { v = await db.create(vectors, makeTable(a, vall, range(0, 260)), { legacy }); });
      await step(vectors, 'ivf_pq on vec', () => v.ivfPq('vec'));
      await step(vectors, 'btree on id', () => v.btree('id'));
      if (!W.old) {
        await step(vectors, 'bitmap on cat', () => v.bitmap('cat'));
        await step(vectors, 'fts on text', () => v.fts('text'));
      }
      await step(vectors, 'append 20 rows', () => v.add(makeTable(a, vall, range(260, 20))));
      await step(vectors, 'delete id % 5 = 0', () => v.delete('id % 5 = 0'));
      await step(vectors, 'compact', () => v.compact());
      // After the compaction: lance 0.21.0 cannot compact a dataset with a label_list index.
      if (!W.old) await step(vectors, 'label_list on lst_str', () => v.labelList('lst_str'));
    }

    // batches: one legacy file of several 1024-row groups (v1 page table with 2 batches).
    if (W.old) {
      const batches = `batches${suffix}`;
      const bcols = named(['str', 'lst', 'flag']);
      let b;
      await step(batches, 'v1 create 1040 rows', async () => { b = await db.create(batches, makeTable(a, bcols, range(0, 1040)), { legacy }); });
      await step(batches, 'delete id >= 1000 AND id < 1030', () => b.delete('id >= 1000 AND id < 1030'));
    }
  }
  fs.writeFileSync(path.join(out, 'refused.json'), JSON.stringify({ writer: w, ...WRITERS[w],
    columns: ok.map(([n]) => n), refused, steps: log }, null, 1) + '\n');
  console.log(log.join('\n'));
  console.log('refused columns:', refused);
}

// ---------------------------------------------------------------------------------------------
// A minimal protobuf reader (enough for manifests): fields as {number: [values]}, where a
// value is a BigInt (varint / fixed) or a Buffer (length-delimited).
export function pbDecode(buf) {
  const out = {};
  let p = 0;
  const varint = () => {
    let x = 0n, shift = 0n;
    for (;;) {
      const b = buf[p++];
      x |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return x;
      shift += 7n;
    }
  };
  while (p < buf.length) {
    const key = Number(varint());
    const num = key >> 3, wt = key & 7;
    let val;
    if (wt === 0) val = varint();
    else if (wt === 1) { val = buf.readBigUInt64LE(p); p += 8; }
    else if (wt === 5) { val = BigInt(buf.readUInt32LE(p)); p += 4; }
    else if (wt === 2) { const n = Number(varint()); val = buf.subarray(p, p + n); p += n; }
    else throw new Error(`wire type ${wt}`);
    (out[num] ||= []).push(val);
  }
  return out;
}
function packedVarints(vals) {
  const res = [];
  for (const v of vals || []) {
    if (typeof v === 'bigint') { res.push(Number(v)); continue; }
    let p = 0;
    while (p < v.length) {
      let x = 0, shift = 0;
      for (;;) { const b = v[p++]; x += (b & 0x7f) * 2 ** shift; if (!(b & 0x80)) break; shift += 7; }
      res.push(x);
    }
  }
  return res.map((x) => (x > 0x7fffffff ? x - 2 ** 32 : x));
}
const str = (b) => (b ? Buffer.from(b).toString('utf8') : '');
const num = (v) => (v === undefined ? 0 : Number(v));

// The manifest of a version file: its footer (u64 position, u16 major, u16 minor, "LANC")
// points at a u32 length + the Manifest message.
export function readManifest(file) {
  const buf = fs.readFileSync(file);
  const pos = Number(buf.readBigUInt64LE(buf.length - 16));
  const major = buf.readUInt16LE(buf.length - 8), minor = buf.readUInt16LE(buf.length - 6);
  const len = buf.readUInt32LE(pos);
  const m = pbDecode(buf.subarray(pos + 4, pos + 4 + len));
  const fields = (m[1] || []).map((f) => {
    const d = pbDecode(f);
    return { id: num(d[3]?.[0]), parent: d[4] ? Number(BigInt.asIntN(32, d[4][0])) : 0,
      name: str(d[2]?.[0]), logical_type: str(d[5]?.[0]) };
  });
  const fragments = (m[2] || []).map((f) => {
    const d = pbDecode(f);
    return {
      id: num(d[1]?.[0]), physical_rows: num(d[4]?.[0]), deletion: !!d[3],
      files: (d[2] || []).map((x) => {
        const df = pbDecode(x);
        return { path: str(df[1]?.[0]), fields: packedVarints(df[2]),
          file_version: `${num(df[4]?.[0])}.${num(df[5]?.[0])}` };
      }),
    };
  });
  return { container: `${major}.${minor}`, version: num(m[3]?.[0]), fields, fragments };
}

// Version number -> manifest file of a dataset (plain `{v}.manifest` or V2 inverted names).
function manifestFiles(ds) {
  const dir = path.join(ds, '_versions');
  const out = new Map();
  for (const name of fs.readdirSync(dir)) {
    const m = /^(\d+)\.manifest$/.exec(name);
    if (!m) continue;
    let v = BigInt(m[1]);
    if (m[1].length === 20) v = 18446744073709551615n - v;  // V2 naming: u64::MAX - version
    out.set(Number(v), path.join(dir, name));
  }
  return new Map([...out.entries()].sort((x, y) => x[0] - y[0]));
}

// lance 12's reading of every version of the dataset at `dsDir` (opened as table `name` of
// `db`), written into `out` (rows.jsonl + lance12.json with `header` merged in).
async function expectDataset(db, dsDir, name, out, header) {
  const { expectedRows, toJson, Obj } = await import('../../interop/lib/canonical.mjs');
  const dsName = path.basename(dsDir);
  const table = await db.openTable(name);
  const pool = new Map();
  const versions = {};
  const files = [];
  const seen = new Set();
  for (const [v, mfile] of manifestFiles(dsDir)) {
    const man = readManifest(mfile);
    const entry = { container: man.container };
    try {
      await table.checkout(v);
      const arrowTable = await table.query().withRowId().toArrow();
      const rows = expectedRows(arrowTable);
      // _rowid (the row address here: no stable row ids) kept apart from the row's values,
      // so rows that only moved (compaction) share their line.
      const rowids = rows.map((r) => BigInt(r.entries.find(([k]) => k === '_rowid')[1]));
      const lines = rows.map((r) => toJson(new Obj(r.entries.filter(([k]) => k !== '_rowid'))));
      entry.num_rows = await table.countRows();
      entry.schema = arrowTable.schema.fields.map((f) => `${f.name}: ${f.type}${f.nullable ? '' : ' not null'}`);
      entry.indices = (await table.listIndices()).map((i) => ({ name: i.name, type: i.indexType, columns: i.columns }));
      entry.rows = lines.map((l) => {
        if (!pool.has(l)) pool.set(l, pool.size);
        return pool.get(l);
      });
      entry.rowids = rowids.map(Number);
      // Data files this version lists for the first time.
      const byFragment = new Map();
      rowids.forEach((rowid, k) => {
        const frag = Number(rowid >> 32n);
        if (!byFragment.has(frag)) byFragment.set(frag, []);
        byFragment.get(frag).push([Number(rowid & 0xffffffffn), entry.rows[k]]);
      });
      const top = new Map(man.fields.filter((f) => f.parent === -1).map((f) => [f.id, f.name]));
      for (const frag of man.fragments) {
        for (const df of frag.files) {
          if (seen.has(df.path)) continue;
          seen.add(df.path);
          const got = byFragment.get(frag.id) || [];
          if (header.upstream && (frag.deletion || got.length !== frag.physical_rows)) continue;
          if (frag.deletion || got.length !== frag.physical_rows) {
            throw new Error(`${dsName} v${v}: data file ${df.path} first listed in a fragment with deletions`);
          }
          got.sort((x, y) => x[0] - y[0]);
          files.push({ path: df.path, fragment: frag.id, version: v, physical_rows: frag.physical_rows,
            file_version: df.file_version, fields: df.fields,
            columns: df.fields.filter((id) => top.has(id)).map((id) => top.get(id)),
            rows: got.map((x) => x[1]) });
        }
      }
    } catch (e) {
      // Paths relative to this folder, so that the file does not depend on the checkout.
      entry.error = String(e.message || e).split('\n')[0].replaceAll(here.slice(1) + '/', '');
    }
    versions[v] = entry;
  }
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'rows.jsonl'), [...pool.keys()].map((l) => l + '\n').join(''));
  fs.writeFileSync(path.join(out, 'lance12.json'), JSON.stringify({ ...header, versions, files }) + '\n');
  const errors = Object.entries(versions).filter(([, e]) => e.error);
  console.log(`${path.relative(here, dsDir)}: ${Object.keys(versions).length} versions, ${pool.size} distinct rows, ${files.length} data files` +
    (errors.length ? `, lance 12 refused ${errors.map(([v, e]) => `v${v} (${e.error})`).join(', ')}` : ''));
}

function lancedb12() {
  return createRequire(path.join(here, '../../interop/package.json'))('@lancedb/lancedb');
}

async function expect() {
  const lancedb = lancedb12();
  for (const w of Object.keys(WRITERS)) {
    const wdir = path.join(here, w);
    if (!fs.existsSync(wdir)) continue;
    const db = await lancedb.connect(wdir);
    for (const dsName of fs.readdirSync(wdir).filter((n) => n.endsWith('.lance')).sort()) {
      const name = dsName.replace(/\.lance$/, '');
      await expectDataset(db, path.join(wdir, dsName), name, path.join(here, 'expected', w, name),
        { writer: w, ...WRITERS[w] });
    }
  }
}

// The upstream compatibility corpus (upstream/<lance version>/<name>.lance, see
// upstream/ORIGIN.md): lance 12's reading of every version into expected/upstream/<ver>_<name>/.
// Data files of fragments with deletions are not pinned one by one there (the corpus was
// not written for it); every version's rows still are.
async function expectUpstream() {
  const lancedb = lancedb12();
  const root = path.join(here, 'upstream');
  for (const ver of fs.readdirSync(root).filter((n) => fs.statSync(path.join(root, n)).isDirectory()).sort()) {
    const db = await lancedb.connect(path.join(root, ver));
    for (const dsName of fs.readdirSync(path.join(root, ver)).filter((n) => n.endsWith('.lance')).sort()) {
      const name = dsName.replace(/\.lance$/, '');
      await expectDataset(db, path.join(root, ver, dsName), name,
        path.join(here, 'expected', 'upstream', `${ver}_${name}`),
        { writer: `upstream ${ver}`, upstream: true, dataset: `upstream/${ver}/${dsName}` });
    }
  }
}

const [cmd, arg] = process.argv.slice(2);
if (cmd === 'write' && WRITERS[arg]) await write(arg);
else if (cmd === 'expect') await expect();
else if (cmd === 'expect-upstream') await expectUpstream();
else if (cmd !== undefined) {
  console.error('usage: gen.mjs write <v0_4_20|v0_14_1|v0_21_3> | gen.mjs expect | gen.mjs expect-upstream');
  process.exit(2);
}
