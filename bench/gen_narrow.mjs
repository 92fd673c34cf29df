// The peer-bench data without its vector column, for the 10M-row table runs (issue 16, item 3:
// the full export would be 7 GB, past what node reads in one buffer). Rows come from gen.mjs's
// own generator in pieces of 250k ids, each piece with streams of its own (so no two pieces
// repeat each other), the vector column dropped; workload.json as gen.mjs writes it (take sets,
// filter, upsert ids), without the vector queries.
//
//   node bench/gen_narrow.mjs --gen WORK/gen.mjs --rows N --export DIR [--seed 42]
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
if (!args.gen || !args.rows || !args.export) {
  console.error("usage: node gen_narrow.mjs --gen WORK/gen.mjs --rows N --export DIR [--seed 42]");
  process.exit(2);
}
const gen = await import(pathToFileURL(path.resolve(args.gen)).href);
// The ES-module build of apache-arrow next to gen.mjs (the instance its tables are made with).
const arrow = await import(pathToFileURL(fs.realpathSync(
    path.join(path.dirname(path.resolve(args.gen)), "node_modules/apache-arrow/Arrow.node.mjs"))).href);
const rows = Number(args.rows);
const seed = Number(args.seed ?? 42);
const keep = ["id", "category", "score", "text"];
const PIECE = 250000;

fs.mkdirSync(args.export, { recursive: true });
const t0 = performance.now();
const ctx = gen.makeContext(seed);
const batches = [];
for (let start = 0, piece = 0; start < rows; start += PIECE, ++piece) {
  const n = Math.min(PIECE, rows - start);
  const ids = new Float64Array(n);
  for (let i = 0; i < n; i++) ids[i] = start + i;
  const s = 100000 + 16 * piece;
  const table = gen.genRows(ids, seed, { category: s + 1, score: s + 2, text: s + 3, vectors: s + 4 }, ctx).table.select(keep);
  batches.push(...table.batches);
  if (piece % 8 === 7) console.error(`[gen-narrow] ${start + n} rows`);
}
const tmp = path.join(args.export, "base.arrow.tmp");
fs.writeFileSync(tmp, arrow.tableToIPC(new arrow.Table(batches), "file"));
fs.renameSync(tmp, path.join(args.export, "base.arrow"));
const wl = gen.genWorkload(rows, seed, ctx, { vectorQueries: 0 });
fs.writeFileSync(path.join(args.export, "workload.json"), JSON.stringify({
  rows, seed, opts: wl.opts, takeOffsets: wl.takeOffsets, filter: wl.filter, narrow: keep,
}));
console.error(`[gen-narrow] exported ${rows} rows (${keep.join(", ")}) to ${args.export} in ${((performance.now() - t0) / 1000).toFixed(1)}s`);
