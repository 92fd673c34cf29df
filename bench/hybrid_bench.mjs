// Hybrid search (vector + full text, RRF) latency, lance 12 (@lancedb/lancedb 0.39.0) and ours
// side by side in the same run, both warm and in process:
//   reference  table.query().nearestTo(v).fullTextSearch(q).limit(k).toArrow() (its default
//              RRF reranker): one untimed call, then the median of --reps calls; CPU =
//              process.cpuUsage() (every thread) / calls
//   ours       `lance search --text q --vector v --timing --repeat R` (one Dataset open, one
//              untimed run, then R runs each planned and run; p50 and process CPU per query
//              printed by the CLI)
// Data, one of:
//   default    (--work/rows-N/h.lance, written by lance 12, kept with --reuse): N rows of 10-30
//              words from a 2000-word Zipf-like vocabulary, 64-d random vectors
//   --export DIR  the peer-bench harness's export (gen.mjs --export: base.arrow, workload.json):
//              its rows (id, text, 128-d vector) written by lance 12 into --work/harness/h.lance
//              (kept with --reuse), the queries its first --queries FTS queries each with one of
//              its query vectors (bench/run_fts_bench.sh runs this mode)
// An FTS index built by lance 12 (ours searches lance 12's index) and, with --vector-index,
// a vector index lance 12 builds on the same table -- ivf_flat or ivf_pq (--partitions, default
// sqrt(rows); ivf_pq with dim/8 sub-vectors), both sides probing --nprobes (default 20) of its
// partitions, lance 12 through nearestTo(v).nprobes(n), ours `--nprobes n` (ours re-ranks IVF_PQ
// candidates by exact distance, as lance 12 does in a hybrid query); without it no vector index
// (exact search on both sides). Checks, every query: the fused scores equal in order (float32) and the same
// rows but for BM25 ties (lance 12 orders tied text scores arbitrarily: such rows may trade
// places across the k-th).
// Ratios: reference / ours. --out FILE: the results as JSON (and the table as FILE.md).
//   node bench/hybrid_bench.mjs --lance build/lance [--rows 100000] [--reps 20] [--work /tmp/lance-hybrid-bench] [--reuse]
//        [--vector-index ivf_flat|ivf_pq] [--partitions P] [--nprobes N]
//   node bench/hybrid_bench.mjs --lance build/lance --export DIR [--queries 5] [--reps 10] [--work W] [--reuse] [--out F]
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
const EXPORT = arg('--export', null);
const VINDEX = arg('--vector-index', 'none');
if (!['none', 'ivf_flat', 'ivf_pq'].includes(VINDEX)) throw new Error(`--vector-index takes ivf_flat or ivf_pq, got ${VINDEX}`);
const NPROBES = Number(arg('--nprobes', 20));
const PARTITIONS = arg('--partitions', null);
const DIR = path.join(arg('--work', '/tmp/lance-hybrid-bench'), (EXPORT ? 'harness' : `rows-${ROWS}`) + (VINDEX === 'none' ? '' : `-${VINDEX}`));
const REUSE = process.argv.includes('--reuse');
const OUT = arg('--out', null);
const NQ = Number(arg('--queries', 5));
const COL = EXPORT ? 'text' : 'body';
const DIM = 64;
const K = 10;

let seed = 12345;
const rnd = () => { seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; return seed / 4294967296; };
const VOCAB = Array.from({ length: 2000 }, (_, i) => `w${i.toString(36)}`);
const word = () => VOCAB[Math.min(VOCAB.length - 1, Math.floor(Math.pow(rnd(), 2.5) * VOCAB.length))];
const vec = () => Array.from({ length: DIM }, () => Math.fround(rnd()));

async function setupHarness() {
  const uri = path.join(DIR, 'h.lance');
  if (REUSE && fs.existsSync(path.join(uri, '_indices'))) return uri;
  const arrow = require('apache-arrow');
  fs.rmSync(DIR, { recursive: true, force: true });
  fs.mkdirSync(DIR, { recursive: true });
  const base = arrow.tableFromIPC(fs.readFileSync(path.join(EXPORT, 'base.arrow')));
  const db = await lancedb.connect(DIR);
  const t = await db.createTable('h', new arrow.Table({ id: base.getChild('id'), text: base.getChild('text'), vector: base.getChild('vector') }));
  await t.createIndex('text', { config: lancedb.Index.fts() });
  await createVectorIndex(t, base.numRows, base.getChild('vector').type.listSize);
  return uri;
}

// The --vector-index lance 12 builds on `t` (rows x dim vectors).
async function createVectorIndex(t, rows, dim) {
  if (VINDEX === 'none') return;
  const numPartitions = PARTITIONS ? Number(PARTITIONS) : Math.max(1, Math.round(Math.sqrt(rows)));
  const config = VINDEX === 'ivf_flat' ? lancedb.Index.ivfFlat({ numPartitions })
    : lancedb.Index.ivfPq({ numPartitions, numSubVectors: Math.max(1, Math.floor(dim / 8)) });
  await t.createIndex('vector', { config });
}

function harnessQueries() {
  const w = JSON.parse(fs.readFileSync(path.join(EXPORT, 'workload.json'), 'utf8'));
  return w.ftsQueries.slice(0, NQ).map((text, i) => ({ text, v: w.vectorQueries[i].map(Math.fround) }));
}

