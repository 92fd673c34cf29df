// Full-text search side by side (issue 14): lance 12.0.0 (through @lancedb/lancedb 0.39.0),
// ours (bench/fts/fts_search_bench.cc), SQLite FTS5 and Xapian (bench/peers/*_fts_peer.cc) on
// the peer-bench harness's rows (gen.mjs --export: base.arrow, workload.json). bench/run_fts_bench.sh
// runs the phases in order:
//
//   node fts_peer.mjs --prepare --export DIR --gen GEN.mjs --dir WORK [--reuse]
//       lance 12 writes WORK/tables/plain.lance (id, text of the export, one fragment; kept with
//       --reuse), copied with its data files hard-linked to ref / ref_pos (lance 12 indexes
//       them) and ours / ours_pos (we index them); WORK/corpus.txt (line i = text of id i, for
//       the peers) and WORK/queries.tsv (`kind <TAB> or|and|phrase <TAB> text`, below; the
//       vocabulary from GEN.mjs's makeVocab, a copy of the harness's gen.mjs).
//   node fts_peer.mjs --reference --dir WORK [--reps 5] [--k 10] --out FILE
//       lance 12 builds INVERTED(text) in process, createIndex('text', Index.fts()) on ref and
//       Index.fts({withPosition: true}) on ref_pos (wall, process CPU, bytes of _indices/); then
//       every kind's queries: one untimed pass, then --reps timed passes of
//       query().fullTextSearch(MatchQuery(text, 'text', {operator}) | PhraseQuery(text, 'text'))
//       .select(['id']).limit(k).toArrow() (phrases on ref_pos). Where the k-th score ties, the
//       untimed pass also fetches every row of that score (a limit of 10000) for the checks.
//   node fts_peer.mjs --compare --dir WORK
//       prints the tables (build; p50 / p99 / CPU per query; ratios peer / ours for times) and
//       the checks: ours (on our index and on lance 12's) against lance 12 on every query --
//       the scores equal as float32 in order, the rows above the k-th score the same, the rows at
//       it among lance 12's rows of that score; the peers' hit counts and top-k overlap with
//       lance 12 (their scores are their own BM25 variants). Exits 1 when a check fails.
//
// Query kinds (the words are the harness vocabulary's; rank 0 the most frequent):
//   1-term             the first word of each of the harness's 50 queries (Zipf ranks 20..2000)
//   2-term OR          the harness's 50 queries (its `fts.search` workload)
//   2-term AND         the same with operator AND
//   phrase             50 adjacent word pairs of rows picked by a fixed LCG (on the positions index)
//   frequent term      ranks 0..9, one word each (rank 0 is in ~88 % of rows)
//   2-term OR frequent ranks (0,1), (2,3) .. (18,19)
//   rare term          ranks 4950..4999
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const args = { reps: "5", k: "10" };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i].replace(/^--/, "");
  if (["prepare", "reference", "compare", "reuse"].includes(a)) args[a] = true;
  else args[a] = process.argv[++i];
}
const log = (m) => console.error(`[fts-bench] ${m}`);
const WORK = args.dir;
const TABLES = path.join(WORK ?? "", "tables");
const COPIES = ["ref", "ref_pos", "ours", "ours_pos"];
const dirBytes = (d) => fs.readdirSync(d, { withFileTypes: true })
  .reduce((s, e) => s + (e.isDirectory() ? dirBytes(path.join(d, e.name)) : fs.statSync(path.join(d, e.name)).size), 0);

