// Filtered scan and filtered count, side by side: the reference (lance 12.0.0 through
// @lancedb/lancedb 0.39.0) and our `lance` CLI on the same one-fragment table of the peer
// benchmark data (`gen.mjs --export`: 1M rows of id, category, score, text, vector).
//
//   reference  table.query().where(F).select(['id']).toArrow()   (as peer-bench's filter.no_index)
//              table.countRows(F)
//   ours       lance scan TABLE --filter F --columns id  > /dev/null   (a whole process: start,
//              open, read, filter, take, JSON output)
//              lance count TABLE --filter F
// F = "score > 50 AND category = 'c7'" (the workload's filter). Every figure: a first call,
// then the median of --reps calls. Results are checked: the same ids and the same count.
//
//   ours, in process (with --bench BIN, the lance_bench binary; bench/table_filter_bench.cc):
//              Dataset::Scan({id}, F) and CountRows(F) on an open dataset, median of 5
//              repetitions: the like-for-like comparison with the reference's in-process calls.
//
// Usage: node table_filter_peer.mjs --export DIR --dir TABLEDIR --lance BIN [--bench BIN]
//        [--reps 10] [--out FILE]. Run with NODE_PATH=<repo>/tests/interop/node_modules.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
if (!args.export || !args.dir || !args.lance) {
  console.error("usage: node table_filter_peer.mjs --export DIR --dir TABLEDIR --lance BIN [--reps N] [--out FILE]");
  process.exit(2);
}
const REPS = Number(args.reps ?? 10);
const log = (m) => console.error(`[filter-bench] ${m}`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const workload = JSON.parse(fs.readFileSync(`${args.export}/workload.json`, "utf8"));
const filterText = workload.filter ?? "score > 50 AND category = 'c7'";

const db = await lancedb.connect(args.dir);
let table;
if ((await db.tableNames()).includes("bench")) {
  table = await db.openTable("bench");
} else {
  log("creating the reference table from base.arrow");
  const data = arrow.tableFromIPC(fs.readFileSync(`${args.export}/base.arrow`));
  table = await db.createTable("bench", data);
}
const uri = `${args.dir}/bench.lance`;
const rows = await table.countRows();

async function timeRef(fn) {
  const t0 = performance.now();
  const r = await fn();
  return [performance.now() - t0, r];
}
function timeOurs(argv) {
  const t0 = performance.now();
  const r = spawnSync(args.lance, argv, { maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`lance ${argv.join(" ")}: ${r.stderr}`);
  return [ms, r.stdout.toString("utf8")];
}

const result = { rows, filter: filterText, reps: REPS };

// Reference: filtered scan of ids.
const refScan = [];
let [first, refTable] = await timeRef(() => table.query().where(filterText).select(["id"]).toArrow());
for (let i = 0; i < REPS; i++) refScan.push((await timeRef(() => table.query().where(filterText).select(["id"]).toArrow()))[0]);
const refIds = Array.from(refTable.getChild("id").toArray(), (v) => BigInt(v)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
result.reference_scan = { first_ms: first, median_ms: median(refScan), hits: refIds.length };

// Reference: filtered count.
const refCount = [];
let refN;
[first, refN] = await timeRef(() => table.countRows(filterText));
for (let i = 0; i < REPS; i++) refCount.push((await timeRef(() => table.countRows(filterText)))[0]);
result.reference_count = { first_ms: first, median_ms: median(refCount), count: refN };

// Ours: the same two, as whole CLI processes.
const scanArgs = ["scan", uri, "--filter", filterText, "--columns", "id"];
const oursScan = [];
let out;
[first, out] = timeOurs(scanArgs);
for (let i = 0; i < REPS; i++) oursScan.push(timeOurs(scanArgs)[0]);
const ourIds = out.trim().split("\n").filter((l) => l).map((l) => BigInt(JSON.parse(l.replace(/:(\d+)/, ':"$1"')).id));
result.ours_scan = { first_ms: first, median_ms: median(oursScan), hits: ourIds.length };
const countArgs = ["count", uri, "--filter", filterText];
const oursCount = [];
[first, out] = timeOurs(countArgs);
for (let i = 0; i < REPS; i++) oursCount.push(timeOurs(countArgs)[0]);
result.ours_count = { first_ms: first, median_ms: median(oursCount), count: Number(out.trim()) };
// Process start and dataset open alone, for scale.
const openOnly = [];
for (let i = 0; i < REPS; i++) openOnly.push(timeOurs(["count", uri])[0]);
result.ours_open_and_count_no_filter_ms = median(openOnly);

if (args.bench) {
  const r = spawnSync(args.bench, ["--benchmark_filter=TableFilter", "--benchmark_repetitions=5",
                                   "--benchmark_min_time=0.2", "--benchmark_report_aggregates_only=true",
                                   "--benchmark_format=json"],
                      { env: { ...process.env, LANCE_TABLE: uri, LANCE_TABLE_FILTER: filterText },
                        maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`lance_bench: ${r.stderr}`);
  const med = {};
  for (const b of JSON.parse(r.stdout.toString("utf8")).benchmarks) {
    if (b.aggregate_name !== "median") continue;
    if (b.error_occurred) throw new Error(`${b.name}: ${b.error_message}`);
    med[b.run_name.replace(/\/real_time$/, "")] = b;
  }
  const ms = (b) => b.real_time * { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 }[b.time_unit];
  result.ours_in_process = {
    scan_ids_ms: ms(med.BM_TableFilterScanIds), scan_hits: med.BM_TableFilterScanIds.hits,
    count_ms: ms(med.BM_TableFilterCount), count: med.BM_TableFilterCount.count,
    open_and_scan_ms: ms(med.BM_TableFilterOpenScan),
  };
}

result.ids_equal = ourIds.length === refIds.length && ourIds.every((v, i) => v === refIds[i]);
result.count_equal = result.ours_count.count === refN;
if (args.out) fs.writeFileSync(args.out, JSON.stringify(result, null, 2));

const fmt = (x) => x.toFixed(1).padStart(9);
console.log(`filter: ${filterText}   rows: ${rows}   hits: ${refIds.length}   median of ${REPS}`);
console.log(`${"".padEnd(34)}${"reference".padStart(11)}${"ours".padStart(11)}${"ratio".padStart(9)}`);
const line = (name, r, o) =>
  console.log(`${name.padEnd(34)}${fmt(r)} ms${fmt(o)} ms${(r / o).toFixed(2).padStart(8)}x`);
const ip = result.ours_in_process;
if (ip) {
  line("filtered scan (select id)", result.reference_scan.median_ms, ip.scan_ids_ms);
  line("count with filter", result.reference_count.median_ms, ip.count_ms);
  line("open + filtered scan", result.reference_scan.median_ms, ip.open_and_scan_ms);
  console.log("whole `lance` processes (start, open, query, JSON output):");
}
line("filtered scan (select id)", result.reference_scan.median_ms, result.ours_scan.median_ms);
line("filtered scan, first call", result.reference_scan.first_ms, result.ours_scan.first_ms);
line("count with filter", result.reference_count.median_ms, result.ours_count.median_ms);
console.log(`ours: process start + open + unfiltered count ${result.ours_open_and_count_no_filter_ms.toFixed(1)} ms` +
            ` (included in our figures)`);
console.log(`same ids: ${result.ids_equal}   same count: ${result.count_equal}`);
if (ip && (ip.scan_hits !== refIds.length || ip.count !== refN)) {
  console.log(`in-process results differ: ${ip.scan_hits} hits, count ${ip.count}`);
  process.exit(1);
}
if (!result.ids_equal || !result.count_equal) process.exit(1);
