// Peak memory of a MemWAL ingest against its MemTable bound (issue 12 part 13: "peak RSS within
// the configured MemTable bound plus a small constant"), ours beside lance 12 in the same run:
// a stream of new rows several times the bound goes into a 4-bucket MemWAL table.
//
//   node bench/memwal_bound.mjs [--bound-mb 64] [--input-x 4] [--batch 10000]
//
// (Bucket by bucket: the writers' MemTables fill one after another, so a bucketed spec with
// a per-bucket writer bounds them together.) Ours: one `lance lsm write --max-bytes BOUND --no-sync` process fed the stream from a file
// (Arrow IPC), peak RSS by /usr/bin/time, its MemTables' peak from its summary line. Lance 12:
// a node process of its own doing mergeInsert per batch of the same rows (its writer's default
// configuration: it has no byte bound we could set alike), closeLsmWriters, its maxRSS (the
// node process, the rows as Arrow tables included). Prints one JSON object.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(process.cwd(), 'tests/interop/package.json'));
const A = require('apache-arrow');
const lancedb = require('@lancedb/lancedb');
const { bucketOfInt64 } = await import(path.join(process.cwd(), 'tests/interop/lib/memwal.mjs'));
const range = (from, n) => Array.from({ length: n }, (_, i) => from + i);

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));

function rows(ids) {
  return new A.Table({
    id: A.makeVector(BigInt64Array.from(ids.map(BigInt))),
    s: A.vectorFromArray(ids.map((i) => `value-${i}`), new A.Utf8()),
    x: A.makeVector(Float64Array.from(ids.map((i) => i * 0.5))),
  });
}

if (args['child-ref']) {  // lance 12's side, in a process of its own
  const db = await lancedb.connect(args['child-ref']);
  const t = await db.openTable('ref');
  const bytes = fs.readFileSync(args.input);
  const input = A.tableFromIPC(bytes);
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  // The batches come bucket by bucket; a handle holds one shard writer: closed between buckets.
  let bucket = -1;
  for (const rb of input.batches) {
    const b = bucketOfInt64(Number(rb.getChild('id').get(0)), 4);
    if (b !== bucket && bucket >= 0) await t.closeLsmWriters();
    bucket = b;
    await t.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(new A.Table(rb));
  }
  await t.closeLsmWriters();
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(JSON.stringify({
    ms: Math.round(Number(process.hrtime.bigint() - t0) / 1e6),
    cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  }));
  process.exit(0);
}

const BOUND_MB = Number(args['bound-mb'] ?? 64);
const X = Number(args['input-x'] ?? 4);
const BATCH = Number(args.batch ?? 10000);
const LANCE = process.env.LANCE_BIN ?? 'build/lance';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lance-memwal-bound-'));
try {
  const db = await lancedb.connect(dir);
  await db.createTable('ours', rows(range(0, 1000)));
  const ref = await db.createTable('ref', rows(range(0, 1000)));
  await ref.setUnenforcedPrimaryKey('id');
  await ref.setLsmWriteSpec({ specType: 'bucket', column: 'id', numBuckets: 4, maintainedIndexes: [] });
  const uri = path.join(dir, 'ours.lance');
  const en = spawnSync(LANCE, ['lsm', 'enable', uri, '--primary-key', 'id', '--bucket', 'id:4']);
  if (en.status !== 0) throw new Error(en.stderr.toString());

  // New rows worth X bounds in our MemTable accounting (~110 bytes a row: its buffers and the
  // key index), written as one Arrow IPC stream of BATCH-row batches, bucket by bucket (lance
  // 12 takes one bucket per mergeInsert).
  const total = Math.ceil((X * BOUND_MB * 1048576) / 110);
  const file = path.join(dir, 'in.arrows');
  const w = new A.RecordBatchStreamWriter();
  const byBucket = [[], [], [], []];
  for (const id of range(1000, total)) byBucket[bucketOfInt64(id, 4)].push(id);
  for (const ids of byBucket) {
    for (let i = 0; i < ids.length; i += BATCH) for (const rb of rows(ids.slice(i, i + BATCH)).batches) w.write(rb);
  }
  w.finish();
  fs.writeFileSync(file, w.toUint8Array(true));
  const inputMb = fs.statSync(file).size / 1048576;

  const load = [os.loadavg().map((l) => +l.toFixed(2))];
  const t0 = process.hrtime.bigint();
  const run = spawnSync('/usr/bin/time', ['-f', '%M %U %S', LANCE, 'lsm', 'write', uri, '--input', file, '--max-rows', '0',
    '--max-bytes', String(BOUND_MB * 1048576), '--no-sync', '--flush'], { maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (run.status !== 0) throw new Error(run.stderr.toString());
  const lines = run.stderr.toString().trim().split('\n');
  const [rssKb, user, sys] = lines.at(-1).split(' ').map(Number);
  let summary = null;
  try { summary = JSON.parse(lines.at(-2)); } catch { /* no summary line */ }
  const count = spawnSync(LANCE, ['count', uri]);
  load.push(os.loadavg().map((l) => +l.toFixed(2)));

  const refRun = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child-ref', dir, '--input', file],
    { cwd: process.cwd(), maxBuffer: 1 << 26 });
  if (refRun.status !== 0) throw new Error(refRun.stderr.toString());
  const theirs = JSON.parse(refRun.stdout.toString());
  load.push(os.loadavg().map((l) => +l.toFixed(2)));

  const oursRss = rssKb / 1024;
  process.stdout.write(`${JSON.stringify({
    bound_mb: BOUND_MB, rows: total, input_mb: +inputMb.toFixed(1), batch_rows: BATCH,
    ours: {
      ms: Math.round(ms), cpu_ms: Math.round((user + sys) * 1000), peak_rss_mb: Math.round(oursRss),
      rss_over_bound_mb: Math.round(oursRss - BOUND_MB),
      memtable_peak_mb: summary?.memtable_peak_bytes != null ? +(summary.memtable_peak_bytes / 1048576).toFixed(1) : null,
      base_rows_after: count.stdout.toString().trim(),
    },
    lance12: theirs,
    ratio_rss: +(theirs.peak_rss_mb / oursRss).toFixed(2),
    ratio_wall: +(theirs.ms / ms).toFixed(2), ratio_cpu: +(theirs.cpu_ms / ((user + sys) * 1000)).toFixed(2),
    loadavg: load,
  }, null, 1)}\n`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
