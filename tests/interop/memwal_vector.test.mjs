// Maintained vector indexes (mem_wal.md "Maintained indexes"): on a table whose MemWAL spec
// maintains the base's IVF_PQ index, our flush builds an index of the same name in each
// generation from the base index's model (its centroids and PQ codebook, nothing trained).
// (lance 12's own flush writes an IVF_HNSW_SQ of one partition -- a zero centroid, SQ bounds
// and HNSW m 16 / ef 100 of the generation's rows -- in that place; it reads either.) Twin
// tables -- one base (index included) copied, then the same upserts flushed into the same
// generations, one by lance 12's writer, one by ours -- are compared:
//   * each generation holds one index directory with lance 12's file names, listed by lance 12
//     with the same indexed-row counts as its own generation;
//   * lance 12's nearestTo over each of our generations opened as a table of its own plans
//     through the index, equals our `lance search` of it (row ids, distances, order) at every
//     nprobes, and with a full refine the brute force of the generation's live rows;
//   * lance 12's nearestTo over the whole LSM table (base + generations, every partition, a
//     full refine) answers alike on both twins and equals the brute-force model.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';
import * as mw from './lib/memwal.mjs';
import { assertSame, clustered, ours, referenceSearch } from './lib/vector_search.mjs';

const DIM = 16;
const N = 3000;
const vs = clustered(5, N, DIM, 10, 3);
const qs = clustered(77, 4, DIM, 10, 3).map((v) => v.map((x) => Math.fround(x * 0.9)));
const range = (from, to) => Array.from({ length: to - from }, (_, i) => from + i);
// Rows `ids` (int64 id), row i's vector the `(i + shift) % N`-th of `vs`.
const rows = (ids, shift) => makeTable([
  { name: 'id', type: new A.Int64(), nullable: false, values: ids.map(BigInt) },
  { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)),
    values: ids.map((i) => vs[(i + shift) % N]) },
], [ids.length]);

// Generation directory -> [uuid, files] of its _indices/, in generation order.
function generationIndexes(uri) {
  const out = [];
  for (const shard of mw.shardIds(uri)) {
    const sdir = path.join(uri, '_mem_wal', shard);
    for (const g of fs.readdirSync(sdir).filter((n) => /_gen_\d+$/.test(n))) {
      const idir = path.join(sdir, g, '_indices');
      out.push([g, path.join(sdir, g), fs.existsSync(idir) ? fs.readdirSync(idir).map((u) => fs.readdirSync(path.join(idir, u)).sort()) : []]);
    }
  }
  return out.sort((a, b) => Number(a[0].split('_gen_')[1]) - Number(b[0].split('_gen_')[1]));
}

// A generation directory opened as a table of its own (through a symlink): its db and uri.
async function asTable(dir, gdir, alias) {
  const adir = path.join(dir, `alias-${alias}`);
  fs.mkdirSync(adir, { recursive: true });
  fs.symlinkSync(gdir, path.join(adir, 'g.lance'));
  return { t: await (await lancedb.connect(adir)).openTable('g'), uri: path.join(adir, 'g.lance') };
}

const l2 = (a, b) => a.reduce((s, x, i) => s + (x - b[i]) * (x - b[i]), 0);