async function prepare() {
  const lancedb = require("@lancedb/lancedb");
  const arrow = require("apache-arrow");
  const db = await lancedb.connect(TABLES);
  const base = arrow.tableFromIPC(fs.readFileSync(path.join(args.export, "base.arrow")));
  const text = base.getChild("text");
  const n = base.numRows;
  if (!(args.reuse && fs.existsSync(path.join(TABLES, "plain.lance")))) {
    log(`lance 12 writes ${n} rows (id, text) to plain.lance`);
    await db.createTable("plain", new arrow.Table({ id: base.getChild("id"), text }), { mode: "overwrite" });
  }
  for (const c of COPIES) {
    fs.rmSync(path.join(TABLES, `${c}.lance`), { recursive: true, force: true });
    const r = spawnSync("cp", ["-al", path.join(TABLES, "plain.lance"), path.join(TABLES, `${c}.lance`)]);
    if (r.status !== 0) throw new Error(`cp -al: ${r.stderr}`);
  }
  const lines = new Array(n);
  for (let i = 0; i < n; i++) lines[i] = text.get(i);
  for (let i = 0; i < n; i++) {
    if (!/^[a-z]+( [a-z]+)*$/.test(lines[i])) throw new Error(`row ${i}: text is not lower-case words separated by spaces`);
  }
  fs.writeFileSync(path.join(WORK, "corpus.txt"), lines.join("\n") + "\n");
  const { makeVocab } = await import(pathToFileURL(path.resolve(args.gen)).href);
  const workload = JSON.parse(fs.readFileSync(path.join(args.export, "workload.json"), "utf8"));
  const vocab = makeVocab(workload.seed);
  const q = [];
  for (const s of workload.ftsQueries) q.push(["1-term", "or", s.split(" ")[0]]);
  for (const s of workload.ftsQueries) q.push(["2-term OR", "or", s]);
  for (const s of workload.ftsQueries) q.push(["2-term AND", "and", s]);
  let x = 2463534242;
  for (let i = 0; i < 50; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const words = lines[x % n].split(" ");
    const at = (x >>> 8) % (words.length - 1);
    q.push(["phrase", "phrase", `${words[at]} ${words[at + 1]}`]);
  }
  for (let r = 0; r < 10; r++) q.push(["frequent term", "or", vocab[r]]);
  for (let r = 0; r < 20; r += 2) q.push(["2-term OR frequent", "or", `${vocab[r]} ${vocab[r + 1]}`]);
  for (let r = 4950; r < 5000; r++) q.push(["rare term", "or", vocab[r]]);
  fs.writeFileSync(path.join(WORK, "queries.tsv"), q.map((r) => r.join("\t")).join("\n") + "\n");
  log(`${q.length} queries in queries.tsv`);
}

function readQueries() {
  return fs.readFileSync(path.join(WORK, "queries.tsv"), "utf8").split("\n").filter((l) => l)
    .map((l) => { const [kind, mode, text] = l.split("\t"); return { kind, mode, text }; });
}

async function reference() {
  const lancedb = require("@lancedb/lancedb");
  const K = Number(args.k), REPS = Number(args.reps);
  const db = await lancedb.connect(TABLES);
  const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  const out = { engine: "lance 12.0.0 (@lancedb/lancedb 0.39.0)", k: K, reps: REPS, build: {}, kinds: {}, queries: [] };
  const tables = {};
  for (const [key, name, config] of [["nopos", "ref", {}], ["pos", "ref_pos", { withPosition: true }]]) {
    const t = await db.openTable(name);
    out.rows = await t.countRows();
    log(`lance 12 builds INVERTED(text) on ${name}`);
    const c0 = cpuMs(), t0 = performance.now();
    await t.createIndex("text", { config: lancedb.Index.fts(config) });
    const run = { wall_ms: performance.now() - t0, cpu_ms: cpuMs() - c0 };
    out.build[key] = { runs: [run], bytes: dirBytes(path.join(TABLES, `${name}.lance`, "_indices")) };
    tables[key] = t;
  }
  const call = (q, limit) => {
    const t = tables[q.mode === "phrase" ? "pos" : "nopos"];
    const fq = q.mode === "phrase" ? new lancedb.PhraseQuery(q.text, "text")
      : new lancedb.MatchQuery(q.text, "text", { operator: q.mode === "and" ? lancedb.Operator.And : lancedb.Operator.Or });
    return t.query().fullTextSearch(fq).select(["id"]).limit(limit).toArrow();
  };
  const rows = (tbl) => ({
    ids: Array.from(tbl.getChild("id")?.toArray() ?? [], Number),
    scores: Array.from(tbl.getChild("_score")?.toArray() ?? [], (s) => Math.fround(s)),
  });
  const queries = readQueries();
  for (const kind of [...new Set(queries.map((q) => q.kind))]) {
    const mine = queries.filter((q) => q.kind === kind);
    const res = [];
    for (const q of mine) {
      const t0 = performance.now();
      const r = { ...q, first_ms: 0, ...rows(await call(q, K)), ms: [] };
      r.first_ms = performance.now() - t0;
      const last = r.scores[r.scores.length - 1];
      if (r.scores.length === K) {
        const all = rows(await call(q, 10000));
        r.tie_ids = all.ids.filter((_, i) => all.scores[i] === last);
      }
      res.push(r);
    }
    const c0 = cpuMs(), t0 = performance.now();
    for (let rep = 0; rep < REPS; rep++) {
      for (const r of res) {
        const s = performance.now();
        await call(r, K);
        r.ms.push(performance.now() - s);
      }
    }
    const calls = Math.max(1, mine.length * REPS);
    out.kinds[kind] = { cpu_ms_per_call: (cpuMs() - c0) / calls, wall_ms_per_call: (performance.now() - t0) / calls };
    out.queries.push(...res);
    log(`lance 12: ${kind} done`);
  }
  fs.writeFileSync(args.out, JSON.stringify(out));
}

