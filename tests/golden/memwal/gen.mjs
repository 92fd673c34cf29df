// Writes tests/golden/memwal/memwal.lance: MemWAL state written by the reference
// (@lancedb/lancedb 0.39.0 = Rust lance 12.0.0) through its LSM write path, and expected.json,
// what went in (computed from the inputs, not read back). Read by src/memwal/golden_test.cc.
//
// Table: id int64 (unenforced primary key), s utf8; 8 base rows; setLsmWriteSpec bucket(id, 4).
//   shard of bucket 0: three upserts, closeLsmWriters (flush of generation 1); a second handle
//     re-claims (fence sentinel), one upsert, close (generation 2);
//   shard of bucket 1: a child process upserts twice and exits without closing (WAL tail only);
//   shard of bucket 2: a child process upserts once and exits without closing, then the parent
//     re-claims, upserts once more and exits without closing (replay + sentinel, tail only).
//
// Usage (from the repository root):
//   NODE_PATH=tests/interop/node_modules node tests/golden/memwal/gen.mjs
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const lib = await import(path.join(here, '../../interop/lib/memwal.mjs'));
const { createRequire } = await import('node:module');
const require = createRequire(path.join(here, '../../interop/package.json'));
const lancedb = require('@lancedb/lancedb');

const N = 4;
const [k0, k1, k2] = [0, 1, 2].map((b) => lib.keysInBucket(b, N, 6, 100));

async function open(dir) {
  return (await lancedb.connect(dir)).openTable('memwal');
}

// Child mode: upsert the batches given as JSON and exit without closing the writer.
if (process.argv[2] === '--child') {
  const [dir, batchesJson] = process.argv.slice(3);
  const t = await open(dir);
  for (const [ids, tag] of JSON.parse(batchesJson)) await lib.upsert(t, lib.idsTable(ids, tag));
  process.exit(0);
}

function child(dir, batches) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir, JSON.stringify(batches)],
    { env: process.env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'memwal-golden-'));
const db = await lancedb.connect(scratch);
const t = await db.createTable('memwal', lib.idsTable([0, 1, 2, 3, 4, 5, 6, 7], 'base'));
await t.setUnenforcedPrimaryKey('id');
await t.setLsmWriteSpec({ specType: 'bucket', column: 'id', numBuckets: N, maintainedIndexes: [] });

const expected = { num_buckets: N, shards: {} };
const rowsOf = (ids, tag) => ids.map((i) => ({ id: i, s: `${tag}-${i}`, _tombstone: false }));
function record(bucket, batches) {
  const id = lib.bucketShardId(bucket);
  expected.shards[id] ??= { bucket, batches: [] };
  for (const [ids, tag] of batches) expected.shards[id].batches.push(rowsOf(ids, tag));
}

// bucket 0
const b0 = [[[k0[0], k0[1]], 'a'], [[k0[0]], 'b'], [[k0[2], k0[3]], 'c']];
for (const [ids, tag] of b0) await lib.upsert(t, lib.idsTable(ids, tag));
await t.closeLsmWriters();
const t2 = await open(scratch);
const b0b = [[[k0[1], k0[4]], 'd']];
for (const [ids, tag] of b0b) await lib.upsert(t2, lib.idsTable(ids, tag));
await t2.closeLsmWriters();
record(0, [...b0, ...b0b]);

// bucket 1: a writer that exits without closing
const b1 = [[[k1[0], k1[1], k1[2]], 'e'], [[k1[0]], 'f']];
child(scratch, b1);
record(1, b1);

// bucket 2: exit without closing, re-claim, exit without closing again
const b2a = [[[k2[0]], 'g']];
child(scratch, b2a);
const b2b = [[[k2[1], k2[0]], 'h']];
child(scratch, b2b);
record(2, [...b2a, ...b2b]);

const out = path.join(here, 'memwal.lance');
fs.rmSync(out, { recursive: true, force: true });
fs.cpSync(path.join(scratch, 'memwal.lance'), out, { recursive: true });
fs.writeFileSync(path.join(here, 'expected.json'), JSON.stringify(expected, null, 1) + '\n');
fs.rmSync(scratch, { recursive: true, force: true });
console.log(`wrote ${out}`);
