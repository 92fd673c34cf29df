// NGRAM indexes lance-cpp builds, read by lance 12 (@lancedb/lancedb 0.39.0, which cannot build
// them itself). On a table lance 12 wrote (two fragments, deletions; a utf8 column of words in
// mixed case, with accents, ß, Æ, '-' and ' ' separators, nulls and empty strings) we build an
// NGRAM index on txt. Then:
//   * lance 12 reports it covering every row, and its explainPlan plans contains(txt, ..) (and
//     LIKE '%..%', which it rewrites to regexp_like) through it (`ScalarIndexQuery:
//     ...@txt_idx(NGram)`);
//   * its answers equal those of its unindexed twin table (brute force) -- every row and column.
//     A trigram encoded otherwise than lance 12 encodes it would lose rows here (a token it
//     looks up and does not find means "no row");
//   * our scans plan the same filters through the same index (with the recheck), equal lance
//     12's rows and our --no-index scan, in scan order; counts too;
//   * after lance 12 appends a fragment, both use the index for the old fragments and scan the
//     new one, with the same rows;
//   * lance 12's optimize() (compaction, then index optimization) rewrites the index to cover
//     every fragment with its own ngram_postings.lance: our reader answers through the file
//     lance 12 wrote, with its rows; and what we build on that version equals lance 12's file
//     row for row (tokens, posting list bytes), with the same schema.
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { canonicalLines } from './lib/canonical.mjs';
import { lanceOk, scratchDir } from './lib/cli.mjs';
import { checkRecheckedScan, sortedLines } from './lib/inexact_index.mjs';
import { makeTable } from './lib/gen.mjs';

const WORDS = ['alpha', 'Beta', 'gamma', 'delta', 'EPSILON', 'zeta', 'éta', 'theta', 'io', 'kappa9', 'Ærø', 'straße'];

function textTable(start, n) {
  const ids = Array.from({ length: n }, (_, k) => start + k);
  const txt = (i) => {
    if (i % 17 === 3) return null;
    if (i % 29 === 4) return '';
    const ws = [];
    for (let j = 0, k = 1 + ((i * 7) % 3); j < k; j++) ws.push(WORDS[(i * 5 + j * 3) % WORDS.length]);
    return ws.join(i % 2 ? ' ' : '-') + (i % 5 === 0 ? ` n${i}` : '');
  };
  return makeTable([
    { name: 'id', type: new A.Int64(), nullable: false, values: ids.map(BigInt) },
    { name: 'txt', type: new A.Utf8(), values: ids.map(txt) },
  ], [n]);
}

const FILTERS = [
  "contains(txt, 'alpha')", "contains(txt, 'ETA')", "contains(txt, 'eta')", "contains(txt, 'éta')",
  "contains(txt, 'qqq')", "contains(txt, 'pha-Be')", "contains(txt, 'ppa9')", "contains(txt, 'n15')",
  "contains(txt, 'straße')", "contains(txt, 'Ærø')", "contains(txt, 'aer')", "contains(txt, 'amm') AND id > 100",
  "txt LIKE '%amm%'", "txt LIKE '%EPSIL%'",
];
const EMPTY = new Set(["contains(txt, 'ETA')", "contains(txt, 'pha-Be')", "contains(txt, 'qqq')", "contains(txt, 'aer')"]);

async function makeTwin(dir) {
  const db = await lancedb.connect(dir);
  const t = await db.createTable('t', textTable(0, 200));
  await t.add(textTable(200, 100));
  await t.delete('id % 50 = 7');
  return t;
}

async function rowsOf(t, filter) {
  return sortedLines(canonicalLines(await t.query().where(filter).toArrow()));
}

