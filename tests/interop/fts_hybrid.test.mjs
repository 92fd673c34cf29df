// Hybrid search (vector + full text, fused by reciprocal-rank fusion) against lancedb 0.39.0 /
// lance 12: `lance search --text Q --vector V` returns the rows of
// query().nearestTo(V).fullTextSearch(Q).rerank(RRFReranker) -- every row in the same order,
// the same id / body / _rowid, `_score` (each list's min-max normalised score) and
// `_relevance_score` equal as float32 (the normalised distances to a few ulps: the l2
// sums round differently).
//
// The table (built here by lancedb): 240 rows whose bodies all have distinct lengths (so no
// two BM25 scores tie: lance 12 orders tied scores arbitrarily, which would change the text
// ranks), 8-d random vectors (no index: exact search on both sides), an FTS index with
// positions; then rows deleted and rows appended after the index (searched flat by both).
// At the end, the same over an IVF_FLAT and an IVF_PQ vector index built by lancedb (on
// clustered vectors, so that its random k-means cannot change the partitions).
// Queries: 1 and 2 terms, AND, phrase, filters (applied to both searches first), a word no
// row has (the text list empty), another RRF constant, and lancedb's default reranker (RRF).
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { lance, lanceOk, scratchDir } from './lib/cli.mjs';

const WORDS = ['lance', 'search', 'river', 'storm', 'quick', 'fox', 'lazy', 'dog', 'apple', 'zebra',
  'engine', 'vector', 'table', 'cloud', 'stone'];
const DIM = 8;

function makeRng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

// vectorOf(i, drawn): row i's vector (default: the one drawn from rng, uniform in [0, 1)^8; the
// draws happen either way, so the bodies do not depend on it).
function makeRows(from, n, rng, vectorOf = (i, drawn) => drawn) {
  const rows = [];
  for (let i = from; i < from + n; i++) {
    const len = 2 + i;  // distinct per row
    const t = [];
    for (let j = 0; j < len; j++) t.push(WORDS[Math.floor(rng() * WORDS.length)]);
    const drawn = Array.from({ length: DIM }, () => Math.fround(rng()));
    rows.push({ id: i, body: t.join(' '), vector: vectorOf(i, drawn) });
  }
  return rows;
}

// The IVF tables' vectors: CLUSTERS tight clusters, row i in cluster i % CLUSTERS around
// SEPARATION x e_c (unit vector c), each coordinate off by less than 1. The clusters are ~141
// apart and under 3 wide. Lance 12's k-means still starts at random rows, so its partitions are
// not always the clusters (a run may split one cluster and merge two others), but every
// comparison below reads the same index files on both sides, and the "fewer partitions" check
// holds for any partitions that are not all one (see there). (Uniform random vectors left it to
// lance 12's seed whether any query's answer changed with fewer probes.)
const CLUSTERS = 6;
const SEPARATION = 100;

function clusteredVector(i) {
  const rng = makeRng(7000 + i);
  const v = Array.from({ length: DIM }, () => Math.fround(2 * rng() - 1));
  v[i % CLUSTERS] = Math.fround(v[i % CLUSTERS] + SEPARATION);
  return v;
}

// A query between cluster a = seed % CLUSTERS and the next one b, 0.05 nearer a: its nearest
// rows come from both clusters interleaved (the offset moves a row's squared distance by ~10,
// the rows' spread by up to ~200), a's centroid is nearer than b's by a margin far above float
// rounding (so one probe reads the same partition on both sides), and every other cluster is
// much farther.
function clusteredQueryVector(seed) {
  const a = seed % CLUSTERS, b = (seed + 1) % CLUSTERS;
  const rng = makeRng(9000 + seed);
  const v = Array.from({ length: DIM }, () => Math.fround(0.05 * (rng() - 0.5)));
  v[a] = Math.fround(v[a] + SEPARATION / 2 + 0.05);
  v[b] = Math.fround(v[b] + SEPARATION / 2 - 0.05);
  return v;
}

// [name, text, mode (or | and | phrase), vector seed, k, filter, rrf k (null: lancedb's default reranker),
//  postfilter (the vector search filtered after its k rows)]
const CASES = [
  ['one term', 'zebra', 'or', 1, 5, '', 60],
  ['two terms', 'lance search', 'or', 2, 10, '', 60],
  ['two terms, AND', 'river storm', 'and', 3, 10, '', 60],
  ['phrase', 'quick fox', 'phrase', 4, 8, '', 60],
  ['filtered', 'apple dog', 'or', 5, 10, 'id % 2 = 0', 60],
  ['filtered, range', 'stone', 'or', 6, 7, 'id > 100 AND id < 230', 60],
  ['no text match', 'nonexistentword', 'or', 7, 6, '', 60],
  ['k = 1', 'cloud', 'or', 8, 1, '', 60],
  ['rrf k = 5', 'vector table', 'or', 9, 10, '', 5],
  ['default reranker', 'engine', 'or', 10, 9, '', null],
  ['postfilter', 'apple', 'or', 11, 10, 'id % 3 = 0', 60, true],
];

