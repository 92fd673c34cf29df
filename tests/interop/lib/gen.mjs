// Deterministic apache-arrow tables of every Arrow type apache-arrow 18 can write, built
// from raw buffers (makeData) so every bit is under our control: 64-bit extremes, NaN,
// -0.0, subnormals, nulls under nested values, several record batches, empty batches.
//
// apache-arrow 18.1.0 cannot produce: large_list (no LargeList type), list_view,
// string_view / binary_view, run-end encoded, decimal32/64. It also cannot read or write
// IPC body compression (its reader throws "Record batch compression not implemented").
import * as A from 'apache-arrow';

import { numberToFloat16Bits } from './canonical.mjs';

const T = A.Type;

// ---------------------------------------------------------------------------------------
// Data from JS values.

function bitmapOf(values) {
  if (!values.some((v) => v === null)) return { nullBitmap: undefined, nullCount: 0 };
  const bits = new Uint8Array(Math.max(1, (values.length + 7) >> 3));
  let nullCount = 0;
  values.forEach((v, i) => {
    if (v === null) nullCount++;
    else bits[i >> 3] |= 1 << (i & 7);
  });
  return { nullBitmap: bits, nullCount };
}

// A non-null placeholder value of a type (used under null parents of non-nullable children).
export function filler(type) {
  switch (type.typeId) {
    case T.Bool: return false;
    case T.Int: return type.bitWidth === 64 ? 0n : 0;
    case T.Float: return 0;
    case T.Date: return type.unit === A.DateUnit.DAY ? 0 : 0n;
    case T.Time: return type.bitWidth === 64 ? 0n : 0;
    case T.Timestamp:
    case T.Duration:
    case T.Decimal: return 0n;
    case T.Utf8:
    case T.LargeUtf8: return '';
    case T.Binary:
    case T.LargeBinary: return new Uint8Array(0);
    case T.FixedSizeBinary: return new Uint8Array(type.byteWidth);
    case T.List:
    case T.Map: return [];
    case T.FixedSizeList: return Array(type.listSize).fill(filler(type.children[0].type));
    case T.Struct: return Object.fromEntries(type.children.map((f) => [f.name, filler(f.type)]));
    case T.Dictionary: return 0;
    default: return null;
  }
}

const utf8Encoder = new TextEncoder();

function varBinary(type, values, large) {
  const chunks = values.map((v) => {
    if (v === null) return new Uint8Array(0);
    return typeof v === 'string' ? utf8Encoder.encode(v) : v;
  });
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const data = new Uint8Array(total);
  const offsets = large ? new BigInt64Array(values.length + 1) : new Int32Array(values.length + 1);
  let pos = 0;
  chunks.forEach((c, i) => {
    data.set(c, pos);
    pos += c.length;
    offsets[i + 1] = large ? BigInt(pos) : pos;
  });
  return { valueOffsets: offsets, data };
}

function childValues(field, values, pick) {
  return values.map((v) => (v === null ? (field.nullable ? null : filler(field.type)) : pick(v)));
}

