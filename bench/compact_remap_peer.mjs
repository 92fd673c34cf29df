// Compaction of an indexed table, the reference (lance 12.0.0 through @lancedb/lancedb 0.39.0)
// and ours side by side: both rewrite the same fragments and remap the same index files.
//
// Data: --rows rows in 10 fragments (id int64, score float64 uniform in [0, 100) from a fixed
// LCG, category utf8 'c0'..'c99'), written by the reference as indexed.lance, where it builds
// BTREE(id), BTREE(score), BITMAP(category), then deletes `id % 10 = 3` (every fragment
// loses 10 %: all are rewritten into one); plain.lance is the same without indexes. Each rep
// works on a fresh copy (cp -al: compaction writes new files only).
//   reference  table.optimize() in process (compaction with the index remap; its index
//              optimization and pruning find nothing to do here), wall and process CPU
//   ours       a whole `lance compact` process (start, read, write, remap, commit), wall and
//              user + sys from /usr/bin/time
// Checks: both leave one fragment, every index covering it, and the same answers to
// `score > 50 AND category = 'c7'` (count) and `id = 4321` through the indexes.
// Ratios: reference ms / ours ms. Medians of --reps.
//
// Usage: node compact_remap_peer.mjs --dir DIR --lance BIN [--rows 1000000] [--reps 3]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

const args = { rows: "1000000", reps: "3" };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const N = Number(args.rows);
const REPS = Number(args.reps);
const dir = args.dir;
const log = (m) => console.error(`[compact-bench] ${m}`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
fs.mkdirSync(dir, { recursive: true });

function part(start, n) {
  const ids = new BigInt64Array(n);
  const score = new Float64Array(n);
  const cat = new Array(n);
  let x = 12345 + start;
  for (let i = 0; i < n; i++) {
    ids[i] = BigInt(start + i);
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    score[i] = (x / 4294967296) * 100;
    cat[i] = `c${(x >>> 7) % 100}`;
  }
  return new arrow.Table({
    id: arrow.makeVector(ids), score: arrow.makeVector(score), category: arrow.vectorFromArray(cat, new arrow.Utf8()),
  });
}

const db = await lancedb.connect(dir);
const names = await db.tableNames();
for (const name of ["indexed", "plain"]) {
  if (names.includes(name)) continue;
  log(`writing ${N} rows into ${name}`);
  const per = Math.ceil(N / 10);
  const t = await db.createTable(name, part(0, per));
  for (let s = per; s < N; s += per) await t.add(part(s, Math.min(per, N - s)));
  if (name === "indexed") {
    await t.createIndex("id", { config: lancedb.Index.btree() });
    await t.createIndex("score", { config: lancedb.Index.btree() });
    await t.createIndex("category", { config: lancedb.Index.bitmap() });
  }
  await t.delete("id % 10 = 3");
}

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const lance = (argv) => {
  const r = spawnSync(args.lance, argv, { maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`lance ${argv.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
};
function oursTimed(argv) {
  const t0 = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "%U %S", args.lance, ...argv], { maxBuffer: 1 << 30 });
  const wall = performance.now() - t0;
  if (r.status !== 0) throw new Error(`lance ${argv.join(" ")}: ${r.stderr.toString()}`);
  const [u, sy] = r.stderr.toString().trim().split("\n").pop().split(" ").map(Number);
  return { wall, cpu: (u + sy) * 1000 };
}
const fresh = (base, copy) => {
  fs.rmSync(`${dir}/${copy}.lance`, { recursive: true, force: true });
  spawnSync("cp", ["-al", `${dir}/${base}.lance`, `${dir}/${copy}.lance`]);
  return `${dir}/${copy}.lance`;
};
const FILTERS = ["score > 50 AND category = 'c7'", "id = 4321"];
function check(uri, indexed, who) {
  const m = JSON.parse(lance(["manifest", uri]));
  if (m.fragments.length !== 1) throw new Error(`${who}: ${m.fragments.length} fragments after compaction`);
  if (indexed) {
    for (const line of lance(["indexes", uri]).split("\n").filter((l) => l)) {
      const x = JSON.parse(line);
      if (x.unindexed_fragment_ids.length) throw new Error(`${who}: ${x.name} leaves ${x.unindexed_fragment_ids} unindexed`);
    }
  }
  return FILTERS.map((f) => lance(["count", uri, "--where", f]).trim());
}

const rows = [];
let want = null;
for (const base of ["indexed", "plain"]) {
  const ref = [], ours = [];
  for (let rep = 0; rep < REPS; rep++) {
    const refUri = fresh(base, `${base}_ref`);
    const t = await (await lancedb.connect(dir)).openTable(`${base}_ref`);
    const c0 = cpuMs(), t0 = performance.now();
    await t.optimize();
    ref.push({ wall: performance.now() - t0, cpu: cpuMs() - c0 });
    const a = check(refUri, base === "indexed", "reference");
    const oursUri = fresh(base, `${base}_ours`);
    ours.push(oursTimed(["compact", oursUri]));
    const b = check(oursUri, base === "indexed", "ours");
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`answers differ: ${a} vs ${b}`);
    if (want && JSON.stringify(want) !== JSON.stringify(a)) throw new Error(`answers differ between tables: ${want} vs ${a}`);
    want = a;
  }
  const m = (xs, k) => median(xs.map((x) => x[k]));
  rows.push({ table: base, ref_ms: m(ref, "wall"), ref_cpu_ms: m(ref, "cpu"), ours_ms: m(ours, "wall"),
    ours_cpu_ms: m(ours, "cpu"), ratio: m(ref, "wall") / m(ours, "wall") });
}
const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`compaction of ${N} rows in 10 fragments, 10 % deleted (load ${load}; medians of ${REPS})`);
console.log("| table | ref ms | ref CPU ms | ours ms | ours CPU ms | ref/ours |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(`| ${r.table === "indexed" ? "BTREE(id) + BTREE(score) + BITMAP(category), remapped" : "no index"} | ${r.ref_ms.toFixed(0)} | ${r.ref_cpu_ms.toFixed(0)} | ${r.ours_ms.toFixed(0)} | ${r.ours_cpu_ms.toFixed(0)} | ${r.ratio.toFixed(2)}x |`);
}
