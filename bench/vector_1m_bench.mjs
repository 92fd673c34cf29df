// Vector indexes on the shared harness's vectors (../shared/bench/reference/gen.mjs --export DIR:
// 1M x 128 float32 around 256 gaussian centres, 100 queries from the same model), side by side in
// one run: lance-cpp (`lance create-index --type T`, `lance search --queries --timing --threads
// 1`), lance 12.0.0 (@lancedb/lancedb 0.39.0: Index.ivfPq / ivfFlat / hnswSq, nearestTo), faiss
// IVF{P},PQ{M} (bench/peers/faiss_ivfpq_peer.cc), with --faiss-flat PEER faiss's IndexFlatL2
// (bench/peers/faiss_flat_peer.cc) and with --hnswlib PEER hnswlib's HNSW over all rows
// (bench/peers/hnswlib_peer.cc). --types picks the index rows (ivf_pq, ivf_flat, ivf_hnsw_sq;
// default ivf_pq): P partitions on every side (default round(sqrt(rows)) = 1000 at 1M, as the
// harness); IVF_PQ M sub-vectors of 8 bits at --nprobes, without and with refine R (IVF_RQ of
// --rq-bits bits per dimension (1) the same way, --types ivf_rq); IVF_FLAT at
// --flat-nprobes (10); IVF_HNSW_SQ at --hnsw-nprobes (10) and --hnsw-ef (default: each side's).
// --exact N adds exact search of one query at a time (ours: --bypass-index on one thread over
// all queries; lance 12 bypassVectorIndex over the first N; faiss one OpenMP thread). k 10.
// Recall@10 against exact search (our flat search, bit-equal to lance 12's bypassVectorIndex).
// Builds: wall and CPU seconds (ours: the create-index process; lance 12: this node process, its
// threads included; faiss: its process, 2 OpenMP threads). Queries: p50 / p99 wall and p50 CPU
// of 100 queries one at a time (ours one thread, the index opened once; lance 12 through node
// with DataFusion planning per query, one warm-up call; faiss and hnswlib one thread). Ratios:
// other / ours (> 1: we are faster). `uptime` before and after.
//
//   node bench/vector_1m_bench.mjs --lance BUILD/lance --export DIR [--faiss PEER] [--faiss-flat PEER]
//        [--hnswlib PEER] [--types ivf_pq,ivf_flat,ivf_hnsw_sq,ivf_rq] [--rq-bits 1] [--exact 10] [--partitions P]
//        [--sub-vectors 16] [--nprobes 20] [--refine 10] [--flat-nprobes 10] [--hnsw-nprobes 10]
//        [--hnsw-ef E] [--seeds 0] [--ref-builds 1] [--hnswlib-m 16] [--hnswlib-efc 100]
//        [--hnswlib-ef 64] [--work /tmp/lance-vector-1m]
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
  faiss: '', 'faiss-flat': '', hnswlib: '', 'hnswlib-m': '16', 'hnswlib-efc': '100', 'hnswlib-ef': '64',
  types: 'ivf_pq', 'rq-bits': '1', 'flat-nprobes': '10', 'hnsw-nprobes': '10', 'hnsw-ef': '', exact: '0', work: '/tmp/lance-vector-1m' };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!args.lance || !args.export) {
  console.error('usage: node bench/vector_1m_bench.mjs --lance BUILD/lance --export DIR [--faiss PEER] [--hnswlib PEER] ...');
  process.exit(2);
}
const K = 10, NPROBES = Number(args.nprobes), REFINE = Number(args.refine), M = Number(args['sub-vectors']);
const TYPES = args.types.split(',').filter((t) => t !== '');
const EXACT_Q = Number(args.exact);  // queries of the exact-search rows (0: none)
// Per index type: our create-index type, lance 12's config, nprobes, whether refine is run.
const TYPE = {
  ivf_pq: { name: 'IVF_PQ', nprobes: NPROBES, refine: true, extra: ['--sub-vectors', String(M)],
    ref: () => lancedb.Index.ivfPq({ numPartitions: PARTS, numSubVectors: M, distanceType: 'l2' }) },
  ivf_flat: { name: 'IVF_FLAT', nprobes: Number(args['flat-nprobes']), refine: false, extra: [],
    ref: () => lancedb.Index.ivfFlat({ numPartitions: PARTS, distanceType: 'l2' }) },
  ivf_rq: { name: 'IVF_RQ', nprobes: NPROBES, refine: true, extra: ['--num-bits', args['rq-bits']],
    ref: () => lancedb.Index.ivfRq({ numPartitions: PARTS, numBits: Number(args['rq-bits']), distanceType: 'l2' }) },
  ivf_hnsw_sq: { name: 'IVF_HNSW_SQ', nprobes: Number(args['hnsw-nprobes']), refine: false, extra: [],
    ef: args['hnsw-ef'] ? Number(args['hnsw-ef']) : 0,
    ref: () => lancedb.Index.hnswSq({ numPartitions: PARTS, distanceType: 'l2' }) },
};
for (const t of TYPES) if (!TYPE[t]) { console.error(`vector_1m_bench: unknown --types entry ${t}`); process.exit(2); }
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
  '--queries', qfile, '-k', String(K), '--bypass-index', '--columns', '_rowid'], { maxBuffer: 1 << 28 });
