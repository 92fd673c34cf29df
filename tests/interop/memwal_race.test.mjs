// Races between real processes (issue 12 part 12):
//   * two `lance lsm merge` processes started together, round after round, on a table with new
//     flushed generations in every shard: between them every generation is merged exactly once
//     (their reports name disjoint generations whose union is every new one), merged_generations
//     reaches each shard's newest generation, and lance 12 reads the base holding each key once
//     with its newest value (countRows of the base = the model's keys);
//   * two `lance lsm write` processes on one shard: the second claims it while the first is
//     writing; the first is fenced (exits with Fenced) and lands nothing afterwards -- every
//     WAL entry after the second's fence sentinel is the second's epoch, the first's rows in the
//     WAL are a prefix of its input, at most one past its last acknowledgement -- while every
//     acknowledged row is read, by us and by lance 12.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { LANCE_BIN, lanceAll, lanceOk, scratchDir } from './lib/cli.mjs';
import * as mw from './lib/memwal.mjs';

const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));
const rowsOf = (list) => list.map((r) => mw.rowText({ id: Number(r.id), s: r.s })).sort();

test('two mergers racing merge every generation exactly once', async () => {
  const dir = scratchDir('lance-memwal-race-merge-');
  const db = await lancedb.connect(dir);
  const base = Array.from({ length: 20 }, (_, i) => i);
  await db.createTable('m', mw.idsTable(base, 'base'));
  const uri = path.join(dir, 'm.lance');
  lanceOk(['lsm', 'enable', uri, '--primary-key', 'id', '--bucket', 'id:4']);
  const model = new Map(base.map((i) => [i, `base-${i}`]));
  const status = () => new Map(jsonLines(lanceOk(['lsm', 'status', uri]).stdout).map((s) => [s.shard_id, s]));
  const merged = new Set();  // "shard/generation" merged so far
  for (let round = 0; round < 6; ++round) {
    // Two flushed generations in every shard: updates, new keys, deletes.
    for (const [k, ids] of [[0, [1, 5, 9, 13, 30 + round, 40 + round]], [1, [2, 6, 10, 14, 5]]]) {
      const tag = `r${round}g${k}`;
      const file = path.join(dir, `${tag}.arrows`);
      fs.writeFileSync(file, A.tableToIPC(mw.idsTable(ids, tag), 'stream'));
      const del = round % 3 === 2 && k === 1;
      lanceOk(['lsm', 'write', uri, '--input', file, '--flush', ...(del ? ['--delete'] : [])]);
      for (const id of ids) {
        if (del) model.delete(id);
        else model.set(id, `${tag}-${id}`);
      }
    }
    const before = status();
    const want = new Set();
    for (const [shard, s] of before) {
      for (const g of s.flushed_generations) if (!merged.has(`${shard}/${g}`)) want.add(`${shard}/${g}`);
    }
    assert.ok(want.size >= 4, `round ${round}: generations to merge: ${[...want]}`);
    const results = await lanceAll([['lsm', 'merge', uri], ['lsm', 'merge', uri]]);
    const got = [];
    for (const r of results) {
      assert.equal(r.status, 0, `round ${round}: ${r.stderr}`);
      for (const line of jsonLines(r.stdout)) got.push(`${line.shard_id}/${line.generation}`);
    }
    // Disjoint, and together every new generation.
    assert.equal(new Set(got).size, got.length, `round ${round}: a generation merged twice: ${got}`);
    assert.deepEqual(new Set(got), want, `round ${round}`);
    for (const g of got) merged.add(g);
    for (const [shard, s] of status()) {
      assert.equal(s.merged_generation, Math.max(...s.flushed_generations), `round ${round}: shard ${shard}`);
    }
    const t = await (await lancedb.connect(dir)).openTable('m');
    const want_rows = rowsOf([...model].map(([id, s]) => ({ id, s })));
    assert.deepEqual(rowsOf(await t.query().toArray()), want_rows, `round ${round}: lance 12 reads the merged table`);
    assert.equal(await t.countRows(), model.size, `round ${round}: the base holds each key once`);
    assert.deepEqual(rowsOf(jsonLines(lanceOk(['lsm', 'scan', uri]).stdout)), want_rows, `round ${round}: ours`);
  }
});

// `lance lsm write` of `file` (one batch per row, each waiting for its acknowledgement):
// onAck(n) after each acknowledgement line; resolves to the exit status and output.
function writer(uri, file, schemaFile, onAck) {
  return new Promise((resolve) => {
    const p = spawn(LANCE_BIN, ['lsm', 'write', uri, '--input', file, '--schema', schemaFile, '--batch-rows', '1',
      '--max-in-flight', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let acked = 0;
    p.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n').filter((l) => l.startsWith('{"acked_rows"'));
      if (lines.length) {
        const n = JSON.parse(lines.at(-1)).acked_rows;
        if (n !== acked) { acked = n; if (onAck) onAck(n); }
      }
    });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => resolve({ code, out, err, acked }));
  });
}