function queryVector(seed) {
  const rng = makeRng(1000 + seed);
  return Array.from({ length: DIM }, () => Math.fround(rng()));
}

// nprobes: the vector side through the table's IVF index with that many partitions (null:
// the default).
// vectorOf: the query vector of a seed.
async function theirs(t, [, text, mode, seed, k, filter, rrfK, post], nprobes = null, vectorOf = queryVector) {
  const fts = mode === 'phrase' ? new lancedb.PhraseQuery(text, 'body')
    : new lancedb.MatchQuery(text, 'body', { operator: mode === 'and' ? lancedb.Operator.And : lancedb.Operator.Or });
  let v = t.query().nearestTo(vectorOf(seed));
  if (nprobes !== null) v = v.nprobes(nprobes);
  let q = v.fullTextSearch(fts).select(['id', 'body']).withRowId().limit(k);
  if (filter) q = q.where(filter);
  if (post) q = q.postfilter();
  if (rrfK !== null) q = q.rerank(await lancedb.rerankers.RRFReranker.create(rrfK));
  const rows = await q.toArray();
  return rows.map((r) => ({
    id: Number(r.id), body: r.body, _score: Math.fround(r._score), _rowid: BigInt(r._rowid),
    _relevance_score: Math.fround(r._relevance_score),
  }));
}

function ours(uri, [, text, mode, seed, k, filter, rrfK, post], nprobes = null, vectorOf = queryVector) {
  const args = ['search', uri, '--text', text, '--column', 'body', '--vector', JSON.stringify(vectorOf(seed)),
    '--vector-column', 'vector', '-k', String(k), '--columns', 'id,body', '--with-row-id'];
  if (nprobes !== null) args.push('--nprobes', String(nprobes));
  if (mode === 'and') args.push('--operator', 'and');
  if (mode === 'phrase') args.push('--phrase');
  if (filter) args.push('--filter', filter);
  if (post) args.push('--postfilter');
  if (rrfK !== null) args.push('--rrf-k', String(rrfK));
  const lines = lanceOk(args).stdout.split('\n').filter((l) => l);
  return lines.map((l) => {
    const r = JSON.parse(l);
    assert.deepEqual(Object.keys(r), ['id', 'body', '_score', '_rowid', '_relevance_score']);
    const rowid = /"_rowid":(\d+)/.exec(l)[1];
    return { id: Number(r.id), body: r.body, _score: Math.fround(r._score), _rowid: BigInt(rowid),
      _relevance_score: Math.fround(r._relevance_score) };
  });
}

// The reference's own text list must have no tied scores in it (ties would make its ranks,
// hence the fusion, arbitrary): checked so the comparison stays meaningful.
async function assertNoTextTies(t, [name, text, mode, , k, filter]) {
  const fts = mode === 'phrase' ? new lancedb.PhraseQuery(text, 'body')
    : new lancedb.MatchQuery(text, 'body', { operator: mode === 'and' ? lancedb.Operator.And : lancedb.Operator.Or });
  let q = t.query().fullTextSearch(fts).select(['id']).limit(k + 1);
  if (filter) q = q.where(filter);
  const scores = (await q.toArray()).map((r) => r._score);
  assert.equal(new Set(scores).size, scores.length, `${name}: lance 12's text scores tie (${scores})`);
}

function assertSameRows(got, want, what) {
  assert.equal(got.length, want.length, `${what}: ${got.length} rows, lance 12 ${want.length}`);
  const show = (xs) => xs.map((r) => `${r._rowid}:${r._relevance_score}`).join(' ');
  for (let i = 0; i < want.length; i++) {
    const g = got[i], w = want[i];
    assert.equal(g._rowid, w._rowid, `${what}: row ${i} is ${g._rowid}, lance 12 ${w._rowid} (ours ${show(got)} / lance 12 ${show(want)})`);
    assert.equal(g.id, w.id, `${what}: row ${i} id`);
    assert.equal(g.body, w.body, `${what}: row ${i} body`);
    assert.ok(Object.is(g._relevance_score, w._relevance_score),
      `${what}: row ${i} _relevance_score ${g._relevance_score}, lance 12 ${w._relevance_score}`);
    assert.ok(Math.abs(g._score - w._score) <= 4 * 1.2e-7 * Math.max(1, Math.abs(w._score)),
      `${what}: row ${i} _score ${g._score}, lance 12 ${w._score}`);
  }
}

