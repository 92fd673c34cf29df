// Table changes in place, side by side: the reference (lance 12.0.0 through @lancedb/lancedb
// 0.39.0, in process) and our `lance` CLI (a whole process each: start, open, read, write,
// commit) on copies of the same reference-written table of N rows
// (id int64, category utf8, score float64, text utf8; one fragment per 1M rows).
//
//   merge-insert  10k input rows on `id`: half update existing rows, half are new
//                 reference: mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll()
//                 ours:      lance merge-insert --on id --input batch.arrows
//   update        SET score = score + 1 WHERE id % 100 = 7   (1% of the rows)
//   add column    score2 = score * 2 for every row (a new data file per fragment)
//   compact       after the steps above (merges the small fragments they created; the
//                 reference's optimize() also optimizes indexes, of which there are none)
// Each side runs each step --reps times in sequence (the merge batch moves on each time);
// figures are medians. Results are checked: both sides end with the same row count and the
// same sum of score over the merged rows.
//
// Usage: node table_evolve_peer.mjs --dir DIR --lance BIN [--rows 1000000] [--reps 3]
//        [--out FILE]. Run with NODE_PATH=<repo>/tests/interop/node_modules.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
if (!args.dir || !args.lance) {
  console.error("usage: node table_evolve_peer.mjs --dir DIR --lance BIN [--rows N] [--reps N] [--out FILE]");
  process.exit(2);
}
const ROWS = Number(args.rows ?? 1000000);
const REPS = Number(args.reps ?? 3);
const log = (m) => console.error(`[evolve-bench] ${m}`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Deterministic rows [start, start + n) (`salt` changes the non-key values).
function rows(start, n, salt = 0) {
  const id = new BigInt64Array(n);
  const category = [];
  const score = new Float64Array(n);
  const text = [];
  for (let i = 0; i < n; i++) {
    const k = start + i;
    id[i] = BigInt(k);
    category.push(`c${(k * 7 + salt) % 100}`);
    score[i] = ((k * 2654435761 + salt * 97) % 100000) / 1000;
    text.push(`row ${k} salt ${salt} ${"x".repeat((k + salt) % 40)}`);
  }
  // Plain utf8 (tableFromArrays would infer dictionaries for strings).
  return new arrow.Table({
    id: arrow.makeVector(id),
    category: arrow.vectorFromArray(category, new arrow.Utf8()),
    score: arrow.makeVector(score),
    text: arrow.vectorFromArray(text, new arrow.Utf8()),
  });
}

function ipcStream(table) {
  return Buffer.from(arrow.tableToIPC(table, "stream"));
}

// The machine is shared: besides wall time, CPU time (user + system, all threads) is
// recorded for both sides — the reference's from process.cpuUsage() around the call, ours
// from /usr/bin/time around the process.
const cpu = { reference: {}, ours: {} };
function runOurs(argv, step) {
  const t0 = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "cpu %U %S", args.lance, ...argv], { maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`lance ${argv.join(" ")}: ${r.stderr}`);
  const m = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr.toString());
  if (step && m) (cpu.ours[step] ??= []).push((Number(m[1]) + Number(m[2])) * 1000);
  return [ms, JSON.parse(r.stdout.toString())];
}

async function timed(fn, step) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (step) (cpu.reference[step] ??= []).push((c.user + c.system) / 1000);
  return [ms, r];
}

fs.mkdirSync(args.dir, { recursive: true });
const refDir = path.join(args.dir, "ref");
const oursDir = path.join(args.dir, "ours");
fs.rmSync(refDir, { recursive: true, force: true });
fs.rmSync(oursDir, { recursive: true, force: true });
log(`writing ${ROWS} rows with the reference`);
const db = await lancedb.connect(refDir);
const chunk = 250000;
let ref = await db.createTable("t", rows(0, Math.min(chunk, ROWS)));
for (let s = chunk; s < ROWS; s += chunk) await ref.add(rows(s, Math.min(chunk, ROWS - s)));
if (ROWS > chunk) await ref.optimize();  // one fragment per ~1M rows, like a bulk write
fs.cpSync(refDir, oursDir, { recursive: true });
const oursUri = path.join(oursDir, "t.lance");