// Builds one Data chunk of `type` from JS values. Values per type: numbers for <=32-bit
// ints, date32 and time32; BigInt for 64-bit ints, date64, time64, timestamp, duration and
// decimal (unscaled); numbers for floats; strings for utf8; Uint8Array for binary; arrays
// for lists; plain objects for structs; arrays of [k, v] for maps; dictionary indices
// (numbers) for dictionaries, whose dictionary Vector is `dicts.get(type.id)`.
export function dataFrom(type, values, dicts = new Map()) {
  const length = values.length;
  if (type.typeId === T.Null) return A.makeData({ type, length });
  const { nullBitmap, nullCount } = bitmapOf(values);
  const base = { type, length, nullCount, nullBitmap };
  switch (type.typeId) {
    case T.Bool: {
      const bits = new Uint8Array(Math.max(1, (length + 7) >> 3));
      values.forEach((v, i) => {
        if (v) bits[i >> 3] |= 1 << (i & 7);
      });
      return A.makeData({ ...base, data: bits });
    }
    case T.Int:
    case T.Float:
    case T.Date:
    case T.Time:
    case T.Timestamp:
    case T.Duration: {
      const Arr = type.ArrayType;
      const arr = new Arr(length);
      const half = type.typeId === T.Float && type.precision === A.Precision.HALF;
      values.forEach((v, i) => {
        if (v === null) return;
        arr[i] = half ? numberToFloat16Bits(v) : v;
      });
      return A.makeData({ ...base, data: arr });
    }
    case T.Decimal: {
      const words = type.bitWidth / 32;
      const arr = new Uint32Array(length * words);
      const mod = 1n << BigInt(type.bitWidth);
      values.forEach((v, i) => {
        if (v === null) return;
        let u = ((v % mod) + mod) % mod;
        for (let w = 0; w < words; w++) {
          arr[i * words + w] = Number(u & 0xffffffffn);
          u >>= 32n;
        }
      });
      return A.makeData({ ...base, data: arr });
    }
    case T.Utf8:
    case T.Binary:
      return A.makeData({ ...base, ...varBinary(type, values, false) });
    case T.LargeUtf8:
    case T.LargeBinary:
      return A.makeData({ ...base, ...varBinary(type, values, true) });
    case T.FixedSizeBinary: {
      const w = type.byteWidth;
      const data = new Uint8Array(length * w);
      values.forEach((v, i) => {
        if (v === null) return;
        if (v.length !== w) throw new Error(`fixed_size_binary(${w}) value of length ${v.length}`);
        data.set(v, i * w);
      });
      return A.makeData({ ...base, data });
    }
    case T.List:
    case T.Map: {
      const offsets = new Int32Array(length + 1);
      const flat = [];
      values.forEach((v, i) => {
        if (v !== null) flat.push(...v);
        offsets[i + 1] = flat.length;
      });
      const childField = type.children[0];
      const childVals = type.typeId === T.Map ? flat.map(([key, value]) => ({ key, value })) : flat;
      const child = dataFrom(childField.type, childVals, dicts);
      return A.makeData({ ...base, valueOffsets: offsets, child });
    }
    case T.FixedSizeList: {
      const n = type.listSize;
      const childField = type.children[0];
      const flat = [];
      values.forEach((v) => {
        if (v === null) {
          for (let k = 0; k < n; k++) flat.push(childField.nullable ? null : filler(childField.type));
        } else {
          if (v.length !== n) throw new Error(`fixed_size_list(${n}) value of length ${v.length}`);
          flat.push(...v);
        }
      });
      return A.makeData({ ...base, child: dataFrom(childField.type, flat, dicts) });
    }
    case T.Struct: {
      const children = type.children.map((f) =>
        dataFrom(f.type, childValues(f, values, (v) => v[f.name]), dicts));
      return A.makeData({ ...base, children });
    }
    case T.Dictionary: {
      const dictionary = dicts.get(type.id);
      if (!dictionary) throw new Error(`no dictionary for id ${type.id}`);
      const arr = new type.indices.ArrayType(length);
      values.forEach((v, i) => {
        if (v !== null) arr[i] = type.indices.bitWidth === 64 ? BigInt(v) : v;
      });
      return A.makeData({ ...base, data: arr, dictionary });
    }
    default:
      throw new Error(`dataFrom: unsupported type ${type}`);
  }
}

// ---------------------------------------------------------------------------------------
// Tables.

// Builds a Table from columns [{name, type, nullable, values, metadata}] split into record
// batches of the given sizes (which must sum to the column length; 0 = empty batch).
export function makeTable(columns, batchSizes, { metadata, dicts = new Map() } = {}) {
  const fields = columns.map((c) =>
    new A.Field(c.name, c.type, c.nullable ?? true, c.metadata ? new Map(Object.entries(c.metadata)) : undefined));
  const schema = new A.Schema(fields, metadata ? new Map(Object.entries(metadata)) : undefined);
  const total = batchSizes.reduce((a, b) => a + b, 0);
  for (const c of columns) {
    if (c.values.length !== total) throw new Error(`column ${c.name}: ${c.values.length} values, batches hold ${total}`);
  }
  const batches = [];
  let start = 0;
  for (const size of batchSizes) {
    const children = columns.map((c) => dataFrom(c.type, c.values.slice(start, start + size), dicts));
    const struct = A.makeData({ type: new A.Struct(fields), length: size, nullCount: 0, children });
    batches.push(new A.RecordBatch(schema, struct));
    start += size;
  }
  return new A.Table(schema, batches);
}

