// FM-index substring search against lance 12 (@lancedb/lancedb 0.39.0), both ways, on two
// identical tables (text with nulls, \x00 bytes, unicode; deletions; rows appended after the
// index is built, so one fragment is unindexed):
//   * lance 12 builds the index: our `contains(text, ...)` plans onto it (the plan names it),
//     answers what lance 12 answers (every row, in order), and equals a scan under the seed's
//     sanitize rule (a space in the needle also matches a stored \x00; the empty needle
//     matches no indexed row); LIKE '%x%' over it equals a plain scan;
//   * we build the index (`lance create-index --type fm`): the partition file equals lance 12's
//     row for row with the same schema and metadata (but the fingerprint), lance 12 lists it,
//     plans on it and answers over it exactly what it answers over its own, and so do we.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as arrow from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';

const WORDS = ['apple', 'banana', 'cherry', 'date', 'fig', 'grape', 'kiwi', 'lemon', 'mango', 'Café', 'naïve', '数据'];

function makeRows(from, count, seed) {
  let s = seed >>> 0;
  const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) / 4294967296);
  const rows = [];
  for (let i = from; i < from + count; i++) {
    let text = null;
    if (i % 11 !== 4) {
      const n = 1 + Math.floor(rnd() * 6);
      const w = [];
      for (let k = 0; k < n; k++) w.push(WORDS[Math.floor(rnd() * WORDS.length)]);
      text = w.join(rnd() < 0.1 ? '\u0000' : ' ');
      if (i % 17 === 0) text = '';
    }
    rows.push({ id: i, text });
  }
  return rows;
}

const schema = new arrow.Schema([
  new arrow.Field('id', new arrow.Int64(), false),
  new arrow.Field('text', new arrow.Utf8(), true),
]);

function table(rows) {
  return lancedb.makeArrowTable(rows.map((r) => ({ id: BigInt(r.id), text: r.text })), { schema });
}

const NEEDLES = ['apple', 'an', 'a', 'e g', 'ana', 'Café', 'ï', '数', 'lemon mango', 'kiwi ',
  'no such thing', '', 'x'.repeat(300), 'p', 'date fig grape kiwi lemon mango'];

const sql = (s) => `'${s.replace(/'/g, "''")}'`;
const sanitize = (s) => s.replace(/[\u0000\u00ff]/g, ' ');

async function theirs(t, where) {
  return (await t.query().where(where).select(['id']).toArray()).map((r) => Number(r.id));
}

function ours(uri, where, extra = []) {
  return lanceOk(['scan', uri, '--filter', where, '--columns', 'id', ...extra]).stdout.split('\n')
    .filter((l) => l).map((l) => Number(JSON.parse(l).id));
}

function explain(uri, where) {
  return lanceOk(['scan', uri, '--filter', where, '--columns', 'id', '--explain']).stdout;
}

function fileRows(file) {
  return lanceOk(['file', 'cat', file]).stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
}

function fileSchema(file) {
  return JSON.parse(lanceOk(['file', 'info', file]).stdout).schema;
}

function indexFiles(uri) {
  const dir = path.join(uri, '_indices');
  return fs.readdirSync(dir).flatMap((u) => fs.readdirSync(path.join(dir, u)).map((f) => path.join(dir, u, f))).sort();
}

