// Full-text search of lance 12's INVERTED indexes (@lancedb/lancedb 0.39.0): `lance search`
// returns lance 12's rows, in its order, with its BM25 scores (equal as float32), compared
// whole (every row: id, body, title, _score):
//   * on the golden tests/golden/fts_index/fts.lance (gen.mjs: two indexes, body with
//     positions and title without, each of two partitions, deletions before and after the
//     build, rows appended after it) for match queries (1 and 2 terms, OR / AND), phrases
//     (with a stop word inside), filters, words no row has, stop words only, and queries that
//     hit the unindexed rows;
//   * on a table lance 12 indexes here with other tokenizer settings (whitespace, no stemming,
//     no stop words, no folding) after deleting rows, then appends to.
// lance 12 orders equal scores arbitrarily (the order changes with k), so a result list is
// compared after sorting ties by id; with a small k the rows above the last score must be
// equal, the last score's rows one of the tie's choices, and the scores equal.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { ftsTable } from './lib/fts_rows.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const GOLDEN = path.join(here, '../golden/fts_index/fts.lance');

// [text, column, mode (or | and | phrase), filter]
const QUERIES = [
  ['lance', 'body', 'or', ''],
  ['search', 'body', 'or', ''],
  ['river', 'body', 'or', ''],
  ['lance search', 'body', 'or', ''],
  ['lance search', 'body', 'and', ''],
  ['river storm', 'body', 'and', ''],
  ['runs running ranked', 'body', 'or', ''],
  ['Café NAÏVE', 'body', 'or', ''],
  ['zebra apple', 'body', 'or', 'id % 2 = 0'],
  ['lance search', 'body', 'or', 'id % 3 = 1'],
  ['lance', 'body', 'or', 'id > 300 AND id < 420'],
  ['lance', 'body', 'or', 'id = 402'],
  ['quick fox', 'body', 'phrase', ''],
  ['lazy dog', 'body', 'phrase', ''],
  ['fox the lazy', 'body', 'phrase', ''],
  ['search search', 'body', 'phrase', ''],
  ['lance search', 'body', 'phrase', 'id >= 200'],
  ['search engine', 'title', 'or', ''],
  ['golf echo', 'title', 'and', ''],
  ['zebra', 'title', 'or', 'id > 500'],
  ['nonexistentword', 'body', 'or', ''],
  ['lance nonexistentword', 'body', 'and', ''],
  ['the', 'body', 'or', ''],
];

function lanceQuery(t, [text, column, mode, filter], k) {
  const q = mode === 'phrase'
    ? new lancedb.PhraseQuery(text, column)
    : new lancedb.MatchQuery(text, column, { operator: mode === 'and' ? lancedb.Operator.And : lancedb.Operator.Or });
  let qq = t.query().fullTextSearch(q).select(['id', 'body', 'title']).limit(k);
  if (filter) qq = qq.where(filter);
  return qq;
}

const norm = (r) => ({ id: Number(r.id), body: r.body ?? null, title: r.title ?? null, _score: Math.fround(r._score) });

async function theirs(t, query, k) {
  return (await lanceQuery(t, query, k).toArray()).map(norm);
}

function ours(uri, [text, column, mode, filter], k) {
  const args = ['search', uri, '--text', text, '--column', column, '-k', String(k), '--columns', 'id,body,title'];
  if (mode === 'and') args.push('--operator', 'and');
  if (mode === 'phrase') args.push('--phrase');
  if (filter) args.push('--filter', filter);
  const out = lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  for (const r of out) assert.deepEqual(Object.keys(r), ['id', 'body', 'title', '_score']);
  return out.map(norm);
}

const byScoreThenId = (a, b) => (b._score - a._score) || (a.id - b.id);

// Every match: the same rows and scores, lance 12's tie order normalized to ours.
function assertSame(got, want, what) {
  const w = [...want].sort(byScoreThenId);
  assert.deepEqual(got, w, what);
}

