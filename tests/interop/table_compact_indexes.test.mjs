// Our compaction of datasets lance 12 indexed (BTREE, BITMAP, FTS, IVF_PQ), with and without
// stable row ids:
//   * lance 12 creates the table (three indexed fragments, two appended unindexed ones),
//     indexes it, deletes rows, and records its own answers;
//   * we compact: without stable row ids the BTREE, BITMAP, FTS and IVF_PQ indexes are
//     remapped (new segments covering the new fragments, as lance 12 remaps them); with
//     stable row ids each bitmap
//     trades a covered group's old fragments for its new ones; no group mixes fragments of
//     different index coverage;
//   * lance 12's filters still plan through the scalar indexes, and every filter, full-text
//     and (exhaustive) vector query returns the rows of brute force over our scan and of
//     its own answers before the compaction;
//   * lance 12 appends and optimizes (compaction + index optimize) on top; we read its result
//     equal to its own reading and its queries stay equal to our scans.
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { canonicalLines } from './lib/canonical.mjs';
import { indexedRows as rows, vecOf } from './lib/indexed_rows.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';


const sortedLines = (text) => text.split('\n').filter((l) => l).sort().join('\n');
const idsOf = (text) => text.split('\n').filter((l) => l).map((l) => Number(JSON.parse(l).id)).sort((a, b) => a - b);
const FILTERS = ['id = 42', 'id = 43', 'id >= 590 AND id < 615', 'id = 650', 'id = 960', "cat = 'c3'",
                 "cat = 'c3' AND id > 500", 'id > 1020'];
const INDEX_OF = (f) => (f.startsWith('cat') ? 'cat' : 'id');
const KEYS = [[3, 1, 31.2, 1], [0, 0, 0, 1], [6, 2, 99.9, 1]];
const dist = (i, key) => vecOf(i).reduce((s, v, k) => s + (Math.fround(v) - key[k]) ** 2, 0);

// lance 12's answers: every filter (rows), full-text 'kiwi' and 'apple' (ids), the 20 nearest
// distances of each key from an exhaustive search (all partitions, refined over every row).
async function answers(t, { checkPlans }) {
  const out = { filters: {}, fts: {}, vec: {} };
  for (const f of FILTERS) {
    const q = t.query().where(f);
    if (checkPlans) {
      const plan = await q.explainPlan(true);
      assert.match(plan, /ScalarIndexQuery/, `${f} goes through an index:\n${plan}`);
      assert.match(plan, new RegExp(`${INDEX_OF(f)}_idx`), `${f} names its index:\n${plan}`);
    }
    out.filters[f] = sortedLines(canonicalLines(await q.toArrow()));
  }
  for (const word of ['kiwi', 'apple']) {
    const hits = await t.query().fullTextSearch(word).select(['id']).limit(100000).toArray();
    out.fts[word] = hits.map((r) => Number(r.id)).sort((a, b) => a - b);
  }
  for (const key of KEYS) {
    const q = t.query().nearestTo(key).nprobes(2).refineFactor(1000).limit(20).select(['id']);
    if (checkPlans) assert.match(await q.explainPlan(true), /ANNSubIndex|ANNIvfPartition/);
    const hits = await q.toArray();
    out.vec[key] = hits.map((h) => dist(Number(h.id), key)).sort((a, b) => a - b);
  }
  return out;
}

// Brute force over our scan of `uri`.
function bruteForce(uri) {
  const out = { filters: {}, fts: {}, vec: {} };
  for (const f of FILTERS) out.filters[f] = sortedLines(lanceOk(['scan', uri, '--where', f]).stdout);
  for (const word of ['kiwi', 'apple']) {
    out.fts[word] = idsOf(lanceOk(['scan', uri, '--columns', 'id', '--where', `text LIKE '%${word}%'`]).stdout);
  }
  const live = idsOf(lanceOk(['scan', uri, '--columns', 'id']).stdout);
  for (const key of KEYS) out.vec[key] = live.map((i) => dist(i, key)).sort((a, b) => a - b).slice(0, 20);
  return out;
}

function assertSameAnswers(got, want, what) {
  for (const f of FILTERS) assert.equal(got.filters[f], want.filters[f], `${what}: ${f}`);
  for (const w of Object.keys(want.fts)) assert.deepEqual(got.fts[w], want.fts[w], `${what}: fts ${w}`);
  for (const k of Object.keys(want.vec)) {
    assert.equal(got.vec[k].length, want.vec[k].length, `${what}: vector ${k}`);
    for (let i = 0; i < want.vec[k].length; i++) {
      assert.ok(Math.abs(got.vec[k][i] - want.vec[k][i]) < 1e-3, `${what}: vector ${k}: ${got.vec[k]} vs ${want.vec[k]}`);
    }
  }
}

const ourIndexes = (uri) => lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));

