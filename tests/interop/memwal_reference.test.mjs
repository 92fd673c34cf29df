// MemWAL state written by the reference (lance 12 through lancedb's LSM write path) read by us:
//   * the MemWAL index details of every spec lancedb installs (bucket, identity, unsharded)
//     decode to the spec getLsmWriteSpec reports;
//   * routing: for bucket and identity sharding over every source type the reference accepts,
//     our shard of every row (`lance lsm route`) is the reference's: each group of rows we put
//     in one shard is accepted by its single-shard check as one mergeInsert, and lands in the
//     shard directory named by our shard id;
//   * shards, manifests and WAL entries of several shards with flushes, re-claims (fence
//     sentinels) and writers that exit without closing: every manifest we decode equals an
//     independent decoding of the same bytes, every WAL row equals what was written, in order,
//     and the unflushed tail (`lance lsm tail`) holds exactly the rows of the writers that
//     never closed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import * as mw from './lib/memwal.mjs';

const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));

// Child mode: upsert batches into a table and exit without closing the shard writer.
if (process.argv[2] === '--child') {
  const [dir, name, batchesJson] = process.argv.slice(3);
  const t = await (await lancedb.connect(dir)).openTable(name);
  for (const [ids, tag] of JSON.parse(batchesJson)) await mw.upsert(t, mw.idsTable(ids, tag));
  process.exit(0);
}
function childUpserts(dir, name, batches) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir, name, JSON.stringify(batches)],
    { encoding: 'utf8', env: process.env });
  assert.equal(r.status, 0, r.stderr);
}

// --- columns of every source type the reference takes ------------------------------------
const N = 48;
// Per type: the value of row i (null allowed where the type is nullable) and its Arrow type.
const cols = {
  int64: [(i) => BigInt(i * 7919 - 100000), () => new A.Int64()],
  int32: [(i) => (i % 5 === 4 ? null : i * 31 - 700), () => new A.Int32()],
  int8: [(i) => ((i * 37) % 256) - 128, () => new A.Int8()],
  uint16: [(i) => (i * 1301) % 65536, () => new A.Uint16()],
  uint32: [(i) => (i * 97000003) % 4294967296, () => new A.Uint32()],
  uint64: [(i) => (BigInt(i) * 0x9e3779b97f4a7c15n) % (1n << 64n), () => new A.Uint64()],
  float32: [(i) => [0, -0, 1.25, NaN, -3.5e10][i % 5] + (i > 4 ? i / 8 : 0), () => new A.Float32()],
  float64: [(i) => (i === 3 ? -0 : i === 5 ? NaN : i % 7 === 6 ? null : i * 1.1e-3 - 0.02), () => new A.Float64()],
  // no nulls: a group of only nulls would be an all-null bool array, which the reference's
  // IPC reader refuses in apache-arrow's encoding (nulls are covered by int32/float64/utf8)
  bool: [(i) => i % 3 === 0, () => new A.Bool()],
  date32: [(i) => new Date((i * 400 - 9000) * 86400000), () => new A.DateDay()],
  timestamp_ms: [(i) => new Date(1.7e12 + i * 123457), () => new A.TimestampMillisecond()],
  time32_ms: [(i) => i * 86399, () => new A.TimeMillisecond()],
  utf8: [(i) => (i % 9 === 8 ? null : ['', 'a', 'b', 'ü', '日本語', 'a'.repeat(i)][i % 6] + (i > 5 ? String(i) : '')), () => new A.Utf8()],
};
const identityTypes = new Set(['int64', 'int32', 'int8', 'uint16', 'uint32', 'uint64', 'bool', 'utf8']);

// Rows `rows` of the table of `type`: id = row number, c = the type's value, s = a label.
// Identity tables repeat five values (five shards).
function tableWith(type, rows = Array.from({ length: N }, (_, i) => i), identity = false) {
  const [value, arrowType] = cols[type];
  const values = rows.map((i) => value(identity ? i % 5 : i));
  const id = A.makeVector(BigInt64Array.from(rows.map(BigInt)));
  const c = A.vectorFromArray(values, arrowType());
  const s = A.vectorFromArray(rows.map((i) => `r${i}`), new A.Utf8());
  return new A.Table({ id, c, s });
}

