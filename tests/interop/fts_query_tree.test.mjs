// lance 12's full-text query language (@lancedb/lancedb 0.39.0: PhraseQuery with slop,
// BooleanQuery, BoostQuery, MultiMatchQuery, MatchQuery boosts) against `lance search --query`,
// which takes the same queries as lance's FtsQuery JSON. Every query's rows, columns, order and
// `_score` are compared whole (lib/fts_compare.mjs: scores within 1e-6 relative, since sums of
// several terms are added in another order), every match and the top 5:
//   * phrases with slop 0..3 on a corpus of five words (one a stop word) repeated in every
//     order, with nulls, deletions and an appended unindexed fragment: repeated terms,
//     out-of-order terms, stop words inside the phrase; over lance 12's index and over ours
//     (the reference searching ours too);
//   * boolean (must / should / must_not, nested), boost (negative boosts 0, 0.5 default, 2),
//     match boosts and multi-match (per-column boosts, AND) over two indexed columns, one
//     without positions, of a table with deletions and rows appended after the build.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as arrow from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { assertSameRows, assertTopK } from './lib/fts_compare.mjs';
import { ftsTable } from './lib/fts_rows.mjs';

// lance's FtsQuery JSON -> the node binding's query objects
function toLance(q) {
  const [type, v] = Object.entries(q)[0];
  const op = (o) => (String(o ?? 'Or').toLowerCase() === 'and' ? lancedb.Operator.And : lancedb.Operator.Or);
  switch (type) {
    case 'match':
      return new lancedb.MatchQuery(v.terms, v.column, { boost: v.boost ?? 1, operator: op(v.operator) });
    case 'phrase':
      return new lancedb.PhraseQuery(v.terms, v.column, { slop: v.slop ?? 0 });
    case 'boost':
      return new lancedb.BoostQuery(toLance(v.positive), toLance(v.negative),
        v.negative_boost === undefined ? {} : { negativeBoost: v.negative_boost });
    case 'multi_match':
      return new lancedb.MultiMatchQuery(v.query, v.columns, { boosts: v.boost, operator: op(v.operator) });
    case 'boolean': {
      const clauses = [];
      for (const [key, occur] of [['must', lancedb.Occur.Must], ['should', lancedb.Occur.Should],
        ['must_not', lancedb.Occur.MustNot]]) {
        for (const c of v[key] ?? []) clauses.push([occur, toLance(c)]);
      }
      return new lancedb.BooleanQuery(clauses);
    }
    default:
      throw new Error(`unknown query ${type}`);
  }
}

const norm = (cols) => (r) => {
  const out = { id: Number(r.id) };
  for (const c of cols) out[c] = r[c] ?? null;
  out._score = Math.fround(r._score);
  return out;
};

async function theirs(t, q, k, cols) {
  return (await t.query().fullTextSearch(toLance(q)).select(['id', ...cols]).limit(k).toArray()).map(norm(cols));
}

function ours(uri, q, k, cols) {
  const out = lanceOk(['search', uri, '--query', JSON.stringify(q), '-k', String(k), '--columns', ['id', ...cols].join(',')])
    .stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  for (const r of out) assert.deepEqual(Object.keys(r), ['id', ...cols, '_score']);
  return out.map(norm(cols));
}

async function checkQueries(t, uri, queries, cols, { topK = true } = {}) {
  let nonEmpty = 0;
  for (const q of queries) {
    const what = JSON.stringify(q);
    const all = ours(uri, q, 1000, cols);
    assertSameRows(all, await theirs(t, q, 1000, cols), what);
    if (all.length > 0) nonEmpty++;
    if (topK) assertTopK(ours(uri, q, 5, cols), await theirs(t, q, 5, cols), all, 5, `${what} k=5`);
  }
  return nonEmpty;
}

