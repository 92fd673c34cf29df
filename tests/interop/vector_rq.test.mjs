// IVF_RQ (RaBitQ) both ways against lance 12 (docs/vector-rq.md):
//  * read: lance 12 builds IVF_RQ indexes (Index.ivfRq, 1 bit, l2 / cosine / dot, 16 and 32
//    dimensions); our `lance search` of them returns its rows in its order with its distances
//    (its RaBitQ estimates, bit for bit) for nprobes 1 / 4 / all, a refine factor, prefilters,
//    and after deleting rows;
//  * write: `lance create-index --type ivf_rq` builds one; lance 12 lists it as IvfRq, plans an
//    ANNIvfPartition over our uuid and answers exactly as our search does; recall@10 (nprobes
//    4, refine 10) of the median of three of our builds is at least the median of three of its
//    own builds minus 0.15.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';
import { assertSame, clustered, ours, referenceSearch } from './lib/vector_search.mjs';

const ROWS = 2000;


function table(vs, dim) {
  return makeTable([
    { name: 'id', type: new A.Int32(), nullable: false, values: vs.map((_, i) => i) },
    { name: 'vec', type: new A.FixedSizeList(dim, new A.Field('item', new A.Float32(), true)),
      values: vs.map((v, i) => (i === 7 ? null : v)) },
  ], [vs.length]);
}


const SEARCHES = [
  { nprobes: 1 }, { nprobes: 4 }, { nprobes: 8 }, { nprobes: 2, refineFactor: 3 },
  { nprobes: 3, filter: 'id % 3 = 0' }, { nprobes: 8, filter: 'id < 300' },
];

async function compareAll(t, uri, qs, metric, what) {
  let compared = 0;
  for (const s of SEARCHES) {
    for (const [qi, q] of qs.entries()) {
      for (const k of [1, 10, 40]) {
        const want = await referenceSearch(t, q, metric, s, k);
        const got = ours(uri, q, metric, s, k);
        assertSame(got, want, `${what} q${qi} k${k} ${JSON.stringify(s)}`);
        compared += 1;
      }
    }
  }
  return compared;
}

describe('IVF_RQ with lance 12', () => {
  let dir;
  let db;
  before(async () => {
    dir = scratchDir('lance-vector-rq-');
    db = await lancedb.connect(dir);
  });

  for (const [metric, dim] of [['l2', 16], ['l2', 32], ['cosine', 16], ['dot', 16]]) {
    test(`our search of its IVF_RQ ${metric} ${dim}d equals its own`, async () => {
      const name = `ref_${metric}_${dim}`;
      const vs = clustered(5 + dim, ROWS, dim);
      const qs = clustered(77 + dim, 4, dim).map((v) => v.map((x) => Math.fround(x * 0.9)));
      const t = await db.createTable(name, table(vs, dim));
      await t.createIndex('vec', { config: lancedb.Index.ivfRq({ numPartitions: 8, distanceType: metric }), name: 'vec_idx' });
      assert.equal((await t.indexStats('vec_idx')).indexType, 'IVF_RQ');
      const uri = path.join(dir, `${name}.lance`);
      assert.equal(await compareAll(t, uri, qs, metric, name), SEARCHES.length * qs.length * 3);
      // Deleted rows never come back, from either side.
      await t.delete('id % 5 = 1');
      await compareAll(t, uri, qs.slice(0, 2), metric, `${name} after delete`);
    });
  }

  for (const metric of ['l2', 'cosine', 'dot']) {
    test(`lance 12 lists, plans and answers from our IVF_RQ ${metric}`, async () => {
      const dim = 32;
      const name = `ours_${metric}`;
      const vs = clustered(9, ROWS, dim);
      const qs = clustered(31, 4, dim).map((v) => v.map((x) => Math.fround(x * 0.9)));
      const uri = path.join(dir, `${name}.lance`);
      const t = await db.createTable(name, table(vs, dim));
      const made = JSON.parse(lanceOk(['create-index', uri, 'vec', '--type', 'ivf_rq', '--num-bits', '1',
        '--metric', metric, '--partitions', '8', '--seed', '3']).stdout);
      assert.equal(made.type, 'IVF_RQ');
      assert.equal(made.num_rows, ROWS - 1);
      await t.checkoutLatest();
      const indices = await t.listIndices();
      assert.deepEqual(indices.map((x) => [x.name, x.indexType, x.columns]), [['vec_idx', 'IvfRq', ['vec']]]);
      const stats = await t.indexStats('vec_idx');
      assert.equal(stats.indexType, 'IVF_RQ');
      assert.equal(stats.numIndexedRows, ROWS);
      const plan = await t.query().nearestTo(qs[0]).distanceType(metric).nprobes(2).explainPlan(true);
      assert.match(plan, new RegExp(`ANNIvfPartition: uuid=${made.uuid}`));
      assert.doesNotMatch(plan, /KNNVectorDistance/);
      await compareAll(t, uri, qs, metric, name);

      // Recall@10 at nprobes 4, refine 10 (1-bit estimates alone rank a cluster's rows almost at
      // random: 0.14-0.33 over lance 12's own builds) against exact search: the median of three
      // of our builds (seeds 3, 4, 5) vs the median of three of lance 12's (its k-means and
      // rotation are random).
      const rqs = clustered(41, 24, dim).map((v) => v.map((x) => Math.fround(x * 0.9)));
      const exact = [];
      for (const q of rqs) exact.push(await referenceSearch(t, q, metric, {}, 10, true));
      const recall = async (tt) => {
        let r = 0;
        for (const [i, q] of rqs.entries()) {
          const want = new Set(exact[i].map((x) => x.rowid));
          r += (await referenceSearch(tt, q, metric, { nprobes: 4, refineFactor: 10 }, 10)).filter((x) => want.has(x.rowid)).length / 10;
        }
        return r / rqs.length;
      };
      const ourBuilds = [await recall(t)];
      for (const seed of [4, 5]) {
        const ot = await db.createTable(`${name}_ours${seed}`, table(vs, dim));
        lanceOk(['create-index', path.join(dir, `${name}_ours${seed}.lance`), 'vec', '--type', 'ivf_rq',
          '--metric', metric, '--partitions', '8', '--seed', String(seed)]);
        await ot.checkoutLatest();
        ourBuilds.push(await recall(ot));
      }
      const mine = [...ourBuilds].sort((a, b) => a - b)[1];
      const builds = [];
      for (let b = 0; b < 3; b++) {
        const rt = await db.createTable(`${name}_ref${b}`, table(vs, dim));
        await rt.createIndex('vec', { config: lancedb.Index.ivfRq({ numPartitions: 8, distanceType: metric }) });
        builds.push(await recall(rt));
      }
      const theirs = [...builds].sort((a, b) => a - b)[1];
      console.log(`${name}: recall@10 nprobes 4 refine 10: lance-cpp builds ${ourBuilds.map((x) => x.toFixed(3)).join(' ')}, lance 12 builds ${builds.map((x) => x.toFixed(3)).join(' ')}`);
      // 0.15: the partitions decide here (10 clusters over 8 partitions, 4 probed) and our IVF
      // k-means spreads like lance 12's over seeds (at 2 probes one run gave ours 0.525-0.825, its
      // 0.617-0.779), the KNOWN GAP vector_index_write.test.mjs allows for l2; on one index
      // both sides' answers are equal (above).
      assert.ok(mine >= theirs - 0.15, `${name}: recall ${mine} below the reference's ${theirs} - 0.15`);
    });
  }
});