async function routingCase(dir, type, spec) {
  const db = await lancedb.connect(dir);
  const name = `${type}_${spec.specType}`;
  const identity = spec.specType === 'identity';
  const data = tableWith(type, undefined, identity);
  const t = await db.createTable(name, tableWith(type, [0], identity));
  await t.setUnenforcedPrimaryKey('id');
  await t.setLsmWriteSpec({ ...spec, column: 'c', maintainedIndexes: [] });
  const uri = path.join(dir, `${name}.lance`);
  const input = path.join(dir, `${name}.arrows`);
  fs.writeFileSync(input, A.tableToIPC(data, 'stream'));
  const routed = jsonLines(lanceOk(['lsm', 'route', uri, '--input', input]).stdout);
  assert.equal(routed.length, N);
  const groups = new Map();
  routed.forEach((r, i) => {
    if (!groups.has(r.shard_id)) groups.set(r.shard_id, []);
    groups.get(r.shard_id).push(i);
  });
  // Bucket shard ids are lancedb's names of the bucket value we computed.
  for (const r of routed) {
    if (spec.specType === 'bucket') {
      const b = Buffer.from(r.values.bucket, 'hex').readInt32LE(0);
      assert.ok(b >= 0 && b < spec.numBuckets);
      assert.equal(r.shard_id, mw.bucketShardId(b));
    } else {
      assert.equal(r.shard_id, mw.identityShardId(Buffer.from(r.values.bucket, 'hex')));
    }
  }
  for (const [shard, rows] of groups) {
    // The reference checks that every row of one mergeInsert routes to one shard. A fresh
    // handle per group: its shard writer stays open (no flush), the WAL entry is durable.
    const handle = await (await lancedb.connect(dir)).openTable(name);
    await mw.upsert(handle, tableWith(type, rows, identity));
    const wal = mw.walPositions(uri, shard);
    assert.equal(wal.length, 1, `${name}: rows ${rows} did not land in our shard ${shard}`);
    const got = mw.readWalEntry(mw.walPath(uri, shard, wal[0]));
    assert.deepEqual(got.rows.map((r) => Number(r.id)), rows, `${name}: shard ${shard}`);
  }
  assert.deepEqual(mw.shardIds(uri), [...groups.keys()].sort(), `${name}: shard directories`);
  return groups.size;
}

test('routing and shard ids equal the reference for every source type', async () => {
  const dir = scratchDir('lance-memwal-route-');
  const report = [];
  for (const type of Object.keys(cols)) {
    report.push(`${type}/bucket:${await routingCase(dir, type, { specType: 'bucket', numBuckets: 8 })}`);
    if (identityTypes.has(type)) {
      if (tableWith(type, undefined, true).getChild('c').nullCount > 0) continue;  // no nulls
      report.push(`${type}/identity:${await routingCase(dir, type, { specType: 'identity' })}`);
    }
  }
  assert.ok(report.length >= 18, report.join(' '));
});

test('MemWAL index details of every spec lancedb installs', async () => {
  const dir = scratchDir('lance-memwal-spec-');
  const db = await lancedb.connect(dir);
  const cases = [
    [{ specType: 'bucket', column: 'id', numBuckets: 7, maintainedIndexes: [] }, 'bucket', 0, 'int32', 7],
    [{ specType: 'bucket', column: 's', numBuckets: 1024, maintainedIndexes: [], writerConfigDefaults: { durable_write: 'false' } }, 'bucket', 1, 'int32', 1024],
    [{ specType: 'identity', column: 's', maintainedIndexes: [] }, 'identity', 1, 'utf8', 0],
    [{ specType: 'unsharded', maintainedIndexes: [] }, 'unsharded', null, 'int32', 1],
  ];
  for (const [k, [spec, transform, source, resultType, numShards]] of cases.entries()) {
    const t = await db.createTable(`t${k}`, mw.idsTable([1, 2], 'x'));
    await t.setUnenforcedPrimaryKey('id');
    await t.setLsmWriteSpec(spec);
    const got = JSON.parse(lanceOk(['lsm', 'spec', path.join(dir, `t${k}.lance`)]).stdout);
    assert.equal(got.num_shards, numShards);
    assert.equal(got.sharding_specs.length, 1);
    const f = got.sharding_specs[0].fields[0];
    assert.equal(got.sharding_specs[0].spec_id, 1);
    assert.equal(f.transform, transform);
    assert.deepEqual(f.source_ids, source === null ? [] : [source]);
    assert.equal(f.result_type, resultType);
    assert.deepEqual(f.parameters, spec.numBuckets ? { num_buckets: String(spec.numBuckets) } : {});
    assert.deepEqual(got.writer_config_defaults, spec.writerConfigDefaults ?? {});
    assert.deepEqual(got.maintained_indexes, []);
    const ref = await t.getLsmWriteSpec();
    assert.equal(ref.specType, transform);
  }
});

