// Scalar index lookups side by side: the reference (lance 12.0.0 through @lancedb/lancedb
// 0.39.0) and ours, on the same data files, with and without indexes.
//
// Data: --rows rows (lance 12 cuts fragments of ~1M rows: 10 at 10M) of id int64 (0..N-1), score float64 (uniform 0..100, a
// fixed LCG), category utf8 ('c0'..'c99'), written once by the reference as plain.lance and
// copied (data files hard-linked) to ref.lance, where the reference builds BTREE(id),
// BTREE(score), BITMAP(category), and to ours.lance, where `lance create-index` builds the same.
// Queries (select id): a point lookup, an IN-list of 100 ids, score ranges of 0.1 % and 10 %,
// and the harness's `score > 50 AND category = 'c7'`.
//   reference  table.query().where(F).select(['id']).toArrow() on ref.lance (index) and on
//              plain.lance (scan); first call, then the median of --reps calls
//   ours       lance_bench BM_ScalarIndex (bench/scalar_index_bench.cc: the query layer's Scanner,
//              in process, warm, planned through the indexes) on ours.lance and on ref.lance,
//              BM_ScalarScan (the same Scanner without indexes) on plain.lance
// Checks: every side returns the same ids for every query. Ratios: reference ms / ours ms.
//
// Usage: node scalar_index_peer.mjs --dir DIR --lance BIN --bench BIN [--rows 1000000] [--reps 10]
//        [--build-reps 3] [--lists 0|1]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

