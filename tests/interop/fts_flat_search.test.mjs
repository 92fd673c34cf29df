// Full-text search of a column without an index: lance 12 answers it with a flat search
// (FlatMatchQuery: the simple tokenizer with no filter at all -- case kept, no stemming, stop
// words, folding or length limit -- and BM25 over the rows searched); `lance search --text
// --column C` returns the same rows, order and _score (compared whole, every match, ties by id).
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { ftsTable } from './lib/fts_rows.mjs';

const norm = (r) => ({ id: Number(r.id), _score: Math.fround(r._score) });
const byScoreThenId = (a, b) => (b._score - a._score) || (a.id - b.id);

async function theirs(t, column, [text, mode, filter]) {
  const q = mode === 'phrase'
    ? new lancedb.PhraseQuery(text, column)
    : new lancedb.MatchQuery(text, column, { operator: mode === 'and' ? lancedb.Operator.And : lancedb.Operator.Or });
  let qq = t.query().fullTextSearch(q).select(['id']).limit(10000);
  if (filter) qq = qq.where(filter);
  return (await qq.toArray()).map(norm).sort(byScoreThenId);
}

function ours(uri, column, [text, mode, filter]) {
  const args = ['search', uri, '--text', text, '--column', column, '-k', '10000', '--columns', 'id'];
  if (mode === 'and') args.push('--operator', 'and');
  if (mode === 'phrase') args.push('--phrase');
  if (filter) args.push('--filter', filter);
  return lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => norm(JSON.parse(l)));
}

describe('full-text search without an index, against lance 12', () => {
  let dir;
  before(() => {
    dir = scratchDir('lance-fts-flat-');
  });

  test('generated text with deletions and two fragments', async () => {
    const db = await lancedb.connect(dir);
    const t = await db.createTable('g', ftsTable(0, 300), { mode: 'overwrite' });
    await t.delete('id % 23 = 5');
    await t.add(ftsTable(300, 80));
    const uri = path.join(dir, 'g.lance');
    const queries = [
      ['lance', 'or'], ['lance search', 'or'], ['lance search', 'and'], ['the', 'or'], ['Zebra', 'or'],
      ['zebra', 'or'], ['APPLE banana', 'or'], ['café', 'or'], ['runs running', 'or'], ['quick brown', 'phrase'],
      ['lazy dog', 'phrase'], ['nonexistentword', 'or'],
    ];
    let matched = 0;
    for (const q of queries) {
      const want = await theirs(t, 'body', q);
      matched += want.length;
      assert.deepEqual(ours(uri, 'body', q), want, JSON.stringify(q));
    }
    assert.ok(matched > 500, 'the queries match rows');
    const plan = lanceOk(['search', uri, '--text', 'lance', '--column', 'body', '--explain']).stdout;
    assert.match(plan, /by flat search \(no index/);
    assert.match(await t.query().fullTextSearch('lance', { columns: ['body'] }).explainPlan(), /FlatMatchQuery/);
  });

  test('case, stop words, stems, accents and long tokens are kept as written', async () => {
    const db = await lancedb.connect(dir);
    const texts = ['The running dogs', 'run dog', 'RUNNING', 'café au lait', 'the the the', 'dogs running fast running',
      null, '', `${'very'.repeat(12)}long here`, 'Running, dogs; running!'];
    const t = await db.createTable('s', texts.map((s, i) => ({ id: i, s })), { mode: 'overwrite' });
    const uri = path.join(dir, 's.lance');
    for (const q of [['running', 'or'], ['Running', 'or'], ['run', 'or'], ['the', 'or'], ['The', 'or'], ['cafe', 'or'],
      ['café', 'or'], ['dogs', 'or'], ['running dogs', 'or'], ['running dogs', 'and'], ['running dogs', 'phrase'],
      [`${'very'.repeat(12)}long`, 'or'], ['running', 'or', 'id > 2']]) {
      assert.deepEqual(ours(uri, 's', q), await theirs(t, 's', q), JSON.stringify(q));
    }
  });
});
