// Shared by the vector-index interop tests: our `lance search` as rows, and the comparison of
// a result list with lance 12's.
import assert from 'node:assert/strict';

import { lanceOk } from './cli.mjs';

// `lance search` of column 'vec' as [{rowid (BigInt), distance (float32)}], nearest first.
export function ours(uri, q, metric, s, k) {
  const args = ['search', uri, '--column', 'vec', '--vector', JSON.stringify(q), '-k', String(k),
    '--nprobes', String(s.nprobes), '--metric', metric];
  if (s.refineFactor) args.push('--refine-factor', String(s.refineFactor));
  if (s.ef) args.push('--ef', String(s.ef));
  if (s.filter) args.push('--filter', s.filter);
  return lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => {
    const m = /^\{"_rowid":(\d+),"_distance":(.*)\}$/.exec(l);
    assert.ok(m, `bad line ${l}`);
    return { rowid: BigInt(m[1]), distance: Math.fround(Number(m[2])) };
  });
}

// Rows in order with equal distances (bit for bit, or within `ulps` float32 ulps: IVF_FLAT
// cosine distances are the reference's to 1 ulp, its cosine over the stored unit vectors
// rounding differently in rare rows). Where several rows tie at the k-th distance, which of
// them make the cut is the reference's arbitrary choice (its per-partition selection is not
// ordered by row id), so the last tie group is compared by distance only.
export function assertSame(got, want, what, ulps = 0) {
  assert.equal(got.length, want.length, `${what}: ${got.length} rows, lance 12 ${want.length}`);
  const same = (a, b) => (ulps === 0 ? Object.is(a, b)
    : Math.abs(a - b) <= ulps * 1.2e-7 * Math.max(1, Math.abs(b)));
  const last = want.length ? want[want.length - 1].distance : 0;
  for (let i = 0; i < want.length; i++) {
    const around = (xs) => xs.slice(Math.max(0, i - 2), i + 3).map((x) => `${x.rowid}:${x.distance}`).join(' ');
    assert.ok(same(got[i].distance, want[i].distance),
      `${what}: row ${i} distance ${got[i].distance}, lance 12 ${want[i].distance} (ours ${around(got)} / lance 12 ${around(want)})`);
    if (Object.is(want[i].distance, last)) continue;
    assert.equal(got[i].rowid, want[i].rowid,
      `${what}: row ${i} is ${got[i].rowid}, lance 12 ${want[i].rowid} (ours ${around(got)} / lance 12 ${around(want)})`);
  }
}
