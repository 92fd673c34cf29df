// Writes the golden Lance data files used by src/file/*_test.cc.
//
// For each data storage version (2.0, 2.1, 2.2) and each table below, the reference writer
// (@lancedb/lancedb 0.39.0, Rust lance 12.0.0) creates a one-fragment table in a scratch
// directory; its single data file is copied here as `<table>_<version>.lance`, and the rows
// that went in are written beside it as `<table>_<version>.jsonl` in the canonical row form
// (ints exact, floats shortest round-trip, binary base64, decimals as strings with scale, dates
// as days, timestamps as ints in their unit, lists as arrays, structs as objects, null as null).
// The expected rows are computed from the Arrow memory handed to the writer, not read back.
//
// Usage (from the repository root):
//   NODE_PATH=tests/interop/node_modules node tests/golden/lance_file/gen.mjs
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "../../interop/package.json"));
const arrow = require("apache-arrow");
const lancedb = require("@lancedb/lancedb");

// ---------------------------------------------------------------------------------------------
// Deterministic pseudo-random numbers (xorshift32) so the files are reproducible.
let seed = 0x9e3779b9;
function rand() {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 4294967296;
}
function randInt(lo, hi) {  // inclusive
  return lo + Math.floor(rand() * (hi - lo + 1));
}

// ---------------------------------------------------------------------------------------------
// Canonical JSON of one value of an Arrow Data at index i, straight from the buffers.
function halfToNumber(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}
function num(x) {
  if (Object.is(x, -0)) return "-0.0";
  return JSON.stringify(x);
}
function b64(bytes) {
  return Buffer.from(bytes).toString("base64");
}
function decimalText(words, scale) {
  let v = 0n;
  for (let k = 3; k >= 0; --k) v = (v << 32n) | BigInt(words[k]);
  if (v >= 1n << 127n) v -= 1n << 128n;
  const neg = v < 0n;
  let digits = (neg ? -v : v).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, "0");
    digits = digits.slice(0, digits.length - scale) + "." + digits.slice(digits.length - scale);
  }
  return JSON.stringify((neg ? "-" : "") + digits);
}
function canon(data, i) {
  const T = arrow.Type;
  if (!data.getValid(i)) return "null";
  const j = data.offset + i;
  const t = data.type;
  switch (t.typeId) {
    case T.Bool:
      return (data.values[j >> 3] >> (j & 7)) & 1 ? "true" : "false";
    case T.Int:
      return t.bitWidth === 64 ? data.values[j].toString() : String(data.values[j]);
    case T.Float:
      if (t.precision === arrow.Precision.HALF) return num(halfToNumber(data.values[j]));
      return num(data.values[j]);
    case T.Utf8:
    case T.LargeUtf8: {
      const o = data.valueOffsets;
      const bytes = data.values.subarray(Number(o[j]), Number(o[j + 1]));
      return JSON.stringify(Buffer.from(bytes).toString("utf8"));
    }
    case T.Binary:
    case T.LargeBinary: {
      const o = data.valueOffsets;
      return JSON.stringify(b64(data.values.subarray(Number(o[j]), Number(o[j + 1]))));
    }
    case T.FixedSizeBinary:
      return JSON.stringify(b64(data.values.subarray(j * t.byteWidth, (j + 1) * t.byteWidth)));
    case T.Date:
      return String(data.values[j]);
    case T.Timestamp:
      return data.values[j].toString();
    case T.Decimal:
      return decimalText(data.values.subarray(j * 4, j * 4 + 4), t.scale);
    case T.List: {
      const o = data.valueOffsets;
      const out = [];
      for (let k = o[j]; k < o[j + 1]; ++k) out.push(canon(data.children[0], k));
      return "[" + out.join(",") + "]";
    }
    case T.FixedSizeList: {
      const out = [];
      for (let k = 0; k < t.listSize; ++k) out.push(canon(data.children[0], j * t.listSize + k));
      return "[" + out.join(",") + "]";
    }
    case T.Struct: {
      const out = t.children.map(
        (f, k) => JSON.stringify(f.name) + ":" + canon(data.children[k], j));
      return "{" + out.join(",") + "}";
    }
    default:
      throw new Error(`no canonical form for ${t}`);
  }
}
function jsonLines(table) {
  const lines = [];
  for (const batch of table.batches) {
    for (let i = 0; i < batch.numRows; ++i) {
      const cells = batch.schema.fields.map(
        (f, k) => JSON.stringify(f.name) + ":" + canon(batch.data.children[k], i));
      lines.push("{" + cells.join(",") + "}\n");
    }
  }
  return lines.join("");
}

