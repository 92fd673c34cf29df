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
//   * a maintained INVERTED index is built too: lance 12's full-text search over twin tables
//     (generations flushed by it and by us) answers alike.
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

// Generation directory -> its manifests (versions) under _versions/.
function generationVersions(uri) {
  const out = new Map();
  for (const shard of mw.shardIds(uri)) {
    const sdir = path.join(uri, '_mem_wal', shard);
    for (const g of fs.readdirSync(sdir).filter((n) => /_gen_\d+$/.test(n))) {
      out.set(g, fs.readdirSync(path.join(sdir, g, '_versions')).filter((f) => f.endsWith('.manifest')));
    }
  }
  return out;
}
// lance 12's view of a generation directory opened as a table of its own: live rows, indexes.
async function generationAsTable(dir, uri, g) {
  const shard = mw.shardIds(uri).find((s) => fs.existsSync(path.join(uri, '_mem_wal', s, g)));
  const alias = path.join(dir, `alias-${g}`);
  fs.mkdirSync(alias, { recursive: true });
  fs.symlinkSync(path.join(uri, '_mem_wal', shard, g), path.join(alias, 'g.lance'));
  const t = await (await lancedb.connect(alias)).openTable('g');
  const live = (await t.query().toArray()).map((r) => `${r.id}:${r.s}:${r._tombstone}`).sort();
  const indexes = (await t.listIndices()).map((i) => `${i.name}:${i.indexType}`).sort();
  // What lance 12 counts as indexed (the live rows of the fragments the index covers) and
  // the version the index says it was built on: the generation's only one.
  const ids = await t.indexStats('id_idx');
  const ourList = jsonLines(lanceOk(['index', 'list', path.join(alias, 'g.lance')]).stdout).find((x) => x.name === 'id_idx');
  const indexed = [ids.numIndexedRows, ids.numUnindexedRows, ourList.num_indexed_rows, ourList.dataset_version];
  return { rows: await t.countRows(), live, indexes, version: await t.version(), indexed };
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
  // Each generation is one version holding the data, its deletion vector and the indexes, as
  // lance 12 writes it; lance 12 opens it as a table of its own and sees exactly that.
  const gens = [...ours.keys()].sort((a, b) => Number(a.split('_gen_')[1]) - Number(b.split('_gen_')[1]));
  for (const [g, versions] of generationVersions(uri)) assert.equal(versions.length, 1, `${g}: versions ${versions}`);
  const first = await generationAsTable(dir, uri, gens[0]);
  assert.deepEqual(first, {
    rows: 5, version: 1, indexes: ['id_idx:BTree', 's_idx:BTree'], indexed: [5, 0, 5, 1],
    live: ['1:a-1:false', '10:a-10:false', '11:a-11:false', '12:a-12:false', '13:a-13:false'].sort(),
  });
  const second = await generationAsTable(dir, uri, gens[1]);
  assert.deepEqual(second, { rows: 2, version: 1, indexes: ['id_idx:BTree', 's_idx:BTree'], indexed: [2, 0, 2, 1], live: ['11:null:true', '2:null:true'].sort() });
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
  assert.deepEqual(theirs.map((g) => generationVersions(uri).get(g).length), [1]);
  const own = await generationAsTable(dir, uri, theirs[0]);
  assert.deepEqual([own.version, own.indexed], [1, [2, 0, 2, 1]]);  // lance 12's: the same numbers
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
// index it can), and its full-text search misses the rows of a generation that lacks the
// index. Our flush builds it (with the base index's tokenizer), so twin tables -- the same
// upserts flushed into the same generations, one by lance 12's writer, one by ours -- answer
// lance 12's full-text searches alike: the same rows, the same scores, in the same order, each
// equal to the model (hidden duplicates masked; a tombstone hides its key's older rows).
test('our flush builds a maintained INVERTED index: lance 12 searches our generations as its own', async () => {
  const dir = scratchDir('lance-memwal-maintained-fts-');
  const db = await lancedb.connect(dir);
  const tables = {};
  for (const name of ['ref', 'ours']) {
    const t = await db.createTable(name, mw.idsTable([0, 1, 2, 3, 4, 5, 6, 7], 'base'));
    await t.createIndex('s', { config: lancedb.Index.fts() });
    await t.setUnenforcedPrimaryKey('id');
    await t.setLsmWriteSpec({ specType: 'unsharded' });
    assert.deepEqual((await t.getLsmWriteSpec()).maintainedIndexes, ['s_idx']);
    tables[name] = t;
  }
  const uri = path.join(dir, 'ours.lance');
  const model = new Map([0, 1, 2, 3, 4, 5, 6, 7].map((i) => [i, `base-${i}`]));
  // Generation 1: 5 twice (the older row hidden); generation 2.
  await mw.upsert(tables.ref, mw.idsTable([1, 5], 'apple'));
  await mw.upsert(tables.ref, mw.idsTable([5, 6], 'pear'));
  await tables.ref.closeLsmWriters();
  await mw.upsert(tables.ref, mw.idsTable([6, 20], 'plum'));
  await tables.ref.closeLsmWriters();
  const file = (ids, tag) => {
    const f = path.join(dir, `in-${tag}.arrows`);
    fs.writeFileSync(f, A.tableToIPC(mw.idsTable(ids, tag), 'stream'));
    return f;
  };
  lanceOk(['lsm', 'write', uri, '--input', file([1, 5], 'apple')]);  // unflushed: replayed by the next
  lanceOk(['lsm', 'write', uri, '--input', file([5, 6], 'pear'), '--flush']);
  write(dir, uri, [6, 20], 'plum');
  apply(model, [1, 5], 'apple');
  apply(model, [5, 6], 'pear');
  apply(model, [6, 20], 'plum');
  // Every generation of ours holds one index, an INVERTED one, with lance 12's file names (but
  // the partition id: lance 12 picks a random one, ours count from 0).
  const oursIdx = generationIndexes(uri);
  const refIdx = generationIndexes(path.join(dir, 'ref.lance'));
  assert.equal(oursIdx.size, 2);
  assert.equal(refIdx.size, 2);
  const names = (m) => [...m.values()].map((idx) => idx.map(([, files]) => files.map((f) => f.replace(/^part_\d+_/, 'part_P_'))));
  const refFiles = names(refIdx);
  const ourFiles = names(oursIdx);
  assert.deepEqual(ourFiles[0], [['metadata.lance', 'part_P_docs.lance', 'part_P_invert.lance', 'part_P_tokens.lance']]);
  assert.deepEqual(ourFiles, refFiles);

  const tokens = (s) => s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w);
  const hits = (q) => [...model].filter(([, s]) => tokens(q).some((w) => tokens(s).includes(w)))
    .map(([id, s]) => ({ id, s })).sort((a, b) => a.id - b.id);
  const search = async (name, q) => {
    const t = await (await lancedb.connect(dir)).openTable(name);
    return (await t.query().fullTextSearch(q, { columns: ['s'] }).limit(100).toArray())
      .map((r) => ({ id: Number(r.id), s: r.s, score: r._score }));
  };
  const queries = ['apple', 'pear', 'plum', 'base', '5', '6', '1', '20', 'pear 6', 'plum base 3'];
  async function check(stage, names) {
    for (const q of queries) {
      const answers = {};
      for (const name of names) {
        answers[name] = await search(name, q);
        assert.deepEqual(sorted(answers[name]), hits(q), `${stage}: ${name}: '${q}'`);
        for (let i = 1; i < answers[name].length; ++i) {
          assert.ok(answers[name][i - 1].score >= answers[name][i].score, `${stage}: ${name}: '${q}': by score`);
        }
      }
      if (names.length === 2) assert.deepEqual(answers.ours, answers.ref, `${stage}: '${q}': ours = lance 12's own`);
    }
    assert.deepEqual(sorted(jsonLines(lanceOk(['lsm', 'scan', uri, '--consistency', 'eventual']).stdout)),
      sorted([...model].map(([id, s]) => ({ id, s }))), `${stage}: our merged read`);
  }
  await check('flushed', ['ref', 'ours']);
  // A tombstone generation of ours: lance 12's searches drop the deleted keys.
  write(dir, uri, [5, 20, 2], 'gone', ['--delete']);
  apply(model, [5, 20, 2], 'gone', true);
  await check('deleted', ['ours']);
});