// Serializes a table; `format` is 'stream' or 'file'. A table with no batches gives a
// stream/file holding only the schema.
export function toIPC(table, format) {
  const Writer = format === 'file' ? A.RecordBatchFileWriter : A.RecordBatchStreamWriter;
  const w = new Writer();
  w.reset(undefined, table.schema);
  for (const b of table.batches) w.write(b);
  return w.finish().toUint8Array(true);
}

// ---------------------------------------------------------------------------------------
// The columns: every type, ROWS values each, nulls included.

export const ROWS = 12;
export const BATCHES = [5, 0, 4, 3];  // sums to ROWS; an empty batch in the middle

function cycle(values, n = ROWS) {
  return Array.from({ length: n }, (_, i) => values[i % values.length]);
}

function bytes(...xs) {
  return Uint8Array.from(xs);
}

function pseudoBytes(n, seed) {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

const STRINGS = [
  'hello', '', 'héllo wörld', '日本語テキスト', 'emoji 😀👍🏽', null,
  'quote " backslash \\ slash /', 'ctrl \u0000\u0001\u001f\u007f tab\t nl\n cr\r bs\b ff\f',
  'line sep \u2028 para sep \u2029 bom \ufeff', 'x'.repeat(300), null, 'Ω≈ç√∫ 𝄞',
];

const BINARIES = [
  bytes(), bytes(0), bytes(0, 1, 2, 255), null, pseudoBytes(100, 7), utf8Encoder.encode('abc'),
  bytes(255, 254, 253), null, pseudoBytes(17, 3), bytes(0x80), bytes(0, 0, 0), pseudoBytes(64, 11),
];

const I64_MAX = (1n << 63n) - 1n;
const I64_MIN = -(1n << 63n);
const U64_MAX = (1n << 64n) - 1n;

const tsValues = (unitScale) => [
  0n, 1n, -1n, 1700000000n * unitScale + 123n, null, I64_MAX, I64_MIN, -86400n * unitScale,
  253402300799n * unitScale, null, -62135596800n * unitScale, 42n,
];

// Each: { name, type, values } with ROWS values (nulls allowed); `nonNull` (optional) is a
// value replacing nulls in the non-null variant (defaults to the first non-null value).
export function typeColumns() {
  const f = (name, type, nullable = true) => new A.Field(name, type, nullable);
  const cols = [
    { name: 'null', type: new A.Null(), values: Array(ROWS).fill(null), noNonNull: true },
    { name: 'bool', type: new A.Bool(), values: cycle([true, false, null, true, true, false, null, false]) },
    { name: 'int8', type: new A.Int8(), values: cycle([0, 1, -1, 127, -128, null, 42, -42]) },
    { name: 'int16', type: new A.Int16(), values: cycle([0, 1, -1, 32767, -32768, null, 300, -300]) },
    { name: 'int32', type: new A.Int32(),
      values: cycle([0, 1, -1, 2147483647, -2147483648, null, 65536, -65537]) },
    { name: 'int64', type: new A.Int64(),
      values: cycle([0n, 1n, -1n, I64_MAX, I64_MIN, null, 9007199254740993n, -9007199254740993n,
                     4294967296n, -4294967297n]) },
    { name: 'uint8', type: new A.Uint8(), values: cycle([0, 1, 255, null, 128, 127]) },
    { name: 'uint16', type: new A.Uint16(), values: cycle([0, 1, 65535, null, 32768, 256]) },
    { name: 'uint32', type: new A.Uint32(), values: cycle([0, 1, 4294967295, null, 2147483648, 65536]) },
    { name: 'uint64', type: new A.Uint64(),
      values: cycle([0n, 1n, U64_MAX, null, 1n << 63n, 9007199254740993n, 4294967296n]) },
    { name: 'float16', type: new A.Float16(),
      values: [0, -0, 1, -1.5, 65504, 6.103515625e-5, 5.960464477539063e-8, NaN, Infinity, -Infinity,
               null, 0.0999755859375] },
    { name: 'float32', type: new A.Float32(),
      values: [0, -0, Math.fround(0.1), 3.4028234663852886e38, 1.401298464324817e-45,
               1.1754943508222875e-38, NaN, Infinity, -Infinity, null, Math.fround(-123.456),
               16777216] },
    { name: 'float64', type: new A.Float64(),
      values: [0, -0, 0.1, 1 / 3, Number.MAX_VALUE, 5e-324, 2.2250738585072014e-308, NaN, Infinity,
               -Infinity, null, 1e21] },
    { name: 'float64_more', type: new A.Float64(),
      values: [-1e-7, 123456789012345680000, 9007199254740993, 1e16, 1e-6, 0.000001234, 1.5, -2.5e-300,
               100, 1e22, null, Math.PI] },
    { name: 'utf8', type: new A.Utf8(), values: STRINGS },
    { name: 'large_utf8', type: new A.LargeUtf8(), values: [...STRINGS].reverse() },
    { name: 'binary', type: new A.Binary(), values: BINARIES },
    { name: 'large_binary', type: new A.LargeBinary(), values: [...BINARIES].reverse() },
    { name: 'fixed_size_binary', type: new A.FixedSizeBinary(4),
      values: cycle([bytes(0, 0, 0, 0), bytes(1, 2, 3, 4), null, bytes(255, 255, 255, 255),
                     pseudoBytes(4, 5)]) },
    { name: 'date32', type: new A.DateDay(),
      values: cycle([0, 1, -1, 19000, -719162, 2932896, null, 2147483647, -2147483648]) },
    { name: 'date64', type: new A.DateMillisecond(),
      values: cycle([0n, 86400000n, -86400000n, 1640995200000n, null, 253402214400000n,
                     -62135596800000n]) },
    { name: 'time32_s', type: new A.TimeSecond(), values: cycle([0, 1, 86399, null, 3600, 43200]) },
    { name: 'time32_ms', type: new A.TimeMillisecond(),
      values: cycle([0, 1, 86399999, null, 3600000, 43200123]) },
    { name: 'time64_us', type: new A.TimeMicrosecond(),
      values: cycle([0n, 1n, 86399999999n, null, 3600000000n, 43200123456n]) },
    { name: 'time64_ns', type: new A.TimeNanosecond(),
      values: cycle([0n, 1n, 86399999999999n, null, 3600000000000n, 43200123456789n]) },
    { name: 'timestamp_s', type: new A.TimestampSecond(), values: tsValues(1n) },
    { name: 'timestamp_ms', type: new A.TimestampMillisecond(), values: tsValues(1000n) },
    { name: 'timestamp_us', type: new A.TimestampMicrosecond(), values: tsValues(1000000n) },
    { name: 'timestamp_ns', type: new A.TimestampNanosecond(), values: tsValues(1n) },
    { name: 'timestamp_s_utc', type: new A.TimestampSecond('UTC'), values: tsValues(1n) },
    { name: 'timestamp_ms_offset', type: new A.TimestampMillisecond('+05:30'), values: tsValues(1000n) },
    { name: 'timestamp_us_ny', type: new A.TimestampMicrosecond('America/New_York'),
      values: tsValues(1000000n) },
    { name: 'timestamp_ns_utc', type: new A.TimestampNanosecond('UTC'), values: tsValues(1n) },
    { name: 'duration_s', type: new A.DurationSecond(), values: tsValues(1n) },
    { name: 'duration_ms', type: new A.DurationMillisecond(), values: tsValues(1000n) },
    { name: 'duration_us', type: new A.DurationMicrosecond(), values: tsValues(1000000n) },
    { name: 'duration_ns', type: new A.DurationNanosecond(), values: tsValues(1n) },
    { name: 'decimal_5_2', type: new A.Decimal(2, 5, 128),
      values: cycle([0n, 1n, -1n, 12345n, -99999n, 99999n, null, 50n, -5n, 100n]) },
    { name: 'decimal_38_10', type: new A.Decimal(10, 38, 128),
      values: cycle([10n ** 38n - 1n, -(10n ** 38n - 1n), 0n, null, 1n, -1n, 12345678901234567890n,
                     -10000000000n, 1n << 64n]) },
    { name: 'decimal_10_0', type: new A.Decimal(0, 10, 128),
      values: cycle([0n, 9999999999n, -9999999999n, null, 7n, -42n]) },
    { name: 'decimal_38_38', type: new A.Decimal(38, 38, 128),
      values: cycle([1n, -1n, 10n ** 37n, null, -(10n ** 38n - 1n), 0n]) },
    { name: 'decimal256_60_2', type: new A.Decimal(2, 60, 256),
      values: cycle([0n, 1n, -1n, null, 10n ** 59n, -(10n ** 60n - 1n), 1n << 190n, 12345n]) },
    { name: 'decimal256_76_0', type: new A.Decimal(0, 76, 256),
      values: cycle([10n ** 76n - 1n, -(10n ** 76n - 1n), null, 0n, -(1n << 128n), 42n]) },
    { name: 'list_int32', type: new A.List(f('item', new A.Int32())),
      values: cycle([[1, 2, 3], [], null, [null], [4, null, 5], [2147483647, -2147483648]]) },
    { name: 'list_utf8', type: new A.List(f('item', new A.Utf8())),
      values: cycle([['a', 'b'], [''], null, [], [null, 'ü'], ['x'.repeat(40)]]) },
    { name: 'list_list_int64', type: new A.List(f('item', new A.List(f('item', new A.Int64())))),
      values: cycle([[[1n, 2n], [], null], [], null, [[I64_MIN], [null, I64_MAX]], [[0n]]]) },
    { name: 'list_struct', type: new A.List(f('item', new A.Struct([f('x', new A.Int16()), f('y', new A.Utf8())]))),
      values: cycle([[{ x: 1, y: 'a' }, null, { x: null, y: 'c' }], [], null, [{ x: -5, y: null }]]) },
    { name: 'fixed_size_list_float32', type: new A.FixedSizeList(3, f('item', new A.Float32())),
      values: cycle([[1, 2, 3], [0.5, -0.5, NaN], null, [null, Math.fround(0.1), -0],
                     [Infinity, -Infinity, 1e-45], [Math.fround(1 / 3), 65504, -7]]) },
    { name: 'fixed_size_list_utf8', type: new A.FixedSizeList(2, f('item', new A.Utf8())),
      values: cycle([['a', 'b'], ['', null], null, ['日本', 'x\ny']]) },
    { name: 'vector_float32_nonnull_items', type: new A.FixedSizeList(4, f('item', new A.Float32(), false)),
      values: cycle([[1, 2, 3, 4], [0, -0, 0.25, -8], null, [1e10, -1e-10, 3.5, 100]]) },
    { name: 'struct', type: new A.Struct([
        f('a', new A.Int32()), f('b', new A.Utf8()),
        f('c', new A.Struct([f('d', new A.Float64()), f('e', new A.List(f('item', new A.Bool())))])),
        f('n', new A.Int64(), false)]),
      values: cycle([
        { a: 1, b: 'one', c: { d: 1.5, e: [true, false] }, n: 1n },
        null,
        { a: null, b: null, c: null, n: -1n },
        { a: -7, b: '', c: { d: null, e: null }, n: I64_MAX },
        { a: 2147483647, b: 'ß', c: { d: NaN, e: [null] }, n: 0n },
      ]) },
    { name: 'map_utf8_int32', type: new A.Map_(f('entries', new A.Struct([
        f('key', new A.Utf8(), false), f('value', new A.Int32())]), false), false),
      values: cycle([[['a', 1], ['b', null]], [], null, [['x', 5]], [['k1', -1], ['k2', 2], ['k3', 3]]]) },
    { name: 'map_int64_list', type: new A.Map_(f('entries', new A.Struct([
        f('key', new A.Int64(), false), f('value', new A.List(f('item', new A.Float64())))]), false), false),
      values: cycle([[[1n, [1.5, null]], [I64_MIN, []]], null, [[0n, null]], []]) },
  ];
  return cols;
}

// Dictionary columns need a shared dictionary Vector per id.
export function dictionaryColumns() {
  const dicts = new Map();
  const utf8Dict = (id, strings) => {
    dicts.set(id, new A.Vector([dataFrom(new A.Utf8(), strings)]));
  };
  utf8Dict(101, ['red', 'green', 'blue', '', 'unused', 'ünïcode']);
  utf8Dict(102, ['alpha', 'beta', 'gamma']);
  const cols = [
    { name: 'dict_int8_utf8', type: new A.Dictionary(new A.Utf8(), new A.Int8(), 101),
      values: cycle([0, 1, 2, null, 3, 5, 0, 0]) },
    { name: 'dict_int32_utf8', type: new A.Dictionary(new A.Utf8(), new A.Int32(), 102),
      values: cycle([2, 1, 0, null, 2]) },
  ];
  return { cols, dicts };
}

// The non-null variant of a column: nulls replaced, field non-nullable.
export function nonNullColumn(c) {
  const replacement = c.values.find((v) => v !== null);
  return { ...c, name: `${c.name}_nn`, nullable: false, values: c.values.map((v) => (v === null ? replacement : v)) };
}

// Every column (nullable and non-null variants), for a one-table test.
export function allColumns() {
  const { cols: dcols, dicts } = dictionaryColumns();
  const base = [...typeColumns(), ...dcols];
  const cols = [...base, ...base.filter((c) => !c.noNonNull).map(nonNullColumn)];
  return { cols, dicts };
}

// One single-column table per type (nullable and non-null variants): cheap for JS
// self-checks and for naming the failing types when a combined table fails.
export function singleTypeCases() {
  const { cols, dicts } = allColumns();
  return cols.map((c) => ({ name: `type ${c.name}`, table: makeTable([c], BATCHES, { dicts }) }));
}

// The interop cases: a few tables that together hold every type and IPC situation.
export function cases() {
  const out = [];
  const { cols, dicts } = allColumns();
  const nullable = cols.filter((c) => !c.name.endsWith('_nn'));
  const nonNull = cols.filter((c) => c.name.endsWith('_nn'));
  out.push({ name: 'all types in one table', table: makeTable(cols, BATCHES, { dicts }) });
  out.push({ name: 'nullable columns', table: makeTable(nullable, BATCHES, { dicts }) });
  out.push({ name: 'non-null columns', table: makeTable(nonNull, [ROWS - 1, 1], { dicts }) });
  out.push({ name: 'single batch', table: makeTable(cols.slice(0, 20), [ROWS], { dicts }) });
  out.push({
    name: 'empty batches only',
    table: makeTable([{ name: 'x', type: new A.Int32(), values: [] }, { name: 's', type: new A.Utf8(), values: [] }], [0, 0]),
  });
  out.push({
    name: 'zero batches',
    table: new A.Table(new A.Schema([new A.Field('x', new A.Int64(), true), new A.Field('s', new A.Utf8(), false)])),
  });
  out.push({ name: 'custom schema and field metadata', table: metadataTable() });
  out.push({ name: 'sliced arrays', table: slicedTable() });
  out.push({ name: 'many rows', table: manyRowsTable() });
  return out;
}

export function metadataTable() {
  return makeTable([
    { name: 'id', type: new A.Int64(), nullable: false, values: [1n, 2n, 3n],
      metadata: { 'lance:unenforced-primary-key': 'true', empty: '', 'ünï': 'cödé ✓' } },
    { name: 'name', type: new A.Utf8(), values: ['a', null, 'c'], metadata: { comment: 'a "quoted" value' } },
  ], [2, 1], { metadata: { owner: 'interop', 'multi\nline': 'v1\nv2', '': 'empty key' } });
}

// Tables whose record batches hold sliced arrays (non-zero offsets, bit-unaligned bitmaps).
// apache-arrow 18 cannot write sliced large_utf8 / large_binary (its offset rebasing mixes
// BigInt and Number), so those columns are left out here.
export function slicedTable() {
  const { cols: all, dicts } = allColumns();
  const cols = all.filter((c) => !c.name.startsWith('large_'));
  const full = makeTable(cols, [ROWS], { dicts });
  return new A.Table([full.batches[0].slice(3, 10), full.batches[0].slice(1, 2), full.batches[0].slice(5, 5)]);
}

export function manyRowsTable() {
  const n = 5000;
  const ints = Array.from({ length: n }, (_, i) => (i % 97 === 0 ? null : BigInt(i) * 1000003n - 2500000000n));
  const strs = Array.from({ length: n }, (_, i) => (i % 89 === 0 ? null : `row ${i} ${'·'.repeat(i % 7)}`));
  const vecs = Array.from({ length: n }, (_, i) => [i, -i, i / 8, Math.fround(1 / (i + 1))]);
  return makeTable([
    { name: 'i', type: new A.Int64(), values: ints },
    { name: 's', type: new A.Utf8(), values: strs },
    { name: 'v', type: new A.FixedSizeList(4, new A.Field('item', new A.Float32(), true)), nullable: false, values: vecs },
  ], [1000, 3000, 1000]);
}

// A stream whose dictionary changes between batches: a replacement dictionary and a delta
// dictionary (stream format only; the file format forbids replacements).
export function dictionaryEvolutionStream() {
  const type = new A.Dictionary(new A.Utf8(), new A.Int32(), 7);
  const schema = new A.Schema([new A.Field('d', type, true), new A.Field('i', new A.Int32(), false)]);
  const d1 = dataFrom(new A.Utf8(), ['a', 'b']);
  const d2 = dataFrom(new A.Utf8(), ['x', 'y', 'z']);
  const d2delta = dataFrom(new A.Utf8(), ['w']);
  const batch = (dictVector, idx, ints) => {
    const dicts = new Map([[7, dictVector]]);
    const children = [dataFrom(type, idx, dicts), dataFrom(new A.Int32(), ints)];
    return new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: idx.length, nullCount: 0, children }));
  };
  const v1 = new A.Vector([d1]);
  const v2 = new A.Vector([d2]);
  const v3 = new A.Vector([d2, d2delta]);  // shares the first chunk: written as a delta
  const batches = [batch(v1, [0, 1, null, 1], [1, 2, 3, 4]), batch(v2, [2, 0, 1], [5, 6, 7]),
                   batch(v3, [3, null, 0, 3], [8, 9, 10, 11])];
  const w = new A.RecordBatchStreamWriter();
  w.reset(undefined, schema);
  for (const b of batches) w.write(b);
  return { bytes: w.finish().toUint8Array(true), table: new A.Table(schema, batches) };
}

