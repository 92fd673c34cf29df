// Our search of vector indexes lance 12 built (tests/golden/vector_index, gen.mjs) against
// lance 12's own nearestTo(...) on the same index: every returned row id in order and its
// _distance, for IVF_FLAT and IVF_PQ with l2 / cosine / dot, nprobes 1 / 2 / all, with and
// without a refine factor, and IVF_HNSW_SQ / IVF_HNSW_PQ also with ef and prefilters; then on a copy with deleted rows and an appended, unindexed
// fragment (deleted rows never returned, the unindexed rows searched exactly and merged).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';
import { assertSame, ours } from './lib/vector_search.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const golden = path.join(here, '../golden/vector_index');
const answers = JSON.parse(fs.readFileSync(path.join(golden, 'answers.json'), 'utf8'));
const READABLE = answers.cases.filter((c) => ['ivf_flat', 'ivf_pq', 'ivf_hnsw_sq', 'ivf_hnsw_pq'].includes(c.type));

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
  if (s.ef) query = query.ef(s.ef);
  if (s.filter) query = query.where(s.filter);
  return (await query.toArray()).map((r) => ({ rowid: BigInt(r._rowid), distance: r._distance }));
}


const ulpsFor = (c) => (c.type === 'ivf_flat' && c.metric === 'cosine' ? 1 : 0);

const BASE_SEARCHES = [{ nprobes: 1 }, { nprobes: 2 }, { nprobes: 4 }, { nprobes: 2, refineFactor: 3 }];
// IVF_HNSW_SQ also with ef (small: the graph walk decides; large: every reachable row) and
// prefilters (a third of the rows pass: the graph walk skips the others; under 10 % pass:
// lance's exact scan of the passing rows).
const HNSW_SEARCHES = [
  { nprobes: 1, ef: 10 }, { nprobes: 2, ef: 12 }, { nprobes: 2, ef: 40 }, { nprobes: 4, ef: 200 },
  { nprobes: 2, refineFactor: 2, ef: 30 }, { nprobes: 2, filter: 'id % 3 = 0' },
  { nprobes: 4, ef: 20, filter: 'id % 3 = 1' }, { nprobes: 2, filter: 'id < 40' },
];
const searchesFor = (c) => (c.type.startsWith('ivf_hnsw') ? [...BASE_SEARCHES, ...HNSW_SEARCHES] : BASE_SEARCHES);

describe('our search of lance 12 vector indexes equals its own', () => {
  let dir;
  before(() => { dir = scratchDir('lance-vector-read-'); });

  for (const c of READABLE) {
    test(`${c.name}`, async () => {
      const uri = path.join(dir, `${c.name}.lance`);
      fs.cpSync(path.join(golden, `${c.name}.lance`), uri, { recursive: true });
      const db = await lancedb.connect(dir);
      const t = await db.openTable(c.name);
      for (const s of searchesFor(c)) {
        for (const [qi, q] of queries(99, 6, answers.dim).entries()) {
          for (const k of [1, 10, 50]) {
            if (s.ef && s.ef < k * (s.refineFactor ?? 1)) continue;  // lance 12 refuses ef < k x refine
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
      for (const s of searchesFor(c)) {
        for (const [qi, q] of queries(77, 4, answers.dim).entries()) {
          const want = await reference(t, q, c.metric, s, 10);
          assertSame(ours(uri, q, c.metric, s, 10), want, `${name} q${qi} ${JSON.stringify(s)}`, ulpsFor(c));
        }
      }
    });
  }
});
