// IVF_PQ / IVF_FLAT (and IVF_RQ: 1-bit RaBitQ, with and without refine 10) side by side: lance-cpp (`lance create-index`, `lance search --queries
// --timing`) and lance 12.0.0 (@lancedb/lancedb 0.39.0: createIndex, nearestTo) on the same
// generated vectors (IVF_HNSW_SQ too: m 20, ef_construction 300 on both sides, --ef E for the
// search, default lance's 1.5 x k) (rows x 128 float32 around 256 centres, plus uniform noise of
// --noise (0.3) per coordinate, deterministic LCG) and 100 queries.
// For each index: build time, query p50 (nprobes 20, k 10; ours inside one process after the
// index is opened, the reference's through node, first call untimed) and recall@10 against
// exact search, then the ratios (reference / ours; > 1: we are faster). Each query's CPU time
// is printed beside its wall time (ours: the search process's CPU; lance 12: node's, its
// threads included).
//
// Builds are timed in wall and CPU seconds (ours: the create-index process's CPU; lance 12: this
// node process's CPU, its build threads included). With --hnswlib PEER (bench/peers/
// hnswlib_peer.cc, built by bench/run_vector_index_bench.sh), hnswlib's HNSW over the whole
// table (M --hnswlib-m, ef_construction --hnswlib-efc, ef --hnswlib-ef, 2 build threads) joins
// the IVF_HNSW_SQ rows on the same vectors and queries.
//
//   node bench/vector_index_peer.mjs --lance BUILD/lance [--rows 100000] [--partitions 256]
//        [--noise 0.3] [--seed S (ours)] [--sub-vectors 16] [--nprobes 20] [--types ivf_pq,ivf_flat,ivf_hnsw_sq,ivf_rq] [--ef E]
//        [--hnswlib PEER] [--hnswlib-m 20] [--hnswlib-efc 300] [--hnswlib-ef 64]
//        [--work /tmp/lance-vector-bench]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../tests/interop/package.json'));
process.env.LANCEDB_LOG ??= 'error';
const lancedb = require('@lancedb/lancedb');
const A = await import(path.join(here, '../tests/interop/node_modules/apache-arrow/Arrow.node.mjs'));

const args = { rows: '100000', noise: '0.3', partitions: '256', 'sub-vectors': '16', nprobes: '20', work: '/tmp/lance-vector-bench',
  types: 'ivf_pq,ivf_flat,ivf_hnsw_sq', ef: '', seed: '', hnswlib: '', 'hnswlib-m': '20', 'hnswlib-efc': '300',
  'hnswlib-ef': '64' };
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const ROWS = Number(args.rows), NOISE = Number(args.noise), DIM = 128, NQ = 100, K = 10, NPROBES = Number(args.nprobes);
const log = (m) => console.error(`[vector-bench] ${m}`);
// CPU seconds of this process (lance 12 runs in it) and of the children it waited for (ours).
const selfCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const childCpu = () => {
  const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;  // cutime + cstime, in USER_HZ (100) ticks
};
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

let seed = 12345;
const r = () => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return (seed / 4294967296) * 2 - 1; };
const centres = Array.from({ length: 256 }, () => Float32Array.from({ length: DIM }, () => r()));
const values = new Float32Array(ROWS * DIM);
for (let i = 0; i < ROWS; i++) {
  const c = centres[Math.floor(((r() + 1) / 2) * 256) % 256];
  for (let d = 0; d < DIM; d++) values[i * DIM + d] = c[d] + NOISE * r();
}
// Query q is row (q * 997) mod rows plus noise (the same rows as before for >= 100k rows; the
// modulo lets smaller tables run).
const queries = Array.from({ length: NQ }, (_, q) => { const at = ((q * 997) % ROWS) * DIM; return Array.from(values.subarray(at, at + DIM), (x) => Math.fround(x + 0.05 * r())); });

function table() {
  const type = new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true));
  const child = A.makeData({ type: new A.Float32(), length: ROWS * DIM, data: values });
  const vec = A.makeData({ type, length: ROWS, nullCount: 0, child });
  const id = A.makeData({ type: new A.Int32(), length: ROWS, data: Int32Array.from({ length: ROWS }, (_, i) => i) });
  const fields = [new A.Field('id', new A.Int32(), false), new A.Field('vector', type, true)];
  const schema = new A.Schema(fields);
  return new A.Table(schema, [new A.RecordBatch(schema, A.makeData({ type: new A.Struct(fields), length: ROWS, nullCount: 0, children: [id, vec] }))]);
}

