// Fuzzy and compound full-text queries (`lance search URI --query JSON`) over a MemWAL table's
// unflushed rows (query::LsmTextSearch scoring a WAL tail with the base-planned query tree)
// against lance 12: a live lance 12 writer leaves upserts in its WAL; our strong read searches
// them before the writer flushes; after it flushes them as a generation, lance 12's own
// fullTextSearch of the same query over the table (base + that generation) returns exactly the
// rows and scores our strong read gave -- and our eventual read then equals both.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { assertSameRows } from './lib/fts_compare.mjs';
import * as mw from './lib/memwal.mjs';

const WORDS = ['apple', 'apply', 'maple', 'pear', 'peach', 'plum', 'kiwi', 'lemon', 'melon', 'mango'];
let seed = 11;
const rand = (n) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
const text = () => Array.from({ length: 1 + rand(5) }, () => WORDS[rand(WORDS.length)]).join(' ');
const range = (a, b) => Array.from({ length: b - a }, (_, i) => a + i);
const rowsTable = (ids) => new A.Table({
  id: A.makeVector(BigInt64Array.from(ids.map(BigInt))),
  s: A.vectorFromArray(ids.map(() => text()), new A.Utf8()),
});
const jsonLines = (t) => t.split('\n').filter((l) => l).map((l) => JSON.parse(l));
const norm = (rows) => rows.map((r) => ({ id: Number(r.id), s: r.s, _score: Math.fround(r._score) }));
const byScore = (rows) => [...rows].sort((a, b) => (b._score - a._score) || (a.id - b.id));

// lance's FtsQuery JSON (ours) and the node binding's objects (lance 12's) for each query.
const match = (terms, extra = {}) => ({ match: { column: 's', terms, ...extra } });
const QUERIES = [
  match('kiwu', { fuzziness: 1 }),  // (stemmed terms: 'apple' is 'appl')
  match('mengo peech', { fuzziness: 2 }),
  match('peach kiwi', { operator: 'And' }),
  { boolean: { must: [match('apple')], should: [match('pear')], must_not: [match('plum')] } },
  { boolean: { should: [match('melon'), match('mango', { boost: 2 })] } },
  { boost: { positive: match('kiwi lemon'), negative: match('melon'), negative_boost: 0.5 } },
];
function toLance(q) {
  const [type, v] = Object.entries(q)[0];
  const op = (o) => (String(o ?? 'Or').toLowerCase() === 'and' ? lancedb.Operator.And : lancedb.Operator.Or);
  if (type === 'match') {
    return new lancedb.MatchQuery(v.terms, v.column, { boost: v.boost ?? 1, operator: op(v.operator),
      fuzziness: v.fuzziness ?? 0 });
  }
  if (type === 'boost') return new lancedb.BoostQuery(toLance(v.positive), toLance(v.negative), { negativeBoost: v.negative_boost });
  const clauses = [];
  for (const [key, occur] of [['must', lancedb.Occur.Must], ['should', lancedb.Occur.Should], ['must_not', lancedb.Occur.MustNot]]) {
    for (const c of v[key] ?? []) clauses.push([occur, toLance(c)]);
  }
  return new lancedb.BooleanQuery(clauses);
}

test('fuzzy and compound queries over unflushed rows equal lance 12\'s once those rows are flushed', async () => {
  const dir = scratchDir('lance-memwal-fts-compound-');
  const db = await lancedb.connect(dir);
  const t = await db.createTable('t', rowsTable(range(0, 50)));
  await t.createIndex('s', { config: lancedb.Index.fts({ withPosition: true }) });
  await t.setUnenforcedPrimaryKey('id');
  await t.setLsmWriteSpec({ specType: 'unsharded' });
  const uri = path.join(dir, 't.lance');
  const ours = (q, consistency) =>
    norm(jsonLines(lanceOk(['search', uri, '--query', JSON.stringify(q), '-k', '1000', '--columns', 'id,s',
      '--consistency', consistency]).stdout));

  // Unflushed: base keys replaced, new keys, one key twice.
  const live = await (await lancedb.connect(dir)).openTable('t');
  await mw.upsert(live, rowsTable([...range(40, 70), 3, 4]));
  await mw.upsert(live, rowsTable([60, 71, 3]));
  await new Promise((r) => setTimeout(r, 500));
  const before = QUERIES.map((q) => ours(q, 'strong'));
  const eventualBefore = QUERIES.map((q) => ours(q, 'eventual'));
  await live.closeLsmWriters();

  const fresh = await (await lancedb.connect(dir)).openTable('t');
  let unflushedRows = 0;
  for (let i = 0; i < QUERIES.length; ++i) {
    const label = JSON.stringify(QUERIES[i]);
    const theirs = byScore(norm(await fresh.query().fullTextSearch(toLance(QUERIES[i])).select(['id', 's'])
      .limit(1000).toArray()));
    assert.ok(theirs.length > 0, `${label}: lance 12 matches rows`);
    assertSameRows(before[i], theirs, `${label}: our strong read before the flush = lance 12's after it`);
    assertSameRows(ours(QUERIES[i], 'eventual'), theirs, `${label}: our eventual read after the flush`);
    const fresh_ids = new Set(eventualBefore[i].map((r) => `${r.id}:${r.s}`));
    unflushedRows += before[i].filter((r) => !fresh_ids.has(`${r.id}:${r.s}`)).length;
  }
  assert.ok(unflushedRows > 0, 'the unflushed rows changed some answers');
});
