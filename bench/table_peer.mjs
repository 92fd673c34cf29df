// Table operations, reference side: lance 12.0.0 through @lancedb/lancedb 0.39.0, on the
// peer-bench data (`gen.mjs --export`: id, category, score, text, vector). Our side is
// bench/table_bench.cc; bench/run_table_bench.sh runs both and this file's --compare mode
// prints the table with ratios (reference time / ours: > 1 means we are faster).
//
//   node table_peer.mjs --gen GEN.mjs --export DIR --dir WORKDIR [--reps 3] --out FILE
//       prepares DIR/append.arrow and DIR/merge.arrow once (see below), then times:
//         create        db.createTable(name, base)               (median of reps; the last
//                                                                  one stays as the base table)
//         open          connect + openTable + countRows() of a table with 21 versions (median
//                         of 10; open_same_connection: openTable + countRows on one connection)
//         scan_all      table.toArrow()                            (median of reps, after a first call)
//         scan_id       table.query().select(['id']).toArrow()
//         filter_scan   query().where(F).select(['id']).toArrow()  (median of 10 after a first call)
//         count_filter  countRows(F)
//         take          takeOffsets(set), all columns, the 10 workload sets (median, 1 warm-up)
//         append        table.add(append.arrow)                    on a fresh copy of the base table
//         delete        table.delete(D)                            on a fresh copy
//         update        table.update({where: D, valuesSql: {score: 'score + 1'}})  on a fresh copy
//         merge_insert  mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll()
//                         .execute(merge.arrow)                    on a fresh copy
//       F = the workload's filter, D = "id % 100 = 7" (1 % of the rows). Each mutation is timed
//       on its own copy of the base table (files under data/ hard-linked, the rest copied), so
//       every rep starts from the same one-version table; row counts after each are recorded.
//   node table_peer.mjs --compare PEER.json OURS.json...  (OURS: lance_bench JSON outputs)
//   node table_peer.mjs --scale WORK SMALL BIG  (tags of two runs, e.g. 1000000 and
//       10000000-narrow: WORK/peer-TAG.json, WORK/ours-create-TAG.json, WORK/ours-TAG.json):
//       each operation's time at BIG over its time at SMALL, ours and the reference's
//
// append.arrow: `--append` rows (default 100000) with new ids 10N.. (never in the table);
// merge.arrow: 10000 rows, the first 5000 updated and the first 5000 inserted ids of the
// workload's upsert list (ids < N exist, ids >= N are new), interleaved as there; both with
// fresh values in every column from gen.mjs's own generator.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === "--compare") { args.compare = process.argv.slice(i + 1); break; }
  if (a === "--scale") { args.scale = process.argv.slice(i + 1); break; }
  args[a.replace(/^--/, "")] = process.argv[++i];
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const log = (m) => console.error(`[table-bench] ${m}`);
export const DELETE_FILTER = "id % 100 = 7";

if (args.compare) {
  compare(...args.compare);
  process.exit(0);
}
if (args.scale) {
  scale(...args.scale);
  process.exit(0);
}

if (!args.gen || !args.export || !args.dir || !args.out) {
  console.error("usage: node table_peer.mjs --gen GEN.mjs --export DIR --dir WORKDIR [--reps 3] [--append 100000] --out FILE");
  process.exit(2);
}
const lancedb = require("@lancedb/lancedb");
const arrow = require("apache-arrow");
const gen = await import(pathToFileURL(path.resolve(args.gen)).href);
// gen.mjs builds its tables with the ES-module build of apache-arrow (resolved next to it),
// a different module instance from the CommonJS one above: serialise them with that one.
const genArrow = await import(pathToFileURL(fs.realpathSync(
    path.join(path.dirname(path.resolve(args.gen)), "node_modules/apache-arrow/Arrow.node.mjs"))).href);
const REPS = Number(args.reps ?? 3);
const APPEND = Number(args.append ?? 100000);