describe('FM index interop with lance 12', () => {
  const dir = scratchDir('lance-fm-');
  const rows = makeRows(0, 1200, 7);
  const appended = makeRows(5000, 150, 8);
  const deleted = (id) => id % 13 === 6;
  let db, theirT, ourT;
  const uriTheirs = path.join(dir, 'theirs.lance');
  const uriOurs = path.join(dir, 'ours.lance');
  const live = [...rows.filter((r) => !deleted(r.id)), ...appended];
  const indexedIds = new Set(rows.filter((r) => !deleted(r.id)).map((r) => r.id));

  before(async () => {
    db = await lancedb.connect(dir);
    theirT = await db.createTable('theirs', table(rows), { mode: 'overwrite' });
    await theirT.delete('id % 13 = 6');
    await theirT.createIndex('text', { config: lancedb.Index.fm() });
    await theirT.add(table(appended));

    ourT = await db.createTable('ours', table(rows), { mode: 'overwrite' });
    await ourT.delete('id % 13 = 6');
    lanceOk(['create-index', uriOurs, 'text', '--type', 'fm']);
    ourT = await db.openTable('ours');
    await ourT.add(table(appended));
  });

  // What contains(text, n) returns under the seed's rules: indexed rows match the sanitized
  // needle in the sanitized text (the empty needle matches none), unindexed rows by a scan.
  function expected(n) {
    return live.filter((r) => {
      if (r.text === null) return false;
      if (indexedIds.has(r.id)) return n !== '' && sanitize(r.text).includes(sanitize(n));
      return r.text.includes(n);
    }).map((r) => r.id);
  }

  test('our contains over lance 12\'s index equals its answers and the sanitized scan', async () => {
    for (const n of NEEDLES) {
      const where = `contains(text, ${sql(n)})`;
      const t = await theirs(theirT, where);
      const o = ours(uriTheirs, where);
      assert.deepEqual(o, t, `${JSON.stringify(n)}: ours vs lance 12`);
      assert.deepEqual([...o].sort((a, b) => a - b), expected(n), `${JSON.stringify(n)}: vs the seed's rule`);
      assert.match(explain(uriTheirs, where), /ScalarIndexLookup: contains\(text, Utf8\(.*\)\)@text_idx\(FM\)/);
    }
  });

  test('LIKE \'%x%\' planned on the FM index (rechecked) equals a plain scan', () => {
    for (const n of NEEDLES.filter((x) => x !== '' && !/[%_\\]/.test(x))) {
      const where = `text LIKE ${sql(`%${n}%`)}`;
      const want = live.filter((r) => r.text !== null && r.text.includes(n)).map((r) => r.id);
      assert.deepEqual([...ours(uriTheirs, where)].sort((a, b) => a - b), want, JSON.stringify(n));
      assert.deepEqual(ours(uriTheirs, where, ['--no-index']), want, `${JSON.stringify(n)} --no-index`);
      assert.match(explain(uriTheirs, where), /@text_idx\(FM\)/);
    }
  });

  test('our partition file equals lance 12\'s row for row, schema and metadata', () => {
    const [a] = indexFiles(uriTheirs);
    const [b] = indexFiles(uriOurs);
    assert.equal(path.basename(a), 'part_0_fm.lance');
    assert.equal(path.basename(b), 'part_0_fm.lance');
    assert.deepEqual(fileRows(b), fileRows(a));
    const sa = fileSchema(a);
    const sb = fileSchema(b);
    assert.deepEqual(sb.fields, sa.fields);
    const strip = (m) => Object.fromEntries(Object.entries(m).filter(([k]) => k !== 'partition_fingerprint'));
    assert.deepEqual(strip(sb.metadata), strip(sa.metadata));
    assert.match(sb.metadata.partition_fingerprint, /^[0-9a-f]{16}$/);
  });

  test('lance 12 lists, plans and answers over our index as over its own', async () => {
    const idx = (await ourT.listIndices()).filter((x) => x.name === 'text_idx');
    assert.equal(idx.length, 1);
    assert.equal(idx[0].indexType, 'Fm');
    assert.equal(idx[0].indexVersion, 10);
    assert.equal(idx[0].typeUrl, '/lance.index.pb.FMIndexDetails');
    const stats = await ourT.indexStats('text_idx');
    assert.equal(stats.numIndexedRows, indexedIds.size);
    assert.equal(stats.numUnindexedRows, appended.length);
    for (const n of NEEDLES) {
      const where = `contains(text, ${sql(n)})`;
      const plan = await ourT.query().where(where).explainPlan(true);
      assert.match(plan, /ScalarIndexQuery: query=\[contains\(text, Utf8\(.*\)\)\]@text_idx\(Fm\)/, plan);
      const t = await theirs(ourT, where);
      assert.deepEqual(t, await theirs(theirT, where), `${JSON.stringify(n)}: lance 12 over ours vs over its own`);
      assert.deepEqual(ours(uriOurs, where), t, `${JSON.stringify(n)}: ours vs lance 12 over our index`);
    }
  });

  test('NOT contains over the index keeps the indexed null rows, as lance 12 does', async () => {
    for (const n of ['apple', 'a', '', 'no such thing']) {
      const where = `NOT contains(text, ${sql(n)})`;
      const t = await theirs(theirT, where);
      assert.deepEqual(ours(uriTheirs, where), t, `${JSON.stringify(n)}: ours vs lance 12 over its index`);
      assert.deepEqual(ours(uriOurs, where), t, `${JSON.stringify(n)}: ours over our index`);
      assert.deepEqual(await theirs(ourT, where), t, `${JSON.stringify(n)}: lance 12 over our index`);
      const pos = new Set(expected(n));
      const want = live.filter((r) => !pos.has(r.id) && (r.text !== null || indexedIds.has(r.id))).map((r) => r.id);
      assert.deepEqual([...t].sort((a, b) => a - b), want, `${JSON.stringify(n)}: the rule`);
    }
  });
});