test('shard manifests and WAL entries of flushes, re-claims and writers that never closed', async () => {
  const dir = scratchDir('lance-memwal-state-');
  const db = await lancedb.connect(dir);
  const NB = 4;
  const t = await db.createTable('state', mw.idsTable([0, 1, 2, 3, 4, 5], 'base'));
  await t.setUnenforcedPrimaryKey('id');
  await t.setLsmWriteSpec({ specType: 'bucket', column: 'id', numBuckets: NB, maintainedIndexes: [] });
  const uri = path.join(dir, 'state.lance');
  const k = [0, 1, 2, 3].map((b) => mw.keysInBucket(b, NB, 8, 1000));
  const written = new Map();  // shard -> [{ids, tag}] in write order
  const unflushed = new Map();
  const rec = (b, batches, closed) => {
    const s = mw.bucketShardId(b);
    written.set(s, [...(written.get(s) ?? []), ...batches]);
    unflushed.set(s, closed ? [] : [...(unflushed.get(s) ?? []), ...batches]);
  };
  // bucket 0: two writers that close (two generations, a sentinel between)
  let b0 = [[[k[0][0], k[0][1]], 'a'], [[k[0][0]], 'b']];
  for (const [ids, tag] of b0) await mw.upsert(t, mw.idsTable(ids, tag));
  await t.closeLsmWriters();
  rec(0, b0, true);
  const t2 = await (await lancedb.connect(dir)).openTable('state');
  b0 = [[[k[0][2]], 'c'], [[k[0][1], k[0][3]], 'd']];
  for (const [ids, tag] of b0) await mw.upsert(t2, mw.idsTable(ids, tag));
  await t2.closeLsmWriters();
  rec(0, b0, true);
  // bucket 1: a writer that exits without closing, then another one
  childUpserts(dir, 'state', [[[k[1][0], k[1][1], k[1][2]], 'e'], [[k[1][0]], 'f']]);
  rec(1, [[[k[1][0], k[1][1], k[1][2]], 'e'], [[k[1][0]], 'f']], false);
  childUpserts(dir, 'state', [[[k[1][3]], 'g']]);
  rec(1, [[[k[1][3]], 'g']], false);
  // bucket 2: exits without closing, then a writer replays it and closes
  childUpserts(dir, 'state', [[[k[2][0]], 'h']]);
  rec(2, [[[k[2][0]], 'h']], false);
  const t3 = await (await lancedb.connect(dir)).openTable('state');
  await mw.upsert(t3, mw.idsTable([k[2][1]], 'i'));
  await t3.closeLsmWriters();
  rec(2, [[[k[2][1]], 'i']], true);

  const shards = jsonLines(lanceOk(['lsm', 'shards', uri]).stdout);
  assert.deepEqual(shards.map((m) => m.shard_id), mw.shardIds(uri));
  assert.deepEqual(shards.map((m) => m.shard_id).sort(), [...written.keys()].sort());
  for (const shard of written.keys()) {
    // Every manifest version: ours equals an independent decoding of the bytes.
    const ours = jsonLines(lanceOk(['lsm', 'manifests', uri, '--shard', shard]).stdout);
    const versions = mw.manifestVersions(uri, shard);
    assert.deepEqual(ours.map((m) => m.version), versions);
    for (const m of ours) assert.deepEqual(m, mw.readManifest(uri, shard, m.version), `${shard} v${m.version}`);
    // Every WAL entry: epochs and sentinels as the headers say, rows as written.
    const entries = jsonLines(lanceOk(['lsm', 'wal', uri, '--shard', shard]).stdout);
    assert.deepEqual(entries.map((e) => e.position), mw.walPositions(uri, shard));
    for (const e of entries) {
      const js = mw.readWalEntry(mw.walPath(uri, shard, e.position));
      assert.equal(e.writer_epoch, js.writer_epoch);
      assert.equal(e.fence_sentinel, js.fence_sentinel);
      assert.equal(e.rows, js.rows.length);
    }
    const epochsOfSentinels = entries.filter((e) => e.fence_sentinel).map((e) => e.writer_epoch);
    const latest = ours[ours.length - 1];
    assert.deepEqual(epochsOfSentinels, Array.from({ length: latest.writer_epoch - 1 }, (_, i) => i + 2),
      `${shard}: one sentinel per re-claim`);
    const want = written.get(shard).flatMap(([ids, tag]) => ids.map((id) => ({ id, s: `${tag}-${id}`, _tombstone: false })));
    assert.deepEqual(jsonLines(lanceOk(['lsm', 'wal', uri, '--shard', shard, '--rows']).stdout), want);
    const tail = unflushed.get(shard).flatMap(([ids, tag]) => ids.map((id) => ({ id, s: `${tag}-${id}`, _tombstone: false })));
    assert.deepEqual(jsonLines(lanceOk(['lsm', 'tail', uri, '--shard', shard, '--rows']).stdout), tail, `${shard} tail`);
  }
});