// ---------------------------------------------------------------------------------------------
// Column builders.
const F = (name, type, nullable = true) => new arrow.Field(name, type, nullable);
const item = (type) => new arrow.Field("item", type, true);
function col(name, type, values, nullable = true) {
  return { field: F(name, type, nullable), vector: arrow.vectorFromArray(values, type) };
}
function table(cols) {
  const schema = new arrow.Schema(cols.map((c) => c.field));
  const data = arrow.makeData({
    type: new arrow.Struct(schema.fields),
    length: cols[0].vector.length,
    nullCount: 0,
    children: cols.map((c) => c.vector.data[0]),
  });
  return new arrow.Table(schema, new arrow.RecordBatch(schema, data));
}
// vectorFromArray leaves out the child slots of null fixed-size lists; build those by hand.
function fslCol(name, size, childType, rows) {
  const type = new arrow.FixedSizeList(size, item(childType));
  const flat = rows.flatMap((r) => (r === null ? fill(size, () => 0) : r));
  const child = arrow.vectorFromArray(flat, childType).data[0];
  const validity = new Uint8Array(Math.ceil(rows.length / 8));
  let nullCount = 0;
  rows.forEach((r, i) => (r === null ? ++nullCount : (validity[i >> 3] |= 1 << (i & 7))));
  const data = arrow.makeData({ type, length: rows.length, nullCount, nullBitmap: validity, child });
  return { field: F(name, type, true), vector: arrow.makeVector(data) };
}
const nullEvery = (n, k, f) => Array.from({ length: n }, (_, i) => (i % k === k - 1 ? null : f(i)));
const fill = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const bytesOf = (i, len) => Uint8Array.from({ length: len }, (_, k) => (i * 31 + k * 7) & 0xff);
const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
const sentence = (i, n) => fill(n, (k) => words[(i + k * 3) % words.length]).join(" ");
const decWords = (v) => {  // BigInt -> 4 little-endian u32 words (two's complement)
  const m = (1n << 128n) + v;
  return Uint32Array.from([0, 1, 2, 3], (k) => Number((m >> BigInt(32 * k)) & 0xffffffffn));
};