test('two writers racing for one shard: the older is fenced and lands nothing afterwards', async () => {
  const dir = scratchDir('lance-memwal-race-write-');
  const db = await lancedb.connect(dir);
  await db.createTable('w', mw.idsTable([0, 1, 2], 'base'));
  const uri = path.join(dir, 'w.lance');
  lanceOk(['lsm', 'enable', uri, '--primary-key', 'id', '--unsharded']);
  const schemaFile = path.join(dir, 'schema.json');
  fs.writeFileSync(schemaFile, JSON.stringify({ fields: [
    { name: 'id', type: 'int64', nullable: true }, { name: 's', type: 'utf8', nullable: true }] }));
  const shard = mw.unshardedShardId();
  const lines = (rows) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  // A: a long stream of one-row batches; B starts once A has 3 acknowledged, and claims the shard.
  const aRows = Array.from({ length: 3000 }, (_, i) => ({ id: 100 + (i % 50), s: `a-${i}` }));
  const bRows = [{ id: 100, s: 'b-0' }, { id: 200, s: 'b-1' }, { id: 101, s: 'b-2' }];
  fs.writeFileSync(path.join(dir, 'a.jsonl'), lines(aRows));
  fs.writeFileSync(path.join(dir, 'b.jsonl'), lines(bRows));
  let bDone = null;
  const ra = await writer(uri, path.join(dir, 'a.jsonl'), schemaFile, (n) => {
    if (n >= 3 && !bDone) bDone = writer(uri, path.join(dir, 'b.jsonl'), schemaFile);
  });
  assert.ok(bDone, `A acknowledged ${ra.acked} rows: ${ra.err}`);
  const rb = await bDone;
  assert.equal(rb.code, 0, rb.err);
  assert.equal(rb.acked, bRows.length);
  assert.notEqual(ra.code, 0, 'the fenced writer exits with an error');
  assert.match(ra.err, /[Ff]enced/);
  assert.ok(ra.acked >= 3 && ra.acked < aRows.length, `A acknowledged ${ra.acked}`);

  // WAL: A's entries, then B's sentinel and entries only (B's epoch).
  const entries = mw.walPositions(uri, shard).map((pos) => [pos, mw.readWalEntry(mw.walPath(uri, shard, pos))]);
  const sentinel = entries.findIndex(([, e]) => e.fence_sentinel);
  assert.ok(sentinel > 0, `a fence sentinel after A's entries: ${JSON.stringify(entries.map(([p, e]) => [p, e.writer_epoch]))}`);
  const bEpoch = entries[sentinel][1].writer_epoch;
  for (const [pos, e] of entries.slice(0, sentinel)) assert.ok(e.writer_epoch < bEpoch, `position ${pos} before the sentinel`);
  for (const [pos, e] of entries.slice(sentinel)) assert.equal(e.writer_epoch, bEpoch, `position ${pos} after the sentinel is B's`);
  // A's rows in the WAL: a prefix of its input holding every acknowledged one (a durable row
  // whose acknowledgement the fence cut off may be there too); B's rows after the sentinel.
  const aLanded = entries.slice(0, sentinel).flatMap(([, e]) => e.rows.map((r) => r.s));
  assert.deepEqual(aLanded, aRows.slice(0, aLanded.length).map((r) => r.s));
  assert.ok(aLanded.length >= ra.acked, `${aLanded.length} rows of A landed, ${ra.acked} acknowledged`);
  assert.ok(aLanded.length <= ra.acked + 1, `A landed ${aLanded.length} rows, acknowledged ${ra.acked}: it kept writing after the claim`);
  assert.deepEqual(entries.slice(sentinel).flatMap(([, e]) => e.rows.map((r) => r.s)), bRows.map((r) => r.s));

  // The newest value of each key: A's landed rows, then B's.
  const model = new Map([0, 1, 2].map((i) => [i, `base-${i}`]));
  for (const r of [...aRows.slice(0, aLanded.length), ...bRows]) model.set(r.id, r.s);
  const want = rowsOf([...model].map(([id, s]) => ({ id, s })));
  assert.deepEqual(rowsOf(jsonLines(lanceOk(['lsm', 'scan', uri]).stdout)), want, 'our strong read');
  lanceOk(['lsm', 'flush', uri]);
  const t = await (await lancedb.connect(dir)).openTable('w');
  assert.deepEqual(rowsOf(await t.query().toArray()), want, 'lance 12 after the flush');
});