// Top k: the scores equal, the rows above the last score equal, the rows at the last score a
// choice among the full list's rows with that score.
function assertTopK(got, want, all, k, what) {
  assert.equal(got.length, Math.min(k, all.length), `${what}: row count`);
  assert.deepEqual(got, all.slice(0, got.length), `${what}: ours is the head of every match`);
  assert.deepEqual(want.map((r) => r._score), got.map((r) => r._score), `${what}: scores`);
  if (got.length === 0) return;
  const last = got[got.length - 1]._score;
  const above = (rows) => rows.filter((r) => r._score > last).sort(byScoreThenId);
  assert.deepEqual(above(want), above(got), `${what}: rows above the last score`);
  const tie = new Set(all.filter((r) => r._score === last).map((r) => JSON.stringify(r)));
  for (const r of want.filter((x) => x._score === last)) assert.ok(tie.has(JSON.stringify(r)), `${what}: tie row ${r.id}`);
}

async function checkQueries(t, uri, queries) {
  for (const query of queries) {
    const what = JSON.stringify(query);
    const all = ours(uri, query, 1000);
    assertSame(all, await theirs(t, query, 1000), what);
    for (const k of [1, 5]) assertTopK(ours(uri, query, k), await theirs(t, query, k), all, k, `${what} k=${k}`);
  }
}

describe('full-text search of lance 12 indexes', () => {
  let dir;
  before(() => {
    dir = scratchDir('lance-fts-');
  });

  test('the golden: every query equals lance 12 (rows, order, scores)', async () => {
    const uri = path.join(dir, 'fts.lance');
    fs.cpSync(GOLDEN, uri, { recursive: true });
    const t = await (await lancedb.connect(dir)).openTable('fts');
    const listed = (await t.listIndices()).map((x) => `${x.name}:${x.indexType}`).sort();
    assert.deepEqual(listed, ['body_idx:FTS', 'title_idx:FTS']);
    assert.ok((await t.countRows()) > 500);
    await checkQueries(t, uri, QUERIES);
    // the unindexed rows (ids 550..589) are found, as lance 12 finds them
    const unindexed = ours(uri, ['lance', 'body', 'or', 'id >= 550'], 1000);
    assert.ok(unindexed.length > 20, 'the appended rows are searched');
    // the plan names the index and the fragment searched without it
    const plan = lanceOk(['search', uri, '--text', 'lance', '--column', 'body', '--explain']).stdout;
    assert.match(plan, /FullTextSearch: match query \[lance\] on column body by body_idx@[0-9a-f-]+\(INVERTED\)/);
    assert.match(plan, /flat search of unindexed fragments \[\d+\]/);
    // a phrase needs positions: title_idx has none (lance 12 refuses it too)
    const r = lance(['search', uri, '--text', 'search engine', '--column', 'title', '--phrase']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /without positions/);
    await assert.rejects(theirs(t, ['search engine', 'title', 'phrase', ''], 10));
    // deleted rows never come back (id % 23 = 5 of ids 0..399 before the build, id % 31 = 3
    // of ids 0..549 after it)
    const every = ours(uri, ['lance search river fox quick', 'body', 'or', ''], 1000);
    assert.ok(every.length > 300);
    const deleted = (id) => (id < 400 && id % 23 === 5) || (id < 550 && id % 31 === 3);
    for (const row of every) assert.ok(!deleted(row.id), `deleted row ${row.id}`);
    assert.ok(every.some((row) => row.id >= 400 && row.id % 23 === 5), 'rows appended later with those ids stay');
  });

  test('an index lance 12 builds here with other tokenizer settings, then an append', async () => {
    const db = await lancedb.connect(dir);
    const t = await db.createTable('other', ftsTable(0, 300), { mode: 'overwrite' });
    await t.delete('id % 7 = 2');
    await t.createIndex('body', {
      config: lancedb.Index.fts({
        withPosition: true, baseTokenizer: 'whitespace', stem: false, removeStopWords: false,
        asciiFolding: false, lowercase: false,
      }),
    });
    await t.add(ftsTable(300, 60));
    const uri = path.join(dir, 'other.lance');
    await checkQueries(t, uri, [
      ['lance', 'body', 'or', ''], ['running runs', 'body', 'or', ''], ['the', 'body', 'or', ''],
      ['Zebra APPLE', 'body', 'or', ''], ['zebra', 'body', 'or', ''], ['café', 'body', 'or', ''],
      ['search, lance.', 'body', 'or', ''], ['lance search', 'body', 'and', 'id < 200'],
      ['the lazy dog', 'body', 'phrase', ''], ['lance the', 'body', 'phrase', ''],
    ]);
  });
});
