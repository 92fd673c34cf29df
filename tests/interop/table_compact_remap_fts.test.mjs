// Compaction remaps INVERTED (full-text) indexes, both ways with lance 12 (@lancedb/lancedb
// 0.39.0), on a table without stable row ids:
//   (e) on two copies of one table (lance 12's FTS indexes, one with positions, one without;
//       three fragments; deletions, among them every row holding one word), lance 12's
//       optimize() and our compaction remap them into the same files: every partition's docs
//       (the documents still there, their new row ids, token counts, total_tokens), invert
//       (postings, block scores, max scores, impacts, positions) and tokens (the dictionary
//       kept, the word left without documents included) and metadata.lance, row for row with
//       the same schemas; lance 12's Rewrite lists the index as ours does;
//   (f) searches (OR, AND, phrases) answered by lance 12 over our compacted copy equal its
//       answers over its own compaction, and ours over its compacted table equal them too
//       (every row, id and BM25 score): the statistics after the removal are the same;
//   (g) FM: lance 12's Rewrite does not remap it (its rewritten_indices name no FM index; its
//       optimize() retrains it after), and ours leaves it as it was (uuid, files, fragments);
//       lance 12's contains() over our compacted copy equals its answer over its own table.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { rewriteReadAt as rewriteAt } from './lib/protobuf.mjs';
import { assertSameRows } from './lib/fts_compare.mjs';

const WORDS = ['apple', 'banana', 'cherry', 'dog', 'egg', 'fig', 'grape', 'house', 'ink', 'jam', 'kite', 'lemon'];
// Rows lo .. lo + n: `body` (some null, some empty, some only stop words; 'zebra' only in rows
// the deletion removes), `title` (short).
function rows(lo, n) {
  return Array.from({ length: n }, (_, k) => {
    const i = lo + k;
    let body = `${WORDS[i % 12]} ${WORDS[(i * 5) % 12]} the ${WORDS[(i * 7) % 11]} ${WORDS[i % 12]} w${i % 17}`;
    if (i % 50 === 0 && i < 600) body += ' zebra';
    if (i % 23 === 4) body = null;
    if (i % 31 === 9) body = i % 2 ? '' : 'the of and';
    return { id: i, body, title: `${WORDS[(i * 3) % 12]} t${i % 5}` };
  });
}
const DELETE = 'id < 600 AND (id % 7 = 3 OR id % 50 = 0)';
const QUERIES = [
  ['apple dog', {}], ['zebra', {}], ['banana', {}], ['lemon w3 kite', {}], ['cherry grape', { and: true }],
  ['apple banana', { phrase: true }], ['dog the egg', { phrase: true }], ['t2', { column: 'title' }],
  ['fig t0', { column: 'title' }],
];

const byName = (uri) => Object.fromEntries(lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l)
  .map((l) => JSON.parse(l)).map((x) => [x.name, x]));

// lance 12's answer: every match, {id, _score}, best first.
async function theirSearch(t, q, opt) {
  const column = opt.column ?? 'body';
  let query;
  if (opt.phrase) query = new lancedb.PhraseQuery(q, column);
  else query = new lancedb.MatchQuery(q, column, opt.and ? { operator: lancedb.Operator.And } : {});
  const got = await t.search(query).select(['id', '_score']).limit(2000).toArray();
  return got.map((r) => ({ id: Number(r.id), _score: r._score }));
}
// Ours over `uri`: every match, {id, _score}.
function ourSearch(uri, q, opt) {
  const args = ['search', uri, '--text', q, '--column', opt.column ?? 'body', '-k', '2000', '--columns', 'id'];
  if (opt.and) args.push('--operator', 'and');
  if (opt.phrase) args.push('--phrase');
  return lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l))
    .map((r) => ({ id: Number(r.id), _score: r._score }));
}

