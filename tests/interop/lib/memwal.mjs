// MemWAL helpers for the interop tests and golden generators: an independent JS version of the
// spec's bucket hash (Appendix 3) and lancedb's shard ids (UUIDv5), the bit-reversed names, a
// raw protobuf reader for shard manifests, and driving the reference's LSM write path.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk } from './cli.mjs';

import { fields, uuidText } from './protobuf.mjs';

// --- Appendix 3 murmur3 (u32 wrapping arithmetic via Math.imul / >>> 0) ---
const rotl = (x, r) => ((x << r) | (x >>> (32 - r))) >>> 0;
const mixK1 = (k) => Math.imul(rotl(Math.imul(k, 0xcc9e2d51) >>> 0, 15), 0x1b873593) >>> 0;
const mixH1 = (h, k) => ((Math.imul(rotl((h ^ k) >>> 0, 13), 5) + 0xe6546b64) >>> 0);
function fmix(h, len) {
  h = (h ^ len) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
export const hashI32 = (v) => fmix(mixH1(0, mixK1(v >>> 0)), 4);
export function hashI64(v) {
  const u = BigInt.asUintN(64, BigInt(v));
  const low = Number(u & 0xffffffffn);
  const high = Number(u >> 32n);
  return fmix(mixH1(mixH1(0, mixK1(low)), mixK1(high)), 8);
}
export function hashBytes(bytes) {
  let h = 0;
  let i = 0;
  for (; i + 4 <= bytes.length; i += 4) {
    const chunk = (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24)) >>> 0;
    h = mixH1(h, mixK1(chunk));
  }
  for (; i < bytes.length; ++i) h = mixH1(h, mixK1(((bytes[i] << 24) >> 24) >>> 0));
  return fmix(h, bytes.length);
}
export const bucketOf = (hash, n) => (hash & 0x7fffffff) % n;
export const bucketOfInt64 = (v, n) => bucketOf(hashI64(v), n);
export const bucketOfUtf8 = (s, n) => bucketOf(hashBytes(Buffer.from(s, 'utf8')), n);