const args = { rows: "1000000", reps: "10" };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const N = Number(args.rows);
const REPS = Number(args.reps);
const log = (m) => console.error(`[scalar-bench] ${m}`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const dir = args.dir;
fs.mkdirSync(dir, { recursive: true });

function data() {
  const ids = new BigInt64Array(N);
  const score = new Float64Array(N);
  const cat = new Array(N);
  let x = 12345;
  for (let i = 0; i < N; i++) {
    ids[i] = BigInt(i);
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    score[i] = (x / 4294967296) * 100;
    cat[i] = `c${(x >>> 7) % 100}`;
  }
  return new arrow.Table({
    id: arrow.makeVector(ids), score: arrow.makeVector(score), category: arrow.vectorFromArray(cat, new arrow.Utf8()),
  });
}

const result = { rows: N, reps: REPS, build: {}, queries: [] };
const db = await lancedb.connect(dir);
if (!(await db.tableNames()).includes("plain")) {
  log(`writing ${N} rows`);
  await db.createTable("plain", data());
}
// Builds: each index --build-reps times (replacing itself), medians of wall and of process
// CPU (the reference: process.cpuUsage() of this node process, lance's threads included; ours:
// user + sys of the `lance create-index` child from /usr/bin/time). lance 12 builds BTREE,
// BITMAP and LABEL_LIST (on lists.lance, id + tags list<utf8> of 0..3 of 20 labels, one row in
// 10 a null list); ZONEMAP, BLOOMFILTER and NGRAM only we can build, so they are set against
// our own scan of the column (`lance scan --columns COL --where` a filter matching no row).
const BUILD_REPS = Number(args["build-reps"] ?? 3);
// --lists 0 leaves out lists.lance and LABEL_LIST (the 10M-row run: the narrow table only).
const WITH_LISTS = (args.lists ?? "1") !== "0";
const INDEXES = [["plain", "id", "btree"], ["plain", "score", "btree"], ["plain", "category", "bitmap"],
                 ...(WITH_LISTS ? [["lists", "tags", "label_list"]] : [])];
const COPIES = [["plain", "ref"], ["plain", "ours"], ["plain", "extra"],
                ...(WITH_LISTS ? [["lists", "ref"], ["lists", "ours"]] : [])];
const OURS_ONLY = [["score", "zonemap", "score < -1"], ["id", "bloomfilter", "id < -1"],
                   ["category", "ngram", "category = 'none'"]];
if (WITH_LISTS && !(await db.tableNames()).includes("lists")) {
  const ids = new BigInt64Array(N);
  const tags = new Array(N);
  let x = 777;
  for (let i = 0; i < N; i++) {
    ids[i] = BigInt(i);
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const k = (x >>> 9) % 4;
    tags[i] = (x >>> 5) % 10 === 0 ? null : Array.from({ length: k }, (_, j) => `t${((x >>> (11 + 4 * j)) % 20)}`);
  }
  const type = new arrow.List(new arrow.Field("item", new arrow.Utf8(), true));
  await db.createTable("lists", new arrow.Table({ id: arrow.makeVector(ids), tags: arrow.vectorFromArray(tags, type) }));
}
// Copies (data files hard-linked): ref / ours (plain, the queries run on these), lists_ref /
// lists_ours, and extra (plain, our ZONEMAP / BLOOMFILTER / NGRAM, kept off the query tables).
const copyName = (base, t) => (base === "plain" ? t : `${base}_${t}`);
for (const [base, t] of COPIES) {
  fs.rmSync(`${dir}/${copyName(base, t)}.lance`, { recursive: true, force: true });
  spawnSync("cp", ["-al", `${dir}/${base}.lance`, `${dir}/${copyName(base, t)}.lance`]);
}
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
function oursTimed(argv) {
  const t0 = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "%U %S", args.lance, ...argv], { maxBuffer: 1 << 30 });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`lance ${argv.join(" ")}: ${r.stderr.toString()}`);
  const [u, sy] = r.stderr.toString().trim().split("\n").pop().split(" ").map(Number);
  return { wall, cpu: (u + sy) * 1000 };
}
const medianOf = (runs, k) => median(runs.map((r) => r[k]));
for (const [base, col, kind] of INDEXES) {
  const ref = await db.openTable(copyName(base, "ref"));
  const refRuns = [], oursRuns = [];
  for (let rep = 0; rep < BUILD_REPS; rep++) {
    const c0 = cpuMs(), t0 = performance.now();
    await ref.createIndex(col, { config: lancedb.Index[kind === "label_list" ? "labelList" : kind](), replace: true });
    refRuns.push({ wall: performance.now() - t0, cpu: cpuMs() - c0 });
    oursRuns.push(oursTimed(["create-index", `${dir}/${copyName(base, "ours")}.lance`, col, "--type", kind, "--replace"]));
  }
  result.build[`${kind.toUpperCase()}(${col})`] = {
    reference_ms: medianOf(refRuns, "wall"), reference_cpu_ms: medianOf(refRuns, "cpu"),
    ours_ms: medianOf(oursRuns, "wall"), ours_cpu_ms: medianOf(oursRuns, "cpu"), base,
  };
}
for (const [col, kind, none] of OURS_ONLY) {
  const runs = [], scans = [];
  for (let rep = 0; rep < BUILD_REPS; rep++) {
    runs.push(oursTimed(["create-index", `${dir}/extra.lance`, col, "--type", kind, "--replace"]));
    scans.push(oursTimed(["scan", `${dir}/plain.lance`, "--columns", col, "--where", none, "--no-index"]));
  }
  result.build[`${kind.toUpperCase()}(${col})`] = {
    ours_ms: medianOf(runs, "wall"), ours_cpu_ms: medianOf(runs, "cpu"),
    scan_ms: medianOf(scans, "wall"), scan_cpu_ms: medianOf(scans, "cpu"), base: "plain",
  };
}
const dirSize = (d) => fs.readdirSync(d).reduce((s, f) => s + fs.statSync(`${d}/${f}`).size, 0);
const indexDirs = (t) => JSON.parse(spawnSync(args.lance, ["manifest", `${dir}/${t}.lance`]).stdout).indices;
for (const [base, t] of COPIES) {
  const name = copyName(base, t);
  for (const x of indexDirs(name)) {
    const key = `${x.type}(${x.columns[0]})`;
    if (result.build[key]) result.build[key][`${t === "ref" ? "reference" : "ours"}_bytes`] = dirSize(`${dir}/${name}.lance/_indices/${x.uuid}`);
  }
}
const ref = await db.openTable("ref");