// Primitive types, 300 rows, nulls every 7th row in nullable columns.
function primitives() {
  const n = 300;
  return table([
    col("id", new arrow.Int64(), fill(n, (i) => BigInt(i)), false),
    col("b", new arrow.Bool(), nullEvery(n, 7, (i) => i % 3 === 0)),
    col("i8", new arrow.Int8(), nullEvery(n, 7, (i) => ((i * 37) % 256) - 128)),
    col("i16", new arrow.Int16(), nullEvery(n, 7, (i) => i * 97 - 15000)),
    col("i32", new arrow.Int32(), nullEvery(n, 7, (i) => (i * 7919 * 1000) | 0)),
    col("i64", new arrow.Int64(), nullEvery(n, 7, (i) => BigInt(i) * 123456789012345n - 9n ** 18n)),
    col("u8", new arrow.Uint8(), nullEvery(n, 7, (i) => (i * 13) & 0xff)),
    col("u16", new arrow.Uint16(), nullEvery(n, 7, (i) => (i * 211) & 0xffff)),
    col("u32", new arrow.Uint32(), nullEvery(n, 7, (i) => (i * 2654435761) >>> 0)),
    col("u64", new arrow.Uint64(), nullEvery(n, 7, (i) => (BigInt(i) * 0x9e3779b97f4a7c15n) & (2n ** 64n - 1n))),
    col("f16", new arrow.Float16(), nullEvery(n, 7, (i) => (i % 64) * 0.5 - 16)),
    col("f32", new arrow.Float32(), nullEvery(n, 7, (i) => i * 0.25 - 30)),
    col("f64", new arrow.Float64(), nullEvery(n, 7, (i) => i * 1.1 - 100.5)),
    col("d32", new arrow.DateDay(), nullEvery(n, 7, (i) => new Date((18000 + i * 3) * 86400000))),
    col("ts", new arrow.TimestampMicrosecond(), nullEvery(n, 7, (i) => 1.7e12 + i * 1001)),
    col("dec", new arrow.Decimal(2, 12, 128), nullEvery(n, 7, (i) => decWords(BigInt(i * 1234567 - 5000000)))),
    col("fsb", new arrow.FixedSizeBinary(4), nullEvery(n, 7, (i) => bytesOf(i, 4))),
    col("i32_nn", new arrow.Int32(), fill(n, (i) => i * 3 - 450), false),
    col("f64_nn", new arrow.Float64(), fill(n, (i) => i / 8), false),
  ]);
}

// Strings and binaries, 300 rows.
function strings() {
  const n = 300;
  return table([
    col("s", new arrow.Utf8(), nullEvery(n, 5, (i) => `str_${i}_${"x".repeat(i % 7)}`)),
    col("ls", new arrow.LargeUtf8(), nullEvery(n, 6, (i) => (i % 11 === 0 ? "" : `large ${i} é✓`))),
    col("bin", new arrow.Binary(), nullEvery(n, 4, (i) => bytesOf(i, i % 9))),
    col("lbin", new arrow.LargeBinary(), nullEvery(n, 8, (i) => bytesOf(i + 1, (i % 5) + 1))),
    col("s_nn", new arrow.Utf8(), fill(n, (i) => words[i % 8] + i), false),
    col("dict", new arrow.Utf8(), nullEvery(n, 9, (i) => ["red", "green", "blue"][i % 3])),
  ]);
}

// Special value distributions: constants, all-null, runs, empty strings.
function special() {
  const n = 600;
  return table([
    col("const_i32", new arrow.Int32(), fill(n, () => 42)),
    col("const_f64", new arrow.Float64(), fill(n, () => 2.5), false),
    col("null_i32", new arrow.Int32(), fill(n, () => null)),
    col("null_s", new arrow.Utf8(), fill(n, () => null)),
    col("runs_i32", new arrow.Int32(), fill(n, (i) => Math.floor(i / 100))),
    col("runs_i64", new arrow.Int64(), fill(n, (i) => BigInt(Math.floor(i / 250)) * 1000000007n)),
    col("empty_s", new arrow.Utf8(), fill(n, () => "")),
    col("const_s", new arrow.Utf8(), fill(n, () => "same")),
    col("const_b", new arrow.Bool(), fill(n, () => true), false),
  ]);
}

