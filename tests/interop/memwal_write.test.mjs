// MemWAL state written by us, read and continued by the reference (lance 12 via lancedb), and
// the reference's read by us -- whole results compared (every row, sorted by key):
//   * on a table the reference set up (primary key + bucket(4) spec), our `lance lsm write`
//     upserts and deletes, flushed as generations (dedup deletion vectors, _pk_index): the
//     reference's query() equals our model and our eventual `lsm scan`;
//   * our unflushed WAL tail: our strong scan has it, the reference's query() does not, until a
//     reference writer claims our shard, replays our WAL entries, keeps writing and flushes:
//     then its query() and our scan hold our tail and its rows;
//   * `lance lsm merge` folds every generation into the base: the reference's query() is
//     unchanged (no merged generation counted twice) and its countRows() of the base alone is
//     the model's size;
//   * a table we enable ourselves (`lsm enable`) is one the reference writes to through its LSM
//     path, and we read its generations and its writer's unflushed tail;
//   * `lance lsm get` point lookups (shard pruning, bloom filter, _pk_index) over our
//     generations and over the reference's generations and WAL tail equal the model.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import * as mw from './lib/memwal.mjs';

const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));
const sorted = (rows) => rows.map((r) => ({ id: Number(r.id), s: r.s })).sort((a, b) => a.id - b.id);
const modelRows = (m) => [...m.entries()].map(([id, s]) => ({ id, s })).sort((a, b) => a.id - b.id);

// Child mode: upsert batches into a table and exit without closing the shard writer.
if (process.argv[2] === '--child') {
  const [dir, name, batchesJson] = process.argv.slice(3);
  const t = await (await lancedb.connect(dir)).openTable(name);
  for (const [ids, tag] of JSON.parse(batchesJson)) await mw.upsert(t, mw.idsTable(ids, tag));
  process.exit(0);
}

async function refQuery(dir, name) {
  const t = await (await lancedb.connect(dir)).openTable(name);
  return sorted(await t.query().toArray());
}
const ourScan = (uri, consistency) =>
  sorted(jsonLines(lanceOk(['lsm', 'scan', uri, '--consistency', consistency]).stdout));

// `lance lsm get` of `ids`: the rows (in key order) and what it read (stderr).
function ourGet(uri, ids, consistency) {
  const r = lanceOk(['lsm', 'get', uri, '--consistency', consistency, ...ids.flatMap((k) => ['--key', String(k)])]);
  const rows = jsonLines(r.stdout).map((x) => ({ id: Number(x.id), s: x.s }));
  const stats = jsonLines(r.stderr).at(-1);
  return { rows, stats };
}
// The model's rows of `ids`, in the order of their first appearance in `ids`.
const modelGet = (m, ids) => [...new Set(ids)].filter((k) => m.has(k)).map((k) => ({ id: k, s: m.get(k) }));

function write(dir, uri, ids, tag, extra = []) {
  const file = path.join(dir, `in-${tag}-${ids.length}-${Math.random().toString(16).slice(2)}.arrows`);
  fs.writeFileSync(file, A.tableToIPC(mw.idsTable(ids, tag), 'stream'));
  const r = lanceOk(['lsm', 'write', uri, '--input', file, ...extra]);
  const acks = jsonLines(r.stdout);
  assert.equal(acks[acks.length - 1].acked_rows, ids.length);
}
function apply(model, ids, tag, del = false) {
  for (const id of ids) {
    if (del) model.delete(id);
    else model.set(id, `${tag}-${id}`);
  }
}

