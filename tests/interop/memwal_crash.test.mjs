// Crashes with real processes: `lance lsm write` (small batches, MemTables flushing every few
// rows) and `lance lsm merge` are SIGKILLed at random moments, again and again, on one table.
// After every kill the next writer recovers the shard (replaying the WAL) and keeps going.
// After every run, a strong read must hold, for every key, exactly one row whose value is the
// newest acknowledged write of that key or a later (unacknowledged but durable) one -- never an
// older one, never a key written only by unacknowledged rows with a value that was not
// written. At the end the reference opens the table and its query() (after our flush) equals
// our read, and merging everything leaves the base holding each key once.
// MEMWAL_CRASH_RUNS sets the number of kills (default 40; the 200 runs are
// `MEMWAL_CRASH_RUNS=200`).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { LANCE_BIN, lanceOk, scratchDir } from './lib/cli.mjs';
import * as mw from './lib/memwal.mjs';

const RUNS = Number(process.env.MEMWAL_CRASH_RUNS ?? 40);
const KEYS = 50;
const ROWS = 400;  // per run
const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));

function runAndKill(args, killAfterMs) {
  return new Promise((resolve) => {
    const p = spawn(LANCE_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => p.kill('SIGKILL'), killAfterMs);
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out, err });
    });
  });
}

test(`writers and mergers killed ${RUNS} times lose no acknowledged row`, async () => {
  const dir = scratchDir('lance-memwal-crash-');
  const { uri, schemaFile } = await mw.bucketedIdsTable(dir, 'c');
  // Per key: every value ever written, in write order, and the index of the newest acknowledged one.
  const history = new Map([0, 1, 2].map((k) => [k, [`base-${k}`]]));
  const ackedIdx = new Map([0, 1, 2].map((k) => [k, 0]));
  let seed = 7;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  let kills = 0;
  for (let run = 0; run < RUNS; ++run) {
    const rows = [];
    for (let i = 0; i < ROWS; ++i) rows.push({ id: Math.floor(rand() * KEYS), s: `r${run}-${i}` });
    const input = path.join(dir, `in${run}.jsonl`);
    fs.writeFileSync(input, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    for (const r of rows) {
      if (!history.has(r.id)) history.set(r.id, []);
      history.get(r.id).push(r.s);
    }
    const merger = run % 5 === 4;
    const args = merger ? ['lsm', 'merge', uri]
      : ['lsm', 'write', uri, '--input', input, '--schema', schemaFile, '--batch-rows', '7',
        '--max-in-flight', '4', '--max-rows', '60'];
    const r = await runAndKill(args, 5 + Math.floor(rand() * 120));
    if (r.signal === 'SIGKILL') ++kills;
    else assert.equal(r.code, 0, r.err);
    if (!merger) {
      const acks = jsonLines(r.out);
      const acked = acks.length ? acks[acks.length - 1].acked_rows : 0;
      for (let i = 0; i < acked; ++i) {
        const h = history.get(rows[i].id);
        // index of row i's value in the key's history
        ackedIdx.set(rows[i].id, Math.max(ackedIdx.get(rows[i].id) ?? -1, h.lastIndexOf(rows[i].s)));
      }
    }
    // Every acknowledged write survives: each key's value is its newest acknowledged one or
    // a later one; a key with no acknowledged write may be absent.
    const got = jsonLines(lanceOk(['lsm', 'scan', uri]).stdout);
    const seen = new Set();
    for (const row of got) {
      const id = Number(row.id);
      assert.ok(!seen.has(id), `run ${run}: key ${id} read twice`);
      seen.add(id);
      const h = history.get(id);
      assert.ok(h, `run ${run}: key ${id} was never written`);
      const at = h.lastIndexOf(row.s);
      assert.ok(at >= 0, `run ${run}: key ${id} has value ${row.s} that was never written`);
      assert.ok(at >= (ackedIdx.get(id) ?? -1), `run ${run}: key ${id} went back to ${row.s} (acked ${h[ackedIdx.get(id)]})`);
      // What we read is now fixed: later reads may not go back before it.
      ackedIdx.set(id, at);
    }
    for (const [id, at] of ackedIdx) {
      if (at >= 0) assert.ok(seen.has(id), `run ${run}: key ${id} (acknowledged ${history.get(id)[at]}) lost`);
    }
  }
  assert.ok(kills >= RUNS / 4, `only ${kills} of ${RUNS} processes were killed mid-flight`);
  // Recover everything, then the reference reads what we read; merge all and read again.
  lanceOk(['lsm', 'flush', uri]);
  const ours = jsonLines(lanceOk(['lsm', 'scan', uri]).stdout).map((r) => mw.rowText({ id: Number(r.id), s: r.s })).sort();
  const t = await (await lancedb.connect(dir)).openTable('c');
  const theirs = (await t.query().toArray()).map((r) => mw.rowText({ id: Number(r.id), s: r.s })).sort();
  assert.deepEqual(theirs, ours);
  lanceOk(['lsm', 'merge', uri]);
  const t2 = await (await lancedb.connect(dir)).openTable('c');
  assert.equal(await t2.countRows(), ours.length);
  const after = (await t2.query().toArray()).map((r) => mw.rowText({ id: Number(r.id), s: r.s })).sort();
  assert.deepEqual(after, ours);
});
