// Prints the side-by-side table of the Lance data file read benchmark from the reference's
// JSON (lance_file_peer.mjs) and ours (lance_bench --benchmark_out, with repetitions and
// aggregates). Usage: node lance_file_table.mjs PEER.json OURS.json
import fs from "node:fs";

const [peerPath, oursPath] = process.argv.slice(2);
if (!peerPath || !oursPath) {
  console.error("usage: node lance_file_table.mjs PEER.json OURS.json");
  process.exit(2);
}
const peer = JSON.parse(fs.readFileSync(peerPath, "utf8"));
const ours = JSON.parse(fs.readFileSync(oursPath, "utf8"));

// Median aggregate of each benchmark (or the single run when there are no repetitions).
const med = new Map();
for (const b of ours.benchmarks) {
  const name = (b.run_name ?? b.name).replace(/\/real_time$/, "");
  if (b.run_type === "aggregate" && b.aggregate_name !== "median") continue;
  if (b.error_occurred) throw new Error(`${name}: ${b.error_message}`);
  med.set(name, b);
}
const get = (name) => {
  const b = med.get(name);
  if (!b) throw new Error(`no result for ${name} in ${oursPath}`);
  return b;
};
const toMs = (b) => {
  const f = { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 }[b.time_unit];
  return b.real_time * f;
};
const N = peer.rows;
const fmt = (x, d = 1) => (x >= 100 ? x.toFixed(0) : x.toFixed(d));
const rate = (rowsPerS) => (rowsPerS >= 1e6 ? `${(rowsPerS / 1e6).toFixed(2)} M/s` : `${(rowsPerS / 1e3).toFixed(0)} k/s`);

const rows = [];
const add = (what, oursMs, theirsMs, unitRows) => {
  rows.push([
    what,
    `${fmt(oursMs, 2)} ms` + (unitRows ? ` (${rate((unitRows / oursMs) * 1000)})` : ""),
    `${fmt(theirsMs, 2)} ms` + (unitRows ? ` (${rate((unitRows / theirsMs) * 1000)})` : ""),
    `${(theirsMs / oursMs).toFixed(theirsMs < oursMs ? 3 : 1)}x`,
  ]);
};
add("scan all columns", toMs(get("BM_LanceFileScan/all")), peer.scan_all_columns.median_ms, N);
add("scan id", toMs(get("BM_LanceFileScan/id")), peer.scan_id.median_ms, N);
add("take 1000 rows, all columns", get("BM_LanceFileTake/all").median_us / 1000, peer.take_all_columns.median_ms, 0);
add("take 1000 rows, id+score", get("BM_LanceFileTake/id_score").median_us / 1000, peer.take_id_score.median_ms, 0);

const table = (header, body) => {
  const w = header.map((h, i) => Math.max(h.length, ...body.map((r) => String(r[i]).length)));
  const line = (r) => "| " + r.map((c, i) => String(c).padEnd(w[i])).join(" | ") + " |";
  console.log(line(header));
  console.log("|" + w.map((x) => "-".repeat(x + 2)).join("|") + "|");
  for (const r of body) console.log(line(r));
};

console.log(`\nLance data file read, ${N} rows, storage ${peer.storage_version}, ${(peer.data_file_bytes / 2 ** 20).toFixed(1)} MiB file (medians)`);
console.log(`reference: ${peer.implementation}; ours: lance-cpp FileReader, Arrow-model batches\n`);
table(["operation", "ours", "reference", "speed-up (ref/ours)"], rows);

console.log("\nOurs in detail (medians):\n");
const detail = [];
const memcpyBps = get("BM_LanceFileMemcpy").bytes_per_second;
const cols = [...med.keys()].filter((k) => k.startsWith("BM_LanceFileScan/")).map((k) => k.slice("BM_LanceFileScan/".length));
for (const c of cols) {
  const s = get(`BM_LanceFileScan/${c}`);
  const d = get(`BM_LanceFileDecode/${c}`);
  detail.push([
    c,
    `${fmt(toMs(s), 2)} ms`,
    rate(s.items_per_second),
    `${(s.file_Bps / 1e9).toFixed(2)}`,
    `${fmt(toMs(d), 2)} ms`,
    `${(d.bytes_per_second / 1e9).toFixed(2)}`,
    `${(d.out_bytes / 2 ** 20).toFixed(1)}`,
    `${((100 * s.bytes_per_second) / memcpyBps).toFixed(0)}%`,
  ]);
}
table(["column", "scan (store)", "rows/s", "file GB/s read", "decode (in memory)", "decode GB/s out", "Arrow MiB",
       "scan GB/s out vs memcpy"], detail);
const mc = get("BM_LanceFileMemcpy");
console.log(`\nmemcpy of the whole file: ${fmt(toMs(mc), 2)} ms, ${(mc.bytes_per_second / 1e9).toFixed(2)} GB/s`);
for (const k of ["all", "id_score", "id_score_10rows"]) {
  if (!med.has(`BM_LanceFileTake/${k}`)) continue;
  const t = get(`BM_LanceFileTake/${k}`);
  console.log(
    `take ${k}: median ${(t.median_us / 1000).toFixed(2)} ms per ${t.rows_per_take} rows; ` +
      `read ${(t.bytes_per_take / 1024).toFixed(0)} KiB per take = ${t.bytes_per_row.toFixed(0)} B/row ` +
      `in ${t.reads_per_take.toFixed(0)} reads (${t.ranges_per_take.toFixed(0)} ranges requested, ` +
      `${(t.requested_bytes_per_take / 1024).toFixed(0)} KiB)`,
  );
}
console.log("\nReference figures include the node binding's conversion of results to arrow-js.");
