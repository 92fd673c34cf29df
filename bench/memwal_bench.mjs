// MemWAL upserts through `lance lsm write`, beside the shared harness's MemWAL phase
// (../shared/bench/reference, phase 7: 100k upsert rows in 1000-row batches, bucket(id, 4),
// into an N-row table; its results-N.json holds the reference's figures).
//
//   node bench/memwal_bench.mjs [--rows 1000000] [--upserts 100000] [--batch 1000]
//        [--in-flight 1] [--reference ../shared/bench/reference/results-1000000.json]
//        [--live-reference 1]   (0: skip lance 12's upserts on the same data in this run)
//
// Base: N rows (id int64, s utf8, x float64) made with lancedb, primary key id, bucket(id, 4)
// set by `lance lsm enable`. Upserts: half updates of existing ids, half new ids, grouped by
// bucket as the harness does. Timed from this script (process-level, like the harness's Node
// calls): the whole `lsm write` (durable acknowledgement of every batch; --in-flight 1 waits
// for each batch's acknowledgement before the next one is sent to the WAL, as the reference's
// sequential mergeInsert calls do), each acknowledgement's arrival on stdout (latency from the
// previous one), the flush at the end, `lsm merge`, and peak RSS of the writer process; then
// point lookups and filtered merged reads (`lsm scan --filter`) beside lance 12's query().
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.join(process.cwd(), 'tests/interop/package.json'));
const A = require('apache-arrow');
const lancedb = require('@lancedb/lancedb');

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
const N = Number(args.rows ?? 1000000);
const U = Number(args.upserts ?? 100000);
const BATCH = Number(args.batch ?? 1000);
const IN_FLIGHT = Number(args['in-flight'] ?? 1);
const LANCE = process.env.LANCE_BIN ?? 'build/lance';
const refFile = args.reference ?? '/work/shared/bench/reference/results-1000000.json';

