// Fuzzy full-text search of lance 12's INVERTED indexes (@lancedb/lancedb 0.39.0):
// `lance search --fuzziness N [--prefix-length P] [--max-expansions M]` returns lance 12's rows
// for `MatchQuery(text, column, { fuzziness, prefixLength, maxExpansions, operator })`, in its
// order, with its BM25 scores (within 1e-6, see `close`), compared whole (id, body, title,
// _score), on the golden
// tests/golden/fts_index/fts.lance (two indexes of two partitions each, stemmed, deletions,
// rows appended after the build) and on a table lance 12 indexes here without stemming.
// Covered: one and two edits, a transposition (two edits), a query token with capitals (lance
// 12 does not lower-case a fuzzy query), a fixed prefix that keeps or loses the match, few
// expansions (the cap is over every query token), AND (each query token through one of its
// expansions; one with none matches nothing), two query tokens expanding to the same tokens
// (scored twice), a filter, a phrase refused. Ties are sorted by id (lance 12 orders them
// arbitrarily); with k = 5 the scores and the rows above the last score must be equal.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { assertSameRows, assertTopK } from './lib/fts_compare.mjs';
import { ftsTable } from './lib/fts_rows.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const GOLDEN = path.join(here, '../golden/fts_index/fts.lance');

// { text, column, fuzziness, prefix, expansions, and, filter }
const GOLDEN_QUERIES = [
  { text: 'lanse', fuzziness: 1 },
  { text: 'lanse', fuzziness: 2 },
  { text: 'lanx', fuzziness: 1 },
  { text: 'lance', fuzziness: 1 },
  { text: 'serch', fuzziness: 1 },
  { text: 'saerch', fuzziness: 2 },
  { text: 'quikc', fuzziness: 2 },
  { text: 'Lanse', fuzziness: 1 },
  { text: 'Lanse', fuzziness: 2 },
  { text: 'rivr stom', fuzziness: 1 },
  { text: 'rivr stom', fuzziness: 1, and: true },
  { text: 'lanse', fuzziness: 2, prefix: 3 },
  { text: 'xanc', fuzziness: 1, prefix: 1 },
  { text: 'xanc', fuzziness: 1 },
  { text: 'rn', fuzziness: 2, expansions: 3 },
  { text: 'rn fx', fuzziness: 2, expansions: 2 },
  { text: 'rn fx', fuzziness: 2, expansions: 1000 },
  { text: 'rn fx', fuzziness: 2, and: true },
  { text: 'lanse rn serch', fuzziness: 2, expansions: 1000 },
  { text: 'ston', fuzziness: 1, filter: 'id % 2 = 0' },
  { text: 'zebr', fuzziness: 1, column: 'title' },
  { text: 'qqqqqq', fuzziness: 1 },
];

function lanceQuery(t, q, k) {
  const opts = { fuzziness: q.fuzziness, operator: q.and ? lancedb.Operator.And : lancedb.Operator.Or };
  if (q.prefix !== undefined) opts.prefixLength = q.prefix;
  if (q.expansions !== undefined) opts.maxExpansions = q.expansions;
  let qq = t.query().fullTextSearch(new lancedb.MatchQuery(q.text, q.column ?? 'body', opts))
    .select(['id', 'body', 'title']).limit(k);
  if (q.filter) qq = qq.where(q.filter);
  return qq;
}

const norm = (r) => ({ id: Number(r.id), body: r.body ?? null, title: r.title ?? null, _score: Math.fround(r._score) });

async function theirs(t, q, k) {
  return (await lanceQuery(t, q, k).toArray()).map(norm);
}

function ours(uri, q, k) {
  const args = ['search', uri, '--text', q.text, '--column', q.column ?? 'body', '-k', String(k),
    '--columns', 'id,body,title', '--fuzziness', String(q.fuzziness)];
  if (q.prefix !== undefined) args.push('--prefix-length', String(q.prefix));
  if (q.expansions !== undefined) args.push('--max-expansions', String(q.expansions));
  if (q.and) args.push('--operator', 'and');
  if (q.filter) args.push('--filter', q.filter);
  const out = lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  for (const r of out) assert.deepEqual(Object.keys(r), ['id', 'body', 'title', '_score']);
  return out.map(norm);
}

async function checkQueries(t, uri, queries) {
  let nonEmpty = 0;
  for (const q of queries) {
    const what = JSON.stringify(q);
    const all = ours(uri, q, 1000);
    assertSameRows(all, await theirs(t, q, 1000), what);
    if (all.length > 0) nonEmpty++;
    assertTopK(ours(uri, q, 5), await theirs(t, q, 5), all, 5, `${what} k=5`);
  }
  return nonEmpty;
}

describe('fuzzy full-text search of lance 12 indexes', () => {
  let dir;
  before(() => {
    dir = scratchDir('lance-fts-fuzzy-');
  });

  test('the golden: every fuzzy query equals lance 12 (rows, order, scores)', async () => {
    const uri = path.join(dir, 'fts.lance');
    fs.cpSync(GOLDEN, uri, { recursive: true });
    const t = await (await lancedb.connect(dir)).openTable('fts');
    const nonEmpty = await checkQueries(t, uri, GOLDEN_QUERIES);
    assert.ok(nonEmpty >= 14, `most queries match rows (${nonEmpty})`);
    // a misspelling finds what the word finds exactly (its only token within one edit)
    const exact = lanceOk(['search', uri, '--text', 'serch', '--column', 'body', '-k', '1000']).stdout;
    assert.equal(exact.trim(), '', 'no exact match for the misspelling');
    // the plan says it is fuzzy
    const plan = lanceOk(['search', uri, '--text', 'lanse', '--column', 'body', '--fuzziness', '1', '--explain']).stdout;
    assert.match(plan, /fuzziness 1 \(prefix 0, at most 50 expansions\)/);
    const r = lance(['search', uri, '--text', 'quick fox', '--column', 'body', '--phrase', '--fuzziness', '1']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /--phrase and --fuzziness/);
  });

  test('an index lance 12 builds here without stemming, after deletions', async () => {
    const db = await lancedb.connect(dir);
    const t = await db.createTable('plain', ftsTable(0, 400), { mode: 'overwrite' });
    await t.delete('id % 9 = 4');
    await t.createIndex('body', { config: lancedb.Index.fts({ withPosition: false, stem: false, removeStopWords: false }) });
    const uri = path.join(dir, 'plain.lance');
    const nonEmpty = await checkQueries(t, uri, [
      { text: 'runing', fuzziness: 1 }, { text: 'runing', fuzziness: 2 }, { text: 'runnr', fuzziness: 1, prefix: 4 },
      { text: 'rankd docment', fuzziness: 1 }, { text: 'rankd docment', fuzziness: 1, and: true },
      { text: 'cafe naive', fuzziness: 1 }, { text: 'fight', fuzziness: 1, and: true },
      { text: 'fight dog', fuzziness: 1, and: true }, { text: 'light night', fuzziness: 1 },
      { text: 'light night', fuzziness: 1, and: true }, { text: 'fight fight', fuzziness: 1 }, { text: 'th', fuzziness: 1 }, { text: 'runs', fuzziness: 2, expansions: 1 },
    ]);
    assert.ok(nonEmpty >= 10, `most queries match rows (${nonEmpty})`);
  });
});
