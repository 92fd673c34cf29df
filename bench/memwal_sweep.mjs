// The MemWAL benchmark table (issue 12 part 13), ours beside lance 12 live in the same
// run: upsert throughput at batch sizes 1, 100, 1000 and 10,000 rows, durable and not, p50 /
// p99 acknowledgement latency, point lookups during ingest, flush and merge time, peak RSS
// against the MemTable bound.
//
//   node bench/memwal_sweep.mjs [--rows 1000000] [--sizes 1,100,1000,10000] [--bound-mb 64]
//
// Base: N rows (id int64, s utf8, x float64) made with lancedb, primary key id, bucket(id, 4):
// ours via `lance lsm enable`, lance 12's via setUnenforcedPrimaryKey + setLsmWriteSpec (one
// table durable, one with writerConfigDefaults durable_write false). Per batch size: upserts
// (half updates of existing ids, half new ids) grouped by bucket in batches of that size; the
// same batches in the same order for both. Ours: one `lance lsm write` process per run
// (--max-in-flight 1: each batch waits for its acknowledgement, as sequential mergeInsert calls
// do; and --max-in-flight 16, group commit; the durable 1000-row run, the 16-in-flight and the
// --no-sync runs end without --flush, the `lsm flush` after them timed apart, as lance 12's
// closeLsmWriters is), each acknowledgement timed as its
// `{"acked_rows"}` line arrives, --max-bytes = the bound, peak RSS by /usr/bin/time. Lance 12:
// mergeInsert per batch (closeLsmWriters between buckets: a handle holds one shard writer),
// each call timed, CPU of this node process over them. Fewer batches at the small sizes
// (lance 12's durable writer waits on a 100 ms WAL timer per call).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.join(process.cwd(), 'tests/interop/package.json'));
const A = require('apache-arrow');
const lancedb = require('@lancedb/lancedb');
const { bucketOfInt64 } = await import(path.join(process.cwd(), 'tests/interop/lib/memwal.mjs'));

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
const N = Number(args.rows ?? 1000000);
const SIZES = (args.sizes ?? '1,100,1000,10000').split(',').map(Number);
const BOUND = Number(args['bound-mb'] ?? 64) * 1024 * 1024;
const LANCE = process.env.LANCE_BIN ?? 'build/lance';
// Batches per size: ours, lance 12 (durable: ~100 ms a call at any size).
const LOOKUPS = Number(args.lookups ?? 1) !== 0;  // 0: no point lookups during the 1000-row runs
const OURS_BATCHES = { 1: 200, 100: 200, 1000: 100, 10000: 10 };
const REF_BATCHES = { 1: 40, 100: 40, 1000: 100, 10000: 10 };

