// Shared by the vector optimize interop tests (vector_optimize*.test.mjs): the table (a first
// fragment, then an appended one), our `lance index optimize` of one index, and lance 12's view
// of the merged index checked against ours and its brute force.
import assert from 'node:assert/strict';

import * as A from 'apache-arrow';

import { lanceOk } from './cli.mjs';
import { makeTable } from './gen.mjs';
import { assertSame, clustered, cpuUlps, ours, referenceSearch } from './vector_search.mjs';

export const DIM = 16;
export const FIRST = 2000;
export const MORE = 600;
export const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));

const vs = clustered(5, FIRST + MORE, DIM, 10, 3);
export const queries = (n) => clustered(77, n, DIM, 10, 3).map((v) => v.map((x) => Math.fround(x * 0.9)));

// Rows start .. start + n - 1 (id, vec); the vector of row `nullRow` (when given) is null.
export function table(start, n, nullRow = -1) {
  return makeTable([
    { name: 'id', type: new A.Int32(), nullable: false, values: Array.from({ length: n }, (_, i) => start + i) },
    { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)),
      values: vs.slice(start, start + n).map((v, i) => (start + i === nullRow ? null : v)) },
  ], [n]);
}

// lance 12 over the optimized `t`: one segment covering every row, searched through `uuid`
// alone; for each of `qs`, full nprobes + refine equals brute force (its search and ours), and
// its answers at nprobes 1 / 2 / 4 and `extra` searches equal ours (within `ulps`).
export async function checkMerged(t, uri, uuid, metric, type, qs, { extra = [], ulps = 0 } = {}) {
  const stats = await t.indexStats('vec_idx');
  assert.equal(stats.numIndices, 1);
  assert.equal(stats.numUnindexedRows, 0);
  assert.equal(stats.numIndexedRows, FIRST + MORE);
  const plan = await t.query().nearestTo(qs[0]).distanceType(metric).nprobes(2).explainPlan(true);
  assert.match(plan, new RegExp(`ANNIvfPartition: uuid=${uuid}`));
  assert.doesNotMatch(plan, /KNNVectorDistance/);
  for (const [qi, q] of qs.entries()) {
    const exact = await referenceSearch(t, q, metric, {}, 10, true);
    const full = await referenceSearch(t, q, metric, { nprobes: 4, refineFactor: 300 }, 10);
    assertSame(full, exact, `${type} ${metric} q${qi} full nprobes + refine vs brute force`, 0);
    assertSame(ours(uri, q, metric, { nprobes: 4, refineFactor: 300 }, 10), exact,
      `ours ${type} ${metric} q${qi} full nprobes + refine vs brute force`, 0);
    for (const s of [{ nprobes: 1 }, { nprobes: 2 }, { nprobes: 4 }, ...extra]) {
      const want = await referenceSearch(t, q, metric, s, 10);
      assertSame(ours(uri, q, metric, s, 10), want, `${type} ${metric} q${qi} ${JSON.stringify(s)}`, ulps);
    }
  }
}

// `lance index optimize uri`: one index merged, fragment 1 new, a new uuid replacing `replaced`.
export function optimizeOne(uri, replaced) {
  const out = jsonLines(lanceOk(['index', 'optimize', uri]).stdout);
  assert.equal(out.length, 1);
  const [x] = out;
  assert.equal(x.outcome, 'merged', JSON.stringify(x));
  assert.deepEqual(x.new_fragments, [1]);
  if (replaced) assert.equal(x.replaced_uuid, replaced);
  assert.notEqual(x.uuid, x.replaced_uuid);
  return x;
}

export const segmentOf = (uri) => jsonLines(lanceOk(['indexes', uri]).stdout).find((x) => x.name === 'vec_idx');
export { cpuUlps };
