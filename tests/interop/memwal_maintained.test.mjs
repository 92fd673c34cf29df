// Maintained indexes (mem_wal.md "Maintained indexes"): on a table whose MemWAL spec lists
// base-table BTREE indexes, our flush builds an index of the same name over each generation
// under its `_indices/{uuid}/`, recorded in the generation's manifest, as lance 12's flush does:
//   * the files are the ones lance 12's own flush writes (page_lookup.lance, page_data.lance);
//   * lance 12's planner answers an indexed filter over our generations from them (its plan
//     shows a ScalarIndexQuery on the maintained index under every generation it reads), and
//     its answers equal our model, the hidden duplicates and tombstones of a generation masked;
//   * generations of the same table flushed by lance 12 itself read the same way;
//   * our merge records index_catchup (the maintained indexes lag the merged rows) and a rebuilt
//     index catches up; lance 12 reads the table the same at each step;
//   * a maintained INVERTED index (which we do not build) makes our writer refuse the table.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import * as mw from './lib/memwal.mjs';

const sorted = (rows) => rows.map((r) => ({ id: Number(r.id), s: r.s })).sort((a, b) => a.id - b.id);
const jsonLines = (text) => text.split('\n').filter((l) => l).map((l) => JSON.parse(l));

function write(dir, uri, ids, tag, extra = []) {
  const file = path.join(dir, `in-${tag}-${Math.random().toString(16).slice(2)}.arrows`);
  fs.writeFileSync(file, A.tableToIPC(mw.idsTable(ids, tag), 'stream'));
  lanceOk(['lsm', 'write', uri, '--input', file, '--flush', ...extra]);
}
function apply(model, ids, tag, del = false) {
  for (const id of ids) {
    if (del) model.delete(id);
    else model.set(id, `${tag}-${id}`);
  }
}
// Generation directory -> the uuids under its _indices/.
function generationIndexes(uri) {
  const out = new Map();
  for (const shard of mw.shardIds(uri)) {
    const sdir = path.join(uri, '_mem_wal', shard);
    for (const g of fs.readdirSync(sdir).filter((n) => /_gen_\d+$/.test(n))) {
      const idir = path.join(sdir, g, '_indices');
      out.set(g, fs.existsSync(idir) ? fs.readdirSync(idir).map((u) => [u, fs.readdirSync(path.join(idir, u)).sort()]) : []);
    }
  }
  return out;
}

