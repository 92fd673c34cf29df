// INVERTED indexes we build (`lance create-index --type inverted`) against the ones lance 12
// (@lancedb/lancedb 0.39.0) builds on the same data, in two identical tables (same rows, same
// deletions, so the same row addresses):
//   * file by file, every row and column equal (posting blocks with their scores, impacts,
//     position streams and offsets, lengths, max scores, the fst token dictionary, documents),
//     the schemas with their metadata equal, the manifest entry's details and version equal;
//   * lance 12 lists our index, plans its full-text search on it, and returns over our index
//     exactly what it returns over its own (every row, order, _score); `lance search` over
//     ours equals lance 12 over its own;
//   * lance 12 appends to our table and optimizes (indexing the new rows as its own
//     partition of our index), and we still read the index and search it as lance 12 does.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { ftsTable } from './lib/fts_rows.mjs';

const norm = (r) => ({ id: Number(r.id), body: r.body ?? null, _score: Math.fround(r._score) });
const byScoreThenId = (a, b) => (b._score - a._score) || (a.id - b.id);

function query(t, [text, mode], k = 10000) {
  const q = mode === 'phrase'
    ? new lancedb.PhraseQuery(text, 'body')
    : new lancedb.MatchQuery(text, 'body', { operator: mode === 'and' ? lancedb.Operator.And : lancedb.Operator.Or });
  return t.query().fullTextSearch(q).select(['id', 'body']).limit(k);
}

async function theirs(t, q) {
  return (await query(t, q).toArray()).map(norm).sort(byScoreThenId);
}

function ours(uri, [text, mode]) {
  const args = ['search', uri, '--text', text, '--column', 'body', '-k', '10000', '--columns', 'id,body'];
  if (mode === 'and') args.push('--operator', 'and');
  if (mode === 'phrase') args.push('--phrase');
  return lanceOk(args).stdout.split('\n').filter((l) => l).map((l) => norm(JSON.parse(l)));
}

const QUERIES = [
  ['lance', 'or'], ['search engine', 'or'], ['lance search', 'and'], ['river storm', 'or'],
  ['the', 'or'], ['runs running', 'or'], ['Café', 'or'], ['nonexistentword', 'or'],
  ['quick brown', 'phrase'], ['lazy dog', 'phrase'],
];

