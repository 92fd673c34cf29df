// `lance lsm write --input -` is a long-running streaming ingest, tested with a real process fed
// through a pipe in pieces: each piece (JSON lines, split mid-line on purpose; or Arrow IPC
// stream batches) is acknowledged with {"acked_rows": N} while stdin is still open, N never
// counts a row that was not yet sent, and after a SIGKILL every acknowledged row is there
// exactly once with its newest value, a half-sent line nowhere, and the rows sent but not
// acknowledged either whole or absent. A long stream runs in bounded memory (the peak RSS of
// the writer stays far below the size of its input).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { LANCE_BIN, lanceOk, scratchDir } from './lib/cli.mjs';
import * as mw from './lib/memwal.mjs';

const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));

// A `lance lsm write ... --input -` process; acked() is the newest acknowledgement, every one
// is checked against the rows sent so far as it arrives.
function startWriter(args) {
  const p = spawn(LANCE_BIN, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const w = { p, sent: 0, acks: [], err: '', waiters: [], closed: false, maxRss: 0 };
  let buf = '';
  p.stdout.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const n = JSON.parse(buf.slice(0, nl)).acked_rows;
      buf = buf.slice(nl + 1);
      assert.ok(n <= w.sent, `acknowledged ${n} rows when only ${w.sent} were sent`);
      assert.ok(w.acks.length === 0 || n > w.acks[w.acks.length - 1], `acknowledgements went ${w.acks.at(-1)} -> ${n}`);
      w.acks.push(n);
    }
    w.waiters = w.waiters.filter(({ n, resolve }) => (w.acked() >= n ? (resolve(), false) : true));
  });
  p.stderr.on('data', (d) => { w.err += d; });
  w.done = new Promise((resolve) => p.on('close', (code, signal) => { w.closed = true; resolve({ code, signal }); }));
  w.acked = () => (w.acks.length ? w.acks[w.acks.length - 1] : 0);
  w.waitAcked = (n, ms = 15000) => new Promise((resolve, reject) => {
    if (w.acked() >= n) return resolve();
    const timer = setTimeout(() => reject(new Error(`no acknowledgement of ${n} rows within ${ms} ms (have ${w.acked()}; stderr: ${w.err})`)), ms);
    w.waiters.push({ n, resolve: () => { clearTimeout(timer); resolve(); } });
  });
  w.write = (bytes) => new Promise((resolve) => p.stdin.write(bytes, resolve));
  return w;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const memwalTable = (dir) => mw.bucketedIdsTable(dir, 't');

// The strong read of `uri` as Map id -> s, every key once.
function readMap(uri) {
  const out = new Map();
  for (const r of jsonLines(lanceOk(['lsm', 'scan', uri]).stdout)) {
    const id = Number(r.id);
    assert.ok(!out.has(id), `key ${id} read twice`);
    out.set(id, r.s);
  }
  return out;
}

// Checks the table after a kill: `rows` (in send order) of which the first `acked` were
// acknowledged; `never` keys must be absent. Every acknowledged key holds its newest
// acknowledged value or a later sent one; a key only unacknowledged rows wrote is absent or
// holds one of those values; nothing else is there but the base rows.
function checkAfterKill(uri, rows, acked, never, base) {
  const got = readMap(uri);
  const values = new Map();  // id -> values in send order
  rows.forEach((r) => { if (!values.has(r.id)) values.set(r.id, []); values.get(r.id).push(r.s); });
  const newestAcked = new Map();
  rows.slice(0, acked).forEach((r, i) => newestAcked.set(r.id, i));
  for (const k of never) assert.ok(!got.has(k), `key ${k} of a half-sent line is visible`);
  for (const [id, s] of got) {
    const h = values.get(id);
    if (!h) {
      assert.equal(s, base.get(id), `key ${id} holds ${s}, never written`);
      continue;
    }
    const at = h.lastIndexOf(s);
    assert.ok(at >= 0 || (!newestAcked.has(id) && s === base.get(id)), `key ${id} holds ${s}, never written`);
    if (newestAcked.has(id)) {
      const want = rows[newestAcked.get(id)].s;
      assert.ok(at >= h.lastIndexOf(want), `key ${id} holds ${s}, older than its acknowledged ${want}`);
    }
  }
  for (const id of newestAcked.keys()) assert.ok(got.has(id), `acknowledged key ${id} lost`);
  return got;
}

test('JSON lines through a pipe: acknowledged piece by piece before stdin closes; SIGKILL loses no acknowledged row', async () => {
  const dir = scratchDir('lance-memwal-stream-');
  const { uri, schemaFile } = await memwalTable(dir);
  const w = startWriter(['lsm', 'write', uri, '--input', '-', '--schema', schemaFile, '--max-rows', '40']);
  const rows = [];
  const line = (r) => JSON.stringify(r) + '\n';
  for (let piece = 0; piece < 12; ++piece) {
    const batch = [];
    for (let i = 0; i < 25; ++i) {
      // new keys, and updates of earlier ones and of the base's
      const id = i % 5 === 0 ? (piece * 7 + i) % 40 : 100 + piece * 25 + i;
      batch.push({ id, s: `p${piece}-${i}` });
    }
    const text = batch.map(line).join('');
    const cut = Math.floor(text.length / 2) + 3;  // mid-line
    // only the whole lines of the first half count as sent
    w.sent = rows.length + text.slice(0, cut).split('\n').length - 1;
    await w.write(text.slice(0, cut));
    await sleep(15);
    rows.push(...batch);
    w.sent = rows.length;
    await w.write(text.slice(cut));
    await w.waitAcked(rows.length);  // stdin is still open: this is streaming
  }
  assert.equal(w.acked(), rows.length);
  assert.ok(w.acks.length >= 12, `${w.acks.length} acknowledgements for 12 pieces`);
  // A piece whose acknowledgement is awaited, then one that is not, then half a line: kill.
  const more = Array.from({ length: 30 }, (_, i) => ({ id: 1000 + i, s: `late-${i}` }));
  rows.push(...more.slice(0, 15));
  w.sent = rows.length;
  await w.write(more.slice(0, 15).map(line).join(''));
  await w.waitAcked(rows.length);
  rows.push(...more.slice(15));
  w.sent = rows.length;
  await w.write(more.slice(15).map(line).join('') + '{"id": 5000, "s": "ha');
  w.p.kill('SIGKILL');
  const { signal } = await w.done;
  assert.equal(signal, 'SIGKILL');
  const base = new Map([0, 1, 2].map((k) => [k, `base-${k}`]));
  const got = checkAfterKill(uri, rows, w.acked(), [5000], base);
  // The next writer recovers the WAL and flushes; lance 12 then reads what we read.
  lanceOk(['lsm', 'flush', uri]);
  const after = readMap(uri);
  assert.deepEqual([...after].sort(), [...got].sort());
  const t = await (await lancedb.connect(dir)).openTable('t');
  const theirs = new Map((await t.query().toArray()).map((r) => [Number(r.id), r.s]));
  assert.deepEqual([...theirs].sort(), [...after].sort());
});