if (exactRun.status !== 0) throw new Error(`lance search: ${exactRun.stderr}`);
const gt = Array.from({ length: NQ }, () => new Set());
for (const l of exactRun.stdout.toString().trim().split('\n')) {
  const x = JSON.parse(l);
  gt[x.query_index].add(Number(x._rowid));
}
const recallOf = (idsPerQuery) => mean(idsPerQuery.map((ids, i) => ids.filter((x) => gt[i].has(Number(x))).length / K));

const rows = [];  // {type, side, refine, build, buildCpu, p50, p99, cpuP50, recalls[]}
const add = (type, side, refine, r) => {
  let row = rows.find((x) => x.type === type && x.side === side && x.refine === refine);
  if (!row) rows.push(row = { type, side, refine, builds: [], buildCpus: [], firsts: [], warms: [], p50s: [], p99s: [], cpuP50s: [], recalls: [] });
  for (const [k, v] of Object.entries(r)) row[k].push(v);
};

// Ours, one build per seed and index type (each type replaces the last on the table).
const oursSearch = (uri, sargs) => {
  const run = spawnSync(args.lance, ['search', uri, '--column', 'vector', '--queries', qfile, '-k', String(K),
    '--timing', '--threads', '1', '--columns', '_rowid', ...sargs], { maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`lance search: ${run.stderr}`);
  const ids = Array.from({ length: NQ }, () => []);
  for (const l of run.stdout.toString().trim().split('\n')) { const x = JSON.parse(l); ids[x.query_index].push(x._rowid); }
  return { ids, timing: JSON.parse(run.stderr.toString().trim().split('\n').pop()) };
};
for (const s of seeds) {
  const uri = path.join(args.work, `ours_${s}.lance`);
  for (const type of TYPES) {
    const T = TYPE[type];
    log(`ours: create-index ${type}, seed ${s}`);
    const t0 = performance.now(), c0 = childCpu();
    execFileSync(args.lance, ['create-index', uri, 'vector', '--type', type, '--partitions', String(PARTS),
      ...T.extra, '--seed', s, '--replace']);
    const build = (performance.now() - t0) / 1000, buildCpu = childCpu() - c0;
    for (const refine of T.refine ? [0, REFINE] : [0]) {
      const sargs = ['--nprobes', String(T.nprobes)];
      if (refine) sargs.push('--refine-factor', String(refine));
      if (T.ef) sargs.push('--ef', String(T.ef));
      const { ids, timing } = oursSearch(uri, sargs);
      add(type, 'lance-cpp', refine, { builds: build, buildCpus: buildCpu, firsts: timing.first_ms, warms: timing.warm_p50_ms, p50s: timing.p50_ms, p99s: timing.p99_ms,
        cpuP50s: timing.cpu_p50_ms, recalls: recallOf(ids) });
    }
  }
}

// lance 12, `ref-builds` times per index type (createIndex replaces the last).
// The first query: on a table opened by a new connection (its own session and index cache),
// as ours is the first query of a new process; then the table's warm-up and the timed queries.
const refQuery = async (t, queryOf, name) => {
  const cold = await (await lancedb.connect(args.work)).openTable(name);
  const f0 = performance.now();
  await queryOf(queries[0], cold);
  const first = performance.now() - f0;
  await queryOf(queries[0]);
  const times = [], cpus = [], ids = [];
  for (const v of queries) {
    const s = performance.now(), c = selfCpu();
    const r = await queryOf(v);
    times.push(performance.now() - s);
    cpus.push((selfCpu() - c) * 1000);
    ids.push(r.map((x) => Number(x._rowid)));
  }
  return { times, cpus, ids, first };
};
for (let b = 0; b < refBuilds; b++) {
  const t = await db.openTable(`ref_${b}`);
  for (const type of TYPES) {
    const T = TYPE[type];
    log(`lance 12: createIndex ${type}, build ${b + 1} of ${refBuilds}`);
    const t0 = performance.now(), c0 = selfCpu();
    await t.createIndex('vector', { config: T.ref() });
    const build = (performance.now() - t0) / 1000, buildCpu = selfCpu() - c0;
    for (const refine of T.refine ? [0, REFINE] : [0]) {
      const { times, cpus, ids, first } = await refQuery(t, (v, tbl = t) => {
        let query = tbl.query().nearestTo(v).distanceType('l2').limit(K).nprobes(T.nprobes).withRowId(true).select(['_distance']);
        if (refine) query = query.refineFactor(refine);
        if (T.ef) query = query.ef(T.ef);
        return query.toArray();
      }, `ref_${b}`);
      add(type, 'lance 12', refine, { builds: build, buildCpus: buildCpu, firsts: first, p50s: quantile(times, 0.5), p99s: quantile(times, 0.99),
        cpuP50s: quantile(cpus, 0.5), recalls: recallOf(ids) });
    }
  }
}

// Exact search, single queries: ours on one thread (--bypass-index), lance 12's
// bypassVectorIndex (its own pool) over the first EXACT_Q queries.
if (EXACT_Q > 0) {
  const uri = path.join(args.work, `ours_${seeds[0]}.lance`);
  const { ids, timing } = oursSearch(uri, ['--bypass-index']);
  add('exact', 'lance-cpp', 0, { builds: 0, buildCpus: 0, p50s: timing.p50_ms, p99s: timing.p99_ms, cpuP50s: timing.cpu_p50_ms,
    recalls: recallOf(ids) });
  const t = await db.openTable(refBuilds > 0 ? 'ref_0' : `ours_${seeds[0]}`);
  const sub = queries.slice(0, EXACT_Q);
  await t.query().nearestTo(sub[0]).distanceType('l2').limit(K).bypassVectorIndex().toArray();
  const times = [], cpus = [], hits = [];
  for (const [i, v] of sub.entries()) {
    const s0 = performance.now(), c = selfCpu();
    const r = await t.query().nearestTo(v).distanceType('l2').limit(K).bypassVectorIndex().withRowId(true).select(['_distance']).toArray();
    times.push(performance.now() - s0);
    cpus.push((selfCpu() - c) * 1000);
    hits.push(r.filter((x) => gt[i].has(Number(x._rowid))).length / K);
  }
  add('exact', 'lance 12', 0, { builds: 0, buildCpus: 0, p50s: quantile(times, 0.5), p99s: quantile(times, 0.99),
    cpuP50s: quantile(cpus, 0.5), recalls: mean(hits) });
}

if (args.faiss && TYPES.includes('ivf_pq')) {
  log(`faiss IVF${PARTS},PQ${M}`);
  const out = path.join(args.work, 'faiss.json');
  execFileSync(args.faiss, [vf, qf, String(DIM), String(PARTS), String(M), String(NPROBES), String(K), String(REFINE), '2', out],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  const f = JSON.parse(fs.readFileSync(out, 'utf8'));
  for (const r of f.runs) {
    add('ivf_pq', 'faiss 1.7.3', r.refine, { builds: f.build_s, buildCpus: f.build_cpu_s, p50s: r.p50_ms, p99s: r.p99_ms,
      cpuP50s: r.cpu_p50_ms, recalls: recallOf(r.ids) });
  }
}
if (args['faiss-flat'] && EXACT_Q > 0) {
  log('faiss IndexFlatL2, one thread');
  const out = path.join(args.work, 'faiss_flat.json');
  execFileSync(args['faiss-flat'], [vf, qf, String(DIM), out], { stdio: ['ignore', 'ignore', 'inherit'] });
  const f = JSON.parse(fs.readFileSync(out, 'utf8'));
  const one = f.runs.find((r) => r.threads === 1) ?? f.runs[0];
  add('exact', 'faiss 1.7.3', 0, { builds: 0, buildCpus: 0, p50s: one.single_median_ms, p99s: one.single_median_ms,
    cpuP50s: one.single_median_cpu_ms, recalls: recallOf(f.results.map((r) => r.ids)) });
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
console.log(`\n${ROWS} x ${DIM} float32 (harness export ${args.export}), ${PARTS} partitions, IVF_PQ ${M} sub-vectors x 8 bits nprobes ${NPROBES}, IVF_FLAT nprobes ${TYPE.ivf_flat.nprobes}, IVF_HNSW_SQ nprobes ${TYPE.ivf_hnsw_sq.nprobes}, k ${K}, ${NQ} queries`);
console.log(`load average (1 / 5 / 15 min): ${loadBefore} before, ${loadAfter} after; ${os.cpus().length} CPUs; build and p50 columns: medians over ${seeds.length} build(s) of ours (seeds ${seeds.join(',')}) and ${refBuilds} of lance 12`);
console.log('| index | side | build s (CPU s) | build ratio | first query ms | p50 / p99 ms (CPU p50) | p50 ratio (CPU) | recall@10 (each build) | recall@10 mean |');
console.log('|---|---|---:|---:|---:|---:|---:|---|---:|');
const ours = (type, refine) => rows.find((x) => x.type === type && x.side === 'lance-cpp' && x.refine === refine);
const med = (xs) => quantile(xs, 0.5);
const label = (x) => x.type === 'exact' ? 'exact, one query' : `${TYPE[x.type].name}${x.refine ? ` refine ${x.refine}` : ''}`;
for (const x of rows) {
  const o = ours(x.type, x.refine);
  const isOurs = x === o || !o;
  const build = x.type === 'exact' ? '' : `${f2(med(x.builds))} (${f2(med(x.buildCpus))})`;
  const bratio = isOurs || x.type === 'exact' ? '' : `${f2(med(x.builds) / med(o.builds))}x`;
  console.log(`| ${label(x)} | ${x.side} | ${build} | ${bratio} | ${x.firsts.length ? f3(med(x.firsts)) : ''} | ${f3(med(x.p50s))} / ${f3(med(x.p99s))} (${f3(med(x.cpuP50s))})${x.warms.length ? `; warm ${f3(med(x.warms))}` : ''} | ${isOurs ? '' : `${f2(med(x.p50s) / med(o.p50s))}x (${f2(med(x.cpuP50s) / med(o.cpuP50s))}x)`} | ${x.recalls.map(f3).join(' ')} | ${f3(mean(x.recalls))} |`);
}
if (hnsw) {
  const o = ours('ivf_hnsw_sq', 0) ?? ours(TYPES[0], 0);
  console.log(`| HNSW M ${args['hnswlib-m']} efc ${args['hnswlib-efc']} ef ${args['hnswlib-ef']} (ratio vs our ${TYPE[o.type].name}) | hnswlib 0.6.2 | ${f2(hnsw.build)} (${f2(hnsw.buildCpu)}) | ${f2(hnsw.build / med(o.builds))}x | | ${f3(hnsw.p50)} / ${f3(hnsw.p99)} | ${f2(hnsw.p50 / med(o.p50s))}x | ${f3(hnsw.recall)} | ${f3(hnsw.recall)} |`);
}