// ---------------------------------------------------------------------------------- compare
function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f2 = (x) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3)) : "-");
const ratio = (peer, ours) => (Number.isFinite(peer) && Number.isFinite(ours) && ours > 0 ? `${(peer / ours).toFixed(2)}x` : "-");

// Ours (`got`) against lance 12 (`want`, with its tie rows) for one query: a list of problems.
function checkQuery(want, got) {
  const bad = [];
  if (want.ids.length !== got.ids.length) return [`${got.ids.length} rows, lance 12 ${want.ids.length}`];
  for (let i = 0; i < want.scores.length; i++) {
    if (Math.fround(got.scores[i]) !== want.scores[i]) {
      bad.push(`score ${i}: ${got.scores[i]} vs ${want.scores[i]}`);
      break;
    }
  }
  if (!want.ids.length) return bad;
  const last = want.scores[want.scores.length - 1];
  const above = (r) => r.ids.filter((_, i) => Math.fround(r.scores[i]) > last).sort((a, b) => a - b).join(",");
  if (above(want) !== above(got)) bad.push("rows above the k-th score differ");
  const tie = new Set(want.tie_ids ?? want.ids.filter((_, i) => want.scores[i] === last));
  const atLast = got.ids.filter((_, i) => Math.fround(got.scores[i]) === last);
  if (atLast.some((id) => !tie.has(id))) bad.push("a row at the k-th score is not one of lance 12's");
  return bad;
}