const pct = (v, q) => { const s = [...v].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : null; };
const r1 = (x) => (x == null ? null : +x.toFixed(1));
const r3 = (x) => (x == null ? null : +x.toFixed(3));
function table(ids, tag) {
  return new A.Table({
    id: A.makeVector(BigInt64Array.from(ids.map(BigInt))),
    s: A.vectorFromArray(ids.map((i) => `${tag}-${i}`), new A.Utf8()),
    x: A.makeVector(Float64Array.from(ids.map((i) => i * 0.5))),
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lance-memwal-sweep-'));
const load = [os.loadavg().map((l) => +l.toFixed(2))];
const db = await lancedb.connect(dir);
const ids = Array.from({ length: N }, (_, i) => i);
await db.createTable('b', table(ids, 'base'));
const uri = path.join(dir, 'b.lance');
const en = spawnSync(LANCE, ['lsm', 'enable', uri, '--primary-key', 'id', '--bucket', 'id:4']);
if (en.status !== 0) throw new Error(en.stderr.toString());
const refTables = {};
for (const durable of [true, false]) {
  const t = await db.createTable(durable ? 'ref_d' : 'ref_nd', table(ids, 'base'));
  await t.setUnenforcedPrimaryKey('id');
  const spec = { specType: 'bucket', column: 'id', numBuckets: 4, maintainedIndexes: [] };
  if (!durable) spec.writerConfigDefaults = { durable_write: 'false' };
  await t.setLsmWriteSpec(spec);
  refTables[durable] = t;
}

let seed = 42;
let nextNew = N;
const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
// `count` batches of `size` rows: half updates, half new ids, grouped by bucket.
function workload(size, count) {
  const keys = [];
  const total = size * count;
  for (let i = 0; i < Math.floor(total / 2); ++i) keys.push(Math.floor(rand() * N));
  while (keys.length < total) keys.push(nextNew++);
  const byBucket = [[], [], [], []];
  for (const k of keys) byBucket[bucketOfInt64(k, 4)].push(k);
  const out = [];
  for (const [bucket, b] of byBucket.entries()) {
    for (let i = 0; i < b.length; i += size) out.push([bucket, table(b.slice(i, i + size), `u${size}`)]);
  }
  return out;
}
function inputFile(name, batches) {
  const file = path.join(dir, `${name}.arrows`);
  const w = new A.RecordBatchStreamWriter();
  for (const [, t] of batches) for (const rb of t.batches) w.write(rb);
  w.finish();
  fs.writeFileSync(file, w.toUint8Array(true));
  return file;
}

function timedRun(argv, onAck) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn('/usr/bin/time', ['-f', '%M %U %S', LANCE, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acks = [];
    let buf = '', err = '', out = '';
    p.stdout.on('data', (d) => {
      const now = process.hrtime.bigint();
      buf += d;
      out += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('{"acked_rows"')) {
          acks.push([Number(now - t0) / 1e6, JSON.parse(line).acked_rows]);
          if (onAck) onAck(acks.length);
        }
      }
    });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) reject(new Error(`${argv.join(' ')}: ${err}`));
      const lines = err.trim().split('\n');
      const [rssKb, user, sys] = lines[lines.length - 1].split(' ').map(Number);
      // `lsm write`'s summary (its last line before /usr/bin/time's): in-process ack latencies.
      let summary = null;
      try { summary = JSON.parse(lines[lines.length - 2]); } catch { /* another command */ }
      resolve({ ms, acks, rss_mb: rssKb / 1024, cpu_ms: (user + sys) * 1000, out, summary });
    });
  });
}

// One `lsm write` run: rows/s over the whole process and between the first and last
// acknowledgement, ack latency (each from the previous ack, the first left out: it includes
// process start, open and shard claims).
async function oursRun(file, rows, batches, extra, lookupsDuring) {
  const stop = { done: false };
  const lookups = [];
  let lookupLoop = null;
  const run = timedRun(['lsm', 'write', uri, '--input', file, '--max-rows', '0', '--max-bytes', String(BOUND), ...extra],
    lookupsDuring ? (n) => {
      if (n === 1 && !lookupLoop) {
        lookupLoop = (async () => {
          // Strong point lookups of keys this run writes (from another process: WAL tail replay).
          let i = 0;
          while (!stop.done) {
            const key = lookupsDuring[i++ % lookupsDuring.length];
            lookups.push((await timedRun(['lsm', 'get', uri, '--key', String(key), '--consistency', 'strong'])).ms);
          }
        })();
      }
    } : null);
  const w = await run;
  stop.done = true;
  if (lookupLoop) await lookupLoop;
  if (!w.acks.length || w.acks.at(-1)[1] !== rows) throw new Error(`acks ${w.acks.length} (${w.acks.at(-1)?.[1]} rows), want ${rows} rows`);
  const lat = w.acks.slice(1).map(([t], i) => t - w.acks[i][0]);
  const steadyMs = w.acks.at(-1)[0] - w.acks[0][0];
  const firstRows = w.acks[0][1];
  return {
    rows_per_s_process: Math.round(rows / (w.ms / 1000)),
    ack_lines: w.acks.length,
    rows_per_s_steady: w.acks.length > 1 ? Math.round((rows - firstRows) / (steadyMs / 1000)) : null,
    ack_p50_ms: r3(pct(lat, 0.5)), ack_p99_ms: r3(pct(lat, 0.99)),
    // Each batch from its append to its last piece durable, timed inside the writer (no pipe).
    batch_ack_p50_ms: r3(w.summary?.ack_ms_p50), batch_ack_p99_ms: r3(w.summary?.ack_ms_p99),
    memtable_peak_mb: w.summary ? r1(w.summary.memtable_peak_bytes / 1048576) : null,
    process_ms: Math.round(w.ms), cpu_ms: Math.round(w.cpu_ms), peak_rss_mb: Math.round(w.rss_mb),
    lookups_during: lookupsDuring ? { n: lookups.length, p50_ms: r1(pct(lookups, 0.5)), p99_ms: r1(pct(lookups, 0.99)) } : undefined,
  };
}

