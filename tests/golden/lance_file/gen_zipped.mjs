// Writes the golden files of lance 12's per-value compressed full-zip pages:
// zipped_2_1.lance and zipped_2_2.lance, read by src/file/file_reader_zipped_test.cc.
//
// lance 12 compresses each value of a variable-width page on its own when some value is over
// 32 KiB (compression.rs, create_per_value): the page is full-zip and its value encoding is
// "general(zstd, variable(flat(32|64)))", one u64 size + zstd frame per value. Its BITMAP
// index files use it for wide bitmaps. The values below are a mix of such large (and
// compressible) values, small ones, empty ones and nulls, in utf8, binary and large_utf8.
//
// Beside them: what lance 12 reads back from each, in the canonical JSON-lines form
// (tests/interop/lib/canonical.mjs): `zipped.jsonl` (the whole table, in order) and
// `zipped_take.jsonl` (the rows of TAKE_ROWS through takeOffsets, which answers them in row
// order, repeats kept); the script fails if the two versions read back differently.
//
// Usage (from the repository root):
//   NODE_PATH=tests/interop/node_modules node tests/golden/lance_file/gen_zipped.mjs
import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "../../interop/package.json"));
const arrow = require("apache-arrow");
const lancedb = require("@lancedb/lancedb");
const { canonicalLines } = await import(path.join(here, "../../interop/lib/canonical.mjs"));

// The rows the take reads: scattered, with a repeat, both ends.
export const TAKE_ROWS = [29, 0, 15, 7, 7, 13, 2, 28, 1, 19, 11, 16];

const N = 30;
const words = ["lance", "zip", "frame", "bitmap", "page", "value", "row", "index", "fragment"];
// A value of `len` bytes: a short preamble unique to the row, then words in a period of the
// row, so every value differs and zstd shrinks it well.
function text(i, len) {
  let s = `row ${i}:`;
  for (let k = 0; s.length < len; ++k) s += " " + words[(i + k * (1 + (i % 4))) % words.length];
  return s.slice(0, len);
}
const bytes = (i, len) => Buffer.from(text(i * 3 + 1, len), "latin1");
// Row sizes: two rows of each column are large (33-40 KB, over lance 12's 32 KiB threshold:
// one such value makes the whole page per-value compressed), the others small or empty.
function size(i) {
  if (i % 15 === 0) return 33 * 1024 + ((i * 7919) % (7 * 1024));
  return [0, 5, 300, 700][i % 4];
}
const nullAt = (i, k) => i % k === k - 1;

function zipped() {
  const F = (name, type) => new arrow.Field(name, type, true);
  const cols = [
    [F("id", new arrow.Int32()), Array.from({ length: N }, (_, i) => i), new arrow.Int32()],
    [F("s", new arrow.Utf8()), Array.from({ length: N }, (_, i) => (nullAt(i, 7) ? null : text(i, size(i))))],
    [F("b", new arrow.Binary()), Array.from({ length: N }, (_, i) => (nullAt(i, 5) ? null : bytes(i, size(i + 3))))],
    [F("ls", new arrow.LargeUtf8()), Array.from({ length: N }, (_, i) => (nullAt(i, 4) ? null : text(i + 100, size(i + 7))))],
  ];
  const schema = new arrow.Schema(cols.map((c) => c[0]));
  const children = cols.map(([f, v]) => arrow.vectorFromArray(v, f.type).data[0]);
  const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: N, nullCount: 0, children });
  return new arrow.Table(schema, new arrow.RecordBatch(schema, data));
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "lance-golden-zipped-"));
try {
  const read = {};
  for (const version of ["2.1", "2.2"]) {
    const db = await lancedb.connect(path.join(scratch, version));
    const table = await db.createTable("zipped", zipped(), {
      storageOptions: { new_table_data_storage_version: version },
    });
    const dataDir = path.join(scratch, version, "zipped.lance", "data");
    const files = fs.readdirSync(dataDir).filter((f) => f.endsWith(".lance"));
    if (files.length !== 1) throw new Error(`${version}: ${files.length} data files`);
    const stem = `zipped_${version.replace(".", "_")}`;
    fs.copyFileSync(path.join(dataDir, files[0]), path.join(here, `${stem}.lance`));
    // What lance 12 reads back, not what went in.
    const all = canonicalLines(await table.query().toArrow());
    const taken = canonicalLines(await table.takeOffsets(TAKE_ROWS).toArrow());
    if (read.all !== undefined && (read.all !== all || read.taken !== taken)) {
      throw new Error(`lance 12 reads the ${version} file differently from the 2.1 one`);
    }
    Object.assign(read, { all, taken });
    console.log(stem, fs.statSync(path.join(here, `${stem}.lance`)).size, "bytes");
  }
  fs.writeFileSync(path.join(here, "zipped.jsonl"), read.all);
  fs.writeFileSync(path.join(here, "zipped_take.jsonl"), read.taken);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