const workload = JSON.parse(fs.readFileSync(`${args.export}/workload.json`, "utf8"));
const N = workload.rows;
const F = workload.filter ?? "score > 50 AND category = 'c7'";

// --- inputs of append and merge-insert (written once per export) ---------------------------
const appendPath = `${args.export}/append-${APPEND}.arrow`;
const mergePath = `${args.export}/merge.arrow`;
const nonEmpty = (p) => fs.existsSync(p) && fs.statSync(p).size > 0;
if (!nonEmpty(appendPath) || !nonEmpty(mergePath)) {
  log("preparing append and merge-insert inputs");
  const ctx = gen.makeContext(workload.seed);
  const streams = (k) => ({ category: k + 1, score: k + 2, text: k + 3, vectors: k + 4 });
  const appendIds = new Float64Array(APPEND);
  for (let i = 0; i < APPEND; i++) appendIds[i] = 10 * N + i;
  // A narrow export (bench/gen_narrow.mjs: workload.narrow lists its columns) gets inputs of
  // those columns only.
  const cut = (t) => (workload.narrow ? t.select(workload.narrow) : t);
  fs.writeFileSync(appendPath, genArrow.tableToIPC(cut(gen.genRows(appendIds, workload.seed, streams(1000), ctx).table), "file"));
  const wl = gen.genWorkload(N, workload.seed, ctx, workload.opts);
  const upd = [], ins = [], mergeIds = [];
  for (const id of wl.upsertIds) {
    if (id < N ? upd.length < 5000 : ins.length < 5000) { (id < N ? upd : ins).push(id); mergeIds.push(id); }
  }
  if (upd.length !== 5000 || ins.length !== 5000) throw new Error(`merge input: ${upd.length} updates, ${ins.length} inserts`);
  fs.writeFileSync(mergePath, genArrow.tableToIPC(cut(gen.genRows(Float64Array.from(mergeIds), workload.seed, streams(2000), ctx).table), "file"));
}
const readArrow = (p) => arrow.tableFromIPC(fs.readFileSync(p));
const base = readArrow(`${args.export}/base.arrow`);
const appendTable = readArrow(appendPath);
const mergeTable = readArrow(mergePath);

// --- helpers --------------------------------------------------------------------------------
// [wall ms, result, CPU ms of the whole process (user + system, every thread: lance's pools
// included) during the call].
async function timed(fn) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return [ms, r, (c.user + c.system) / 1000];
}
async function series(reps, fn, { first = true } = {}) {
  let firstMs, last;
  if (first) [firstMs, last] = await timed(fn);
  const ms = [], cpu = [];
  for (let i = 0; i < reps; i++) {
    const [t, r, c] = await timed(fn);
    ms.push(t);
    cpu.push(c);
    last = r;
  }
  return { first_ms: firstMs, median_ms: median(ms), min_ms: Math.min(...ms), max_ms: Math.max(...ms),
           cpu_median_ms: median(cpu), reps, last };
}
// A copy of a table directory: data files hard-linked (immutable), everything else copied.
function copyTable(src, dst) {
  fs.rmSync(dst, { recursive: true, force: true });
  const walk = (s, d) => {
    fs.mkdirSync(d, { recursive: true });
    for (const e of fs.readdirSync(s, { withFileTypes: true })) {
      const sp = path.join(s, e.name), dp = path.join(d, e.name);
      if (e.isDirectory()) walk(sp, dp);
      else if (path.basename(s) === "data") fs.linkSync(sp, dp);
      else fs.copyFileSync(sp, dp);
    }
  };
  walk(src, dst);
}
const strip = ({ last, ...rest }) => rest;

fs.rmSync(args.dir, { recursive: true, force: true });
fs.mkdirSync(args.dir, { recursive: true });
const db = await lancedb.connect(args.dir);
const result = { rows: N, filter: F, delete_filter: DELETE_FILTER, append_rows: appendTable.numRows,
                 merge_rows: mergeTable.numRows, reps: REPS };