test('our flush builds the maintained BTREE indexes lance 12 plans over', async () => {
  const dir = scratchDir('lance-memwal-maintained-');
  const db = await lancedb.connect(dir);
  const t = await db.createTable('w', mw.idsTable([0, 1, 2, 3, 4, 5, 6, 7], 'base'));
  await t.createIndex('id', { config: lancedb.Index.btree() });
  await t.createIndex('s', { config: lancedb.Index.btree() });
  await t.setUnenforcedPrimaryKey('id');
  await t.setLsmWriteSpec({ specType: 'unsharded', maintainedIndexes: ['id_idx', 's_idx'] });
  const uri = path.join(dir, 'w.lance');
  const model = new Map([0, 1, 2, 3, 4, 5, 6, 7].map((i) => [i, `base-${i}`]));

  // Ours: two generations, the first with a key repeated inside it, the second with deletes.
  write(dir, uri, [1, 10, 11, 12, 10, 13], 'a');
  apply(model, [1, 10, 11, 12, 10, 13], 'a');
  write(dir, uri, [11, 2], 'd', ['--delete']);
  apply(model, [11, 2], 'd', true);
  const ours = generationIndexes(uri);
  assert.equal(ours.size, 2);
  for (const [g, idx] of ours) {
    assert.equal(idx.length, 2, `${g}: one index directory per maintained index`);
    for (const [, files] of idx) assert.deepEqual(files, ['page_data.lance', 'page_lookup.lance'], g);
  }

  // Then lance 12's own writer flushes one more generation of the same table.
  await mw.upsert(t, mw.idsTable([12, 30], 'r'));
  await t.closeLsmWriters();
  apply(model, [12, 30], 'r');
  const all = generationIndexes(uri);
  assert.equal(all.size, 3);
  const theirs = [...all.keys()].filter((g) => !ours.has(g));
  assert.equal(theirs.length, 1);

  const filters = [
    ["s = 'a-10'", (id, s) => s === 'a-10'],
    ["s = 'a-11'", (id, s) => s === 'a-11'],
    ["s = 'base-1'", (id, s) => s === 'base-1'],
    ["s >= 'a-12'", (id, s) => s >= 'a-12'],
    ['id = 12', (id) => id === 12, 'point lookup'],
    ['id < 3', (id) => id < 3],
    ['id >= 10 AND id <= 13', (id) => id >= 10 && id <= 13],
  ];
  // Our merged read of `where` (eventual: what lance 12 reads): the rows, sorted, and the plan.
  const oursRead = (where, extra = []) =>
    sorted(jsonLines(lanceOk(['lsm', 'scan', uri, '--consistency', 'eventual', '--filter', where, ...extra]).stdout));
  // Explain lines of each LsmSource, with the lines of its subtree.
  function sourcesOf(where) {
    const lines = lanceOk(['lsm', 'scan', uri, '--consistency', 'eventual', '--filter', where, '--explain']).stdout.split('\n');
    const out = [];
    for (const l of lines) {
      if (l.startsWith('  LsmSource: ')) out.push([l]);
      else if (l.startsWith('    ') && out.length) out[out.length - 1].push(l);
    }
    return { root: lines[0], sources: out };
  }
  // lance 12's answers to every filter equal the model; its plan reads the `generations`
  // unmerged generations, each of them (and the base) through the filter's index. Ours equal
  // them, with and without indexes; our plan reads the same generations, each through its own
  // maintained index, and for an index of `lagging` (index_catchup behind merged_generations)
  // the merged generations too, instead of the base fragments that index does not cover
  // (mem_wal.md "Index catch-up"): no row is filtered unindexed.
  async function check(stage, generations, lagging = []) {
    const fresh = await (await lancedb.connect(dir)).openTable('w');
    assert.deepEqual(sorted(await fresh.query().toArray()), sorted([...model].map(([id, s]) => ({ id, s }))), stage);
    for (const [where, keep, pointLookup] of filters) {
      const want = sorted([...model].filter(([id, s]) => keep(id, s)).map(([id, s]) => ({ id, s })));
      assert.deepEqual(sorted(await fresh.query().where(where).toArray()), want, `${stage}: ${where}`);
      assert.deepEqual(oursRead(where), want, `${stage}: ours: ${where}`);
      assert.deepEqual(oursRead(where, ['--no-index']), want, `${stage}: ours without indexes: ${where}`);
      // --offset / --limit count the merged rows in the read's own order.
      const all = jsonLines(lanceOk(['lsm', 'scan', uri, '--consistency', 'eventual', '--filter', where]).stdout);
      const page = jsonLines(lanceOk(['lsm', 'scan', uri, '--consistency', 'eventual', '--filter', where, '--offset', '1', '--limit', '2']).stdout);
      assert.deepEqual(page, all.slice(1, 3), `${stage}: ${where}: --offset 1 --limit 2`);
      const ours = sourcesOf(where);
      if (pointLookup) {
        assert.match(ours.root, /point lookups of 1 keys/, `${stage}: ${where}`);
        assert.equal(ours.sources.length, 0);
      } else {
        const column = where.startsWith('s') ? 's_idx' : 'id_idx';
        const gens = ours.sources.filter((src) => src[0].includes('LsmSource: generation ') && !src[0].includes('catch-up gap'));
        assert.equal(gens.length, generations, `${stage}: ${where}: our plan reads every unmerged generation\n${ours.sources.flat().join('\n')}`);
        // A lagging index (index_catchup): the merged generations answer for the base
        // fragments it does not cover, through their own maintained index.
        const gap = ours.sources.filter((src) => src[0].includes('read for the index catch-up gap'));
        assert.equal(gap.length, lagging.includes(column) ? 3 : 0, `${stage}: ${where}: catch-up gap\n${ours.sources.flat().join('\n')}`);
        for (const src of ours.sources) {
          const lookups = src.filter((l) => l.includes('ScalarIndexLookup:') && l.includes(`@${column}(BTREE)`));
          assert.equal(lookups.length, 1, `${stage}: ${where}: ${src[0]}: answered by ${column}\n${src.join('\n')}`);
          // (A generation's second plan reads its keys whole, unfiltered.)
          const keysAt = src.findIndex((l, i) => i > 1 && l.startsWith('    Project: '));
          const rowsPlan = src.slice(1, keysAt < 0 ? src.length : keysAt);
          if (generations === 0) assert.equal(rowsPlan.some((l) => l.includes('FragmentScan:')), false, `${stage}: ${where}: nothing filtered unindexed\n${src.join('\n')}`);
        }
        const base = ours.sources[ours.sources.length - 1][0];
        assert.match(base, /^  LsmSource: the base table /);
        assert.equal(base.includes(`index catch-up gap of ${column}: base fragments [`), lagging.includes(column), `${stage}: ${where}: ${base}`);
      }
    }
  }
  await check('flushed', 3);

  // index_catchup (mem_wal.md "Index catch-up"): our merge adds fragments no base index covers,
  // so each maintained index is recorded as covering generation 0 of the shard, while
  // merged_generations moves to 3; rebuilding s_idx over the merged base catches it up (its
  // entry goes: absent = caught up). lance 12 answers the same at each step.
  const shard = mw.shardIds(uri)[0];
  const spec = () => JSON.parse(lanceOk(['lsm', 'spec', uri]).stdout);
  lanceOk(['lsm', 'merge', uri]);
  assert.deepEqual(spec().merged_generations, [{ shard_id: shard, generation: 3 }]);
  assert.deepEqual(spec().index_catchup, ['id_idx', 's_idx'].map((index_name) => ({
    index_name, caught_up_generations: [{ shard_id: shard, generation: 0 }] })));
  await check('merged', 0, ['id_idx', 's_idx']);
  lanceOk(['create-index', uri, 's', '--type', 'btree', '--replace']);
  assert.deepEqual(spec().index_catchup, [{ index_name: 'id_idx', caught_up_generations: [{ shard_id: shard, generation: 0 }] }]);
  await check('s_idx rebuilt', 0, ['id_idx']);
});

