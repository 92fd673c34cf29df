// A raw protobuf wire reader for tests that check what lance 12 and lance-cpp commit (no
// schema: field numbers as the .proto files give them), and the Rewrite of a transaction file.
import fs from 'node:fs';
import path from 'node:path';

export function varint(buf, pos) {
  let v = 0n;
  let shift = 0n;
  for (;;) {
    const b = buf[pos.i++];
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
    shift += 7n;
  }
}

// Every field of a message: [number, BigInt (varint) | Uint8Array (length-delimited)]; fixed
// 32/64-bit fields are skipped.
export function fields(buf) {
  const out = [];
  const pos = { i: 0 };
  while (pos.i < buf.length) {
    const key = Number(varint(buf, pos));
    const wt = key & 7;
    if (wt === 0) out.push([key >> 3, varint(buf, pos)]);
    else if (wt === 2) {
      const len = Number(varint(buf, pos));
      out.push([key >> 3, buf.subarray(pos.i, pos.i + len)]);
      pos.i += len;
    } else if (wt === 1 || wt === 5) pos.i += wt === 1 ? 8 : 4;
    else throw new Error(`unexpected wire type ${wt}`);
  }
  return out;
}

// The values of field `no`, in order.
export const field = (buf, no) => fields(buf).filter(([n]) => n === no).map(([, v]) => v);

// 16 UUID bytes as text.
export const uuidText = (b) => {
  const x = Buffer.from(b).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
};

// A transaction file's operation field number and, for a Rewrite (104), its rewritten indices:
// [old uuid, new uuid, details type URL, index version, [file paths]] (transaction.proto).
export function readTransaction(file) {
  const op = fields(fs.readFileSync(file)).find(([n]) => n >= 100);
  if (op[0] !== 104) return { op: op[0] };
  const indices = field(op[1], 4).map((ri) => [
    uuidText(field(field(ri, 1)[0], 1)[0]), uuidText(field(field(ri, 2)[0], 1)[0]),
    Buffer.from(field(field(ri, 3)[0], 1)[0]).toString(), Number(field(ri, 4)[0] ?? 0n),
    field(ri, 5).map((f) => Buffer.from(field(f, 1)[0]).toString())]);
  return { op: 104, indices };
}

// The rewritten indices of the Rewrite (104) the table at `uri` committed reading version `v`
// (its _transactions/{v}-*.txn files; a compaction's ReserveFragments is read at v too).
export function rewriteReadAt(uri, v) {
  for (const f of fs.readdirSync(path.join(uri, '_transactions')).filter((x) => x.startsWith(`${v}-`))) {
    const t = readTransaction(path.join(uri, '_transactions', f));
    if (t.op === 104) return t.indices;
  }
  throw new Error(`${uri}: no Rewrite read at version ${v}`);
}
