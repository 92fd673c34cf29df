// Shared by the vector-index interop tests: our `lance search` as rows, and the comparison of
// a result list with lance 12's.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { lanceOk } from './cli.mjs';

// The tests' deterministic LCG: uniform doubles in [-1, 1).
export function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s / 4294967296) * 2 - 1;
  };
}

// `n` vectors of `dim` float32 around `centres` LCG centres (values up to +-spread), each
// centre's rows interleaved (row i belongs to centre i % centres), +-1 noise.
export function clustered(seed, n, dim, centres = 10, spread = 3) {
  const r = lcg(seed);
  const cs = Array.from({ length: centres }, () => Array.from({ length: dim }, () => r() * spread));
  return Array.from({ length: n }, (_, i) => cs[i % centres].map((x) => Math.fround(x + r())));
}

// lance 12's nearestTo over column 'vec' as [{rowid, distance}]: search `s` ({nprobes,
// refineFactor, filter (a prefilter), ef}), or its exact search with `bypass`.
export async function referenceSearch(t, q, metric, s, k, bypass = false) {
  let query = t.query().nearestTo(q).distanceType(metric).limit(k).withRowId(true).select(['_distance']);
  query = bypass ? query.bypassVectorIndex() : query.nprobes(s.nprobes);
  if (s.refineFactor) query = query.refineFactor(s.refineFactor);
  if (s.filter) query = query.where(s.filter);
  if (s.ef) query = query.ef(s.ef);
  return (await query.toArray()).map((r) => ({ rowid: BigInt(r._rowid), distance: r._distance }));
}

// `lance search` of column 'vec' as [{rowid (BigInt), distance (float32)}], nearest first.
export function ours(uri, q, metric, s, k) {
  const args = ['search', uri, '--column', 'vec', '--vector', JSON.stringify(q), '-k', String(k),
    '--nprobes', String(s.nprobes), '--metric', metric, '--columns', '_rowid'];
  if (s.refineFactor) args.push('--refine-factor', String(s.refineFactor));
  if (s.ef) args.push('--ef', String(s.ef));
  if (s.filter) args.push('--filter', s.filter);
  return lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => {
    const m = /^\{"_rowid":(\d+),"_distance":(.*)\}$/.exec(l);
    assert.ok(m, `bad line ${l}`);
    return { rowid: BigInt(m[1]), distance: Math.fround(Number(m[2])) };
  });
}

// `lance search --queries` of column 'vec': every query of `qs` in one process, as ours() would
// answer each ([[{rowid, distance}]], one list per query, in order).
export function oursMany(uri, qs, metric, s, k) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lance-queries-'));
  const file = path.join(dir, 'q.jsonl');
  try {
    fs.writeFileSync(file, qs.map((q) => JSON.stringify(q)).join('\n') + '\n');
    const args = ['search', uri, '--column', 'vec', '--queries', file, '-k', String(k),
      '--nprobes', String(s.nprobes), '--metric', metric, '--columns', '_rowid'];
    if (s.refineFactor) args.push('--refine-factor', String(s.refineFactor));
    if (s.ef) args.push('--ef', String(s.ef));
    if (s.filter) args.push('--filter', s.filter);
    const out = qs.map(() => []);
    for (const l of lanceOk(args).stdout.split('\n').filter((x) => x)) {
      const m = /^\{"query_index":(\d+),"_rowid":(\d+),"_distance":(.*)\}$/.exec(l);
      assert.ok(m, `bad line ${l}`);
      out[Number(m[1])].push({ rowid: BigInt(m[2]), distance: Math.fround(Number(m[3])) });
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// On a CPU with AVX-512F, lance 12 sums float32 l2 and dot products in 16 lanes (its binary's
// dispatch); lance-cpp reproduces its 8-lane AVX2 order, bit for bit on AVX2 machines, so
// there the distances may differ in the last bits (seen: up to 2.4e-6 on a dot product of 768
// dimensions near -0.65, whose terms cancel). The allowance, in float32 ulps of max(1, |d|)
// (64: 7.7e-6), and the reorderings it permits among rows that close.
export const cpuUlps = (() => {
  try {
    return /\bavx512f\b/.test(fs.readFileSync('/proc/cpuinfo', 'utf8')) ? 64 : 0;
  } catch {
    return 0;
  }
})();

// `a` and `b` (float32 distances) equal, or within `ulps` float32 ulps of `b`.
export function near(a, b, ulps) {
  return ulps === 0 ? Object.is(a, b) : Object.is(a, b) || Math.abs(a - b) <= ulps * 1.2e-7 * Math.max(1, Math.abs(b));
}

// With an allowance, rows whose distances lie within it of a neighbour's may come in either
// order: their positions are compared as a set.
function nearTie(want, i, ulps) {
  if (ulps === 0) return false;
  return (i > 0 && near(want[i - 1].distance, want[i].distance, 2 * ulps)) ||
    (i + 1 < want.length && near(want[i + 1].distance, want[i].distance, 2 * ulps));
}

export function assertSameRows(got, want, what, ulps, lastTieByDistance) {
  assert.equal(got.length, want.length, `${what}: ${got.length} rows, lance 12 ${want.length}`);
  const last = want.length ? want[want.length - 1].distance : 0;
  const loose = [];
  for (let i = 0; i < want.length; i++) {
    const around = (xs) => xs.slice(Math.max(0, i - 2), i + 3).map((x) => `${x.rowid}:${x.distance}`).join(' ');
    assert.ok(near(got[i].distance, want[i].distance, ulps),
      `${what}: row ${i} distance ${got[i].distance}, lance 12 ${want[i].distance} (ours ${around(got)} / lance 12 ${around(want)})`);
    if (lastTieByDistance && near(want[i].distance, last, ulps)) continue;
    if (nearTie(want, i, ulps)) {
      loose.push(i);
      continue;
    }
    assert.equal(got[i].rowid, want[i].rowid,
      `${what}: row ${i} is ${got[i].rowid}, lance 12 ${want[i].rowid} (ours ${around(got)} / lance 12 ${around(want)})`);
  }
  const ids = (xs) => loose.map((i) => String(xs[i].rowid)).sort();
  assert.deepEqual(ids(got), ids(want), `${what}: rows at near-equal distances differ`);
}

// Rows in order with equal distances (bit for bit, or within `ulps` float32 ulps: IVF_FLAT
// cosine distances are the reference's to 1 ulp, its cosine over the stored unit vectors
// rounding differently in rare rows). Where several rows tie at the k-th distance, which of
// them make the cut is the reference's arbitrary choice (its per-partition selection is not
// ordered by row id), so the last tie group is compared by distance only.
export function assertSame(got, want, what, ulps = 0) {
  assertSameRows(got, want, what, Math.max(ulps, cpuUlps), true);
}
