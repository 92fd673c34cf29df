// Our search of vector indexes lance 12 built (tests/golden/vector_index, gen.mjs) against
// lance 12's own nearestTo(...) on the same index: every returned row id in order and its
// _distance, for IVF_FLAT and IVF_PQ with l2 / cosine / dot, nprobes 1 / 2 / all, with and
// without a refine factor; then on a copy with deleted rows and an appended, unindexed
// fragment (deleted rows never returned, the unindexed rows searched exactly and merged).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const golden = path.join(here, '../golden/vector_index');
const answers = JSON.parse(fs.readFileSync(path.join(golden, 'answers.json'), 'utf8'));
const READABLE = answers.cases.filter((c) => c.type === 'ivf_flat' || c.type === 'ivf_pq');

function queries(seed, n, dim) {
  let s = seed >>> 0;
  const r = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s / 4294967296) * 2 - 1;
  };
  return Array.from({ length: n }, () => Array.from({ length: dim }, () => Math.fround(r() * 4)));
}

async function reference(t, q, metric, s, k) {
  let query = t.query().nearestTo(q).distanceType(metric).limit(k).withRowId(true)
    .select(['_distance']).nprobes(s.nprobes);
  if (s.refineFactor) query = query.refineFactor(s.refineFactor);
  return (await query.toArray()).map((r) => ({ rowid: BigInt(r._rowid), distance: r._distance }));
}

function ours(uri, q, metric, s, k) {
  const args = ['search', uri, '--column', 'vec', '--vector', JSON.stringify(q), '-k', String(k),
    '--nprobes', String(s.nprobes), '--metric', metric];
  if (s.refineFactor) args.push('--refine-factor', String(s.refineFactor));
  return lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => {
    const m = /^\{"_rowid":(\d+),"_distance":(.*)\}$/.exec(l);
    assert.ok(m, `bad line ${l}`);
    return { rowid: BigInt(m[1]), distance: Math.fround(Number(m[2])) };
  });
}

// IVF_FLAT cosine distances are the reference's to 1 ulp (its cosine over the stored unit
// vectors rounds differently in rare rows); every other distance is bit for bit.
// Rows in order with equal distances; where several rows tie at the k-th distance, which of
// them make the cut is the reference's arbitrary choice (its per-partition selection is not
// ordered by row id), so the last tie group is compared by distance only.
function assertSame(got, want, what, ulps = 0) {
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

const ulpsFor = (c) => (c.type === 'ivf_flat' && c.metric === 'cosine' ? 1 : 0);

const SEARCHES = [{ nprobes: 1 }, { nprobes: 2 }, { nprobes: 4 }, { nprobes: 2, refineFactor: 3 }];

describe('our search of lance 12 vector indexes equals its own', () => {
  let dir;
  before(() => { dir = scratchDir('lance-vector-read-'); });

  for (const c of READABLE) {
    test(`${c.name}`, async () => {
      const uri = path.join(dir, `${c.name}.lance`);
      fs.cpSync(path.join(golden, `${c.name}.lance`), uri, { recursive: true });
      const db = await lancedb.connect(dir);
      const t = await db.openTable(c.name);
      for (const s of SEARCHES) {
        for (const [qi, q] of queries(99, 6, answers.dim).entries()) {
          for (const k of [1, 10, 50]) {
            const want = await reference(t, q, c.metric, s, k);
            assertSame(ours(uri, q, c.metric, s, k), want, `${c.name} q${qi} k${k} ${JSON.stringify(s)}`,
              ulpsFor(c));
          }
        }
      }
    });

    test(`${c.name} with deleted rows and an unindexed fragment`, async () => {
      const name = `${c.name}_mut`;
      const uri = path.join(dir, `${name}.lance`);
      fs.cpSync(path.join(golden, `${c.name}.lance`), uri, { recursive: true });
      const db = await lancedb.connect(dir);
      const t = await db.openTable(name);
      await t.delete('id % 7 = 3');
      const extra = queries(5, 40, answers.dim);
      await t.add(makeTable([
        { name: 'id', type: new A.Int32(), nullable: false, values: extra.map((_, i) => 1000 + i) },
        { name: 'vec', type: new A.FixedSizeList(answers.dim, new A.Field('item', new A.Float32(), true)), values: extra },
      ], [extra.length]));
      for (const s of SEARCHES) {
        for (const [qi, q] of queries(77, 4, answers.dim).entries()) {
          const want = await reference(t, q, c.metric, s, 10);
          assertSame(ours(uri, q, c.metric, s, 10), want, `${name} q${qi} ${JSON.stringify(s)}`, ulpsFor(c));
        }
      }
    });
  }
});