describe('hybrid search equals lancedb RRF', () => {
  let dir;
  let table;
  let uri;

  before(async () => {
    dir = scratchDir('lance-hybrid-');
    const db = await lancedb.connect(dir);
    const rng = makeRng(42);
    table = await db.createTable('h', makeRows(0, 200, rng));
    await table.createIndex('body', { config: lancedb.Index.fts({ withPosition: true }) });
    await table.delete('id % 17 = 3');
    await table.add(makeRows(200, 40, rng));  // not in the index: searched flat
    uri = path.join(dir, 'h.lance');
  });

  for (const c of CASES) {
    test(c[0], async () => {
      await assertNoTextTies(table, c);
      const want = await theirs(table, c);
      assert.ok(want.length > 0, `${c[0]}: lance 12 returned no rows`);
      assertSameRows(ours(uri, c), want, c[0]);
    });
  }

  test('the plan names the fusion over both searches', () => {
    const out = lanceOk(['search', uri, '--text', 'zebra', '--column', 'body', '--vector',
      JSON.stringify(queryVector(1)), '-k', '5', '--explain']).stdout;
    const lines = out.split('\n');
    assert.match(lines[0], /^HybridSearch: reciprocal-rank fusion \(k = 60\)/);
    assert.ok(lines.some((l) => /^  KNN: column vector, k 5/.test(l)), out);
    assert.ok(lines.some((l) => /^  FullTextSearch: match query \[zebra\] on column body/.test(l)), out);
  });

  test('hybrid options are checked', () => {
    const v = JSON.stringify(queryVector(1));
    for (const [extra, msg] of [
      [['--fusion', 'linear'], /--fusion takes rrf/],
      [['--rrf-k', '0'], /RRF constant must be positive/],
      [['--queries', '/dev/null'], /--queries does not apply/],
    ]) {
      const args = ['search', uri, '--text', 'zebra', '--vector', v, ...extra];
      const r = lance(args);
      assert.equal(r.status, 1, `lance ${args.join(' ')} should fail`);
      assert.match(r.stderr, msg);
    }
  });
});

// The vector side through an IVF index lance 12 built (IVF_FLAT and IVF_PQ, 6 partitions,
// probed 1-3 of them): both read the same centroids and partitions, so the vector lists, hence
// the fused answers, must be equal -- rows, order, scores, _relevance_score. (IVF_PQ: lance 12
// and ours re-rank the PQ candidates by exact distance.) Rows appended after the index are
// searched exactly by both and merged. The vectors lie in 6 well-separated clusters
// (clusteredVector), so the partitions lance 12 trains are those clusters on every run, and each
// query vector lies between two of them (clusteredQueryVector). Our plan must name the index,
// and probing fewer partitions must change lance 12's answer for some query (so the index is
// really used): one probe reads one of the two clusters a query's nearest rows come from.
for (const [kind, config, n] of [
  ['IVF_FLAT', () => lancedb.Index.ivfFlat({ numPartitions: 6 }), 200],
  ['IVF_PQ', () => lancedb.Index.ivfPq({ numPartitions: 6, numSubVectors: 4 }), 300],  // PQ trains on >= 256 rows
]) {
  describe(`hybrid search over ${kind} equals lancedb RRF`, () => {
    let table;
    let uri;

    before(async () => {
      const dir = scratchDir('lance-hybrid-ivf-');
      const db = await lancedb.connect(dir);
      const rng = makeRng(42);
      table = await db.createTable('h', makeRows(0, n, rng, clusteredVector));
      await table.createIndex('body', { config: lancedb.Index.fts({ withPosition: true }) });
      await table.createIndex('vector', { config: config() });
      await table.delete('id % 17 = 3');
      await table.add(makeRows(n, 40, rng, clusteredVector));
      uri = path.join(dir, 'h.lance');
    });

    const IVF_CASES = [[CASES[0], 2], [CASES[1], 1], [CASES[2], 3], [CASES[3], 2], [CASES[4], 2], [CASES[7], 1],
      [CASES[8], 2]];
    for (const [c, nprobes] of IVF_CASES) {
      test(`${c[0]}, nprobes ${nprobes}`, async () => {
        await assertNoTextTies(table, c);
        const want = await theirs(table, c, nprobes, clusteredQueryVector);
        assert.ok(want.length > 0, `${c[0]}: lance 12 returned no rows`);
        assertSameRows(ours(uri, c, nprobes, clusteredQueryVector), want, `${kind} ${c[0]}`);
      });
    }

    test('the plan names the index; fewer partitions change an answer', async () => {
      const out = lanceOk(['search', uri, '--text', 'zebra', '--column', 'body', '--vector',
        JSON.stringify(clusteredQueryVector(1)), '-k', '5', '--nprobes', '2', '--explain']).stdout;
      assert.match(out, new RegExp(`KNN: column vector, k 5, metric l2; ANN over index vector_idx \\(${kind}, `), out);
      // One probe against all six, for a query between every two neighbouring clusters (seeds
      // 0-5: the pairs (a, a + 1 mod 6)): unless all rows are in one partition, some pair's
      // clusters are in different partitions (or one cluster is split), and one probe leaves out
      // rows of that query's nearest ones.
      let changed = 0;
      for (let seed = 0; seed < CLUSTERS; ++seed) {
        const c = [`probes, seed ${seed}`, 'zebra', 'or', seed, 10, '', 60];
        const all = JSON.stringify((await theirs(table, c, 6, clusteredQueryVector)).map((r) => String(r._rowid)));
        const fewer = await theirs(table, c, 1, clusteredQueryVector);
        if (JSON.stringify(fewer.map((r) => String(r._rowid))) !== all) ++changed;
      }
      assert.ok(changed > 0, `${kind}: every answer equals the all-partitions one`);
    });
  });
}