test('the reference reads, continues and sees merged what we write', async () => {
  const dir = scratchDir('lance-memwal-write-');
  const db = await lancedb.connect(dir);
  const t = await db.createTable('w', mw.idsTable([0, 1, 2, 3, 4, 5, 6, 7], 'base'));
  await t.setUnenforcedPrimaryKey('id');
  await t.setLsmWriteSpec({ specType: 'bucket', column: 'id', numBuckets: 4, maintainedIndexes: [] });
  const uri = path.join(dir, 'w.lance');
  const model = new Map([0, 1, 2, 3, 4, 5, 6, 7].map((i) => [i, `base-${i}`]));

  // Flushed generations (repeats inside one write: the deletion vector hides the older row).
  write(dir, uri, [1, 10, 11, 12, 13, 10], 'a', ['--flush']);
  model.set(1, 'a-1'); model.set(10, 'a-10'); model.set(11, 'a-11'); model.set(12, 'a-12'); model.set(13, 'a-13');
  write(dir, uri, [10, 20, 2, 21], 'b', ['--flush']);
  apply(model, [10, 20, 2, 21], 'b');
  write(dir, uri, [11, 3, 99], 'x', ['--flush', '--delete']);
  apply(model, [11, 3, 99], 'x', true);
  const flushed = modelRows(model);
  assert.deepEqual(await refQuery(dir, 'w'), flushed);
  assert.deepEqual(ourScan(uri, 'eventual'), flushed);
  assert.deepEqual(ourScan(uri, 'strong'), flushed);
  // Point lookups of present, deleted and absent keys (out of order, repeated) equal the model
  // and the reference's filtered query; one key reads only the shard it routes to.
  const probe = [21, 3, 0, 99, 10, 1, 11, 1000, 13, 2, 7];
  assert.deepEqual(ourGet(uri, probe, 'eventual').rows, modelGet(model, probe));
  {
    const ref = await (await lancedb.connect(dir)).openTable('w');
    const refRows = sorted(await ref.query().where(`id IN (${probe.join(', ')})`).toArray());
    assert.deepEqual(refRows, modelGet(model, probe).sort((a, b) => a.id - b.id));
  }
  // A filter applies to each key's newest row, in our scan and the reference's query: 10 was
  // written 'a-10' then 'b-10', 11 'a-11' then deleted, so neither passes "s LIKE 'a%'".
  {
    const where = "s LIKE 'a%' OR id < 3";
    const ref = await (await lancedb.connect(dir)).openTable('w');
    const want = modelRows(model).filter((r) => r.s.startsWith('a') || r.id < 3);
    assert.deepEqual(sorted(await ref.query().where(where).toArray()), want);
    const ours = sorted(jsonLines(lanceOk(['lsm', 'scan', uri, '--consistency', 'eventual', '--filter', where]).stdout));
    assert.deepEqual(ours, want);
  }
  // A filter that pins the key is answered by point lookups, only in the shards the keys
  // route to, with the reference's rows.
  {
    const where = `id IN (${probe.join(', ')}) AND NOT s LIKE 'a%'`;
    const ref = await (await lancedb.connect(dir)).openTable('w');
    const want = modelGet(model, probe).filter((r) => !r.s.startsWith('a')).sort((a, b) => a.id - b.id);
    assert.deepEqual(sorted(await ref.query().where(where).toArray()), want);
    const r = lanceOk(['lsm', 'scan', uri, '--consistency', 'eventual', '--filter', where]);
    assert.deepEqual(sorted(jsonLines(r.stdout)), want);
    const st = JSON.parse(r.stderr.trim().split('\n').pop());
    assert.equal(st.point_keys, new Set(probe).size, r.stderr);
    const single = lanceOk(['lsm', 'scan', uri, '--filter', 'id = 20']);
    assert.deepEqual(jsonLines(single.stdout), [{ id: 20, s: 'b-20' }]);
    assert.equal(JSON.parse(single.stderr.trim().split('\n').pop()).shards_pruned, mw.shardIds(uri).length - 1);
  }
  const one = ourGet(uri, [20], 'strong');
  assert.deepEqual(one.rows, [{ id: 20, s: 'b-20' }]);
  assert.equal(one.stats.shards_searched, 1, JSON.stringify(one.stats));
  assert.equal(one.stats.shards_pruned, mw.shardIds(uri).length - 1, JSON.stringify(one.stats));
  assert.equal(one.stats.keys_from_generations, 1, JSON.stringify(one.stats));

  // An unflushed tail in bucket 0: only strong reads see it...
  // (b0[3] survives only if the reference replays our entry; baseKey is deleted by our tail.)
  const b0 = mw.keysInBucket(0, 4, 4, 100);
  const baseKey = [...model.keys()].find((k) => mw.bucketOfInt64(k, 4) === 0);
  assert.ok(baseKey !== undefined);
  write(dir, uri, [b0[0], b0[1], b0[3]], 'c');
  write(dir, uri, [b0[0], baseKey], 'y', ['--delete']);
  const withTail = new Map(model);
  apply(withTail, [b0[0], b0[1], b0[3]], 'c');
  apply(withTail, [b0[0], baseKey], 'y', true);
  assert.deepEqual(ourScan(uri, 'strong'), modelRows(withTail));
  assert.deepEqual(ourScan(uri, 'eventual'), flushed);
  assert.deepEqual(await refQuery(dir, 'w'), flushed);
  // `lance scan` reads a MemWAL table through its LSM: strong by default, eventual on request
  // (the reference's query()), base for the base table alone; --limit counts merged rows.
  {
    const scan = (...extra) => sorted(jsonLines(lanceOk(['scan', uri, ...extra]).stdout));
    assert.deepEqual(scan(), modelRows(withTail));
    assert.deepEqual(scan('--consistency', 'eventual'), flushed);
    const base = jsonLines(lanceOk(['scan', uri, '--consistency', 'base']).stdout);
    assert.equal(base.length, Number(lanceOk(['count', uri]).stdout.trim()));
    assert.ok(base.length < flushed.length, 'the base alone lacks the unmerged generations');
    assert.equal(jsonLines(lanceOk(['scan', uri, '--limit', '3', '--offset', '2']).stdout).length, 3);
    assert.deepEqual(scan('--filter', `id = ${b0[1]}`), [{ id: b0[1], s: `c-${b0[1]}` }]);
    const r = lance(['scan', uri, '--with-row-id']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /--consistency base/);
  }
  // ...until a reference writer claims the shard: it replays our entries and keeps writing.
  const t2 = await (await lancedb.connect(dir)).openTable('w');
  await mw.upsert(t2, mw.idsTable([b0[2], b0[1]], 'r'));
  await t2.closeLsmWriters();
  apply(withTail, [b0[2], b0[1]], 'r');
  assert.deepEqual(await refQuery(dir, 'w'), modelRows(withTail));
  assert.deepEqual(ourScan(uri, 'eventual'), modelRows(withTail));
  // A --no-sync writer (not durable: its WAL entries are never fsynced) writes the same WAL:
  // strong reads and the reference's next writer see its rows.
  write(dir, uri, [b0[2], 5000], 'n', ['--no-sync', '--flush']);
  apply(withTail, [b0[2], 5000], 'n');
  assert.deepEqual(ourScan(uri, 'strong'), modelRows(withTail));
  assert.deepEqual(await refQuery(dir, 'w'), modelRows(withTail));

  // Merge into the base: the same rows, now all in the base.
  const merged = jsonLines(lanceOk(['lsm', 'merge', uri]).stdout);
  assert.ok(merged.length >= 4, JSON.stringify(merged));
  const st = jsonLines(lanceOk(['lsm', 'stats', uri]).stdout);
  for (const s of st) assert.deepEqual(s.merged_generation, s.flushed_generations.at(-1) ?? 0, JSON.stringify(s));
  const fresh = await (await lancedb.connect(dir)).openTable('w');
  assert.deepEqual(sorted(await fresh.query().toArray()), modelRows(withTail));
  assert.equal(await fresh.countRows(), withTail.size);
  assert.deepEqual(ourScan(uri, 'strong'), modelRows(withTail));
  // Merging again merges nothing.
  assert.deepEqual(jsonLines(lanceOk(['lsm', 'merge', uri]).stdout), []);

  // Garbage collection: with the default horizon (an hour) nothing this young goes; at 0s every
  // merged generation directory and every WAL entry a flushed generation covers goes, and the
  // reference still reads the same rows and keeps writing (claim, sentinel, flush) after it.
  const genDirs = () => mw.shardIds(uri).flatMap((s) =>
    fs.readdirSync(path.join(uri, '_mem_wal', s)).filter((d) => /_gen_\d+$/.test(d)).map((d) => `${s}/${d}`)).sort();
  const walFiles = () => mw.shardIds(uri).flatMap((s) => mw.walPositions(uri, s).map((p) => `${s}/${p}`)).sort();
  const dirsBefore = genDirs();
  const walBefore = walFiles();
  assert.ok(dirsBefore.length >= 4, JSON.stringify(dirsBefore));
  assert.deepEqual(jsonLines(lanceOk(['lsm', 'gc', uri]).stdout).flatMap((s) => s.generation_dirs), []);
  assert.deepEqual(genDirs(), dirsBefore);
  const dry = jsonLines(lanceOk(['lsm', 'gc', uri, '--older-than', '0s', '--dry-run']).stdout);
  assert.deepEqual(genDirs(), dirsBefore);
  assert.deepEqual(walFiles(), walBefore);
  const gc = jsonLines(lanceOk(['lsm', 'gc', uri, '--older-than', '0s']).stdout);
  assert.deepEqual(gc, dry);
  const manifests = jsonLines(lanceOk(['lsm', 'shards', uri]).stdout);
  const wantWal = [];
  for (const s of mw.shardIds(uri)) {
    const m = manifests.find((x) => x.shard_id === s);
    const r = gc.find((x) => x.shard_id === s);
    assert.equal(r.replay_after_wal_entry_position, m.replay_after_wal_entry_position);
    for (const p of walBefore.filter((w) => w.startsWith(`${s}/`)).map((w) => Number(w.split('/')[1]))) {
      if (p > m.replay_after_wal_entry_position) wantWal.push(`${s}/${p}`);
    }
  }
  assert.deepEqual(genDirs(), []);  // every generation was merged
  assert.deepEqual(walFiles(), wantWal.sort());
  assert.deepEqual(await refQuery(dir, 'w'), modelRows(withTail));
  assert.deepEqual(ourScan(uri, 'strong'), modelRows(withTail));
  const t3 = await (await lancedb.connect(dir)).openTable('w');
  await mw.upsert(t3, mw.idsTable([b0[0], b0[3]], 'after-gc'));
  await t3.closeLsmWriters();
  apply(withTail, [b0[0], b0[3]], 'after-gc');
  assert.deepEqual(await refQuery(dir, 'w'), modelRows(withTail));
  assert.deepEqual(ourScan(uri, 'strong'), modelRows(withTail));
  assert.ok(jsonLines(lanceOk(['lsm', 'merge', uri]).stdout).length >= 1);
  assert.deepEqual(await refQuery(dir, 'w'), modelRows(withTail));
});