// --- lancedb's shard ids ---
const NAMESPACE = Buffer.from('4c534d5752495445' + '5f53484152443031', 'hex');
export function uuidV5(nameBytes) {
  const h = crypto.createHash('sha1').update(NAMESPACE).update(nameBytes).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
export const bucketShardId = (b) => uuidV5(Buffer.from(`bucket-${b}`));
export const unshardedShardId = () => uuidV5(Buffer.from('unsharded'));
export const identityShardId = (raw) => uuidV5(Buffer.concat([Buffer.from('identity-'), raw]));

// --- layout ---
export function bitrev(n) {
  let s = '';
  let v = BigInt(n);
  for (let i = 0; i < 64; ++i) { s += (v & 1n) ? '1' : '0'; v >>= 1n; }
  return s;
}
export const walPath = (table, shard, pos) => path.join(table, '_mem_wal', shard, 'wal', `${bitrev(pos)}.arrow`);
export const manifestPath = (table, shard, v) => path.join(table, '_mem_wal', shard, 'manifest', `${bitrev(v)}.binpb`);
export const shardIds = (table) => {
  try { return fs.readdirSync(path.join(table, '_mem_wal')).sort(); } catch { return []; }
};
export function walPositions(table, shard) {
  let files = [];
  try { files = fs.readdirSync(path.join(table, '_mem_wal', shard, 'wal')); } catch { return []; }
  return files.filter((f) => /^[01]{64}\.arrow$/.test(f))
    .map((f) => Number([...f.slice(0, 64)].reduceRight((a, c) => a * 2n + BigInt(c === '1'), 0n)))
    .sort((a, b) => a - b);
}
export function manifestVersions(table, shard) {
  let files = [];
  try { files = fs.readdirSync(path.join(table, '_mem_wal', shard, 'manifest')); } catch { return []; }
  return files.filter((f) => /^[01]{64}\.binpb$/.test(f))
    .map((f) => Number([...f.slice(0, 64)].reduceRight((a, c) => a * 2n + BigInt(c === '1'), 0n)))
    .sort((a, b) => a - b);
}

// --- the ShardManifest protobuf (field numbers of mem_wal.md / table.proto) ---
export function decodeShardManifest(bytes) {
  const m = { shard_id: null, version: 0, shard_spec_id: 0, shard_field_entries: [], writer_epoch: 0,
    replay_after_wal_entry_position: 0, wal_entry_position_last_seen: 0, current_generation: 0,
    flushed_generations: [], status: 'ACTIVE' };
  for (const [no, v] of fields(bytes)) {
    if (no === 1) m.version = Number(v);
    else if (no === 2) m.writer_epoch = Number(v);
    else if (no === 3) m.replay_after_wal_entry_position = Number(v);
    else if (no === 4) m.wal_entry_position_last_seen = Number(v);
    else if (no === 6) m.current_generation = Number(v);
    else if (no === 8) {
      const g = { generation: 0, path: '', in_memory_bytes: null, physical_rows: null, primary_key_bytes: null };
      for (const [n2, v2] of fields(v)) {
        if (n2 === 1) g.generation = Number(v2);
        else if (n2 === 2) g.path = Buffer.from(v2).toString('utf8');
        else if (n2 === 3) g.in_memory_bytes = Number(v2);
        else if (n2 === 4) g.physical_rows = Number(v2);
        else if (n2 === 5) g.primary_key_bytes = Number(v2);
      }
      m.flushed_generations.push(g);
    } else if (no === 10) m.shard_spec_id = Number(v);
    else if (no === 11) m.shard_id = uuidText(fields(v).find(([n2]) => n2 === 1)[1]);
    else if (no === 14) {
      const e = { field_id: '', value_hex: '' };
      for (const [n2, v2] of fields(v)) {
        if (n2 === 1) e.field_id = Buffer.from(v2).toString('utf8');
        else if (n2 === 2) e.value_hex = Buffer.from(v2).toString('hex');
      }
      m.shard_field_entries.push(e);
    } else if (no === 15) m.status = Number(v) === 1 ? 'SEALED' : 'ACTIVE';
  }
  return m;
}
export const readManifest = (table, shard, v) => decodeShardManifest(fs.readFileSync(manifestPath(table, shard, v)));

// A WAL entry read with apache-arrow: { writer_epoch, fence_sentinel, fields, rows }.
export function readWalEntry(file) {
  const r = A.RecordBatchReader.from(fs.readFileSync(file));
  r.open();
  const schema = r.schema;
  const md = schema.metadata;
  const rows = [];
  for (const b of r) {
    for (const row of b) rows.push(row.toJSON());
  }
  return {
    writer_epoch: Number(md.get('writer_epoch')),
    fence_sentinel: md.get('fence_sentinel') === 'true',
    fields: schema.fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable,
      metadata: Object.fromEntries(f.metadata) })),
    rows,
  };
}

// Rows as sortable JSON text (bigints as decimal strings).
export const rowText = (r) => JSON.stringify(r, (k, v) => (typeof v === 'bigint' ? v.toString() : v));

// --- the reference's LSM write path ---
export function idsTable(ids, tag) {
  const id = A.makeVector(BigInt64Array.from(ids.map(BigInt)));
  const s = A.vectorFromArray(ids.map((i) => `${tag}-${i}`), new A.Utf8());
  return new A.Table({ id, s });
}
// A lance 12 table `name` of ids 0, 1, 2 (s 'base-k') in `dir`, MemWAL enabled by our CLI
// (primary key id, bucket(id, 2)), and the schema file of JSON-lines upserts (id int64, s utf8)
// for `lance lsm write`. Returns { uri, schemaFile }.
export async function bucketedIdsTable(dir, name) {
  const db = await lancedb.connect(dir);
  await db.createTable(name, idsTable([0, 1, 2], 'base'));
  const uri = path.join(dir, `${name}.lance`);
  lanceOk(['lsm', 'enable', uri, '--primary-key', 'id', '--bucket', 'id:2']);
  const schemaFile = path.join(dir, 'schema.json');
  fs.writeFileSync(schemaFile, JSON.stringify({ fields: [
    { name: 'id', type: 'int64', nullable: true }, { name: 's', type: 'utf8', nullable: true }] }));
  return { uri, schemaFile };
}
export async function upsert(table, arrowTable) {
  return table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(arrowTable);
}
// The first `count` keys >= `from` whose int64 bucket (of n) is `bucket`.
export function keysInBucket(bucket, n, count, from = 0) {
  const out = [];
  for (let k = from; out.length < count; ++k) if (bucketOfInt64(k, n) === bucket) out.push(k);
  return out;
}