for (const stable of [false, true]) {
  describe(`our compaction of an indexed dataset${stable ? ' with stable row ids' : ''}`, () => {
    test('lance 12 answers through its indexes as before, equal to brute force over our scan', async () => {
      const dir = scratchDir('lance-compact-indexes-');
      const uri = path.join(dir, 't.lance');
      const db = await lancedb.connect(dir);
      const t = await db.createTable('t', rows(0, 300),
        stable ? { storageOptions: { new_table_enable_stable_row_ids: 'true' } } : {});
      await t.add(rows(300, 300));
      await t.add(rows(600, 300));
      await t.createIndex('id', { config: lancedb.Index.btree() });
      await t.createIndex('cat', { config: lancedb.Index.bitmap() });
      await t.createIndex('text', { config: lancedb.Index.fts() });
      await t.createIndex('vec', { config: lancedb.Index.ivfPq({ numPartitions: 2, numSubVectors: 2 }) });
      await t.add(rows(900, 50));
      await t.add(rows(950, 50));
      // 20% of fragments 0 and 1 deleted: both are rewritten; fragment 2 (300 rows, no
      // deletions) stays; the unindexed 3 and 4 are merged, apart from the indexed ones.
      await t.delete('id < 600 AND id % 5 = 3');
      const before = await answers(t, { checkPlans: true });
      assertSameAnswers(before, bruteForce(uri), 'before');
      const indexesBefore = ourIndexes(uri);
      for (const x of indexesBefore) assert.deepEqual(x.fragment_ids, [0, 1, 2]);

      const r = JSON.parse(lanceOk(['compact', uri, '--target-rows-per-fragment', '250']).stdout);
      assert.equal(r.fragments_removed, 4);
      assert.equal(r.rows_rewritten, 580);
      const m = JSON.parse(lanceOk(['manifest', uri]).stdout);
      // Group [0, 1] becomes 5 and 6 (250 + 230 rows) in its place, fragment 2 stays, the
      // unindexed [3, 4] becomes 7.
      assert.deepEqual(m.fragments.map((f) => [f.id, f.physical_rows]), [[5, 250], [6, 230], [2, 300], [7, 100]]);
      const newIds = [5, 6];
      const indexesAfter = ourIndexes(uri);
      // Without stable row ids every index is remapped (a new segment each, covering the new
      // fragments; table_compact_remap.test.mjs checks the scalar and IVF ones in full,
      // table_compact_remap_fts.test.mjs the full-text one).
      const remapped = (x) => !stable && ['BTREE', 'BITMAP', 'INVERTED', 'IVF_PQ'].includes(x.type);
      const uuidBefore = Object.fromEntries(indexesBefore.map((x) => [x.name, x.uuid]));
      for (const x of indexesAfter) {
        if (remapped(x)) assert.notEqual(x.uuid, uuidBefore[x.name], x.name);
        else assert.equal(x.uuid, uuidBefore[x.name], x.name);
        // Stable or remapped: old ids traded for the new fragments of the covered group;
        // otherwise untouched.
        assert.deepEqual(x.fragment_ids, stable || remapped(x) ? [2, newIds[0], newIds[1]] : [0, 1, 2], x.name);
      }

      const t2 = await (await lancedb.connect(dir)).openTable('t');
      assert.equal((await t2.listIndices()).length, 4);
      for (const ix of await t2.listIndices()) {
        const s = await t2.indexStats(ix.name);
        // lance 12 counts the rows of the fragments the index lists and still has.
        const whole = stable || ['id_idx', 'cat_idx', 'text_idx', 'vec_idx'].includes(ix.name);
        assert.equal(s.numIndexedRows, whole ? 780 : 300, ix.name);
        assert.equal(s.numUnindexedRows, whole ? 100 : 580, ix.name);
      }
      const after = await answers(t2, { checkPlans: true });
      assertSameAnswers(after, bruteForce(uri), 'after our compaction vs our scan');
      assertSameAnswers(after, before, 'after our compaction vs lance 12 before it');
      // Every row equal, read by both.
      assert.equal(sortedLines(canonicalLines(await t2.query().toArrow())), sortedLines(lanceOk(['scan', uri]).stdout));

      // lance 12 appends and optimizes on top: its compaction, index remap and index update
      // work on our manifest; we read the result as it does, and its answers stay right.
      await t2.add(rows(1000, 100));
      await t2.optimize();
      for (const ix of await t2.listIndices()) {
        const s = await t2.indexStats(ix.name);
        assert.equal(s.numIndexedRows, 980, ix.name);
        assert.equal(s.numUnindexedRows, 0, ix.name);
      }
      assert.equal(sortedLines(canonicalLines(await t2.query().toArrow())), sortedLines(lanceOk(['scan', uri]).stdout));
      const optimized = await answers(t2, { checkPlans: true });
      assertSameAnswers(optimized, bruteForce(uri), 'after lance 12 optimize vs our scan');
      assert.equal(ourIndexes(uri).length, 4);

      // And we compact again on top of lance 12's optimized indexes: everything becomes one
      // fragment. With stable row ids the indexes cover it; without, we remap every one of
      // them (lance 12's optimized full-text and IVF_PQ segments included).
      await t2.delete('id >= 1000 AND id % 2 = 0');
      lanceOk(['compact', uri, '--target-rows-per-fragment', '2000']);
      assert.equal(JSON.parse(lanceOk(['manifest', uri]).stdout).fragments.length, 1);
      const t3 = await (await lancedb.connect(dir)).openTable('t');
      assert.equal((await t3.listIndices()).length, 4);
      for (const ix of await t3.listIndices()) {
        const whole = stable || ['id_idx', 'cat_idx', 'text_idx', 'vec_idx'].includes(ix.name);
        assert.equal((await t3.indexStats(ix.name)).numIndexedRows, whole ? 930 : 0, ix.name);
      }
      assertSameAnswers(await answers(t3, { checkPlans: true }), bruteForce(uri), 'after our second compaction');
    });
  });
}