// lance 12 also maintains INVERTED indexes (a spec without maintainedIndexes maintains every
// index it can); its full-text search misses the rows of a generation that lacks the index, so
// our writer refuses such a table rather than flush generations without it, and writes nothing.
test('a maintained INVERTED index is refused, nothing written', async () => {
  const dir = scratchDir('lance-memwal-maintained-fts-');
  const db = await lancedb.connect(dir);
  const t = await db.createTable('w', mw.idsTable([0, 1, 2, 3], 'base'));
  await t.createIndex('s', { config: lancedb.Index.fts() });
  await t.setUnenforcedPrimaryKey('id');
  await t.setLsmWriteSpec({ specType: 'unsharded' });
  assert.deepEqual((await t.getLsmWriteSpec()).maintainedIndexes, ['s_idx']);
  const uri = path.join(dir, 'w.lance');
  const file = path.join(dir, 'in.arrows');
  fs.writeFileSync(file, A.tableToIPC(mw.idsTable([1, 5], 'a'), 'stream'));
  const r = lance(['lsm', 'write', uri, '--input', file, '--flush']);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /maintained index 's_idx' is INVERTED/);
  assert.equal(r.stdout.includes('acked_rows'), false);
  assert.deepEqual(mw.shardIds(uri).flatMap((s) => mw.walPositions(uri, s)), []);
});