// Five words, `the` a stop word, in rows of 1..9 words; every 23rd row null.
const WORDS = ['alpha', 'beta', 'gamma', 'the', 'delta'];
function slopRows(start, count) {
  let s = 12345 + start;
  const r = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const ids = [];
  const body = [];
  for (let i = start; i < start + count; i++) {
    const n = 1 + Math.floor(r() * 9);
    const w = [];
    for (let j = 0; j < n; j++) w.push(WORDS[Math.floor(r() * (j % 3 === 0 ? 3 : 5))]);
    ids.push(BigInt(i));
    body.push(i % 23 === 7 ? null : w.join(' '));
  }
  return arrow.tableFromArrays({ id: BigInt64Array.from(ids), body: arrow.vectorFromArray(body, new arrow.Utf8()) });
}

// Phrases of 2..4 words drawn from WORDS (repeats, stop words and every order), plus chosen ones.
function slopPhrases() {
  let s = 777;
  const r = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
  const out = ['alpha beta', 'beta alpha', 'alpha alpha', 'alpha the beta', 'gamma the beta gamma', 'alpha beta alpha',
    'beta alpha beta', 'alpha alpha beta', 'alpha beta beta', 'gamma gamma gamma', 'the alpha', 'alpha the',
    'delta alpha beta gamma'];
  while (out.length < 30) {
    const n = 2 + Math.floor(r() * 3);
    out.push(Array.from({ length: n }, () => WORDS[Math.floor(r() * 5)]).join(' '));
  }
  const queries = [];
  for (const terms of out) for (const slop of [0, 1, 2, 3]) queries.push({ phrase: { column: 'body', terms, slop } });
  return queries;
}

const M = (terms, column = 'body', extra = {}) => ({ match: { column, terms, ...extra } });
const P = (terms, slop = 0) => ({ phrase: { column: 'body', terms, slop } });

const TREE_QUERIES = [
  M('lance search', 'body', { boost: 2.5 }),
  M('search', 'title', { boost: 0.5 }),
  { boolean: { must: [M('lance')], should: [M('search fox')] } },
  { boolean: { must: [M('lance'), M('river storm')] } },
  { boolean: { must: [M('lance'), M('search', 'title'), M('the quick')] } },
  { boolean: { should: [M('river'), M('search fox'), M('golf', 'title')] } },
  { boolean: { should: [M('search fox')], must_not: [M('lance')] } },
  { boolean: { must: [M('search')], must_not: [M('river'), M('echo', 'title')] } },
  { boolean: { must: [P('lance search', 1)], should: [M('engine', 'title', { boost: 3 })] } },
  { boolean: { should: [{ boolean: { must: [M('fox')], must_not: [M('lazy')] } }, P('quick brown', 2)] } },
  { boost: { positive: M('search fox'), negative: M('lance') } },
  { boost: { positive: M('search fox'), negative: M('lance'), negative_boost: 0 } },
  { boost: { positive: M('river search', 'body', { operator: 'And' }), negative: M('search', 'title'), negative_boost: 2 } },
  { boost: { positive: { boolean: { should: [M('green'), M('forest')] } }, negative: P('green forest', 1), negative_boost: 0.3 } },
  { multi_match: { query: 'search', columns: ['body', 'title'] } },
  { multi_match: { query: 'search engine', columns: ['body', 'title'], boost: [1, 2] } },
  { multi_match: { query: 'search lance', columns: ['body', 'title'], boost: [0.5, 1.5], operator: 'And' } },
  { boolean: { must: [{ multi_match: { query: 'river', columns: ['title', 'body'] } }], should: [M('storm')] } },
];