test('a table we enable takes the reference writer, and we read its generations and tail', async () => {
  const dir = scratchDir('lance-memwal-enable-');
  const db = await lancedb.connect(dir);
  await db.createTable('e', mw.idsTable([0, 1, 2, 3], 'base'));
  const uri = path.join(dir, 'e.lance');
  const en = JSON.parse(lanceOk(['lsm', 'enable', uri, '--primary-key', 'id', '--bucket', 'id:2']).stdout);
  assert.deepEqual(en.primary_key, ['id']);
  const t = await (await lancedb.connect(dir)).openTable('e');
  const spec = await t.getLsmWriteSpec();
  assert.equal(spec.specType, 'bucket');
  const model = new Map([0, 1, 2, 3].map((i) => [i, `base-${i}`]));
  const k0 = mw.keysInBucket(0, 2, 3, 10);
  const k1 = mw.keysInBucket(1, 2, 3, 10);
  await mw.upsert(t, mw.idsTable([k0[0], k0[1]], 'a'));
  await mw.upsert(t, mw.idsTable([k0[0]], 'b'));
  await t.closeLsmWriters();
  apply(model, [k0[0], k0[1]], 'a');
  apply(model, [k0[0]], 'b');
  assert.deepEqual(ourScan(uri, 'eventual'), modelRows(model));
  assert.deepEqual(await refQuery(dir, 'e'), modelRows(model));
  // A reference writer that exits without closing: its rows are in the WAL only.
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir, 'e',
    JSON.stringify([[[k1[0], k1[1]], 'c'], [[k1[0]], 'd']])], { encoding: 'utf8', env: process.env });
  assert.equal(child.status, 0, child.stderr);
  const eventual = modelRows(model);
  apply(model, [k1[0], k1[1]], 'c');
  apply(model, [k1[0]], 'd');
  assert.deepEqual(ourScan(uri, 'eventual'), eventual);
  assert.deepEqual(ourScan(uri, 'strong'), modelRows(model));
  // Point lookups over the reference's generations (its bloom filters and _pk_index) and its
  // writer's unflushed tail.
  const probe = [k1[0], k0[0], 2, k1[1], 77, k0[1], 0];
  const eventualModel = new Map(eventual.map((r) => [r.id, r.s]));
  assert.deepEqual(ourGet(uri, probe, 'strong').rows, modelGet(model, probe));
  assert.deepEqual(ourGet(uri, probe, 'eventual').rows, modelGet(eventualModel, probe));
  const g = ourGet(uri, [k0[1]], 'eventual');
  assert.deepEqual(g.rows, modelGet(model, [k0[1]]));
  assert.equal(g.stats.keys_from_generations, 1, JSON.stringify(g.stats));
  assert.equal(g.stats.shards_pruned, 1, JSON.stringify(g.stats));
  const tailGet = ourGet(uri, [k1[0]], 'strong');
  assert.equal(tailGet.stats.keys_from_wal_tail, 1, JSON.stringify(tailGet.stats));
  // We flush its tail and merge everything; the reference reads the result.
  lanceOk(['lsm', 'flush', uri]);
  assert.deepEqual(await refQuery(dir, 'e'), modelRows(model));
  lanceOk(['lsm', 'merge', uri]);
  const fresh = await (await lancedb.connect(dir)).openTable('e');
  assert.deepEqual(sorted(await fresh.query().toArray()), modelRows(model));
  assert.equal(await fresh.countRows(), model.size);
});
