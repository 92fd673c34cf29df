// The scale table of the scalar index bench: two results.json files that
// scalar_index_peer.mjs wrote (e.g. 1M and 10M rows), side by side per build and per query,
// each side's large / small ratio (lookup cost should grow with log(rows), a build or a
// scan with rows) and the reference / ours ratio at each size, wall and CPU.
//
// Usage: node scalar_index_scale.mjs SMALL_DIR/results.json LARGE_DIR/results.json
import fs from "node:fs";

const [small, large] = process.argv.slice(2).map((p) => JSON.parse(fs.readFileSync(p, "utf8")));
const f = (x) => (x === undefined || Number.isNaN(x) ? "" : x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const r = (a, b) => (a && b ? `${(a / b).toFixed(1)}x` : "");
const rowsOf = (n) => (n >= 1e6 ? `${n / 1e6}M` : `${n}`);
const S = rowsOf(small.rows), L = rowsOf(large.rows);
console.log(`\nscale: ${S} vs ${L} rows; ms, CPU ms in brackets; ref/ours ratios wall (CPU); ${L}/${S} per side wall (CPU)`);
console.log(`| | ref ${S} | ours ${S} | ref/ours ${S} | ref ${L} | ours ${L} | ref/ours ${L} | ref ${L}/${S} | ours ${L}/${S} |`);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
const row = (name, rs, rsc, os, osc, rl, rlc, ol, olc) =>
  console.log(`| ${name} | ${f(rs)} (${f(rsc)}) | ${f(os)} (${f(osc)}) | ${r(rs, os)} (${r(rsc, osc)}) | ${f(rl)} (${f(rlc)}) | ${f(ol)} (${f(olc)}) | ${r(rl, ol)} (${r(rlc, olc)}) | ${r(rl, rs)} (${r(rlc, rsc)}) | ${r(ol, os)} (${r(olc, osc)}) |`);
for (const [k, v] of Object.entries(small.build)) {
  const w = large.build[k];
  if (!w || v.reference_ms === undefined) continue;
  row(`build ${k}, in process`, v.reference_ms, v.reference_cpu_ms, v.ours_inproc_ms, v.ours_inproc_cpu_ms,
      w.reference_ms, w.reference_cpu_ms, w.ours_inproc_ms, w.ours_inproc_cpu_ms);
}
for (const q of small.queries) {
  const p = large.queries.find((x) => x.name === q.name);
  if (!p) continue;
  row(`${q.name} (${q.hits} / ${p.hits} hits)`, q.reference_index.median_ms, q.reference_index.cpu_ms, q.ours_index.ms,
      q.ours_index.cpu_ms, p.reference_index.median_ms, p.reference_index.cpu_ms, p.ours_index.ms, p.ours_index.cpu_ms);
}
const point = (x) => x.queries.find((q) => q.name === "point lookup")?.ours_index.cache_kib;
console.log(`\nindex memory our open table holds after a point lookup: ${f(point(small))} KiB at ${S}, ${f(point(large))} KiB at ${L}`);