const save = () => fs.writeFileSync(args.out, JSON.stringify(result, null, 2));

// create
{
  const ms = [], cpu = [];
  for (let i = 0; i < REPS; i++) {
    if ((await db.tableNames()).includes("base")) await db.dropTable("base");
    const [t, , c] = await timed(() => db.createTable("base", base));
    ms.push(t);
    cpu.push(c);
  }
  result.create = { median_ms: median(ms), min_ms: Math.min(...ms), max_ms: Math.max(...ms),
                    cpu_median_ms: median(cpu), reps: REPS };
  log(`create ${result.create.median_ms.toFixed(0)} ms`);
  save();
}
const baseDir = `${args.dir}/base.lance`;
const table = await db.openTable("base");

// reads
{
  const s = await series(REPS, () => table.toArrow());
  if (s.last.numRows !== N) throw new Error(`scan_all: ${s.last.numRows} rows`);
  result.scan_all = strip(s);
  const si = await series(REPS, () => table.query().select(["id"]).toArrow());
  if (si.last.numRows !== N) throw new Error(`scan_id: ${si.last.numRows} rows`);
  result.scan_id = strip(si);
  const fsn = await series(10, () => table.query().where(F).select(["id"]).toArrow());
  result.filter_scan = { ...strip(fsn), hits: fsn.last.numRows };
  const cf = await series(10, () => table.countRows(F));
  result.count_filter = { ...strip(cf), count: cf.last };
  const sets = workload.takeOffsets;
  await table.takeOffsets(sets[0]).toArrow();
  const tk = [], tkCpu = [];
  for (const set of sets) {
    const [t, r, c] = await timed(() => table.takeOffsets(set).toArrow());
    tk.push(t);
    tkCpu.push(c);
    const got = Array.from(r.getChild("id").toArray(), Number).sort((a, b) => a - b);
    const want = [...set].sort((a, b) => a - b);
    if (got.length !== want.length || got.some((v, i) => v !== want[i])) throw new Error("take: wrong rows");
  }
  result.take = { median_ms: median(tk), min_ms: Math.min(...tk), max_ms: Math.max(...tk),
                  cpu_median_ms: median(tkCpu), sets: sets.length };
  log(`reads done`);
  save();
}

// mutations, each on a fresh copy of the base table
async function mutation(name, fn) {
  const ms = [], cpu = [];
  let after;
  for (let i = 0; i < REPS; i++) {
    copyTable(baseDir, `${args.dir}/mut.lance`);
    const t = await db.openTable("mut");
    const [elapsed, r, c] = await timed(() => fn(t));
    ms.push(elapsed);
    cpu.push(c);
    after = { rows_after: await t.countRows(), version_after: await t.version(), detail: r ?? null };
    t.close();
  }
  result[name] = { median_ms: median(ms), min_ms: Math.min(...ms), max_ms: Math.max(...ms),
                   cpu_median_ms: median(cpu), reps: REPS, ...after };
  log(`${name} ${result[name].median_ms.toFixed(0)} ms, ${after.rows_after} rows after`);
  save();
}
await mutation("append", (t) => t.add(appendTable));
await mutation("delete", (t) => t.delete(DELETE_FILTER));
await mutation("update", (t) => t.update({ where: DELETE_FILTER, valuesSql: { score: "score + 1" } }));
await mutation("merge_insert", (t) =>
  t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(mergeTable));

// open the latest version of a table with 21 versions (base + 20 appends of 10 rows)
{
  copyTable(baseDir, `${args.dir}/versions.lance`);
  const t = await db.openTable("versions");
  const small = appendTable.slice(0, 10);
  for (let i = 0; i < 20; i++) await t.add(small);
  t.close();
  // A new connection each time (like our Dataset::Open: nothing cached), and for scale the
  // same through the one connection (its session may cache manifests).
  const s = await series(10, async () => {
    const c = await lancedb.connect(args.dir);
    const h = await c.openTable("versions");
    const n = await h.countRows();
    h.close();
    c.close();
    return n;
  });
  result.open = { ...strip(s), rows: s.last, versions: 21 };
  const sc = await series(10, async () => {
    const h = await db.openTable("versions");
    const n = await h.countRows();
    h.close();
    return n;
  });
  result.open_same_connection = strip(sc);
  save();
}
log("done");