describe('lance 12 query language: phrase slop, boolean, boost, multi-match', () => {
  let dir;
  before(() => {
    dir = process.env.FTS_TREE_DIR ?? scratchDir("lance-fts-tree-");
  });

  test('phrases with slop 0..3, over lance 12 index and over ours', async () => {
    const db = await lancedb.connect(dir);
    const ref = await db.createTable('slop_ref', slopRows(0, 400));
    await ref.delete('id % 19 = 4');
    await ref.createIndex('body', { config: lancedb.Index.fts({ withPosition: true }) });
    await ref.add(slopRows(400, 60));
    await ref.delete('id % 31 = 9');
    const queries = slopPhrases();
    const refHits = await checkQueries(ref, path.join(dir, 'slop_ref.lance'), queries, ['body'], { topK: false });
    assert.ok(refHits > queries.length / 2, `most phrases match rows (${refHits} of ${queries.length})`);
    // the unindexed rows are searched with slop too
    const unindexed = ours(path.join(dir, 'slop_ref.lance'), P('alpha beta', 2), 1000, ['body']);
    assert.ok(unindexed.some((r) => r.id >= 400), 'appended rows match');

    const mine = await db.createTable('slop_ours', slopRows(0, 400));
    await mine.delete('id % 19 = 4');
    const uri = path.join(dir, 'slop_ours.lance');
    lanceOk(['create-index', uri, 'body', '--type', 'inverted', '--with-position', 'true']);
    await mine.checkoutLatest();
    await checkQueries(mine, uri, queries.filter((_, i) => i % 2 === 0), ['body'], { topK: false });
    await checkQueries(mine, uri, queries.slice(0, 12), ['body']);
  });

  test('boolean, boost, multi-match and boosted matches equal lance 12', async () => {
    const db = await lancedb.connect(dir);
    const t = await db.createTable('tree', ftsTable(0, 320));
    await t.delete('id % 11 = 3');
    await t.createIndex('body', { config: lancedb.Index.fts({ withPosition: true }) });
    await t.createIndex('title', { config: lancedb.Index.fts({ withPosition: false }) });
    await t.add(ftsTable(320, 50));
    await t.delete('id % 37 = 5');
    const uri = path.join(dir, 'tree.lance');
    const hits = await checkQueries(t, uri, TREE_QUERIES, ['body', 'title']);
    assert.equal(hits, TREE_QUERIES.length, 'every query matches rows');
    // a match naming no column searches every indexed column, as lance 12's multi-match
    const every = ours(uri, { match: { terms: 'search river' } }, 1000, ['body', 'title']);
    const ref = (await t.query().fullTextSearch('search river').select(['id', 'body', 'title']).limit(1000).toArray())
      .map(norm(['body', 'title']));
    assertSameRows(every, ref, 'no column');
    assert.ok(every.some((r) => !/search|river/i.test(r.body ?? '')), 'rows found by their title only');
    // the plan shows the tree: one node per query, each leaf naming its index
    const plan = lanceOk(['search', uri, '--query', JSON.stringify(TREE_QUERIES[8]), '--explain']).stdout;
    assert.match(plan, /boolean: must rows/);
    assert.match(plan, /must: phrase query \[lance search\] on column body by body_idx@[0-9a-f-]+\(INVERTED\), slop 1/);
    assert.match(plan, /match query \[engine\] on column title by title_idx@.*boost 3/);
    // what lance 12 refuses, we refuse
    for (const [q, msg] of [
      [{ boolean: { must_not: [M('lance')] } }, /at least one must or should/],
      [P('search engine').phrase && { phrase: { column: 'title', terms: 'search engine' } }, /without positions/],
    ]) {
      const r = lance(['search', uri, '--query', JSON.stringify(q)]);
      assert.notEqual(r.status, 0, JSON.stringify(q));
      assert.match(r.stderr, msg);
      await assert.rejects(theirs(t, q, 10, ['body']));
    }
    // bad JSON is a clear error
    for (const [q, msg] of [['{"match": {"column": "body"}}', /needs "terms"/], ['{"nope": {}}', /unknown query type/],
      ['[1]', /one key/], ['{"phrase": {"terms": "a", "slop": -1}}', /slop must be a non-negative integer/],
      ['not json', /not JSON/]]) {
      const r = lance(['search', uri, '--query', q]);
      assert.notEqual(r.status, 0, q);
      assert.match(r.stderr, msg, q);
    }
  });
});