// Appendix 3 bucket hash of int64 (same as tests/interop/lib/memwal.mjs).
const rotl = (x, r) => ((x << r) | (x >>> (32 - r))) >>> 0;
const mixK1 = (k) => Math.imul(rotl(Math.imul(k, 0xcc9e2d51) >>> 0, 15), 0x1b873593) >>> 0;
const mixH1 = (h, k) => ((Math.imul(rotl((h ^ k) >>> 0, 13), 5) + 0xe6546b64) >>> 0);
function fmix(h, len) {
  h = (h ^ len) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
function bucketOf(v, n) {
  const u = BigInt.asUintN(64, BigInt(v));
  const h = fmix(mixH1(mixH1(0, mixK1(Number(u & 0xffffffffn))), mixK1(Number(u >> 32n))), 8);
  return (h & 0x7fffffff) % n;
}

function table(ids, tag) {
  return new A.Table({
    id: A.makeVector(BigInt64Array.from(ids.map(BigInt))),
    s: A.vectorFromArray(ids.map((i) => `${tag}-${i}`), new A.Utf8()),
    x: A.makeVector(Float64Array.from(ids.map((i) => i * 0.5))),
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lance-memwal-bench-'));
const db = await lancedb.connect(dir);
const ids = Array.from({ length: N }, (_, i) => i);
await db.createTable('b', table(ids, 'base'));
const uri = path.join(dir, 'b.lance');
const en = spawnSync(LANCE, ['lsm', 'enable', uri, '--primary-key', 'id', '--bucket', 'id:4']);
if (en.status !== 0) throw new Error(en.stderr.toString());

// Upserts: U/2 updates of existing ids, U/2 new ids, grouped by bucket, in BATCH-row batches.
let seed = 42;
const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
const up = [];
for (let i = 0; i < U / 2; ++i) up.push(Math.floor(rand() * N));
for (let i = 0; i < U / 2; ++i) up.push(N + i);
const byBucket = [[], [], [], []];
for (const k of up) byBucket[bucketOf(k, 4)].push(k);
const batches = [];
const bucketed = [];  // [bucket, batch] in the order written
for (const [bi, b] of byBucket.entries()) {
  for (let i = 0; i < b.length; i += BATCH) {
    batches.push(table(b.slice(i, i + BATCH), 'u'));
    bucketed.push([bi, batches.at(-1)]);
  }
}
const input = path.join(dir, 'upserts.arrows');
const writer = new A.RecordBatchStreamWriter();
for (const t of batches) for (const rb of t.batches) writer.write(rb);
writer.finish();
fs.writeFileSync(input, writer.toUint8Array(true));

// The reference on the same data in the same run (--live-reference 1, the default): a copy of
// the base table with lancedb's setUnenforcedPrimaryKey + setLsmWriteSpec(bucket(id, 4)), the
// same batches through mergeInsert in the same order, closeLsmWriters() between buckets (a
// handle holds one shard writer), as the shared harness's MemWAL phase does. Timed: the
// mergeInsert calls (wall), and the process's CPU (user + system, every thread) over them.
async function referenceUpserts(durable) {
  const name = durable ? 'ref_durable' : 'ref_nondurable';
  const t = await db.createTable(name, table(ids, 'base'));
  await t.setUnenforcedPrimaryKey('id');
  const spec = { specType: 'bucket', column: 'id', numBuckets: 4, maintainedIndexes: [] };
  if (!durable) spec.writerConfigDefaults = { durable_write: 'false' };
  await t.setLsmWriteSpec(spec);
  let wallMs = 0;
  let cpuUs = 0;
  const lat = [];
  let cur = -1;
  for (const [bucket, bt] of bucketed) {
    if (cur !== -1 && bucket !== cur) await t.closeLsmWriters();
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await t.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(bt);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    cpuUs += c.user + c.system;
    wallMs += ms;
    if (bucket === cur) lat.push(ms);
    cur = bucket;
  }
  await t.closeLsmWriters();
  return { rows_per_s: Math.round(U / (wallMs / 1000)), merge_insert_wall_ms: Math.round(wallMs),
    merge_insert_cpu_ms: Math.round(cpuUs / 1000), ack_p50_ms: +pct(lat, 0.5).toFixed(3), ack_p99_ms: +pct(lat, 0.99).toFixed(3) };
}

function timedRun(argv) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn('/usr/bin/time', ['-f', '%M %U %S', LANCE, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acks = [];
    let buf = '';
    let err = '';
    let out = '';
    p.stdout.on('data', (d) => {
      const now = process.hrtime.bigint();
      buf += d;
      let nl;
      out += d;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('{"acked_rows"')) acks.push(Number(now - t0) / 1e6);
      }
    });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) reject(new Error(err));
      const lines = err.trim().split('\n');
      const [rssKb, user, sys] = lines[lines.length - 1].split(' ').map(Number);
      resolve({ ms, acks, rss_mb: rssKb / 1024, cpu_ms: (user + sys) * 1000, err: lines.slice(0, -1).join('\n'), out });
    });
  });
}
const LIVE = Number(args['live-reference'] ?? 1) !== 0;
const pct = (v, q) => { const s = [...v].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

// Durable upserts, no flush (the rows stay in the WAL + MemTable), then flush, then merge.
const w = await timedRun(['lsm', 'write', uri, '--input', input, '--max-in-flight', String(IN_FLIGHT),
  '--max-rows', '0', '--max-bytes', '0']);
const lat = w.acks.map((t, i) => t - (i ? w.acks[i - 1] : w.acks[0]));
lat.shift();  // the first ack's latency includes process start, table open and shard claims
const writeMsSteady = w.acks[w.acks.length - 1] - w.acks[0];
const f = await timedRun(['lsm', 'flush', uri]);
// Point lookups over base + the flushed generations (before the merge), both sides reading the
// same state: 1000 keys (half upserted, half base-only) in one call, and single keys.
const lookupKeys = [];
for (let i = 0; i < 500; ++i) lookupKeys.push(up[i * Math.floor(U / 1000)]);
for (let i = 0; i < 500; ++i) lookupKeys.push(Math.floor(rand() * N));
const keysFile = path.join(dir, 'keys.jsonl');
fs.writeFileSync(keysFile, lookupKeys.map((k) => `{"id":${k}}`).join('\n') + '\n');
const getMany = await timedRun(['lsm', 'get', uri, '--keys', keysFile, '--consistency', 'eventual', '--columns', 'id,s']);
const getStats = JSON.parse(getMany.err.trim().split('\n').at(-1));
const oneMs = [];
for (let i = 0; i < 7; ++i) {
  oneMs.push((await timedRun(['lsm', 'get', uri, '--key', String(lookupKeys[i * 100]), '--consistency', 'eventual'])).ms);
}
const noop = [];
for (let i = 0; i < 7; ++i) noop.push((await timedRun(['--version'])).ms);
const refTable = await (await lancedb.connect(dir)).openTable('b');
let t0 = process.hrtime.bigint();
const refMany = await refTable.query().where(`id IN (${[...new Set(lookupKeys)].join(',')})`).select(['id', 's']).toArray();
const refManyMs = Number(process.hrtime.bigint() - t0) / 1e6;
const refOne = [];
for (let i = 0; i < 7; ++i) {
  t0 = process.hrtime.bigint();
  await refTable.query().where(`id = ${lookupKeys[i * 100]}`).toArray();
  refOne.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
const oursRows = getMany.out.trim().split('\n').map((l) => JSON.parse(l)).map((r) => `${r.id}:${r.s}`).sort();
const refRows = refMany.map((r) => `${r.id}:${r.s}`).sort();
if (JSON.stringify(oursRows) !== JSON.stringify(refRows)) throw new Error('point lookups: our rows differ from the reference');
const lookups = {
  keys: getStats.keys, found: getStats.found,
  ours_1000_keys_process_ms: +getMany.ms.toFixed(1),
  ours_1_key_process_ms_p50: +pct(oneMs, 0.5).toFixed(1),
  ours_process_start_ms_p50: +pct(noop, 0.5).toFixed(1),
  ours_stats_1000: getStats,
  reference_1000_keys_in_list_ms: +refManyMs.toFixed(1),
  reference_1_key_ms_p50: +pct(refOne, 0.5).toFixed(1),
};
// Filtered merged reads over the same state (base + 4 shards' flushed generations, eventual:
// what lance 12's query() reads), beside lance 12's query().where().select(['id', 's']) on the
// same table, whole results compared: ours in-process (build/lance_bench BM_LsmFilteredScan:
// plan + drain, medians of 5 repetitions, CPU of the whole process beside wall) and as the
// `lsm scan --filter` process (its start is in ours_process_start_ms_p50); lance 12's medians
// of 5 after one warm-up query, CPU of this node process over the query; the machine's load
// before and after.
const LANCE_BENCH = process.env.LANCE_BENCH_BIN ?? path.join(path.dirname(LANCE), 'lance_bench');
const loadBefore = os.loadavg().map((l) => +l.toFixed(2));
const filtered = {};
for (const [name, where] of [
  ['range_x', 'x >= 1000 AND x < 1100'],
  ['s_equals', `s = 'u-${up[7]}'`],
  ['s_prefix_range', "s >= 'u-1' AND s < 'u-11'"],
]) {
  const procMs = [], refMs = [], refCpu = [];
  let oursRows, refRows;
  await refTable.query().where(where).select(['id', 's']).toArray();
  for (let i = 0; i < 5; ++i) {
    const r = await timedRun(['lsm', 'scan', uri, '--consistency', 'eventual', '--filter', where, '--columns', 'id,s']);
    procMs.push(r.ms);
    oursRows = r.out.trim().split('\n').filter((l) => l).map((l) => JSON.parse(l)).map((x) => `${x.id}:${x.s}`).sort();
    const c0 = process.cpuUsage();
    const t1 = process.hrtime.bigint();
    const rows = await refTable.query().where(where).select(['id', 's']).toArray();
    refMs.push(Number(process.hrtime.bigint() - t1) / 1e6);
    const c = process.cpuUsage(c0);
    refCpu.push((c.user + c.system) / 1000);
    refRows = rows.map((x) => `${x.id}:${x.s}`).sort();
  }
  if (JSON.stringify(oursRows) !== JSON.stringify(refRows)) throw new Error(`filtered read ${where}: our rows differ from the reference`);
  const bench = spawnSync(LANCE_BENCH, ['--benchmark_filter=^BM_LsmFilteredScan', '--benchmark_repetitions=5',
    '--benchmark_format=json'], { env: { ...process.env, LANCE_MEMWAL_TABLE: uri, LANCE_MEMWAL_FILTER: where } });
  if (bench.status !== 0) throw new Error(`lance_bench: ${bench.stderr}`);
  const median = JSON.parse(bench.stdout.toString()).benchmarks.find((b) => b.aggregate_name === 'median');
  if (!median || median.rows !== oursRows.length) throw new Error(`lance_bench ${where}: ${bench.stdout}`);
  const planText = spawnSync(LANCE, ['lsm', 'scan', uri, '--consistency', 'eventual', '--filter', where, '--explain']).stdout.toString();
  const r = { wall: pct(refMs, 0.5), cpu: pct(refCpu, 0.5) };
  filtered[name] = {
    filter: where, rows: oursRows.length,
    sources: planText.split('\n').filter((l) => l.startsWith('  LsmSource: ')).length,
    ours_ms_p50: +median.real_time.toFixed(2), ours_cpu_ms_p50: +median.cpu_ms.toFixed(2),
    ours_process_ms_p50: +pct(procMs, 0.5).toFixed(1),
    reference_ms_p50: +r.wall.toFixed(2), reference_cpu_ms_p50: +r.cpu.toFixed(2),
    // reference ÷ ours (> 1: ours faster), in-process both.
    ratio_wall: +(r.wall / median.real_time).toFixed(2), ratio_cpu: +(r.cpu / median.cpu_ms).toFixed(2),
  };
}
filtered.load_before = loadBefore;
filtered.load_after = os.loadavg().map((l) => +l.toFixed(2));
const m = await timedRun(['lsm', 'merge', uri]);
// The same upserts again with --no-sync (NOT durable: WAL entries written, never fsynced), the
// like-for-like figure for the reference's non-durable writer.
const ndRun = await timedRun(['lsm', 'write', uri, '--input', input, '--max-in-flight', String(IN_FLIGHT),
  '--max-rows', '0', '--max-bytes', '0', '--no-sync']);
const ndSteady = ndRun.acks[ndRun.acks.length - 1] - ndRun.acks[0];
const ours = {
  rows: U, batch_rows: BATCH, in_flight: IN_FLIGHT, base_rows: N,
  process_ms: Math.round(w.ms),
  rows_per_s_process: Math.round(U / (w.ms / 1000)),
  rows_per_s_steady: Math.round((U - BATCH) / (writeMsSteady / 1000)),
  ack_p50_ms: +pct(lat, 0.5).toFixed(3), ack_p99_ms: +pct(lat, 0.99).toFixed(3),
  writer_peak_rss_mb: Math.round(w.rss_mb),
  flush_ms: Math.round(f.ms), merge_ms: Math.round(m.ms), merge_peak_rss_mb: Math.round(m.rss_mb),
  nondurable_rows_per_s_process: Math.round(U / (ndRun.ms / 1000)),
  nondurable_rows_per_s_steady: Math.round((U - BATCH) / (ndSteady / 1000)),
};
ours.writer_cpu_ms = Math.round(w.cpu_ms);
ours.nondurable_writer_cpu_ms = Math.round(ndRun.cpu_ms);
const out = { ours, lookups, filtered };
if (LIVE) {
  const durable = await referenceUpserts(true);
  const nondurable = await referenceUpserts(false);
  out.reference_live = { durable, nondurable };
  // ours ÷ reference for rates, reference ÷ ours for times (> 1: ours better).
  out.ratio_live = {
    durable_rows_per_s_process: +(ours.rows_per_s_process / durable.rows_per_s).toFixed(2),
    durable_rows_per_s_steady: +(ours.rows_per_s_steady / durable.rows_per_s).toFixed(2),
    durable_cpu_reference_over_ours: +(durable.merge_insert_cpu_ms / ours.writer_cpu_ms).toFixed(2),
    durable_ack_p50_reference_over_ours: ours.ack_p50_ms > 0 ? +(durable.ack_p50_ms / ours.ack_p50_ms).toFixed(1) : null,
    nondurable_rows_per_s_process: +(ours.nondurable_rows_per_s_process / nondurable.rows_per_s).toFixed(2),
    nondurable_cpu_reference_over_ours: +(nondurable.merge_insert_cpu_ms / ours.nondurable_writer_cpu_ms).toFixed(2),
  };
}
if (fs.existsSync(refFile)) {
  const R = JSON.parse(fs.readFileSync(refFile, 'utf8')).memwal.variants;
  const plain = R.plain.upsert;
  const nd = R.nondurable?.upsert;
  out.reference = {
    rows_per_s_durable: plain.rows_per_s_merge_insert_only,
    ack_p50_ms: plain.batch_latency_steady.median_ms,
    rows_per_s_nondurable: nd?.rows_per_s_merge_insert_only,
  };
  out.ratio = {
    durable_rows_per_s_process: +(ours.rows_per_s_process / plain.rows_per_s_merge_insert_only).toFixed(2),
    durable_rows_per_s_steady: +(ours.rows_per_s_steady / plain.rows_per_s_merge_insert_only).toFixed(2),
    ack_p50_reference_over_ours: +(plain.batch_latency_steady.median_ms / ours.ack_p50_ms).toFixed(1),
    nondurable_rows_per_s_process: nd ? +(ours.nondurable_rows_per_s_process / nd.rows_per_s_merge_insert_only).toFixed(2) : null,
    nondurable_rows_per_s_steady: nd ? +(ours.nondurable_rows_per_s_steady / nd.rows_per_s_merge_insert_only).toFixed(2) : null,
  };
}
console.log(JSON.stringify(out, null, 1));
if (args.keep) console.error(`kept ${dir}`); else fs.rmSync(dir, { recursive: true, force: true });