function fileRows(file) {
  return lanceOk(['file', 'cat', file]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
}

function fileSchema(file) {
  return JSON.parse(lanceOk(['file', 'info', file]).stdout).schema;
}

async function makeTable(db, name, rows) {
  const t = await db.createTable(name, ftsTable(0, rows), { mode: 'overwrite' });
  await t.delete('id % 23 = 5');
  return t;
}

function indexEntry(uri, name) {
  const all = lanceOk(['indexes', uri]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  const e = all.filter((x) => x.name === name);
  assert.equal(e.length, 1, `${uri}: one ${name}`);
  return e[0];
}

// The InvertedIndexDetails bytes of the newest manifest of `uri` (the Any value after its type URL).
function detailsBytes(uri) {
  const dir = path.join(uri, '_versions');
  const newest = fs.readdirSync(dir).filter((f) => f.endsWith('.manifest'))
    .map((f) => [fs.statSync(path.join(dir, f)).mtimeMs, f]).sort((a, b) => b[0] - a[0])[0][1];
  const b = fs.readFileSync(path.join(dir, newest));
  const url = Buffer.from('/lance.table.InvertedIndexDetails');
  const at = b.indexOf(url);
  assert.ok(at >= 0, `${newest}: no InvertedIndexDetails`);
  const j = at + url.length;
  assert.equal(b[j], 0x12, 'Any.value follows the type URL');
  assert.ok(b[j + 1] < 128);
  return b.subarray(j + 2, j + 2 + b[j + 1]).toString('hex');
}

describe('INVERTED indexes we write, against lance 12', () => {
  let dir;
  before(() => {
    dir = scratchDir('lance-fts-write-');
  });

  // [name, rows, lance 12's Index.fts options, our flags]
  const CASES = [
    ['p', 6000, { withPosition: true }, ['--with-position', 'true']],  // `lance` in 3 of 4 rows: ~35 blocks
    ['n', 6000, { withPosition: false }, ['--with-position', 'false']],
    ['w', 1500, {
      withPosition: true, baseTokenizer: 'whitespace', stem: false, removeStopWords: false, asciiFolding: false,
      lowercase: false, maxTokenLength: 8,
    }, ['--with-position', 'true', '--base-tokenizer', 'whitespace', '--stem', 'false', '--remove-stop-words', 'false',
      '--ascii-folding', 'false', '--lower-case', 'false', '--max-token-length', '8']],
    ['g', 800, { baseTokenizer: 'ngram', ngramMinLength: 2, ngramMaxLength: 4, prefixOnly: true },
      ['--base-tokenizer', 'ngram', '--ngram-min', '2', '--ngram-max', '4', '--prefix-only', 'true']],
    ['l', 800, { language: 'French', stem: true, removeStopWords: true }, ['--language', 'French']],
  ];
  for (const [suffix, rows, config, flags] of CASES) {
    const withPosition = config.withPosition ?? false;
    test(`${JSON.stringify(config)}: files, plans and searches equal lance 12's`, async () => {
      const db = await lancedb.connect(dir);
      const ref = await makeTable(db, `ref_${suffix}`, rows);
      await ref.createIndex('body', { config: lancedb.Index.fts(config) });
      await makeTable(db, `ours_${suffix}`, rows);
      const refUri = path.join(dir, `ref_${suffix}.lance`);
      const uri = path.join(dir, `ours_${suffix}.lance`);
      const created = JSON.parse(lanceOk(['create-index', uri, 'body', '--type', 'inverted', ...flags]).stdout);
      assert.equal(created.name, 'body_idx');
      assert.equal(created.type, 'INVERTED');

      // the manifest entries
      const re = indexEntry(refUri, 'body_idx');
      const oe = indexEntry(uri, 'body_idx');
      for (const k of ['type', 'columns', 'fields', 'dataset_version', 'index_version', 'fragment_ids',
        'num_indexed_rows', 'details_type_url', 'details']) {
        assert.deepEqual(oe[k], re[k], `manifest entry ${k}`);
      }
      assert.deepEqual(oe.files.map((f) => f.path), re.files.map((f) => f.path), 'files listed');
      assert.equal(detailsBytes(uri), detailsBytes(refUri), 'InvertedIndexDetails bytes');
      // every file: schema + metadata and every row
      const refDir = path.join(refUri, '_indices', re.uuid);
      const ourDir = path.join(uri, '_indices', oe.uuid);
      let refBytes = 0;
      let ourBytes = 0;
      for (const f of re.files.map((x) => x.path)) {
        const a = path.join(refDir, f);
        const b = path.join(ourDir, f);
        assert.deepEqual(fileSchema(b), fileSchema(a), `${f}: schema`);
        const ra = fileRows(a);
        const rb = fileRows(b);
        if (f.endsWith('_tokens.lance')) {
          // the fst bytes: the same map; lance 12 shares suffixes (a minimal automaton), we
          // write the trie, so only the other columns compare as bytes
          assert.equal(rb.length, 1);
          assert.deepEqual({ ...rb[0], _token_fst_bytes: null }, { ...ra[0], _token_fst_bytes: null }, `${f}: row`);
        } else {
          assert.equal(rb.length, ra.length, `${f}: rows`);
          for (let i = 0; i < ra.length; i++) assert.deepEqual(rb[i], ra[i], `${f}: row ${i}`);
        }
        refBytes += fs.statSync(a).size;
        ourBytes += fs.statSync(b).size;
      }
      console.log(`${suffix}: index bytes ours ${ourBytes} lance 12 ${refBytes} ` +
        `(ratio ${(ourBytes / refBytes).toFixed(3)})`);

      // lance 12 lists, plans and searches ours
      const t = await db.openTable(`ours_${suffix}`);
      assert.deepEqual((await t.listIndices()).map((x) => `${x.name}:${x.indexType}`), ['body_idx:FTS']);
      const plan = await query(t, ['lance search', 'or'], 10).explainPlan(true);
      assert.match(plan, /MatchQuery/);
      assert.doesNotMatch(plan, /FlatMatchQuery/);
      for (const q of QUERIES) {
        if (q[1] === 'phrase' && !withPosition) {
          await assert.rejects(theirs(t, q));
          continue;
        }
        const want = await theirs(ref, q);
        assert.deepEqual(await theirs(t, q), want, `lance 12 over ours ${JSON.stringify(q)}`);
        assert.deepEqual(ours(uri, q), want, `lance search over ours ${JSON.stringify(q)}`);
      }

      // lance 12 appends and optimizes: our index gains its partition; both still agree
      for (const tt of [ref, t]) {
        await tt.add(ftsTable(rows, 300));
        await tt.optimize({ cleanupOlderThan: new Date(Date.now() + 86400000), deleteUnverified: true });
      }
      for (const q of QUERIES) {
        if (q[1] === 'phrase' && !withPosition) continue;
        const want = await theirs(ref, q);
        if (q[0] === 'lance') assert.ok(want.length > 0, 'lance: matches');
        assert.deepEqual(await theirs(t, q), want, `after optimize, lance 12 over ours ${JSON.stringify(q)}`);
        assert.deepEqual(ours(uri, q), want, `after optimize, lance search over ours ${JSON.stringify(q)}`);
      }
    });
  }
});