const inList = Array.from({ length: 100 }, (_, k) => (k * 9973 + 17) % N).join(", ");
const QUERIES = [
  ["point lookup", `id = ${Math.floor(N * 0.4321)}`],
  ["IN-list of 100 ids", `id IN (${inList})`],
  ["range 0.1 %", "score >= 42 AND score < 42.1"],
  ["range 10 %", "score >= 42 AND score < 52"],
  ["score > 50 AND category = 'c7'", "score > 50 AND category = 'c7'"],
];
fs.writeFileSync(`${dir}/queries.txt`, QUERIES.map((q) => q[1]).join("\n") + "\n");
const plain = await db.openTable("plain");
const idsOf = (tbl) => Array.from(tbl.getChild("id").toArray(), Number).sort((a, b) => a - b).join(",");
async function timeRef(t, f) {
  const q = () => t.query().where(f).select(["id"]).toArrow();
  let t0 = performance.now();
  const first = await q();
  const firstMs = performance.now() - t0;
  const ms = [];
  const c0 = cpuMs();
  for (let i = 0; i < REPS; i++) {
    t0 = performance.now();
    await q();
    ms.push(performance.now() - t0);
  }
  // Process CPU per call (mean over the reps; lance's threads included).
  const cpu = (cpuMs() - c0) / REPS;
  return { first_ms: firstMs, median_ms: median(ms), cpu_ms: cpu, ids: idsOf(first), hits: first.numRows };
}
for (const [name, f] of QUERIES) {
  const withIndex = await timeRef(ref, f);
  const plan = await ref.query().where(f).explainPlan(true);
  if (!/ScalarIndexQuery/.test(plan)) throw new Error(`the reference does not use its index for ${f}:\n${plan}`);
  const scan = await timeRef(plain, f);
  if (withIndex.ids !== scan.ids) throw new Error(`reference index and scan differ on ${f}`);
  const ours = spawnSync(args.lance, ["scan", `${dir}/ours.lance`, "--where", f, "--columns", "id"], { maxBuffer: 1 << 30 });
  const oursIds = ours.stdout.toString().split("\n").filter((l) => l).map((l) => Number(JSON.parse(l).id)).sort((a, b) => a - b).join(",");
  if (oursIds !== scan.ids) throw new Error(`our scan differs on ${f}`);
  result.queries.push({ name, filter: f, hits: scan.hits, reference_index: withIndex, reference_scan: scan });
}

log("running lance_bench");
// In-process builds too (BM_ScalarBuild: an open Dataset, as the reference's createIndex on an
// open table), on the extra / lists_ours copies, 5 repetitions, medians.
const builds = [...INDEXES.map(([base, col, kind]) => `${base === "plain" ? "extra" : copyName(base, "ours")}:${col}:${kind}`),
                ...OURS_ONLY.map(([col, kind]) => `extra:${col}:${kind}`)];
const env = { ...process.env, LANCE_SCALAR_BENCH_DIR: dir, LANCE_SCALAR_BENCH_QUERIES: `${dir}/queries.txt`,
              LANCE_SCALAR_BENCH_BUILDS: builds.join(",") };
const b = spawnSync(args.bench, ["--benchmark_filter=BM_Scalar", "--benchmark_format=json", "--benchmark_min_time=0.3"],
  { env, maxBuffer: 1 << 30 });
if (b.status !== 0) throw new Error(b.stderr.toString());
const bench = JSON.parse(b.stdout.toString()).benchmarks;
const ms = (b) => (b.time_unit === "us" ? b.real_time / 1000 : b.real_time);
for (const [k, v] of Object.entries(result.build)) {
  const [, kind, col] = /^(\w+)\((\w+)\)$/.exec(k);
  const name = `BM_ScalarBuild/${col}/${kind.toLowerCase()}/iterations:1/repeats:5/real_time_median`;
  const r = bench.find((x) => x.name === name);
  if (!r || r.error_occurred) throw new Error(`${name}: ${r?.error_message ?? "missing"}`);
  v.ours_inproc_ms = ms(r);
  v.ours_inproc_cpu_ms = r.cpu_ms;
}
for (const [i, q] of result.queries.entries()) {
  for (const [key, name] of [["ours_scan", `BM_ScalarScan/${i}`], ["ours_index", `BM_ScalarIndex/ours/${i}`],
                             ["ours_on_ref_index", `BM_ScalarIndex/ref/${i}`]]) {
    const r = bench.find((x) => x.name === name || x.name === `${name}/real_time`);
    if (r && r.error_occurred && key === "ours_on_ref_index") {
      // Reading the reference's index may hit an encoding we do not read yet: say so, go on.
      q[key] = { ms: NaN, cpu_ms: NaN, error: r.error_message };
      log(`${name}: ${r.error_message}`);
      continue;
    }
    if (!r || r.error_occurred) throw new Error(`${name}: ${r?.error_message ?? "missing"}`);
    if (r.hits !== q.hits) throw new Error(`${name}: ${r.hits} hits, the reference ${q.hits}`);
    q[key] = { ms: ms(r), cpu_ms: r.cpu_ms, cache_kib: r.cache_kib };
  }
  delete q.reference_index.ids;
  delete q.reference_scan.ids;
}
fs.writeFileSync(`${dir}/results.json`, JSON.stringify(result, null, 1));