// --- comparison table -----------------------------------------------------------------------
// The rows of the comparison: [name, reference figures, our benchmark] of one run.
function compareRows(peerPath, ...oursPaths) {
  const peer = JSON.parse(fs.readFileSync(peerPath, "utf8"));
  // Google Benchmark writes NaN for a cv of constant-zero counters: not JSON.
  const readJson = (p) => JSON.parse(fs.readFileSync(p, "utf8").replace(/:\s*-?(nan|NaN|inf|Infinity)\b/g, ": null"));
  const benchmarks = oursPaths.flatMap((p) => readJson(p).benchmarks);
  const med = {};
  for (const b of benchmarks) {
    if (b.run_type === "aggregate" && b.aggregate_name !== "median") continue;
    if (b.error_occurred) { console.log(`ours ${b.name}: ERROR ${b.error_message}`); continue; }
    const key = b.run_name.replace(/\/.*$/, "");
    if (b.run_type !== "aggregate" && med[key]) continue;  // keep the median when there is one
    med[key] = b;
  }
  // The reference flushes nothing on local datasets: ours is printed durable (default) and with
  // --no-sync (not durable, the like-for-like figure) against the same reference figure.
  const rows = [
    ["create (write N rows)", peer.create, med.BM_TableCreate],
    ["  create, --no-sync", peer.create, med.BM_TableCreateNoSync],
    [`append ${peer.append_rows} rows`, peer.append, med.BM_TableAppend],
    ["  append, --no-sync", peer.append, med.BM_TableAppendNoSync],
    ["full scan, all columns", peer.scan_all, med.BM_TableScanAll],
    ["full scan, id", peer.scan_id, med.BM_TableScanId],
    ["filtered scan (select id)", peer.filter_scan, med.BM_TableFilterScanIds],
    ["count with filter", peer.count_filter, med.BM_TableFilterCount],
    ["take 1000 rows, all columns", peer.take, med.BM_TableTake],
    [`delete ${peer.delete_filter}`, peer.delete, med.BM_TableDelete],
    ["  delete, --no-sync", peer.delete, med.BM_TableDeleteNoSync],
    ["update 1 % (score + 1)", peer.update, med.BM_TableUpdate],
    ["  update, --no-sync", peer.update, med.BM_TableUpdateNoSync],
    [`merge-insert ${peer.merge_rows} rows`, peer.merge_insert, med.BM_TableMergeInsert],
    ["  merge-insert, --no-sync", peer.merge_insert, med.BM_TableMergeInsertNoSync],
    ["open latest (21 versions)", peer.open, med.BM_TableOpenLatest],
  ];
  return { peer, med, rows, benchmarks };
}

function ms(b) {
  return b ? b.real_time * { ns: 1e-6, us: 1e-3, ms: 1, s: 1e3 }[b.time_unit] : NaN;
}