async function setup() {
  if (EXPORT) return setupHarness();
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
  await createVectorIndex(t, ROWS, DIM);
  return uri;
}

async function main() {
  const uri = await setup();
  const db = await lancedb.connect(DIR);
  const t = await db.openTable('h');
  const queries = EXPORT ? harnessQueries()
    : [[VOCAB[3]], [VOCAB[40], VOCAB[90]], [VOCAB[500], VOCAB[7]]].map((w) => ({ text: w.join(' '), v: vec() }));
  const rows = await t.countRows();
  const out = [];
  for (const q of queries) {
    const nearest = () => (VINDEX === 'none' ? t.query().nearestTo(q.v) : t.query().nearestTo(q.v).nprobes(NPROBES));
    const run = () => nearest().fullTextSearch(q.text).select(['id']).withRowId().limit(K).toArrow();
    const probes = VINDEX === 'none' ? [] : ['--nprobes', String(NPROBES)];
    const { first, p50: refP50, cpu: refCpu } = await warmCalls(run, REPS);
    const theirIds = Array.from(first.getChild('_rowid').toArray(), (x) => String(x));
    const r = spawnSync(LANCE, ['search', uri, '--text', q.text, '--column', COL, '--vector', JSON.stringify(q.v),
      '-k', String(K), '--columns', 'id', '--with-row-id', '--timing', '--repeat', String(REPS), ...probes], { maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(r.stderr.toString());
    const ourIds = r.stdout.toString().split('\n').filter((l) => l).map((l) => /"_rowid":(\d+)/.exec(l)[1]);
    // lance 12 orders tied BM25 scores arbitrarily (ours by row id), which moves tied rows'
    // text ranks and so their fused order and which of them reach the k-th place
    // (tests/interop/fts_hybrid.test.mjs compares orders on data without ties): the fused
    // scores must be equal in order (as float32) and the rows equal as sets but for rows our
    // own wider answer (2k, its text scores normalized over one list) shows tied in BM25 with
    // another differing row
    const theirRel = Array.from(first.getChild('_relevance_score').toArray(), Math.fround);
    const wide = spawnSync(LANCE, ['search', uri, '--text', q.text, '--column', COL, '--vector', JSON.stringify(q.v),
      '-k', String(2 * K), '--columns', 'id', '--with-row-id', ...probes], { maxBuffer: 1 << 28 });
    if (wide.status !== 0) throw new Error(wide.stderr.toString());
    const ours = wide.stdout.toString().split('\n').filter((l) => l).map((l) => JSON.parse(l));
    const ourRel = r.stdout.toString().split('\n').filter((l) => l).map((l) => Math.fround(JSON.parse(l)._relevance_score));
    if (JSON.stringify(ourRel) !== JSON.stringify(theirRel)) {
      throw new Error(`query '${q.text}': fused scores ${ourRel} / lance 12 ${theirRel}`);
    }
    const mine = new Set(ourIds), theirs = new Set(theirIds);
    const differ = [...ourIds.filter((id) => !theirs.has(id)), ...theirIds.filter((id) => !mine.has(id))];
    const textScore = new Map(ours.map((o) => [String(o._rowid), o._score]));
    for (const id of differ) {
      const sc = textScore.get(id);
      if (sc === undefined || !differ.some((o) => o !== id && textScore.get(o) === sc)) {
        throw new Error(`query '${q.text}': ours ${ourIds} / lance 12 ${theirIds} (row ${id} differs, not a BM25 tie)`);
      }
    }
    if (ourIds.length !== theirIds.length) throw new Error(`query '${q.text}': ${ourIds.length} rows, lance 12 ${theirIds.length}`);
    const timing = JSON.parse(r.stderr.toString().trim().split('\n').pop());
    out.push({ query: q.text, ref_p50: refP50, ref_cpu: refCpu, ours_p50: timing.p50_ms, ours_cpu: timing.cpu_ms_per_query,
      tied_rows: differ.length });
  }
  const f2 = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  const vside = VINDEX === 'none' ? 'exact vector top-k' : `${VINDEX.toUpperCase()} vector top-k (nprobes ${NPROBES})`;
  const lines = [`hybrid search (${vside} + BM25 top-k, RRF), ${rows} rows, k ${K}, ${REPS} warm runs each, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`,
    '', '| query | lance 12 p50 (CPU) ms | ours p50 (CPU) ms | ratio wall | ratio CPU |', '|---|---:|---:|---:|---:|'];
  for (const o of out) {
    lines.push(`| ${o.query} | ${f2(o.ref_p50)} (${f2(o.ref_cpu)}) | ${f2(o.ours_p50)} (${f2(o.ours_cpu)}) | ${(o.ref_p50 / o.ours_p50).toFixed(2)}x | ${(o.ref_cpu / o.ours_cpu).toFixed(2)}x |`);
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const r = med(out.map((o) => o.ref_p50)), m = med(out.map((o) => o.ours_p50));
  lines.push(`| median over the queries | ${f2(r)} | ${f2(m)} | ${(r / m).toFixed(2)}x | |`);
  console.log(lines.join('\n'));
  if (OUT) {
    fs.writeFileSync(OUT, JSON.stringify({ rows, k: K, reps: REPS, vector_index: VINDEX, nprobes: NPROBES, queries: out }));
    fs.writeFileSync(`${OUT}.md`, lines.join('\n') + '\n');
  }
}

await main();