async function refRun(t, batches, lookupKeys) {
  let wallMs = 0, cpuUs = 0, cur = -1;
  const lat = [];
  const lookups = [];
  const stop = { done: false };
  // Point lookups on the writer's handle during its ingest (the rows of its live writer).
  const loop = lookupKeys ? (async () => {
    let i = 0;
    while (!stop.done) {
      const t0 = process.hrtime.bigint();
      await t.query().where(`id = ${lookupKeys[i++ % lookupKeys.length]}`).toArray();
      lookups.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  })() : null;
  let rows = 0;
  for (const [bucket, bt] of batches) {
    if (cur !== -1 && bucket !== cur) await t.closeLsmWriters();
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await t.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(bt);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    cpuUs += c.user + c.system;
    wallMs += ms;
    rows += bt.numRows;
    if (bucket === cur) lat.push(ms);
    cur = bucket;
  }
  stop.done = true;
  if (loop) await loop;
  const c0 = process.hrtime.bigint();
  await t.closeLsmWriters();
  const closeMs = Number(process.hrtime.bigint() - c0) / 1e6;
  return {
    rows_per_s: Math.round(rows / (wallMs / 1000)), ack_p50_ms: r3(pct(lat, 0.5)), ack_p99_ms: r3(pct(lat, 0.99)),
    merge_insert_wall_ms: Math.round(wallMs), cpu_ms: Math.round(cpuUs / 1000), close_ms: Math.round(closeMs),
    lookups_during: lookupKeys ? { n: lookups.length, p50_ms: r1(pct(lookups, 0.5)), p99_ms: r1(pct(lookups, 0.99)) } : undefined,
  };
}

const startMs = [];
for (let i = 0; i < 5; ++i) startMs.push((await timedRun(['--version'])).ms);
const out = { base_rows: N, memtable_bound_mb: BOUND / 1048576, ours_process_start_ms_p50: r1(pct(startMs, 0.5)), sizes: {} };
let flushMs = null;
for (const size of SIZES) {
  const res = { ours: {}, reference: {} };
  const ob = workload(size, OURS_BATCHES[size] ?? 10);
  const rows = ob.reduce((n, [, t]) => n + t.numRows, 0);
  const file = inputFile(`in-${size}`, ob);
  const keysWritten = ob.map(([, t]) => Number(t.getChild('id').get(0)));
  res.ours.rows = rows;
  res.ours.batches = ob.length;
  // The 1000-row durable run leaves its rows unflushed, so the flush after it is timed alone.
  const timedFlush = size === 1000;
  res.ours.durable = await oursRun(file, rows, ob.length, ['--max-in-flight', '1', ...(timedFlush ? [] : ['--flush'])], LOOKUPS && size === 1000 ? keysWritten : null);
  if (timedFlush) res.ours.durable.flush_after_ms = null;  // timed below as flush_ms_1000_batch_run
  if (timedFlush) flushMs = (await timedRun(['lsm', 'flush', uri])).ms;
  // Like lance 12's timings (its mergeInsert calls, closeLsmWriters apart), our writers end
  // without --flush: their rows stay in the WAL and the `lsm flush` after each is timed apart.
  // Every shard claimed at the start, all at once (the batches come grouped by shard: claimed
  // as they first get rows, the claims would come one after another).
  res.ours.durable_in_flight_16 = await oursRun(file, rows, ob.length, ['--max-in-flight', '16', '--claim-all']);
  res.ours.durable_in_flight_16.flush_after_ms = Math.round((await timedRun(['lsm', 'flush', uri])).ms);
  res.ours.nondurable = await oursRun(file, rows, ob.length, ['--max-in-flight', '1', '--no-sync']);
  res.ours.nondurable.flush_after_ms = Math.round((await timedRun(['lsm', 'flush', uri])).ms);
  res.ours.nondurable_in_flight_16 = await oursRun(file, rows, ob.length, ['--max-in-flight', '16', '--no-sync', '--claim-all']);
  res.ours.nondurable_in_flight_16.flush_after_ms = Math.round((await timedRun(['lsm', 'flush', uri])).ms);
  const rb = workload(size, REF_BATCHES[size] ?? 10);
  res.reference.rows = rb.reduce((n, [, t]) => n + t.numRows, 0);
  res.reference.batches = rb.length;
  res.reference.durable = await refRun(refTables[true], rb, LOOKUPS && size === 1000 ? rb.map(([, t]) => Number(t.getChild('id').get(0))) : null);
  res.reference.nondurable = await refRun(refTables[false], rb, null);
  const o = res.ours, r = res.reference;
  res.ratio = {
    durable_rows_per_s_steady: +(o.durable.rows_per_s_steady / r.durable.rows_per_s).toFixed(2),
    durable_rows_per_s_process: +(o.durable.rows_per_s_process / r.durable.rows_per_s).toFixed(2),
    durable_in_flight_16_rows_per_s_steady: +(o.durable_in_flight_16.rows_per_s_steady / r.durable.rows_per_s).toFixed(2),
    durable_ack_p50_reference_over_ours: o.durable.batch_ack_p50_ms ? +(r.durable.ack_p50_ms / o.durable.batch_ack_p50_ms).toFixed(1) : null,
    durable_in_flight_16_rows_per_s_process: +(o.durable_in_flight_16.rows_per_s_process / r.durable.rows_per_s).toFixed(2),
    nondurable_rows_per_s_steady: +(o.nondurable.rows_per_s_steady / r.nondurable.rows_per_s).toFixed(2),
    nondurable_rows_per_s_process: +(o.nondurable.rows_per_s_process / r.nondurable.rows_per_s).toFixed(2),
    nondurable_in_flight_16_rows_per_s_steady: +(o.nondurable_in_flight_16.rows_per_s_steady / r.nondurable.rows_per_s).toFixed(2),
    nondurable_in_flight_16_rows_per_s_process: +(o.nondurable_in_flight_16.rows_per_s_process / r.nondurable.rows_per_s).toFixed(2),
    nondurable_ack_p50_reference_over_ours: o.nondurable.ack_p50_ms ? +(r.nondurable.ack_p50_ms / o.nondurable.ack_p50_ms).toFixed(1) : null,
  };
  out.sizes[size] = res;
  load.push(os.loadavg().map((l) => +l.toFixed(2)));
  console.error(`size ${size} done`, JSON.stringify(res.ratio));
}
const gens = spawnSync(LANCE, ['lsm', 'status', uri]).stdout.toString();
const m = await timedRun(['lsm', 'merge', uri]);
out.flush_ms_1000_batch_run = flushMs == null ? null : Math.round(flushMs);
out.merge = { ms: Math.round(m.ms), cpu_ms: Math.round(m.cpu_ms), peak_rss_mb: Math.round(m.rss_mb), generations: gens.split('\n').filter((l) => l).map((l) => JSON.parse(l))
  .reduce((n, sh) => n + sh.flushed_generations.filter((g) => g > sh.merged_generation).length, 0) };
out.reference_node_max_rss_mb = Math.round(process.resourceUsage().maxRSS / 1024);
load.push(os.loadavg().map((l) => +l.toFixed(2)));
out.loadavg_1_5_15 = load;
out.uptime = spawnSync('uptime').stdout.toString().trim();
console.log(JSON.stringify(out, null, 1));
if (args.keep) console.error(`kept ${dir}`); else fs.rmSync(dir, { recursive: true, force: true });