// Nested types, 300 rows (no top-level struct nulls in 2.0, which rejects them).
function nested(version) {
  const structNulls = version !== "2.0";  // 2.0 cannot store struct validity
  const n = 300;
  const vec8 = (i) => fill(8, (k) => (i * 8 + k) * 0.5);
  return table([
    fslCol("v8", 8, new arrow.Float32(), nullEvery(n, 10, vec8)),
    col("v2u8", new arrow.FixedSizeList(2, item(new arrow.Uint8())), fill(n, (i) => [i & 0xff, (i * 3) & 0xff]), false),
    col("li", new arrow.List(item(new arrow.Int32())),
        fill(n, (i) => (i % 13 === 0 ? null : fill(i % 5, (k) => (k % 4 === 3 ? null : i * 10 + k))))),
    col("ls", new arrow.List(item(new arrow.Utf8())),
        fill(n, (i) => (i % 11 === 0 ? null : fill(i % 4, (k) => `w${i}_${k}`)))),
    col("st", new arrow.Struct([F("a", new arrow.Int32()), F("b", new arrow.Utf8()),
                                F("c", new arrow.Struct([F("d", new arrow.Float64())]))]),
        fill(n, (i) => (structNulls && i % 17 === 0 ? null
                        : { a: i % 3 === 0 ? null : i, b: `b${i}`, c: structNulls && i % 5 === 0 ? null : { d: i % 7 === 0 ? null : i * 0.5 } }))),
  ]);
}

// Larger columns (3000 rows): bit-packing, out-of-line levels, FSST strings. Struct nulls
// are left to `nested` so that all versions share one expected-rows file.
function big() {
  const n = 3000;
  return table([
    col("seq", new arrow.Int64(), fill(n, (i) => BigInt(i)), false),
    col("small", new arrow.Int32(), nullEvery(n, 13, (i) => randInt(0, 1000))),
    col("u16", new arrow.Uint16(), fill(n, (i) => randInt(0, 300)), false),
    col("u8", new arrow.Uint8(), nullEvery(n, 3, (i) => randInt(0, 200))),
    col("text", new arrow.Utf8(), nullEvery(n, 11, (i) => `str_${i}_${sentence(i, 2)}`)),
    col("ltext", new arrow.LargeUtf8(), fill(n, (i) => `large_${words[i % 8]}_${i}`)),
    col("li", new arrow.List(item(new arrow.Int32())),
        fill(n, (i) => (i % 29 === 0 ? null : fill(i % 4, (k) => randInt(0, 1 << 20))))),
    col("st", new arrow.Struct([F("x", new arrow.Int32()), F("y", new arrow.Utf8())]),
        fill(n, (i) => ({ x: i % 2 ? i : null, y: i % 37 === 0 ? null : words[i % 8] }))),
  ]);
}

// Wide values that the 2.1+ writer stores full-zip.
function wide() {
  const n = 16;
  return table([
    col("doc", new arrow.Utf8(), nullEvery(n, 6, (i) => sentence(i, 300 + i * 20))),
    col("vec", new arrow.FixedSizeList(128, item(new arrow.Float32())),
        fill(n, (i) => fill(128, (k) => ((i * 128 + k) % 1000) * 0.125)), false),
    col("blob", new arrow.Binary(), fill(n, (i) => bytesOf(i, 1000 + i * 7))),
  ]);
}

// Deeper nesting: lists of lists, lists of structs, structs holding lists (several list layers
// and list/struct layers mixed in one column's levels).
function deep(version) {
  const n = 200;
  const structNulls = version !== "2.0";
  const pt = new arrow.Struct([F("a", new arrow.Int32()), F("b", new arrow.Utf8())]);
  return table([
    col("ll", new arrow.List(item(new arrow.List(item(new arrow.Int32())))),
        fill(n, (i) => (i % 9 === 0 ? null
                        : fill(i % 3, (k) => ((i + k) % 5 === 0 ? null
                                              : fill((i + k) % 4, (m) => (m === 2 ? null : i * 100 + k * 10 + m))))))),
    col("lst", new arrow.List(item(pt)),
        fill(n, (i) => (i % 7 === 0 ? null
                        : fill(i % 4, (k) => (structNulls && k === 1 && i % 2 ? null
                                              : { a: k === 2 ? null : i * 4 + k, b: `s${i}.${k}` }))))),
    col("sl", new arrow.Struct([F("l", new arrow.List(item(new arrow.Int32()))), F("t", new arrow.Utf8())]),
        fill(n, (i) => (structNulls && i % 11 === 0 ? null
                        : { l: i % 5 === 0 ? null : fill(i % 3, (k) => i + k), t: `t${i}` }))),
  ]);
}

