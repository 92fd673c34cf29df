// IVF_PQ on the shared harness's vectors (../shared/bench/reference/gen.mjs --export DIR: 1M x
// 128 float32 around 256 gaussian centres, 100 queries from the same model), side by side in one
// run: lance-cpp (`lance create-index --type ivf_pq`, `lance search --queries --timing --threads
// 1`), lance 12.0.0 (@lancedb/lancedb 0.39.0: Index.ivfPq, nearestTo), faiss IVF{P},PQ{M}
// (bench/peers/faiss_ivfpq_peer.cc) and, with --hnswlib PEER, hnswlib's HNSW over all rows
// (bench/peers/hnswlib_peer.cc). The same parameters on every side: P partitions (default
// round(sqrt(rows)) = 1000 at 1M, as the harness), M sub-vectors of 8 bits, nprobes, k 10,
// without and with refine R. Recall@10 against exact search (our flat search, bit-equal to lance
// 12's bypassVectorIndex). Builds: wall and CPU seconds (ours: the create-index process; lance
// 12: this node process, its threads included; faiss: its process, 2 OpenMP threads). Queries:
// p50 / p99 wall and p50 CPU of 100 queries one at a time (ours one thread, the index opened
// once; lance 12 through node with DataFusion planning per query, one warm-up call; faiss and
// hnswlib one thread). Ratios: other / ours (> 1: we are faster). `uptime` before and after.
//
//   node bench/vector_1m_bench.mjs --lance BUILD/lance --export DIR --faiss PEER [--hnswlib PEER]
//        [--partitions P] [--sub-vectors 16] [--nprobes 20] [--refine 10] [--seeds 0]
//        [--ref-builds 1] [--hnswlib-m 16] [--hnswlib-efc 100] [--hnswlib-ef 64]
//        [--work /tmp/lance-vector-1m]
// --seeds 1,2,3 builds ours once per seed and --ref-builds N lance 12 N times (its k-means is
// unseeded): the recall rows then give every build and the mean, so one lucky or unlucky
// k-means start is not read as a gap (each extra lance 12 build costs a table copy and its
// build time).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../tests/interop/package.json'));
process.env.LANCEDB_LOG ??= 'error';
const lancedb = require('@lancedb/lancedb');
const A = await import(path.join(here, '../tests/interop/node_modules/apache-arrow/Arrow.node.mjs'));

const args = { 'sub-vectors': '16', nprobes: '20', refine: '10', seeds: '0', 'ref-builds': '1', partitions: '',
  faiss: '', hnswlib: '', 'hnswlib-m': '16', 'hnswlib-efc': '100', 'hnswlib-ef': '64', work: '/tmp/lance-vector-1m' };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!args.lance || !args.export) {
  console.error('usage: node bench/vector_1m_bench.mjs --lance BUILD/lance --export DIR [--faiss PEER] [--hnswlib PEER] ...');
  process.exit(2);
}
const K = 10, NPROBES = Number(args.nprobes), REFINE = Number(args.refine), M = Number(args['sub-vectors']);
const log = (m) => console.error(`[vector-1m] ${m}`);
const selfCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const childCpu = () => {  // cutime + cstime of the children waited for, USER_HZ = 100
  const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
};
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * q))]; };
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

// The harness's table: its vector column (and id) as written by gen.mjs.
const base = A.tableFromIPC(fs.readFileSync(path.join(args.export, 'base.arrow')));
const workload = JSON.parse(fs.readFileSync(path.join(args.export, 'workload.json'), 'utf8'));
const ROWS = base.numRows;
const vcol = base.getChild('vector');
const DIM = vcol.type.listSize;
const PARTS = Number(args.partitions || Math.round(Math.sqrt(ROWS)));
const queries = workload.vectorQueries;
const NQ = queries.length;
const table = new A.Table({ id: base.getChild('id'), vector: vcol });

