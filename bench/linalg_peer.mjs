// Exact vector search, reference side: lance 12.0.0 through @lancedb/lancedb 0.39.0 on the
// peer-bench export (gen.mjs --export: base.arrow with the 1M x 128 float32 `vector` column,
// workload.json with 100 query vectors). Our side is bench/linalg_bench.cc, faiss's is
// bench/peers/faiss_flat_peer.cc; bench/run_linalg_bench.sh runs all three.
//
//   node linalg_peer.mjs --export DIR --dir WORKDIR [--queries 10] --out FILE
//       creates a one-fragment table from base.arrow (no index), then times
//       query().nearestTo(q).bypassVectorIndex().limit(10).withRowId(true) for the first
//       --queries workload queries (one first call untimed); wall per query and the process's
//       CPU time per query (process.cpuUsage: the Rust threads included); stores the row ids
//       and distances of every query for the runner's checks.
//   node linalg_peer.mjs --compare PEER.json FAISS.json OURS.json OURS-RESULTS.json
//       prints the table (ratio = peer time / ours) and the checks: our row ids and distances
//       of every query the reference answered equal its own; faiss's overlap with ours.
//   node linalg_peer.mjs --dump DIR    writes DIR/vectors.f32 and DIR/queries.f32 (raw float32,
//       row-major) for the faiss peer, once.
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const arrow = require("apache-arrow");
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "--compare") { args.compare = process.argv.slice(i + 1); break; }
  args[a.replace(/^--/, "")] = process.argv[++i];
}
const log = (m) => console.error(`[linalg-bench] ${m}`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (args.compare) {
  compare(...args.compare);
  process.exit(0);
}

if (args.dump) {
  const dir = args.dump;
  if (!fs.existsSync(`${dir}/vectors.f32`)) {
    const t = arrow.tableFromIPC(fs.readFileSync(`${dir}/base.arrow`));
    const col = t.getChild("vector");
    const parts = col.data.map((d) => {
      const v = d.children[0].values;  // Float32Array of the batch's items
      const dim = d.type.listSize;
      return v.subarray(d.offset * dim, (d.offset + d.length) * dim);
    });
    const fd = fs.openSync(`${dir}/vectors.f32.tmp`, "w");
    for (const p of parts) fs.writeSync(fd, new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
    fs.closeSync(fd);
    fs.renameSync(`${dir}/vectors.f32.tmp`, `${dir}/vectors.f32`);
  }
  const w = JSON.parse(fs.readFileSync(`${dir}/workload.json`, "utf8"));
  const q = Float32Array.from(w.vectorQueries.flat());
  fs.writeFileSync(`${dir}/queries.f32`, new Uint8Array(q.buffer));
  process.exit(0);
}

if (!args.export || !args.dir || !args.out) {
  console.error("usage: node linalg_peer.mjs --export DIR --dir WORKDIR [--queries 10] --out FILE");
  process.exit(2);
}
const lancedb = require("@lancedb/lancedb");
const workload = JSON.parse(fs.readFileSync(`${args.export}/workload.json`, "utf8"));
const NQ = Math.min(Number(args.queries ?? 10), workload.vectorQueries.length);
fs.rmSync(args.dir, { recursive: true, force: true });
const db = await lancedb.connect(args.dir);
log("creating the table");
const base = arrow.tableFromIPC(fs.readFileSync(`${args.export}/base.arrow`));
const t = await db.createTable("vec", base);
const search = (q) => t.query().nearestTo(q).bypassVectorIndex().distanceType("l2").limit(10)
  .withRowId(true).select(["id"]).toArray();
await search(workload.vectorQueries[0]);
const wall = [];
const cpu = [];
const results = [];
for (let i = 0; i < NQ; i++) {
  const q = workload.vectorQueries[i];
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const rows = await search(q);
  wall.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
  results.push({ ids: rows.map((r) => Number(r._rowid)), distances: rows.map((r) => r._distance) });
  log(`query ${i}: ${wall[i].toFixed(1)} ms`);
}
fs.writeFileSync(args.out, JSON.stringify({ queries: NQ, wall_ms: wall, cpu_ms: cpu,
  median_ms: median(wall), median_cpu_ms: median(cpu), results }, null, 1));
fs.rmSync(args.dir, { recursive: true, force: true });

function compare(peerPath, faissPath, oursPath, oursResultsPath) {
  const peer = JSON.parse(fs.readFileSync(peerPath, "utf8"));
  const faiss = JSON.parse(fs.readFileSync(faissPath, "utf8"));
  const ours = JSON.parse(fs.readFileSync(oursPath, "utf8")).benchmarks;
  const oursResults = JSON.parse(fs.readFileSync(oursResultsPath, "utf8"));
  const get = (name) => ours.find((b) => b.name === `${name}/real_time_median`) ??
    ours.find((b) => b.name === `${name}/real_time`);
  const f = (x, d = 1) => (x === undefined ? "-" : x.toFixed(d));
  const memcpy = get("BM_LinalgMemcpy");
  const memGBs = memcpy.bytes_per_second / 1e9;
  const rows = [];
  const faissRun = (t) => faiss.runs.find((r) => r.threads === t);
  for (const [level, threads] of [["avx2", 1], ["avx2", 2], ["portable", 1], ["portable", 2]]) {
    const b = get(`BM_LinalgScan/${level}/${threads}`);
    if (!b) continue;
    const fr = faissRun(threads);
    rows.push({
      op: `exact k=10, one query, ${threads} thread${threads > 1 ? "s" : ""}${level === "portable" ? " (portable path)" : ""}`,
      ours: b.real_time, ours_cpu: b.cpu_ms_per_query, gbs: b.bytes_per_second / 1e9,
      ref: peer.median_ms, ref_cpu: peer.median_cpu_ms, faiss: fr?.single_median_ms, faiss_cpu: fr?.single_median_cpu_ms,
    });
  }
  for (const threads of [1, 2]) {
    const b = get(`BM_LinalgBatch/${threads}`);
    if (!b) continue;
    const nq = faiss.queries;
    const fr = faissRun(threads);
    rows.push({
      op: `exact k=10, ${nq} queries at once, per query, ${threads} thread${threads > 1 ? "s" : ""}`,
      ours: 1000 / b.queries_per_s, ours_cpu: b.cpu_ms_per_query,
      faiss: fr ? fr.batch_ms / nq : undefined, faiss_cpu: fr ? fr.batch_cpu_ms / nq : undefined,
    });
  }
  console.log(`memcpy of the 512 MB of vectors: ${f(memGBs, 2)} GB/s`);
  console.log("| operation (1M x 128 float32) | ours ms | ours CPU ms | scan GB/s (x memcpy) | lance 12 ms | lance 12 CPU ms | lance/ours | faiss ms | faiss CPU ms | faiss/ours |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(`| ${r.op} | ${f(r.ours, 2)} | ${f(r.ours_cpu, 2)} | ${r.gbs ? `${f(r.gbs, 2)} (${f(r.gbs / memGBs, 2)})` : "-"} | ` +
      `${f(r.ref)} | ${f(r.ref_cpu)} | ${r.ref ? f(r.ref / r.ours, 1) + "x" : "-"} | ` +
      `${f(r.faiss, 2)} | ${f(r.faiss_cpu, 2)} | ${r.faiss ? f(r.faiss / r.ours, 1) + "x" : "-"} |`);
  }
  for (const threads of [1, 2]) {
    const b = get(`BM_LinalgAssign/${threads}`);
    if (b) console.log(`k-means assignment, 65536 vectors x 1000 centroids, ${threads} thread(s): ${f(b.real_time)} ms, ${f(b.gflops, 1)} GFLOP/s (wall), CPU ${f(b.cpu_s_per_iter * 1000)} ms`);
  }
  // Checks: the reference's rows and distances, bit for bit; faiss's overlap.
  let same = 0;
  const bad = [];
  for (let q = 0; q < peer.results.length; q++) {
    const a = peer.results[q];
    const b = oursResults[q];
    const ok = a.ids.length === b.ids.length && a.ids.every((id, i) => id === b.ids[i] &&
      Object.is(Math.fround(b.distances[i]), a.distances[i]));
    if (ok) same++; else bad.push(q);
  }
  console.log(`check: ${same}/${peer.results.length} queries give lance 12's rows and distances exactly` +
    (bad.length ? ` (differ: ${bad.join(", ")})` : ""));
  let hit = 0;
  let total = 0;
  for (let q = 0; q < faiss.results.length; q++) {
    const mine = new Set(oursResults[q].ids);
    for (const id of faiss.results[q].ids) { total++; if (mine.has(id)) hit++; }
  }
  console.log(`check: faiss's top-10 rows are ours for ${hit}/${total} (float rounding may swap near-ties)`);
}