// One-column tables of Arrow types apache-arrow writes but lance-cpp does not model
// (intervals, unions): readers must refuse them cleanly.
export function unsupportedTypeTables() {
  const one = (name, type, data) => {
    const f = new A.Field(name, type, true);
    const schema = new A.Schema([f]);
    const struct = A.makeData({ type: new A.Struct([f]), length: data.length, nullCount: 0, children: [data] });
    return new A.Table(schema, [new A.RecordBatch(schema, struct)]);
  };
  const unionChildren = [new A.Field('a', new A.Int32()), new A.Field('b', new A.Utf8())];
  const sparse = new A.SparseUnion([0, 1], unionChildren);
  const dense = new A.DenseUnion([0, 1], unionChildren);
  return {
    interval_year_month: one('iym', new A.IntervalYearMonth(),
      A.makeData({ type: new A.IntervalYearMonth(), data: new Int32Array([1, 2, 3]) })),
    interval_day_time: one('idt', new A.IntervalDayTime(),
      A.makeData({ type: new A.IntervalDayTime(), data: new Int32Array([1, 2, 3, 4]) })),
    sparse_union: one('su', sparse, A.makeData({
      type: sparse, typeIds: new Int8Array([0, 1, 0]),
      children: [dataFrom(new A.Int32(), [1, 2, 3]), dataFrom(new A.Utf8(), ['x', 'y', 'z'])] })),
    dense_union: one('du', dense, A.makeData({
      type: dense, typeIds: new Int8Array([0, 1, 0]), valueOffsets: new Int32Array([0, 0, 1]),
      children: [dataFrom(new A.Int32(), [1, 2]), dataFrom(new A.Utf8(), ['y'])] })),
  };
}

