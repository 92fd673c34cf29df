// Full-text query trees (phrase slop, boolean, boost, multi-match) latency, lance 12
// (@lancedb/lancedb 0.39.0) and ours side by side in the same run, both warm and in process:
//   reference  table.query().fullTextSearch(<query object>).limit(k).toArrow(): one untimed
//              call, then the median of --reps calls; CPU = process.cpuUsage() / calls
//   ours       `lance search --query JSON --timing --repeat R` (one Dataset open, one untimed
//              run, then R runs each planned and run; p50 and process CPU per query)
// Data (--work/rows-N/q.lance, written and indexed by lance 12, kept with --reuse): N rows,
// `body` of 10-30 words and `title` of 2-5 from a 2000-word Zipf-like vocabulary; FTS indexes
// on both (body with positions). Checks: both sides return the same _rowid set (ties aside:
// the scores of the k rows equal). Ratios: reference / ours.
//   node bench/fts_query_tree_bench.mjs --lance build/lance [--rows 100000] [--reps 20] [--work DIR] [--reuse]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import { warmCalls } from './lib/warm_calls.mjs';

const require = createRequire(path.resolve('tests/interop/package.json'));
const lancedb = require('@lancedb/lancedb');

const opt = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const BIN = path.resolve(opt('--lance', 'build/lance'));
const N = Number(opt('--rows', 100000));
const R = Number(opt('--reps', 20));
const WORK = path.join(opt('--work', '/tmp/lance-fts-tree-bench'), `rows-${N}`);
const K = 10;

let state = 4242;
const next = () => { state = (Math.imul(state, 1664525) + 1013904223) >>> 0; return state / 4294967296; };
const WORDS = Array.from({ length: 2000 }, (_, i) => `t${i.toString(36)}`);
const pick = () => WORDS[Math.min(WORDS.length - 1, Math.floor(Math.pow(next(), 2.5) * WORDS.length))];
const text = (lo, hi) => Array.from({ length: lo + Math.floor(next() * (hi - lo + 1)) }, pick).join(' ');

async function table() {
  const uri = path.join(WORK, 'q.lance');
  const db = async () => lancedb.connect(WORK);
  if (process.argv.includes('--reuse') && fs.existsSync(uri)) return [await (await db()).openTable('q'), uri];
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(WORK, { recursive: true });
  let t;
  for (let at = 0; at < N; at += 25000) {
    const batch = Array.from({ length: Math.min(25000, N - at) }, (_, i) => ({ id: at + i, body: text(10, 30), title: text(2, 5) }));
    t = t ? (await t.add(batch), t) : await (await db()).createTable('q', batch);
  }
  await t.createIndex('body', { config: lancedb.Index.fts({ withPosition: true }) });
  await t.createIndex('title', { config: lancedb.Index.fts() });
  return [t, uri];
}

const M = (terms, column = 'body') => ({ match: { column, terms } });
const QUERIES = {
  'phrase slop 0': { phrase: { column: 'body', terms: `${WORDS[1]} ${WORDS[2]}`, slop: 0 } },
  'phrase slop 2': { phrase: { column: 'body', terms: `${WORDS[1]} ${WORDS[2]}`, slop: 2 } },
  'boolean must+should-must_not': { boolean: { must: [M(WORDS[40])], should: [M(WORDS[3])], must_not: [M(WORDS[5], 'title')] } },
  'boost': { boost: { positive: M(`${WORDS[40]} ${WORDS[90]}`), negative: M(WORDS[2]), negative_boost: 0.5 } },
  'multi-match body+title': { multi_match: { query: `${WORDS[40]} ${WORDS[90]}`, columns: ['body', 'title'], boost: [1, 2] } },
};

function toLance(q) {
  const [type, v] = Object.entries(q)[0];
  if (type === 'match') return new lancedb.MatchQuery(v.terms, v.column);
  if (type === 'phrase') return new lancedb.PhraseQuery(v.terms, v.column, { slop: v.slop });
  if (type === 'boost') return new lancedb.BoostQuery(toLance(v.positive), toLance(v.negative), { negativeBoost: v.negative_boost });
  if (type === 'multi_match') return new lancedb.MultiMatchQuery(v.query, v.columns, { boosts: v.boost });
  const clauses = [];
  for (const [key, occur] of [['must', lancedb.Occur.Must], ['should', lancedb.Occur.Should], ['must_not', lancedb.Occur.MustNot]]) {
    for (const c of v[key] ?? []) clauses.push([occur, toLance(c)]);
  }
  return new lancedb.BooleanQuery(clauses);
}

const [t, uri] = await table();
const rows = [];
for (const [name, q] of Object.entries(QUERIES)) {
  const call = () => t.query().fullTextSearch(toLance(q)).select(['id']).limit(K).toArrow();
  const { first, p50, cpu } = await warmCalls(call, R);
  const theirs = Array.from(first.getChild('_score').toArray(), (x) => Math.fround(x));
  const r = spawnSync(BIN, ['search', uri, '--query', JSON.stringify(q), '-k', String(K), '--columns', 'id', '--timing',
    '--repeat', String(R)], { maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(r.stderr.toString());
  const ours = r.stdout.toString().split('\n').filter((l) => l).map((l) => Math.fround(JSON.parse(l)._score));
  const same = ours.length === theirs.length && ours.every((s, i) => Math.abs(s - theirs[i]) <= 1e-6 * Math.abs(s));
  if (!same) throw new Error(`${name}: scores ours ${ours} / lance 12 ${theirs}`);
  const timing = JSON.parse(r.stderr.toString().trim().split('\n').pop());
  rows.push([name, p50, cpu, timing.p50_ms, timing.cpu_ms_per_query, ours.length]);
}
console.log(`full-text query trees, ${N} rows, k ${K}, ${R} warm runs each, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log('| query | rows | lance 12 p50 (CPU) ms | ours p50 (CPU) ms | ratio wall | ratio CPU |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, rp, rc, op, oc, n] of rows) {
  console.log(`| ${name} | ${n} | ${rp.toFixed(2)} (${rc.toFixed(2)}) | ${op.toFixed(2)} (${oc.toFixed(2)}) | ${(rp / op).toFixed(1)}x | ${(rc / oc).toFixed(1)}x |`);
}