// Encodings chosen through field metadata: general zstd/lz4 compression (with byte stream split
// for numbers), full-zip forced on narrow values and on a list, tiny mini-block chunks.
function tuned() {
  const n = 800;
  const md = (m) => new Map(Object.entries(m));
  const colMd = (name, type, values, m) => ({
    field: new arrow.Field(name, type, true, md(m)),
    vector: arrow.vectorFromArray(values, type),
  });
  const w = (i) => words[i % words.length];
  return table([
    colMd("z64", new arrow.Int64(), fill(n, (i) => (i % 17 === 0 ? null : BigInt(i * 977))),
          { "lance-encoding:compression": "zstd" }),
    colMd("zs", new arrow.Utf8(), fill(n, (i) => (i % 13 === 0 ? null : `${w(i)} ${i} ${w(i * 7)}`)),
          { "lance-encoding:compression": "zstd" }),
    colMd("ls", new arrow.Utf8(), fill(n, (i) => `${w(i)}-${i}`), { "lance-encoding:compression": "lz4" }),
    colMd("fz", new arrow.Int32(), fill(n, (i) => (i % 5 === 0 ? null : i * 3)),
          { "lance-encoding:structural-encoding": "fullzip" }),
    colMd("fzl", new arrow.List(item(new arrow.Int32())),
          fill(n, (i) => (i % 7 === 0 ? null : fill(i % 4, (k) => (k === 1 ? null : i + k)))),
          { "lance-encoding:structural-encoding": "fullzip" }),
    colMd("small_chunks", new arrow.Float64(), fill(n, (i) => i * 0.5), { "lance-encoding:minichunk-size": "256" }),
    colMd("zf", new arrow.Float32(), fill(n, (i) => (i % 3 ? i * 0.25 : null)),
          { "lance-encoding:compression": "zstd", "lance-encoding:compression-level": "3" }),
  ]);
}

const tables = { primitives, strings, special, nested, big, wide, deep, tuned };
const versions = ["2.0", "2.1", "2.2"];

const expected = Object.fromEntries(versions.map((v) => [v, {}]));
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lance-golden-"));
try {
  for (const version of versions) {
    const db = await lancedb.connect(path.join(scratch, version));
    for (const [name, make] of Object.entries(tables)) {
      seed = 0x9e3779b9;
      const t = make(version);
      await db.createTable(name, t, {
        mode: "overwrite",
        storageOptions: { new_table_data_storage_version: version },
      });
      const dataDir = path.join(scratch, version, `${name}.lance`, "data");
      const files = fs.readdirSync(dataDir).filter((f) => f.endsWith(".lance"));
      if (files.length !== 1) throw new Error(`${name} ${version}: ${files.length} data files`);
      const stem = `${name}_${version.replace(".", "_")}`;
      fs.copyFileSync(path.join(dataDir, files[0]), path.join(here, `${stem}.lance`));
      // Expected rows are shared by the versions that got the same input: `<table>.jsonl`,
      // or `<table>_<version>.jsonl` when a version's input differs from the 2.2 one.
      const rows = jsonLines(t);
      expected[version][name] = rows;
      console.log(stem, fs.statSync(path.join(here, `${stem}.lance`)).size);
    }
  }
  for (const name of Object.keys(tables)) {
    fs.writeFileSync(path.join(here, `${name}.jsonl`), expected["2.2"][name]);
    for (const version of versions) {
      if (expected[version][name] !== expected["2.2"][name]) {
        const stem = `${name}_${version.replace(".", "_")}`;
        fs.writeFileSync(path.join(here, `${stem}.jsonl`), expected[version][name]);
      }
    }
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