// Well-formed IPC whose values break Arrow's rules (apache-arrow writes them unchecked):
// invalid UTF-8, dictionary indices outside the dictionary. Readers that validate must
// refuse them. Each: { table, field, pattern of the expected complaint }.
export function invalidValueTables() {
  const one = (name, type, data) => {
    const f = new A.Field(name, type, true);
    const schema = new A.Schema([f]);
    const struct = A.makeData({ type: new A.Struct([f]), length: data.length, nullCount: 0, children: [data] });
    return new A.Table(schema, [new A.RecordBatch(schema, struct)]);
  };
  const dictionary = new A.Vector([dataFrom(new A.Utf8(), ['a', 'b'])]);
  const dict = new A.Dictionary(new A.Utf8(), new A.Int32(), 5);
  return {
    invalid_utf8: {
      table: one('s', new A.Utf8(), A.makeData({
        type: new A.Utf8(), valueOffsets: new Int32Array([0, 2, 4]), data: Uint8Array.from([0x61, 0x62, 0xc3, 0x28]) })),
      field: 's', pattern: /utf-?8/i,
    },
    dictionary_index_too_large: {
      table: one('d', dict, A.makeData({ type: dict, data: new Int32Array([0, 1, 7]), dictionary })),
      field: 'd', pattern: /index|dictionary/i,
    },
    dictionary_index_negative: {
      table: one('d', dict, A.makeData({ type: dict, data: new Int32Array([0, -1]), dictionary })),
      field: 'd', pattern: /index|dictionary/i,
    },
  };
}

