// Reference side of the Lance data file read benchmark (issue 3, item 6).
//
// Creates a one-fragment table from `base.arrow` (written by
// /work/shared/bench/reference/gen.mjs --export DIR) with the reference implementation
// (@lancedb/lancedb 0.39.0 = Rust lance 12.0.0) and times, through its Node API:
//   full scan of all columns       table.toArrow()
//   scan of `id` only              table.query().select(['id']).toArrow()
//   take of 1000 offsets           table.takeOffsets(set).toArrow()             (all columns)
//                                  table.takeOffsets(set).select(['id','score']).toArrow()
// Every figure includes the binding's conversion of the result to arrow-js.
// Prints the JSON result on stdout (and writes it to --out) including `data_file`, the path
// of the table's single data file, which the C++ side then reads.
//
// Usage: node lance_file_peer.mjs --export DIR --dir TMPDIR [--version 2.2] [--scan-reps 5]
//                                 [--out FILE]
// Run with NODE_PATH=/work/main/tests/interop/node_modules (run_lance_file_bench.sh does).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith("--")) continue;
    out[argv[i].slice(2)] = argv[i + 1];
    i++;
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
if (!args.export || !args.dir) {
  console.error("usage: node lance_file_peer.mjs --export DIR --dir TMPDIR [--version 2.2] [--scan-reps N] [--out FILE]");
  process.exit(2);
}
const VERSION = args.version ?? "2.2";
const SCAN_REPS = Number(args["scan-reps"] ?? 5);
const log = (m) => console.error(`[peer] ${m}`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const summarize = (xs) => ({
  median_ms: median(xs),
  min_ms: Math.min(...xs),
  max_ms: Math.max(...xs),
  reps: xs.length,
});
async function timed(fn) {
  const t0 = performance.now();
  const r = await fn();
  return [performance.now() - t0, r];
}

const base = arrow.tableFromIPC(fs.readFileSync(path.join(args.export, "base.arrow")));
const wl = JSON.parse(fs.readFileSync(path.join(args.export, "workload.json"), "utf8"));
const N = base.numRows;

fs.rmSync(args.dir, { recursive: true, force: true });
fs.mkdirSync(args.dir, { recursive: true });
const db = await lancedb.connect(args.dir);
const [createMs, table] = await timed(() =>
  db.createTable("bench", base, { mode: "create", storageOptions: { new_table_data_storage_version: VERSION } }),
);
log(`created ${N} rows (storage ${VERSION}) in ${(createMs / 1000).toFixed(2)} s`);

const dataDir = path.join(args.dir, "bench.lance", "data");
const files = fs.readdirSync(dataDir).filter((f) => f.endsWith(".lance"));
if (files.length !== 1) throw new Error(`expected one data file in ${dataDir}, found ${files.length}`);
const dataFile = path.join(dataDir, files[0]);

const results = {
  implementation: "lance 12.0.0 via @lancedb/lancedb 0.39.0 (node), results converted to arrow-js",
  rows: N,
  storage_version: VERSION,
  data_file: dataFile,
  data_file_bytes: fs.statSync(dataFile).size,
};

// Scans: first call separately, median over the next SCAN_REPS.
async function scan(label, mk, check) {
  const ms = [];
  let first = 0;
  for (let r = 0; r <= SCAN_REPS; r++) {
    const [t, at] = await timed(() => mk().toArrow());
    if (at.numRows !== N) throw new Error(`${label} returned ${at.numRows} rows, expected ${N}`);
    if (r === 0) {
      first = t;
      check?.(at);
    } else ms.push(t);
  }
  const s = summarize(ms);
  log(`${label}: median ${s.median_ms.toFixed(1)} ms`);
  return { first_ms: first, ...s, rows_per_s: Math.round((N / s.median_ms) * 1000) };
}
results.scan_all_columns = await scan("scan all columns", () => table.query());
results.scan_id = await scan("scan id", () => table.query().select(["id"]), (at) => {
  let sum = 0n;
  for (const v of at.getChild("id").toArray()) sum += v;
  if (sum !== (BigInt(N) * BigInt(N - 1)) / 2n) throw new Error("id column sum mismatch");
});

// Takes: the workload's sets of 1000 distinct offsets, one warm-up call first.
async function take(label, mk) {
  const sets = wl.takeOffsets;
  await mk(sets[0]).toArrow();
  const ms = [];
  for (const s of sets) {
    const [t, at] = await timed(() => mk(s).toArrow());
    const got = Array.from(at.getChild("id").toArray(), Number).sort((a, b) => a - b);
    const want = [...s].sort((a, b) => a - b);
    if (got.length !== want.length || got.some((v, i) => v !== want[i])) throw new Error(`${label}: wrong rows`);
    ms.push(t);
  }
  const r = summarize(ms);
  log(`${label}: median ${r.median_ms.toFixed(2)} ms`);
  return { ...r, rows_per_take: sets[0].length };
}
results.take_all_columns = await take("takeOffsets all columns", (s) => table.takeOffsets(s));
results.take_id_score = await take("takeOffsets id,score", (s) => table.takeOffsets(s).select(["id", "score"]));

const json = JSON.stringify(results, null, 2);
if (args.out) fs.writeFileSync(args.out, json + "\n");
console.log(json);