function scale(work, small, big) {
  const load = (tag) => compareRows(`${work}/peer-${tag}.json`, `${work}/ours-create-${tag}.json`, `${work}/ours-${tag}.json`);
  const a = load(small), b = load(big);
  console.log(`${b.peer.rows} rows (${big}) against ${a.peer.rows} (${small}): time at ${big} / time at ${small}`);
  console.log(`${"operation".padEnd(32)}${"ours x".padStart(9)}${"cpu x".padStart(9)}${"ref x".padStart(9)}${"cpu x".padStart(9)}` +
              `${"ours ms, small -> big".padStart(24)}`);
  const x = (p, q) => (Number.isFinite(p / q) ? `${(p / q).toFixed(1)}x` : "-").padStart(9);
  for (let i = 0; i < a.rows.length; i++) {
    const [name, pa, oa] = a.rows[i];
    const [, pb, ob] = b.rows[i];
    const f = (v) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 3 : 1) : "-");
    console.log(`${name.padEnd(32)}${x(ms(ob), ms(oa))}${x(ob?.cpu_ms, oa?.cpu_ms)}${x(pb?.median_ms, pa?.median_ms)}` +
                `${x(pb?.cpu_median_ms, pa?.cpu_median_ms)}${`${f(ms(oa))} -> ${f(ms(ob))}`.padStart(24)}`);
  }
}

function compare(peerPath, ...oursPaths) {
  const { peer, med, rows, benchmarks } = compareRows(peerPath, ...oursPaths);
  console.log(`rows ${peer.rows}; filter ${peer.filter}; medians; ratio = reference / ours (> 1: we are faster)`);
  console.log("wall: elapsed time; cpu: CPU time of the whole process (all threads) during the call");
  console.log(`${"operation".padEnd(32)}${"ours ms".padStart(11)}${"ref ms".padStart(11)}${"ratio".padStart(9)}` +
              `${"ours cpu".padStart(11)}${"ref cpu".padStart(11)}${"cpu ratio".padStart(10)}  check`);
  for (const [name, p, o] of rows) {
    const r = p?.median_ms, u = ms(o);
    let check = "";
    if (o && p) {
      if (p.rows_after !== undefined && o.rows_after !== undefined)
        check = o.rows_after === p.rows_after ? `rows after ${o.rows_after} =` : `ROWS AFTER DIFFER ours ${o.rows_after} ref ${p.rows_after}`;
      if (p.hits !== undefined && o.hits !== undefined) check = o.hits === p.hits ? `hits ${o.hits} =` : `HITS DIFFER ours ${o.hits} ref ${p.hits}`;
      if (p.count !== undefined && o.count !== undefined) check = o.count === p.count ? `count ${o.count} =` : `COUNT DIFFERS ours ${o.count} ref ${p.count}`;
      if (o.gets !== undefined) check = `ours read ${o.gets} gets + ${o.heads} heads + ${o.lists} lists`;
    }
    const f = (x) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 3 : 1) : "-").padStart(11);
    const ratio = Number.isFinite(r / u) ? `${(r / u).toFixed(2)}x` : "-";
    const rc = p?.cpu_median_ms, uc = o?.cpu_ms;
    const cpuRatio = Number.isFinite(rc / uc) ? `${(rc / uc).toFixed(2)}x` : "-";
    console.log(`${name.padEnd(32)}${f(u)}${f(r)}${ratio.padStart(9)}${f(uc)}${f(rc)}${cpuRatio.padStart(10)}  ${check}`);
  }
  // The full scan's decoded bytes per second beside this machine's memcpy bandwidth (issue 16
  // asks for at least half of it).
  const memcpy = (arg) => {
    const b = benchmarks.find((x) => x.run_name.startsWith(`BM_Memcpy/${arg}/`) &&
      (x.run_type !== "aggregate" || x.aggregate_name === "median"));
    return b ? b.bytes / (ms(b) * 1e6) : NaN;
  };
  const scan = med.BM_TableScanAll;
  if (scan && scan.bytes) {
    const gbs = scan.bytes / (ms(scan) * 1e6);
    const one = memcpy(1), all = memcpy(0);
    console.log(`full scan, all columns: ${(scan.bytes / 1e6).toFixed(0)} MB decoded at ${gbs.toFixed(2)} GB/s; ` +
      `memcpy ${one.toFixed(2)} GB/s on one thread, ${all.toFixed(2)} GB/s on the pool: ` +
      `${(100 * gbs / all).toFixed(0)} % of the pool's memcpy, ${(100 * gbs / one).toFixed(0)} % of one thread's`);
  }
}