// Floats by bit pattern: float16 in two columns (the first 2n patterns, all of them for
// n = 32768), and seeded random float32 / float64 bit patterns (all exponents, subnormals,
// NaN payloads), to cross-check the shortest round-trip text of both implementations.
export function floatBitsTable(n = 8192) {
  let s = 0x9e3779b9;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
  const f32 = new Float32Array(n);
  const u32 = new Uint32Array(f32.buffer);
  const f64 = new Float64Array(n);
  const u64 = new Uint32Array(f64.buffer);
  for (let i = 0; i < n; i++) {
    u32[i] = next();
    u64[2 * i] = next();
    u64[2 * i + 1] = next();
  }
  const f16Type = new A.Float16();
  const fields = [];
  const children = [];
  for (let q = 0; q < 2; q++) {
    // Spread over the whole range: pattern = (k * 40503) mod 2^16 visits every value.
    fields.push(new A.Field(`f16_${q}`, f16Type, false));
    children.push(A.makeData({ type: f16Type, data: Uint16Array.from({ length: n }, (_, i) => ((q * n + i) * 40503) & 0xffff) }));
  }
  fields.push(new A.Field('f32', new A.Float32(), false), new A.Field('f64', new A.Float64(), false));
  children.push(A.makeData({ type: new A.Float32(), data: f32 }), A.makeData({ type: new A.Float64(), data: f64 }));
  const schema = new A.Schema(fields);
  const struct = A.makeData({ type: new A.Struct(fields), length: n, nullCount: 0, children });
  return new A.Table(schema, [new A.RecordBatch(schema, struct)]);
}