fs.rmSync(args.work, { recursive: true, force: true });
fs.mkdirSync(args.work, { recursive: true });
const vf = path.join(args.work, 'vectors.f32'), qf = path.join(args.work, 'queries.f32');
{
  const out = fs.openSync(vf, 'w');
  for (const d of vcol.data) {
    const v = d.children[0].values.subarray(d.offset * DIM, (d.offset + d.length) * DIM);
    fs.writeSync(out, new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  }
  fs.closeSync(out);
  fs.writeFileSync(qf, Buffer.from(Float32Array.from(queries.flat()).buffer));
}
const qfile = path.join(args.work, 'queries.jsonl');
fs.writeFileSync(qfile, queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
const db = await lancedb.connect(args.work);
const loadBefore = load();
log(`load before: ${loadBefore}`);

// Exact answers (row ids = row offsets: one fragment, written first).
log(`writing ${ROWS} rows`);
const seeds = args.seeds.split(',').filter((s) => s !== '');
const refBuilds = Number(args['ref-builds']);
for (const s of seeds) await db.createTable(`ours_${s}`, table);
for (let b = 0; b < refBuilds; b++) await db.createTable(`ref_${b}`, table);
log(`exact ground truth of ${NQ} queries`);
const exactRun = spawnSync(args.lance, ['search', path.join(args.work, `ours_${seeds[0]}.lance`), '--column', 'vector',
  '--queries', qfile, '-k', String(K), '--bypass-index'], { maxBuffer: 1 << 28 });
if (exactRun.status !== 0) throw new Error(`lance search: ${exactRun.stderr}`);
const gt = Array.from({ length: NQ }, () => new Set());
for (const l of exactRun.stdout.toString().trim().split('\n')) {
  const x = JSON.parse(l);
  gt[x.query_index].add(Number(x._rowid));
}
const recallOf = (idsPerQuery) => mean(idsPerQuery.map((ids, i) => ids.filter((x) => gt[i].has(Number(x))).length / K));

const rows = [];  // {side, refine, build, buildCpu, p50, p99, cpuP50, recalls[]}
const add = (side, refine, r) => {
  let row = rows.find((x) => x.side === side && x.refine === refine);
  if (!row) rows.push(row = { side, refine, builds: [], buildCpus: [], p50s: [], p99s: [], cpuP50s: [], recalls: [] });
  for (const [k, v] of Object.entries(r)) row[k].push(v);
};

// Ours, one build per seed.
for (const s of seeds) {
  const uri = path.join(args.work, `ours_${s}.lance`);
  log(`ours: create-index ivf_pq, seed ${s}`);
  const t0 = performance.now(), c0 = childCpu();
  execFileSync(args.lance, ['create-index', uri, 'vector', '--type', 'ivf_pq', '--partitions', String(PARTS),
    '--sub-vectors', String(M), '--seed', s]);
  const build = (performance.now() - t0) / 1000, buildCpu = childCpu() - c0;
  for (const refine of [0, REFINE]) {
    const sargs = ['search', uri, '--column', 'vector', '--queries', qfile, '-k', String(K), '--nprobes', String(NPROBES),
      '--timing', '--threads', '1'];
    if (refine) sargs.push('--refine-factor', String(refine));
    const run = spawnSync(args.lance, sargs, { maxBuffer: 1 << 28 });
    if (run.status !== 0) throw new Error(`lance search: ${run.stderr}`);
    const ids = Array.from({ length: NQ }, () => []);
    for (const l of run.stdout.toString().trim().split('\n')) { const x = JSON.parse(l); ids[x.query_index].push(x._rowid); }
    const timing = JSON.parse(run.stderr.toString().trim().split('\n').pop());
    add('lance-cpp', refine, { builds: build, buildCpus: buildCpu, p50s: timing.p50_ms, p99s: timing.p99_ms,
      cpuP50s: timing.cpu_p50_ms, recalls: recallOf(ids) });
  }
}

// lance 12, `ref-builds` times.
for (let b = 0; b < refBuilds; b++) {
  const t = await db.openTable(`ref_${b}`);
  log(`lance 12: createIndex ivfPq, build ${b + 1} of ${refBuilds}`);
  const t0 = performance.now(), c0 = selfCpu();
  await t.createIndex('vector', { config: lancedb.Index.ivfPq({ numPartitions: PARTS, numSubVectors: M, distanceType: 'l2' }) });
  const build = (performance.now() - t0) / 1000, buildCpu = selfCpu() - c0;
  for (const refine of [0, REFINE]) {
    const q = (v) => {
      let query = t.query().nearestTo(v).distanceType('l2').limit(K).nprobes(NPROBES).withRowId(true).select(['_distance']);
      if (refine) query = query.refineFactor(refine);
      return query.toArray();
    };
    await q(queries[0]);
    const times = [], cpus = [], ids = [];
    for (const v of queries) {
      const s = performance.now(), c = selfCpu();
      const r = await q(v);
      times.push(performance.now() - s);
      cpus.push((selfCpu() - c) * 1000);
      ids.push(r.map((x) => Number(x._rowid)));
    }
    add('lance 12', refine, { builds: build, buildCpus: buildCpu, p50s: quantile(times, 0.5), p99s: quantile(times, 0.99),
      cpuP50s: quantile(cpus, 0.5), recalls: recallOf(ids) });
  }
}

if (args.faiss) {
  log(`faiss IVF${PARTS},PQ${M}`);
  const out = path.join(args.work, 'faiss.json');
  execFileSync(args.faiss, [vf, qf, String(DIM), String(PARTS), String(M), String(NPROBES), String(K), String(REFINE), '2', out],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  const f = JSON.parse(fs.readFileSync(out, 'utf8'));
  for (const r of f.runs) {
    add('faiss 1.7.3', r.refine, { builds: f.build_s, buildCpus: f.build_cpu_s, p50s: r.p50_ms, p99s: r.p99_ms,
      cpuP50s: r.cpu_p50_ms, recalls: recallOf(r.ids) });
  }
}
let hnsw = null;
if (args.hnswlib) {
  log(`hnswlib M ${args['hnswlib-m']} ef_construction ${args['hnswlib-efc']} ef ${args['hnswlib-ef']}`);
  const out = path.join(args.work, 'hnswlib.json');
  execFileSync(args.hnswlib, [vf, qf, String(DIM), args['hnswlib-m'], args['hnswlib-efc'], args['hnswlib-ef'], String(K), '2', out]);
  const h = JSON.parse(fs.readFileSync(out, 'utf8'));
  hnsw = { build: h.build_s, buildCpu: h.build_cpu_s, p50: h.p50_ms, p99: h.p99_ms, recall: recallOf(h.ids) };
}
const loadAfter = load();

const f2 = (x) => x.toFixed(2), f3 = (x) => x.toFixed(3);
console.log(`\n${ROWS} x ${DIM} float32 (harness export ${args.export}), IVF_PQ ${PARTS} partitions, ${M} sub-vectors x 8 bits, nprobes ${NPROBES}, k ${K}, ${NQ} queries`);
console.log(`load average (1 / 5 / 15 min): ${loadBefore} before, ${loadAfter} after; ${os.cpus().length} CPUs; build and p50 columns: medians over ${seeds.length} build(s) of ours (seeds ${seeds.join(',')}) and ${refBuilds} of lance 12`);
console.log('| index | side | build s (CPU s) | build ratio | p50 / p99 ms (CPU p50) | p50 ratio (CPU) | recall@10 (each build) | recall@10 mean |');
console.log('|---|---|---:|---:|---:|---:|---|---:|');
const ours = (refine) => rows.find((x) => x.side === 'lance-cpp' && x.refine === refine);
const med = (xs) => quantile(xs, 0.5);
for (const x of rows) {
  const o = ours(x.refine);
  const isOurs = x === o;
  console.log(`| IVF_PQ${x.refine ? ` refine ${x.refine}` : ''} | ${x.side} | ${f2(med(x.builds))} (${f2(med(x.buildCpus))}) | ${isOurs ? '' : `${f2(med(x.builds) / med(o.builds))}x`} | ${f3(med(x.p50s))} / ${f3(med(x.p99s))} (${f3(med(x.cpuP50s))}) | ${isOurs ? '' : `${f2(med(x.p50s) / med(o.p50s))}x (${f2(med(x.cpuP50s) / med(o.cpuP50s))}x)`} | ${x.recalls.map(f3).join(' ')} | ${f3(mean(x.recalls))} |`);
}
if (hnsw) {
  const o = ours(0);
  console.log(`| HNSW M ${args['hnswlib-m']} efc ${args['hnswlib-efc']} ef ${args['hnswlib-ef']} | hnswlib 0.6.2 | ${f2(hnsw.build)} (${f2(hnsw.buildCpu)}) | ${f2(hnsw.build / med(o.builds))}x | ${f3(hnsw.p50)} / ${f3(hnsw.p99)} | ${f2(hnsw.p50 / med(o.p50s))}x | ${f3(hnsw.recall)} | ${f3(hnsw.recall)} |`);
}