const f = (x) => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const frags = JSON.parse(spawnSync(args.lance, ["manifest", `${dir}/plain.lance`]).stdout).fragments?.length;
console.log(`\n${N} rows, ${frags ?? "?"} fragment(s); medians; ratio = reference / ours\n`);
console.log("builds: ref = createIndex in process; ours in process = BM_ScalarBuild (open Dataset); ours CLI = a whole `lance create-index` process");
console.log("| index | ref ms | ref CPU ms | ours in-process ms | CPU ms | ratio (wall) | ratio (CPU) | ours CLI ms | CLI CPU ms | ratio (wall) | size ref KiB | size ours KiB |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const [k, v] of Object.entries(result.build)) {
  if (v.reference_ms === undefined) continue;
  console.log(`| ${k} | ${f(v.reference_ms)} | ${f(v.reference_cpu_ms)} | ${f(v.ours_inproc_ms)} | ${f(v.ours_inproc_cpu_ms)} | ${(v.reference_ms / v.ours_inproc_ms).toFixed(1)}x | ${(v.reference_cpu_ms / v.ours_inproc_cpu_ms).toFixed(1)}x | ${f(v.ours_ms)} | ${f(v.ours_cpu_ms)} | ${(v.reference_ms / v.ours_ms).toFixed(1)}x | ${(v.reference_bytes / 1024).toFixed(0)} | ${(v.ours_bytes / 1024).toFixed(0)} |`);
}
console.log("\n| index (ours only) | in-process ms | CPU ms | CLI ms | CLI CPU ms | our column scan (CLI) ms | scan CPU ms | CLI build / scan (wall) | size KiB |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const [k, v] of Object.entries(result.build)) {
  if (v.reference_ms !== undefined) continue;
  console.log(`| ${k} | ${f(v.ours_inproc_ms)} | ${f(v.ours_inproc_cpu_ms)} | ${f(v.ours_ms)} | ${f(v.ours_cpu_ms)} | ${f(v.scan_ms)} | ${f(v.scan_cpu_ms)} | ${(v.ours_ms / v.scan_ms).toFixed(1)} | ${(v.ours_bytes / 1024).toFixed(0)} |`);
}
console.log("\n| query (select id) | hits | ref index ms | ours index ms | ratio | ours on ref's index ms | ref scan ms | ours scan ms | ratio | ref: index vs scan | ours: index vs scan |");
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const q of result.queries) {
  const ri = q.reference_index.median_ms, oi = q.ours_index.ms, rs = q.reference_scan.median_ms, os = q.ours_scan.ms;
  console.log(`| ${q.name} | ${q.hits} | ${f(ri)} | ${f(oi)} | ${(ri / oi).toFixed(1)}x | ${f(q.ours_on_ref_index.ms)} | ${f(rs)} | ${f(os)} | ${(rs / os).toFixed(1)}x | ${(rs / ri).toFixed(1)}x | ${(os / oi).toFixed(1)}x |`);
}
console.log("\nCPU per query (process CPU; ref: mean over its reps, ours: lance_bench's per iteration):");
console.log("| query | ref index CPU ms | ours index CPU ms | ratio (CPU) | ref scan CPU ms | ours scan CPU ms | ratio (CPU) |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const q of result.queries) {
  const ri = q.reference_index.cpu_ms, oi = q.ours_index.cpu_ms, rs = q.reference_scan.cpu_ms, os = q.ours_scan.cpu_ms;
  console.log(`| ${q.name} | ${f(ri)} | ${f(oi)} | ${(ri / oi).toFixed(1)}x | ${f(rs)} | ${f(os)} | ${(rs / os).toFixed(1)}x |`);
}
console.log("\nindex memory held by our open table after each query (its index cache), KiB:");
for (const q of result.queries) {
  console.log(`  ${q.name}: ${q.ours_index.cache_kib?.toFixed(0)} (ours), ${q.ours_on_ref_index.cache_kib?.toFixed(0)} (on ref's index)`);
}
for (const q of result.queries) {
  if (q.ours_on_ref_index.error) console.log(`ours on ref's index, ${q.name}: ${q.ours_on_ref_index.error}`);
}