test('an Arrow IPC stream through a pipe is acknowledged batch by batch', async () => {
  const dir = scratchDir('lance-memwal-stream-ipc-');
  const { uri } = await memwalTable(dir);
  const w = startWriter(['lsm', 'write', uri, '--input', '-', '--max-rows', '0', '--max-bytes', '0']);
  const writer = new A.RecordBatchStreamWriter();
  const sink = (async () => { for await (const chunk of writer) await w.write(chunk); })();
  const rows = [];
  for (let b = 0; b < 6; ++b) {
    const ids = Array.from({ length: 50 }, (_, i) => (i % 10 === 0 ? i / 10 : 200 + b * 50 + i));
    const tag = `b${b}`;
    const t = mw.idsTable(ids, tag);
    ids.forEach((id) => rows.push({ id, s: `${tag}-${id}` }));
    w.sent = rows.length;
    writer.write(t.batches[0]);
    await w.waitAcked(rows.length);
  }
  writer.finish();
  await sink;
  w.p.stdin.end();
  const { code } = await w.done;
  assert.equal(code, 0, w.err);
  // one line per batch, each as soon as that batch was durable
  assert.deepEqual(w.acks, [50, 100, 150, 200, 250, 300]);
  const want = new Map([0, 1, 2].map((k) => [k, `base-${k}`]));
  for (const r of rows) want.set(r.id, r.s);
  assert.deepEqual([...readMap(uri)].sort(), [...want].sort());
});

test('a long stream runs in bounded memory', async () => {
  const dir = scratchDir('lance-memwal-stream-long-');
  const { uri, schemaFile } = await memwalTable(dir);
  const ROWS = 200000;
  const pad = 'x'.repeat(300);
  const BOUND = 4 << 20;  // all the process's MemTables together (both shards)
  const w = startWriter(['lsm', 'write', uri, '--input', '-', '--schema', schemaFile, '--no-sync',
    '--max-rows', '0', '--max-bytes', String(BOUND), '--max-in-flight', '8', '--claim-all']);
  let peak = 0;
  const sample = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${w.p.pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch { /* exited */ }
  }, 20);
  let bytes = 0;
  for (let off = 0; off < ROWS; off += 5000) {
    let text = '';
    for (let i = off; i < off + 5000; ++i) text += `{"id": ${i % 150000}, "s": "${pad}${i}"}\n`;
    bytes += text.length;
    w.sent = off + 5000;
    await w.write(text);
  }
  w.p.stdin.end();
  const { code } = await w.done;
  clearInterval(sample);
  assert.equal(code, 0, w.err);
  assert.equal(w.acked(), ROWS);
  console.log(`peak RSS ${(peak / 2 ** 20).toFixed(1)} MiB for a ${(bytes / 1e6).toFixed(0)} MB stream`);
  assert.ok(bytes > 60e6, `input ${bytes} bytes`);
  // The writer's summary: both shards claimed at the start (--claim-all), and the MemTables of
  // both together held the bound plus at most the appends in flight when it was reached (8
  // input pieces of ~1 MiB of JSON, ~1.3 MiB each in memory with their key index entries).
  const summary = JSON.parse(w.err.trim().split('\n').at(-1));
  console.log(`MemTables' peak ${(summary.memtable_peak_bytes / 2 ** 20).toFixed(1)} MiB (bound ${BOUND / 2 ** 20} MiB)`);
  assert.equal(summary.shards, 2);
  assert.ok(summary.memtable_peak_bytes >= BOUND / 2 && summary.memtable_peak_bytes <= BOUND + 8 * 1.5 * 2 ** 20,
    `MemTables' peak ${summary.memtable_peak_bytes} bytes against a bound of ${BOUND}`);
  // The MemTable bound, the flush's encoding of one generation, the input pieces in flight and
  // the process itself (measured before the bound was the process's: 83-98 MiB, 4 MiB per
  // shard); reading a 99 MB input whole held 356 MiB.
  assert.ok(peak > 0 && peak < 150 * 2 ** 20, `peak RSS ${(peak / 2 ** 20).toFixed(1)} MiB for a ${(bytes / 1e6).toFixed(0)} MB stream`);
  const got = readMap(uri);
  assert.equal(got.size, 150000);
  for (const id of [0, 1, 49999, 50000, 149999]) assert.equal(got.get(id), `${pad}${id < 50000 ? id + 150000 : id}`);
});