describe('NGRAM indexes lance-cpp builds, read by lance 12', () => {
  let dir, twinDir, uri, t, twin;
  before(async () => {
    dir = scratchDir('lance-ngram-');
    twinDir = scratchDir('lance-ngram-twin-');
    uri = path.join(dir, 't.lance');
    await makeTwin(dir);
    twin = await makeTwin(twinDir);
    const out = JSON.parse(lanceOk(['create-index', uri, 'txt', '--type', 'ngram']).stdout);
    assert.equal(out.name, 'txt_idx');
    assert.equal(out.type, 'NGRAM');
    assert.deepEqual(out.indexed_fragments, [0, 1]);
    assert.equal(out.num_indexed_rows, 294);
    assert.deepEqual(out.files.map((f) => f.path), ['ngram_postings.lance']);
    t = await (await lancedb.connect(dir)).openTable('t');
  });

  test('lance 12 reports our index covering every row; we list it as NGRAM', async () => {
    const stats = await t.indexStats('txt_idx');
    assert.equal(stats.numIndexedRows, 294);
    assert.equal(stats.numUnindexedRows, 0);
    const ours = lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
    assert.deepEqual(ours.map((x) => [x.name, x.type, x.details_type_url]),
      [['txt_idx', 'NGRAM', '/lance.table.NGramIndexDetails']]);
  });

  test('lance 12 plans substring filters through our index and returns the unindexed rows; so do we', async () => {
    for (const filter of FILTERS) {
      const plan = await t.query().where(filter).explainPlan(true);
      assert.match(plan, /ScalarIndexQuery: .*@txt_idx\(NGram\)/, `${filter} uses txt_idx:\n${plan}`);
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      assert.equal(theirs.length === 0, EMPTY.has(filter), `${filter} matches rows`);
      checkRecheckedScan(uri, filter, 'txt_idx', 'NGRAM', theirs, { unindexed: false });
    }
  });

  test('after lance 12 appends, the index covers the old fragments and the new one is scanned', async () => {
    await t.add(textTable(300, 40));
    await twin.add(textTable(300, 40));
    assert.equal((await t.indexStats('txt_idx')).numUnindexedRows, 40);
    for (const filter of FILTERS) {
      const plan = await t.query().where(filter).explainPlan(true);
      assert.match(plan, /@txt_idx\(NGram\)/, `${filter}:\n${plan}`);
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      checkRecheckedScan(uri, filter, 'txt_idx', 'NGRAM', theirs, { unindexed: true });
    }
  });

  test('lance 12 optimizes our index (writing its own postings); we read it and build the same file', async () => {
    await t.optimize();
    const stats = await t.indexStats('txt_idx');
    assert.equal(stats.numUnindexedRows, 0);
    assert.equal(stats.numIndexedRows, 334);
    const listed = lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
    assert.deepEqual(listed.map((x) => [x.name, x.type, x.unindexed_fragment_ids]), [['txt_idx', 'NGRAM', []]]);
    for (const filter of FILTERS) {
      const theirs = await rowsOf(t, filter);
      assert.equal(theirs, await rowsOf(twin, filter), filter);
      checkRecheckedScan(uri, filter, 'txt_idx', 'NGRAM', theirs, { unindexed: false });
    }
    const mine = JSON.parse(lanceOk(['create-index', uri, 'txt', '--type', 'ngram', '--name', 'txt_ours']).stdout);
    const theirsIdx = listed[0];
    const paths = [theirsIdx.uuid, mine.uuid].map((u) => path.join(uri, '_indices', u, 'ngram_postings.lance'));
    const [a, b] = paths.map((p) => lanceOk(['file', 'cat', p]).stdout);
    assert.ok(a.split('\n').length > 20, "tokens in lance 12's file");
    assert.equal(b, a, "our ngram_postings.lance rows = lance 12's");
    const [sa, sb] = paths.map((p) => JSON.parse(lanceOk(['file', 'info', p]).stdout).schema);
    assert.deepEqual(sb, sa, "our ngram_postings.lance schema = lance 12's");
    const ourEntry = lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l))
      .find((x) => x.name === 'txt_ours');
    assert.equal(ourEntry.details_type_url, theirsIdx.details_type_url);
    assert.equal(ourEntry.index_version, theirsIdx.index_version);
  });
});
