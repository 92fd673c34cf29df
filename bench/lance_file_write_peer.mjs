// Reference side of the Lance data file write benchmark: times lance 12 (@lancedb/lancedb
// 0.39.0) creating a one-fragment table from `base.arrow` (gen.mjs --export), i.e. writing one
// data file of all rows, and reports the data file's size. The Arrow table is read before the
// clock starts. Prints one JSON object.
//
// Usage: node lance_file_write_peer.mjs --arrow FILE --dir TMPDIR [--version 2.2] [--reps 2]
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const version = args.version ?? "2.2";
const reps = Number(args.reps ?? 2);
const table = arrow.tableFromIPC(fs.readFileSync(args.arrow));
const times = [];
let dataBytes = 0;
for (let r = 0; r < reps; r++) {
  const dir = path.join(args.dir, `rep${r}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const db = await lancedb.connect(dir);
  const t0 = process.hrtime.bigint();
  await db.createTable("t", table, { storageOptions: { new_table_data_storage_version: version } });
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  const data = path.join(dir, "t.lance", "data");
  dataBytes = fs.readdirSync(data).reduce((s, f) => s + fs.statSync(path.join(data, f)).size, 0);
  fs.rmSync(dir, { recursive: true, force: true });
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ side: "lance 12", version, rows: table.numRows, median_ms: times[Math.floor(times.length / 2)], min_ms: times[0], data_file_bytes: dataBytes }));