function compare() {
  const load = (f) => { const p = path.join(WORK, f); return fs.existsSync(p) ? JSON.parse(fs.readFileSync(p, "utf8")) : null; };
  const sides = { ours: load("ours.json"), ref: load("ref.json"), ours_on_ref: load("ours-on-ref.json"),
                  fts5: load("sqlite.json"), xapian: load("xapian.json") };
  if (!sides.ours || !sides.ref) throw new Error("ours.json and ref.json are needed");
  let ok = true;
  const out = [];
  const p = (s) => out.push(s);
  const build = (side, key) => {
    const b = side?.build?.[key];
    return b ? { wall: median(b.runs.map((r) => r.wall_ms)) / 1000, cpu: median(b.runs.map((r) => r.cpu_ms)) / 1000, mib: b.bytes / 1048576 } : null;
  };
  p(`| build INVERTED(text), ${sides.ref.rows} rows | ours s (CPU s) | lance 12 s (CPU s) | lance/ours | FTS5 s (CPU s) | FTS5/ours | Xapian s (CPU s) | Xapian/ours | size MiB ours / lance / FTS5 / Xapian |`);
  p("|---|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const [key, name] of [["nopos", "no positions (lance 12's default)"], ["pos", "with positions"]]) {
    const [o, r, s, x] = ["ours", "ref", "fts5", "xapian"].map((k) => build(sides[k], key));
    const cell = (b) => (b ? `${f2(b.wall)} (${f2(b.cpu)})` : "-");
    p(`| ${name} | ${cell(o)} | ${cell(r)} | ${ratio(r?.wall, o?.wall)} | ${cell(s)} | ${ratio(s?.wall, o?.wall)} | ${cell(x)} | ${ratio(x?.wall, o?.wall)} | ${[o, r, s, x].map((b) => (b ? b.mib.toFixed(1) : "-")).join(" / ")} |`);
  }
  p("");
  p("| query (k=10) | avg hits | ours p50 ms | ours p99 | ours CPU ms | lance 12 p50 | lance p99 | lance CPU | lance/ours p50 | lance/ours p99 | ours on lance's index p50 | FTS5 p50 | FTS5 p99 | FTS5/ours p50 | Xapian p50 | Xapian p99 | Xapian/ours p50 |");
  p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  const kinds = [...new Set(sides.ref.queries.map((q) => q.kind))];
  const stat = (side, kind) => {
    if (!side) return { p50: NaN, p99: NaN, cpu: NaN };
    const ms = side.queries.filter((q) => q.kind === kind).flatMap((q) => q.ms);
    return { p50: pct(ms, 0.5), p99: pct(ms, 0.99), cpu: side.kinds?.[kind]?.cpu_ms_per_call };
  };
  const checks = [];
  for (const kind of kinds) {
    const [o, r, oor, s, x] = ["ours", "ref", "ours_on_ref", "fts5", "xapian"].map((k) => stat(sides[k], kind));
    const refQ = sides.ref.queries.filter((q) => q.kind === kind);
    const hits = refQ.reduce((a, q) => a + q.ids.length, 0) / refQ.length;
    p(`| ${kind} | ${hits.toFixed(1)} | ${f2(o.p50)} | ${f2(o.p99)} | ${f2(o.cpu)} | ${f2(r.p50)} | ${f2(r.p99)} | ${f2(r.cpu)} | **${ratio(r.p50, o.p50)}** | ${ratio(r.p99, o.p99)} | ${f2(oor.p50)} | ${f2(s.p50)} | ${f2(s.p99)} | ${ratio(s.p50, o.p50)} | ${f2(x.p50)} | ${f2(x.p99)} | ${ratio(x.p50, o.p50)} |`);
    const line = [kind];
    for (const k of ["ours", "ours_on_ref"]) {
      if (!sides[k]) continue;
      const got = sides[k].queries.filter((q) => q.kind === kind);
      let good = 0;
      refQ.forEach((want, i) => {
        const bad = got[i] && got[i].text === want.text ? checkQuery(want, got[i]) : ["missing"];
        if (bad.length) { ok = false; console.error(`MISMATCH ${k} ${kind} '${want.text}': ${bad.join("; ")}`); } else good++;
      });
      line.push(`${k} equal ${good}/${refQ.length}`);
    }
    for (const k of ["fts5", "xapian"]) {
      if (!sides[k]) continue;
      const got = sides[k].queries.filter((q) => q.kind === kind);
      let overlap = 0, sameCount = 0;
      refQ.forEach((want, i) => {
        const g = new Set(got[i]?.ids ?? []);
        overlap += want.ids.length ? want.ids.filter((id) => g.has(id)).length / want.ids.length : 1;
        if ((got[i]?.ids.length ?? -1) === want.ids.length) sameCount++;
      });
      line.push(`${k}: hit count equal ${sameCount}/${refQ.length}, top-k overlap ${(overlap / refQ.length * 100).toFixed(0)} %`);
    }
    checks.push(line.join("; "));
  }
  p("");
  p("Checks (ours against lance 12 on every query: scores equal as float32, rows equal up to ties at the k-th score):");
  for (const c of checks) p(`- ${c}`);
  console.log(out.join("\n"));
  fs.writeFileSync(path.join(WORK, "table.md"), out.join("\n") + "\n");
  return ok;
}

if (args.prepare) await prepare();
else if (args.reference) await reference();
else if (args.compare) process.exit(compare() ? 0 : 1);
else {
  console.error("usage: fts_peer.mjs --prepare --export DIR --dir WORK | --reference --dir WORK --out F | --compare --dir WORK");
  process.exit(2);
}
