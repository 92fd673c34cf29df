// Hybrid search (vector + full text, RRF) latency, lance 12 (@lancedb/lancedb 0.39.0) and ours
// side by side in the same run, both warm and in process:
//   reference  table.query().nearestTo(v).fullTextSearch(q).limit(k).toArrow() (its default
//              RRF reranker): one untimed call, then the median of --reps calls; CPU =
//              process.cpuUsage() (every thread) / calls
//   ours       `lance search --text q --vector v --timing --repeat R` (one Dataset open, one
//              untimed run, then R runs each planned and run; p50 and process CPU per query
//              printed by the CLI)
// Data (--work/rows-N/h.lance, written by lance 12, kept with --reuse): N rows of 10-30 words
// from a 2000-word Zipf-like vocabulary, 64-d random vectors (no vector index: exact search on
// both sides), an FTS index built by lance 12 (ours searches lance 12's index).
// Checks: both sides return the same set of _rowid for every query. Ratios: reference / ours.
//   node bench/hybrid_bench.mjs --lance build/lance [--rows 100000] [--reps 20] [--work /tmp/lance-hybrid-bench] [--reuse]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import { warmCalls } from './lib/warm_calls.mjs';

const require = createRequire(path.resolve('tests/interop/package.json'));
const lancedb = require('@lancedb/lancedb');

const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const LANCE = path.resolve(arg('--lance', 'build/lance'));
const ROWS = Number(arg('--rows', 100000));
const REPS = Number(arg('--reps', 20));
const DIR = path.join(arg('--work', '/tmp/lance-hybrid-bench'), `rows-${ROWS}`);
const REUSE = process.argv.includes('--reuse');
const DIM = 64;
const K = 10;

let seed = 12345;
const rnd = () => { seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; return seed / 4294967296; };
const VOCAB = Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}`);
const word = () => VOCAB[Math.min(VOCAB.length - 1, Math.floor(Math.pow(rnd(), 2.5) * VOCAB.length))];
const vec = () => Array.from({ length: DIM }, () => Math.fround(rnd()));

async function setup() {
  const uri = path.join(DIR, 'h.lance');
  if (REUSE && fs.existsSync(uri)) return uri;
  fs.rmSync(DIR, { recursive: true, force: true });
  fs.mkdirSync(DIR, { recursive: true });
  const db = await lancedb.connect(DIR);
  let t;
  for (let from = 0; from < ROWS; from += 20000) {
    const rows = [];
    for (let i = from; i < Math.min(ROWS, from + 20000); i++) {
      const n = 10 + Math.floor(rnd() * 21);
      rows.push({ id: i, body: Array.from({ length: n }, word).join(' '), vector: vec() });
    }
    t = t ? (await t.add(rows), t) : await db.createTable('h', rows);
  }
  await t.createIndex('body', { config: lancedb.Index.fts() });
  return uri;
}

async function main() {
  const uri = await setup();
  const db = await lancedb.connect(DIR);
  const t = await db.openTable('h');
  const queries = [[VOCAB[3]], [VOCAB[40], VOCAB[90]], [VOCAB[500], VOCAB[7]]].map((w) => ({ text: w.join(' '), v: vec() }));
  const out = [];
  for (const q of queries) {
    const run = () => t.query().nearestTo(q.v).fullTextSearch(q.text).select(['id']).withRowId().limit(K).toArrow();
    const { first, p50: refP50, cpu: refCpu } = await warmCalls(run, REPS);
    const theirIds = Array.from(first.getChild('_rowid').toArray(), (x) => String(x));
    const r = spawnSync(LANCE, ['search', uri, '--text', q.text, '--column', 'body', '--vector', JSON.stringify(q.v),
      '-k', String(K), '--columns', 'id', '--with-row-id', '--timing', '--repeat', String(REPS)], { maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(r.stderr.toString());
    const ourIds = r.stdout.toString().split('\n').filter((l) => l).map((l) => /"_rowid":(\d+)/.exec(l)[1]);
    // as sets: lance 12 orders tied BM25 scores arbitrarily (ours by row id), which moves tied
    // rows' text ranks and so their fused order (tests/interop/fts_hybrid.test.mjs compares
    // orders on data without ties)
    if (JSON.stringify([...ourIds].sort()) !== JSON.stringify([...theirIds].sort())) {
      throw new Error(`query '${q.text}': ours ${ourIds} / lance 12 ${theirIds}`);
    }
    const timing = JSON.parse(r.stderr.toString().trim().split('\n').pop());
    out.push({ query: q.text, ref_p50: refP50, ref_cpu: refCpu, ours_p50: timing.p50_ms, ours_cpu: timing.cpu_ms_per_query });
  }
  console.log(`hybrid search, ${ROWS} rows, k ${K}, ${REPS} warm runs each, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log('| query | lance 12 p50 (CPU) ms | ours p50 (CPU) ms | ratio wall | ratio CPU |');
  console.log('|---|---:|---:|---:|---:|');
  for (const o of out) {
    console.log(`| ${o.query} | ${o.ref_p50.toFixed(2)} (${o.ref_cpu.toFixed(2)}) | ${o.ours_p50.toFixed(2)} (${o.ours_cpu.toFixed(2)}) | ${(o.ref_p50 / o.ours_p50).toFixed(1)}x | ${(o.ref_cpu / o.ours_cpu).toFixed(1)}x |`);
  }
}

await main();