describe('INVERTED indexes remapped by a compaction, ours and lance 12\'s', () => {
  let dir, uri, oursUri, t, theirs, ours, old, v;
  before(async () => {
    dir = scratchDir('lance-remap-fts-');
    uri = path.join(dir, 't.lance');
    t = await (await lancedb.connect(dir)).createTable('t', rows(0, 300));
    await t.add(rows(300, 300));
    await t.add(rows(600, 300));
    await t.createIndex('body', { config: lancedb.Index.fts({ withPosition: true }) });
    await t.createIndex('title', { config: lancedb.Index.fts() });
    await t.delete(DELETE);
    const oursDir = scratchDir('lance-remap-fts-ours-');
    fs.cpSync(dir, oursDir, { recursive: true });
    oursUri = path.join(oursDir, 't.lance');
    v = JSON.parse(lanceOk(['manifest', uri]).stdout).version;
    old = byName(uri);
    await t.optimize();
    lanceOk(['compact', oursUri]);
    [theirs, ours] = [byName(uri), byName(oursUri)];
  });

  test('(e) lance 12\'s Rewrite and ours list both indexes; the segments are the same files', () => {
    const [rt, ro] = [rewriteAt(uri, v), rewriteAt(oursUri, v)];
    for (const name of ['body_idx', 'title_idx']) {
      const [a, b] = [rt.find((x) => x[0] === old[name].uuid), ro.find((x) => x[0] === old[name].uuid)];
      assert.ok(a, `${name}: lance 12 remaps it`);
      assert.ok(b, `${name}: we remap it`);
      assert.deepEqual([b[2], b[3], b[4]], [a[2], a[3], a[4]], `${name}: details type, version, files`);
      assert.equal(theirs[name].uuid, a[1], name);
      assert.equal(ours[name].uuid, b[1], name);
      assert.deepEqual(ours[name].fragment_ids, [3], name);
      assert.deepEqual(theirs[name].fragment_ids, [3], name);
      assert.deepEqual([ours[name].details, ours[name].index_version, ours[name].dataset_version],
        [old[name].details, old[name].index_version, old[name].dataset_version], name);
      assert.deepEqual(ours[name].files.map((f) => f.path), theirs[name].files.map((f) => f.path), name);
      for (const { path: file, size_bytes: size } of ours[name].files) {
        const [pa, pb] = [path.join(uri, '_indices', a[1], file), path.join(oursUri, '_indices', b[1], file)];
        assert.equal(fs.statSync(pb).size, size, `${name} ${file}: size listed`);
        const [ra, rb] = [pa, pb].map((p) => lanceOk(['file', 'cat', p]).stdout);
        if (file.endsWith('_tokens.lance') && name === 'body_idx') {
          // 'zebra' left the dictionary: lance 12 and we rewrite it (the same map: the invert
          // rows above are by token id, and (f) searches it; lance 12's fst shares suffixes,
          // ours is the trie), so only the other columns compare as bytes
          const [ja, jb] = [ra, rb].map((x) => ({ ...JSON.parse(x), _token_fst_bytes: null }));
          assert.deepEqual(jb, ja, `${name} ${file}: row`);
          const before_ = JSON.parse(lanceOk(['file', 'cat', path.join(uri, '_indices', old[name].uuid, file)]).stdout);
          assert.equal(ja._token_next_id, before_._token_next_id - 1, 'one token (zebra) left the dictionary');
        } else {
          assert.equal(rb, ra, `${name} ${file}: rows`);
        }
        const [ia, ib] = [pa, pb].map((p) => JSON.parse(lanceOk(['file', 'info', p]).stdout));
        assert.deepEqual(ib.schema, ia.schema, `${name} ${file}: schema`);
      }
      // The documents are the rows still there (fewer than before), at fragment 3.
      const docs = lanceOk(['file', 'cat', path.join(oursUri, '_indices', b[1], 'part_0_docs.lance')]).stdout
        .split('\n').filter((l) => l).map((l) => JSON.parse(l));
      const oldDocs = lanceOk(['file', 'cat', path.join(uri, '_indices', old[name].uuid, 'part_0_docs.lance')]).stdout
        .split('\n').filter((l) => l).length;
      assert.ok(docs.length > 100 && docs.length < oldDocs, `${name}: ${docs.length} of ${oldDocs} documents`);
      for (const d of docs) assert.equal(Math.floor(d._rowid / 2 ** 32), 3, `${name}: row ${d._rowid}`);
    }
  });

  test('(f) searches through either compaction equal, on both sides (rows, ids, scores)', async () => {
    const mine = await (await lancedb.connect(path.dirname(oursUri))).openTable('t');
    for (const [q, opt] of QUERIES) {
      const what = `${q} ${JSON.stringify(opt)}`;
      const want = await theirSearch(t, q, opt);
      if (q !== 'zebra') assert.ok(want.length > 0, `${what}: matches`);
      else assert.equal(want.length, 0, 'every zebra row was deleted');
      assert.deepEqual(await theirSearch(mine, q, opt), want, `${what}: lance 12 over our compaction`);
      assertSameRows(ourSearch(uri, q, opt), want, `${what}: ours over lance 12's compaction`);
      assertSameRows(ourSearch(oursUri, q, opt), want, `${what}: ours over ours`);
    }
  });
});

describe('(g) FM indexes are not remapped, by lance 12 nor by us', () => {
  test('lance 12\'s Rewrite and ours leave the FM index; its answers stay right', async () => {
    const dir = scratchDir('lance-remap-fm-');
    const uri = path.join(dir, 't.lance');
    const t = await (await lancedb.connect(dir)).createTable('t', rows(0, 300));
    await t.add(rows(300, 300));
    await t.add(rows(600, 300));
    await t.createIndex('title', { config: lancedb.Index.fm() });
    await t.delete(DELETE);
    const oursDir = scratchDir('lance-remap-fm-ours-');
    fs.cpSync(dir, oursDir, { recursive: true });
    const oursUri = path.join(oursDir, 't.lance');
    const v = JSON.parse(lanceOk(['manifest', uri]).stdout).version;
    const old = byName(uri).title_idx;
    assert.equal(old.type, 'FM');
    await t.optimize();
    lanceOk(['compact', oursUri]);
    assert.deepEqual(rewriteAt(uri, v), [], 'lance 12 remaps no FM index');
    assert.deepEqual(rewriteAt(oursUri, v), [], 'nor do we');
    const ours = byName(oursUri).title_idx;
    assert.deepEqual([ours.uuid, ours.fragment_ids, ours.files], [old.uuid, old.fragment_ids, old.files]);
    const mine = await (await lancedb.connect(oursDir)).openTable('t');
    for (const needle of ['apple', 'gra', 't3', 'jam t0', 'og t']) {
      const q = async (x) => (await x.query().where(`contains(title, '${needle}')`).select(['id']).toArray())
        .map((r) => Number(r.id)).sort((a, b) => a - b);
      const want = await q(t);
      assert.ok(want.length > 0, needle);
      assert.deepEqual(await q(mine), want, needle);
    }
  });
});