test('our flush builds a maintained IVF_PQ index with the base model: lance 12 searches it as its own', async () => {
  const dir = scratchDir('lance-memwal-vector-');
  const db = await lancedb.connect(dir);
  const first = await db.createTable('ref', rows(range(0, 2000), 0));
  await first.createIndex('vec', { config: lancedb.Index.ivfPq({ numPartitions: 4, numSubVectors: 4 }) });
  await first.setUnenforcedPrimaryKey('id');
  await first.setLsmWriteSpec({ specType: 'unsharded', maintainedIndexes: ['vec_idx'] });
  fs.cpSync(path.join(dir, 'ref.lance'), path.join(dir, 'ours.lance'), { recursive: true });
  const ref = await db.openTable('ref');
  const uri = path.join(dir, 'ours.lance');

  // Two generations: updates of base rows and new rows in two upserts (keys of the first again
  // in the second: their older rows hidden by the deletion vector), then a few more. Ours: a
  // writer that leaves its rows in the WAL, replayed by the next, which flushes.
  const model = new Map(range(0, 2000).map((i) => [i, vs[i]]));
  const generations = [[[range(1990, 2020), 500], [[1995, 2001, 7], 700]], [[[1995, 2005, 3, 2500], 900]]];
  for (const batches of generations) {
    for (const [b, [ids, shift]] of batches.entries()) {
      await mw.upsert(ref, rows(ids, shift));
      const file = path.join(dir, `in-${shift}.arrows`);
      fs.writeFileSync(file, A.tableToIPC(rows(ids, shift), 'stream'));
      lanceOk(['lsm', 'write', uri, '--input', file, ...(b === batches.length - 1 ? ['--flush'] : [])]);
      for (const i of ids) model.set(i, vs[(i + shift) % N]);
    }
    await ref.closeLsmWriters();
  }

  const theirs = generationIndexes(path.join(dir, 'ref.lance'));
  const mine = generationIndexes(uri);
  assert.equal(mine.length, 2);
  assert.equal(theirs.length, 2);
  // One index directory per generation, with lance 12's file names.
  assert.deepEqual(mine.map(([, , idx]) => idx), theirs.map(([, , idx]) => idx));
  assert.deepEqual(mine[0][2], [['auxiliary.idx', 'index.idx']]);

  for (const [g, [, gdir]] of mine.entries()) {
    const o = await asTable(dir, gdir, `ours-${g}`);
    const r = await asTable(dir, theirs[g][1], `ref-${g}`);
    const list = async (t) => (await t.listIndices()).map((i) => `${i.name}:${i.indexType}:${i.columns}`);
    assert.deepEqual(await list(o.t), ['vec_idx:IvfHnswSq:vec']);
    assert.deepEqual(await list(o.t), await list(r.t));
    const stats = async (t) => {
      const s = await t.indexStats('vec_idx');
      return [s.numIndexedRows, s.numUnindexedRows, s.numIndices, s.indexType, s.distanceType];
    };
    assert.deepEqual(await stats(o.t), await stats(r.t), `generation ${g}: index stats`);
    assert.equal((await stats(o.t))[0], await o.t.countRows());
    // The generation's live rows (the deletion vector hides the older duplicates).
    const live = (await o.t.query().toArray()).map((x) => [Number(x.id), [...x.vec]]);
    assert.deepEqual(live.map(([id]) => id).sort((a, b) => a - b),
      (await r.t.query().toArray()).map((x) => Number(x.id)).sort((a, b) => a - b));
    const plan = await o.t.query().nearestTo(qs[0]).nprobes(4).explainPlan(true);
    assert.match(plan, /ANNIvfPartition/, plan);
    assert.doesNotMatch(plan, /KNNVectorDistance/, plan);
    for (const [qi, q] of qs.entries()) {
      const what = `generation ${g} q${qi}`;
      // Every partition probed with a full refine: the brute force of the live rows, in both.
      const exact = await referenceSearch(o.t, q, 'l2', {}, 10, true);
      const brute = live.map(([, v]) => l2(q, v)).sort((a, b) => a - b).slice(0, 10);
      assert.equal(exact.length, Math.min(10, live.length));
      for (const [i, x] of exact.entries()) assert.ok(Math.abs(x.distance - brute[i]) <= 1e-5 * Math.max(1, brute[i]), `${what}: row ${i}: ${x.distance} vs ${brute[i]}`);
      assertSame(await referenceSearch(o.t, q, 'l2', { nprobes: 4, refineFactor: 100 }, 10), exact, `${what}: full search vs brute force`);
      assertSame(await referenceSearch(r.t, q, 'l2', { nprobes: 4, refineFactor: 100 }, 10), exact, `${what}: lance 12's own generation`);
      for (const s of [{ nprobes: 1 }, { nprobes: 1, refineFactor: 100 }]) {
        const want = await referenceSearch(r.t, q, 'l2', s, 10);
        assertSame(await referenceSearch(o.t, q, 'l2', s, 10), want, `${what} ${JSON.stringify(s)}: lance 12 over ours vs its own`);
        assertSame(ours(o.uri, q, 'l2', s, 10), want, `${what} ${JSON.stringify(s)}: ours vs lance 12 over its own`);
      }
    }
  }

  // The whole LSM table (base + both generations), every partition probed with a full refine:
  // both twins answer alike, by the newest rows.
  const twins = { ref: await (await lancedb.connect(dir)).openTable('ref'), ours: await (await lancedb.connect(dir)).openTable('ours') };
  const search = async (t, q, s) => {
    let query = t.query().nearestTo(q).distanceType('l2').limit(10).nprobes(s.nprobes);
    if (s.refineFactor) query = query.refineFactor(s.refineFactor);
    return (await query.toArray()).map((x) => ({ id: Number(x.id), distance: x._distance }));
  };
  // Rows as above with their vectors, to tell a row's newest version from a superseded one by
  // the vector itself (a generation row's distance is its SQ code's, whose error in a small
  // generation can exceed the gap between two versions' distances).
  const searchVec = async (t, q, s) => (await t.query().nearestTo(q).distanceType('l2').limit(10)
    .nprobes(s.nprobes).refineFactor(s.refineFactor).toArray()).map((x) => ({ id: Number(x.id), distance: x._distance, vec: [...x.vec] }));
  const f32 = (v) => [...Float32Array.from(v)];
  // `x` (id, distance, vec) is its key's newest row: its vector, and its distance exact for a
  // row read raw, within SQ error for one read through a generation's index.
  const assertNewest = (x, q, approximate, what) => {
    assert.ok(model.has(x.id), `${what}: ${x.id} is a deleted key`);
    assert.deepEqual(f32(x.vec), f32(model.get(x.id)), `${what}: ${x.id} is not at its newest vector`);
    const want = l2(q, model.get(x.id));
    const slack = approximate ? 0.25 * want + 0.5 : 1e-5 * Math.max(1, want);
    assert.ok(Math.abs(x.distance - want) <= slack, `${what}: ${x.id} at ${x.distance}, newest ${want}`);
  };
  const written = new Set(generations.flat().flatMap(([ids]) => ids));
  let fromGenerations = 0;
  // Also: two rows' newest vectors (in generation 1, 2), the superseded ones of 1995 (hidden
  // in generation 1) and 7 (in the base).
  const lsmQs = [...qs, vs[(2001 + 700) % N], vs[(2005 + 900) % N], vs[(1995 + 500) % N], vs[7]];
  for (const [qi, q] of lsmQs.entries()) {
    for (const s of [{ nprobes: 1 }, { nprobes: 4 }]) {
      assert.deepEqual(await search(twins.ours, q, s), await search(twins.ref, q, s), `LSM q${qi} ${JSON.stringify(s)}`);
    }
    const s = { nprobes: 4, refineFactor: 1000 };
    assert.deepEqual(await search(twins.ours, q, s), await search(twins.ref, q, s), `LSM q${qi} ${JSON.stringify(s)}`);
    // Each row once, at its newest vector's distance (no hidden or superseded version), and
    // every generation row among the brute force's nearest is found (through our generations'
    // index). (lance 12 may miss base rows: its base search takes its top k before it drops the
    // keys the generations replaced -- the same on both twins.)
    const full = await searchVec(twins.ours, q, s);
    assert.deepEqual(full.map(({ id, distance }) => ({ id, distance })), await search(twins.ours, q, s));
    assert.equal(full.length, 10);
    assert.equal(new Set(full.map((x) => x.id)).size, 10, `LSM q${qi}: each row once`);
    // (A generation row's distance is its SQ code's: lance 12 refines only the base's.)
    for (const x of full) assertNewest(x, q, written.has(x.id), `LSM q${qi}`);
    const exact = [...model].map(([id, v]) => ({ id, distance: l2(q, v) })).sort((a, b) => a.distance - b.distance).slice(0, 10);
    const found = exact.filter((e) => written.has(e.id) && e.distance < full[9].distance);
    for (const e of found) assert.ok(full.some((x) => x.id === e.id), `LSM q${qi}: generation row ${e.id} (${e.distance}) missed`);
    fromGenerations += full.filter((x) => written.has(x.id)).length;
  }
  assert.ok(fromGenerations >= 2, 'the queries find generation rows');
  const top = async (q) => (await search(twins.ours, q, { nprobes: 4, refineFactor: 1000 }))[0];
  assert.deepEqual(await top(vs[(2001 + 700) % N]), { id: 2001, distance: 0 });
  assert.deepEqual(await top(vs[(2005 + 900) % N]), { id: 2005, distance: 0 });

  // Our LSM search (`lance search` of the MemWAL table: base + generations through their
  // indexes, newest row per key) answers as lance 12's nearestTo over the same LSM.
  const lsmSearch = (q, s, extra = []) => {
    const args = ['search', uri, '--column', 'vec', '--vector', JSON.stringify(q), '-k', '10',
      '--nprobes', String(s.nprobes), '--metric', 'l2', '--columns', 'id', ...extra];
    if (s.refineFactor) args.push('--refine-factor', String(s.refineFactor));
    return lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => {
      const r = JSON.parse(l);
      assert.deepEqual(Object.keys(r), ['id', '_distance'], l);
      return { id: r.id, distance: Math.fround(r._distance) };
    });
  };
  // The same with each row's vector.
  const lsmSearchVec = (q, s) => {
    const args = ['search', uri, '--column', 'vec', '--vector', JSON.stringify(q), '-k', '10',
      '--nprobes', String(s.nprobes), '--metric', 'l2', '--columns', 'id,vec'];
    if (s.refineFactor) args.push('--refine-factor', String(s.refineFactor));
    return lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => {
      const r = JSON.parse(l);
      return { id: r.id, distance: Math.fround(r._distance), vec: r.vec };
    });
  };
  const settings = [{ nprobes: 1 }, { nprobes: 4 }, { nprobes: 4, refineFactor: 1000 }];
  let compared = 0;
  for (const [qi, q] of lsmQs.entries()) {
    for (const s of settings) {
      const what = `our LSM search q${qi} ${JSON.stringify(s)}`;
      const mine = lsmSearch(q, s);
      const want = await search(twins.ref, q, s);
      assert.deepEqual(mine, want, what);
      ++compared;
    }
    assert.deepEqual(lsmSearch(q, settings[2], ['--consistency', 'eventual']), lsmSearch(q, settings[2]),
      `q${qi}: no WAL tail: eventual = strong`);
  }
  assert.equal(compared, lsmQs.length * settings.length);

  // Writes left in the WAL (no flush): an upsert of a base, a generation and a new key, and a
  // delete. Our strong search holds them (the tail searched exactly, newest row per key, the
  // deleted key gone however near); eventual still answers as lance 12 (its readers in
  // another process see no WAL tail).
  const tailIds = [11, 2001, 2600];
  const tailFile = path.join(dir, 'tail.arrows');
  fs.writeFileSync(tailFile, A.tableToIPC(rows(tailIds, 1300), 'stream'));
  lanceOk(['lsm', 'write', uri, '--input', tailFile]);
  const delFile = path.join(dir, 'del.arrows');
  fs.writeFileSync(delFile, A.tableToIPC(rows([2005], 0), 'stream'));
  lanceOk(['lsm', 'write', uri, '--input', delFile, '--delete']);
  for (const i of tailIds) model.set(i, vs[(i + 1300) % N]);
  model.delete(2005);
  const tailQs = [...lsmQs, vs[(11 + 1300) % N], vs[(2600 + 1300) % N], vs[11]];
  for (const [qi, q] of tailQs.entries()) {
    const s = settings[2];
    assert.deepEqual(lsmSearch(q, s, ['--consistency', 'eventual']), await search(twins.ref, q, s),
      `tail q${qi}: eventual = lance 12`);
    const strong = lsmSearch(q, s);
    assert.equal(strong.length, 10);
    assert.equal(new Set(strong.map((x) => x.id)).size, 10, `tail q${qi}: each row once`);
    assert.ok(!strong.some((x) => x.id === 2005), `tail q${qi}: the deleted key`);
    const withVec = lsmSearchVec(q, s);
    assert.deepEqual(withVec.map(({ id, distance }) => ({ id, distance })), strong, `tail q${qi}: with vec`);
    for (const x of withVec) assertNewest(x, q, written.has(x.id) && !tailIds.includes(x.id), `tail q${qi}`);
    // Every tail row among the model's nearest is found, at its exact distance.
    const exact = [...model].map(([id, v]) => ({ id, distance: l2(q, v) })).sort((a, b) => a.distance - b.distance);
    for (const e of exact.filter((e) => tailIds.includes(e.id) && e.distance < strong[9].distance)) {
      assert.ok(strong.some((x) => x.id === e.id), `tail q${qi}: tail row ${e.id} (${e.distance}) missed`);
    }
  }
  assert.deepEqual(lsmSearch(vs[(11 + 1300) % N], settings[0])[0], { id: 11, distance: 0 });
  assert.deepEqual(lsmSearch(vs[(2600 + 1300) % N], settings[0])[0], { id: 2600, distance: 0 });
  // Key 11's base vector finds key 11 no more (its newest row is the tail's).
  assert.notDeepEqual(lsmSearch(vs[11], settings[0])[0], { id: 11, distance: 0 });
  assert.deepEqual((await search(twins.ref, vs[11], settings[0]))[0], { id: 11, distance: 0 });
});