fs.rmSync(args.work, { recursive: true, force: true });
fs.mkdirSync(args.work, { recursive: true });
const db = await lancedb.connect(args.work);
const qfile = path.join(args.work, 'queries.jsonl');
fs.writeFileSync(qfile, queries.map((q) => JSON.stringify(q)).join('\n') + '\n');

async function refQuery(t, q, opts) {
  let query = t.query().nearestTo(q).limit(K).withRowId(true).select(['_distance']);
  query = opts.bypass ? query.bypassVectorIndex() : query.nprobes(NPROBES);
  if (opts.refine) query = query.refineFactor(opts.refine);
  if (opts.ef) query = query.ef(opts.ef);
  return (await query.toArray()).map((x) => Number(x._rowid));
}

const gt = [];
const results = [];
let hnswlib = null;
for (const type of args.types.split(',')) {
  const label = type.toUpperCase();
  const ref = await db.createTable(`ref_${type}`, table());
  const ours = await db.createTable(`ours_${type}`, table());
  if (!gt.length) {
    // Exact answers by our flat search (bit-equal to lance 12's bypassVectorIndex(), see
    // tests/interop/linalg_flat_search.test.mjs), before any index exists.
    log(`exact ground truth of ${NQ} queries over ${ROWS} rows`);
    const run = spawnSync(args.lance, ['search', path.join(args.work, `ref_${type}.lance`), '--column', 'vector',
      '--queries', qfile, '-k', String(K), '--bypass-index', '--columns', '_rowid'], { maxBuffer: 1 << 28 });
    if (run.status !== 0) throw new Error(`lance search: ${run.stderr}`);
    for (let i = 0; i < NQ; i++) gt.push(new Set());
    for (const l of run.stdout.toString().trim().split('\n')) {
      const x = JSON.parse(l);
      gt[x.query_index].add(x._rowid);
    }
  }
  const cfg = type === 'ivf_pq'
    ? lancedb.Index.ivfPq({ numPartitions: Number(args.partitions), numSubVectors: Number(args['sub-vectors']) })
    : type === 'ivf_hnsw_sq' ? lancedb.Index.hnswSq({ numPartitions: Number(args.partitions) })
      : type === 'ivf_rq' ? lancedb.Index.ivfRq({ numPartitions: Number(args.partitions), numBits: 1 })
      : lancedb.Index.ivfFlat({ numPartitions: Number(args.partitions) });
  let t0 = performance.now();
  let c0 = selfCpu();
  await ref.createIndex('vector', { config: cfg });
  const refBuild = (performance.now() - t0) / 1000;
  const refBuildCpu = selfCpu() - c0;
  const cli = ['create-index', path.join(args.work, `ours_${type}.lance`), 'vector', '--type', type,
    '--partitions', args.partitions];
  if (type === 'ivf_pq') cli.push('--sub-vectors', args['sub-vectors']);
  if (args.seed) cli.push('--seed', args.seed);
  t0 = performance.now();
  c0 = childCpu();
  execFileSync(args.lance, cli);
  const ourBuild = (performance.now() - t0) / 1000;
  const ourBuildCpu = childCpu() - c0;
  const ef = type === 'ivf_hnsw_sq' && args.ef ? Number(args.ef) : 0;
  for (const refine of type === 'ivf_pq' || type === 'ivf_rq' ? [0, 10] : [0]) {
    const refTimes = [], refCpu = [];
    let refRecall = 0;
    await refQuery(ref, queries[0], { refine, ef });
    for (const [i, q] of queries.entries()) {
      const s = performance.now(), c = selfCpu();
      const rows = await refQuery(ref, q, { refine, ef });
      refTimes.push(performance.now() - s);
      refCpu.push((selfCpu() - c) * 1000);
      refRecall += rows.filter((x) => gt[i].has(x)).length / K;
    }
    const sargs = ['search', path.join(args.work, `ours_${type}.lance`), '--column', 'vector', '--queries', qfile,
      '-k', String(K), '--nprobes', String(NPROBES), '--timing', '--threads', '1', '--columns', '_rowid'];
    if (refine) sargs.push('--refine-factor', String(refine));
    if (ef) sargs.push('--ef', String(ef));
    const run = spawnSync(args.lance, sargs, { maxBuffer: 1 << 28 });
    if (run.status !== 0) throw new Error(`lance search: ${run.stderr}`);
    const mine = run.stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
    let ourRecall = 0;
    for (const row of mine) if (gt[row.query_index].has(row._rowid)) ourRecall += 1 / K;
    const timing = JSON.parse(run.stderr.toString().trim().split('\n').pop());
    const rs = [...refTimes].sort((a, b) => a - b);
    results.push({ index: label + (refine ? ` refine ${refine}` : '') + (ef ? ` ef ${ef}` : ''), refBuild, ourBuild,
      refBuildCpu, ourBuildCpu, refP50: median(refTimes), refP99: rs[Math.min(rs.length - 1, Math.floor(rs.length * 0.99))],
      ourP50: timing.p50_ms, ourP99: timing.p99_ms, ourCpuP50: timing.cpu_p50_ms, refCpuP50: median(refCpu), refRecall: refRecall / NQ, ourRecall: ourRecall / NQ });
  }
  if (type === 'ivf_hnsw_sq' && args.hnswlib) {
    const vf = path.join(args.work, 'vectors.f32'), qf = path.join(args.work, 'queries.f32');
    fs.writeFileSync(vf, Buffer.from(values.buffer));
    fs.writeFileSync(qf, Buffer.from(Float32Array.from(queries.flat()).buffer));
    const out = path.join(args.work, 'hnswlib.json');
    log(`hnswlib M ${args['hnswlib-m']} ef_construction ${args['hnswlib-efc']} ef ${args['hnswlib-ef']}`);
    execFileSync(args.hnswlib, [vf, qf, String(DIM), args['hnswlib-m'], args['hnswlib-efc'], args['hnswlib-ef'],
      String(K), '2', out]);
    const h = JSON.parse(fs.readFileSync(out, 'utf8'));
    let recall = 0;
    h.ids.forEach((ids, i) => { recall += ids.filter((x) => gt[i].has(x)).length / K; });
    hnswlib = { build: h.build_s, buildCpu: h.build_cpu_s, p50: h.p50_ms, p99: h.p99_ms, recall: recall / NQ,
      label: `M ${args['hnswlib-m']}, ef_construction ${args['hnswlib-efc']}, ef ${args['hnswlib-ef']}` };
  }
}
console.log(`\n${ROWS} x ${DIM} float32 (noise ${NOISE}), ${args.partitions} partitions${''}, PQ ${args['sub-vectors']} x 8 bits, nprobes ${NPROBES}, k ${K}, ${NQ} queries`);
console.log('| index | build s ours (CPU) | build s lance 12 (CPU) | build ratio | p50 / p99 ms ours (CPU p50) | p50 / p99 ms lance 12 (CPU p50) | p50 ratio (CPU) | recall@10 ours | recall@10 lance 12 |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const x of results) {
  console.log(`| ${x.index} | ${x.ourBuild.toFixed(2)} (${x.ourBuildCpu.toFixed(1)}) | ${x.refBuild.toFixed(2)} (${x.refBuildCpu.toFixed(1)}) | ${(x.refBuild / x.ourBuild).toFixed(2)}x | ${x.ourP50.toFixed(3)} / ${x.ourP99.toFixed(3)} (${x.ourCpuP50.toFixed(3)}) | ${x.refP50.toFixed(3)} / ${x.refP99.toFixed(3)} (${x.refCpuP50.toFixed(3)}) | ${(x.refP50 / x.ourP50).toFixed(1)}x (${(x.refCpuP50 / x.ourCpuP50).toFixed(1)}x) | ${x.ourRecall.toFixed(3)} | ${x.refRecall.toFixed(3)} |`);
}
if (hnswlib) {
  const ours = results.find((x) => x.index.startsWith('IVF_HNSW_SQ'));
  console.log(`\nhnswlib 0.6.2 (${hnswlib.label}, one graph over all rows, float32; 2 build threads; queries on one thread):`);
  console.log('| | build s (CPU) | p50 / p99 ms | recall@10 |');
  console.log('|---|---:|---:|---:|');
  console.log(`| hnswlib | ${hnswlib.build.toFixed(2)} (${hnswlib.buildCpu.toFixed(1)}) | ${hnswlib.p50.toFixed(3)} / ${hnswlib.p99.toFixed(3)} | ${hnswlib.recall.toFixed(3)} |`);
  if (ours) {
    console.log(`| ours IVF_HNSW_SQ | ${ours.ourBuild.toFixed(2)} (${ours.ourBuildCpu.toFixed(1)}) | ${ours.ourP50.toFixed(3)} / ${ours.ourP99.toFixed(3)} | ${ours.ourRecall.toFixed(3)} |`);
    console.log(`| hnswlib / ours | ${(hnswlib.build / ours.ourBuild).toFixed(2)}x | ${(hnswlib.p50 / ours.ourP50).toFixed(2)}x | |`);
  }
}