const results = { rows: ROWS, reps: REPS, steps: {} };
const record = (name, refMs, oursMs) => {
  const r = { reference_ms: Math.round(median(refMs)), ours_ms: Math.round(median(oursMs)) };
  r.ratio = +(r.reference_ms / Math.max(1, r.ours_ms)).toFixed(2);
  r.reference_cpu_ms = Math.round(median(cpu.reference[name] ?? [0]));
  r.ours_cpu_ms = Math.round(median(cpu.ours[name] ?? [0]));
  r.cpu_ratio = +(r.reference_cpu_ms / Math.max(1, r.ours_cpu_ms)).toFixed(2);
  results.steps[name] = r;
  log(`${name}: wall reference ${r.reference_ms} ms, ours ${r.ours_ms} ms, ratio ${r.ratio}x; ` +
      `cpu reference ${r.reference_cpu_ms} ms, ours ${r.ours_cpu_ms} ms, ratio ${r.cpu_ratio}x`);
};

// merge-insert: 10k rows, 5k existing ids (spread over the table) + 5k new ids.
{
  const refMs = [], oursMs = [];
  for (let rep = 0; rep < REPS; rep++) {
    const half = 5000;
    const upd = rows(rep * 100000, half, rep + 1);  // ids rep*100000 .. +5000 (existing)
    const ins = rows(ROWS + rep * half, half, rep + 1);
    const batch = new arrow.Table([...upd.batches, ...ins.batches]);
    const file = path.join(args.dir, `merge-${rep}.arrows`);
    fs.writeFileSync(file, ipcStream(batch));
    const [ms] = await timed(() => ref.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(batch), "merge_insert_10k");
    refMs.push(ms);
    const [oms, info] = runOurs(["merge-insert", oursUri, "--input", file, "--on", "id"], "merge_insert_10k");
    if (info.rows_updated !== half || info.rows_inserted !== half) throw new Error(JSON.stringify(info));
    oursMs.push(oms);
  }
  record("merge_insert_10k", refMs, oursMs);
}
// update 1% of the rows.
{
  const refMs = [], oursMs = [];
  for (let rep = 0; rep < REPS; rep++) {
    const where = `id % 100 = ${7 + rep}`;
    refMs.push((await timed(() => ref.update({ where, valuesSql: { score: "score + 1" } }), "update_1pct"))[0]);
    oursMs.push(runOurs(["update", oursUri, "--set", "score=score + 1", "--where", where], "update_1pct")[0]);
  }
  record("update_1pct", refMs, oursMs);
}
// add a computed column (once: the schema changes).
{
  const [rms] = await timed(() => ref.addColumns([{ name: "score2", valueSql: "score * 2" }]), "add_column_expr");
  const [oms] = runOurs(["add-columns", oursUri, "--expr", "score2=score * 2"], "add_column_expr");
  record("add_column_expr", [rms], [oms]);
}
// compaction of what the steps above left.
{
  const [rms] = await timed(() => ref.optimize(), "compact");
  const [oms] = runOurs(["compact", oursUri], "compact");
  record("compact", [rms], [oms]);
}
// Check: same rows, same total score.
await ref.checkoutLatest();
const refCount = await ref.countRows();
const oursCount = Number(spawnSync(args.lance, ["count", oursUri]).stdout.toString().trim());
if (refCount !== oursCount) throw new Error(`row counts differ: reference ${refCount}, ours ${oursCount}`);
const sumRef = (await ref.query().where("id % 1000 = 3").select(["score"]).toArray()).reduce((a, r) => a + r.score, 0);
const ourLines = spawnSync(args.lance, ["scan", oursUri, "--filter", "id % 1000 = 3", "--columns", "score"], { maxBuffer: 1 << 30 })
  .stdout.toString().split("\n").filter((l) => l);
const sumOurs = ourLines.reduce((a, l) => a + JSON.parse(l).score, 0);
if (Math.abs(sumRef - sumOurs) > 1e-6 * Math.max(1, Math.abs(sumRef))) {
  throw new Error(`score sums differ: reference ${sumRef}, ours ${sumOurs}`);
}
results.check = { rows: refCount, score_sum_sample: sumRef };
log(`checked: ${refCount} rows on both sides, equal score sums`);
if (args.out) fs.writeFileSync(args.out, JSON.stringify(results, null, 2));
console.log(JSON.stringify(results));
