// contains(text, 'x') over 1M rows of 10-30-word text, with and without an FM index, lance 12
// (@lancedb/lancedb 0.39.0) and ours side by side, both in process and warm, in the same run.
//
// Data (DIR = --work/rows-N): plain.lance written by lance 12 (one table, 100k-row appends),
// copied with hard links to ref.lance, where lance 12 builds its FM index, and to ours.lance,
// where `lance create-index --type fm` builds ours (build times and sizes printed; --reuse
// keeps the tables and indexes of an earlier run).
// Queries (select id): needles with 0 hits, a few hits and many hits.
//   reference  table.query().where(F).select(['id']).toArrow(): a first call, then the median
//              of --reps calls (a needle whose first call passes --slow-ms: that call alone); CPU = process.cpuUsage() over
//              those calls (every thread of the process) / calls
//   ours       lance_bench BM_ScalarIndex (bench/scalar_index_bench.cc: the query layer's
//              Scanner in process, one IndexCache shared by the queries as an open Dataset
//              shares it: warm) on ours.lance and on ref.lance (lance 12's index read by us),
//              BM_ScalarScan (no index) on plain.lance; one untimed query first (its time:
//              first_ms, a cold cache), cpu_ms = process CPU per iteration
// Checks: every side returns the same ids (ours through `lance scan --where`), and lance 12
// plans each query on its index (@text_idx(Fm)). Ratios: reference / ours.
//   node bench/fm_index_bench.mjs --lance build/lance --bench build/lance_bench
//        [--rows 1000000] [--reps 5] [--work /tmp/lance-fm-bench] [--reuse] [--setup-only]
//        [--plain URI --vocab-from GEN.mjs --seed 42] [--like] [--out FILE]
// (--reuse: the build times printed are the earlier run's; --setup-only: stop after building)
// --plain URI: instead of generating rows, hard-link lance 12's table URI (a utf8 `text`
// column, e.g. bench/run_fts_bench.sh's plain.lance of the peer-bench harness's rows) as
// plain / ref / ours; the needles then come from the harness's vocabulary (makeVocab of
// GEN.mjs, rank 0 the most frequent). --like: each needle also as `text LIKE '%needle%'`.
// --out FILE: the results as JSON and the table as FILE.md.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(path.resolve('tests/interop/package.json'));
const lancedb = require('@lancedb/lancedb');

const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const LANCE = path.resolve(arg('--lance', 'build/lance'));
const BENCH = path.resolve(arg('--bench', 'build/lance_bench'));
const ROWS = Number(arg('--rows', 1000000));
const REPS = Number(arg('--reps', 5));
const SLOW_MS = Number(arg('--slow-ms', 2000));
const REUSE = process.argv.includes('--reuse');
const PLAIN = arg('--plain', null);
const DIR = path.join(arg('--work', '/tmp/lance-fm-bench'), PLAIN ? 'harness' : `rows-${ROWS}`);
const LIKE = process.argv.includes('--like');
const OUT = arg('--out', null);
const log = (m) => console.error(`[fm-bench] ${m}`);

const VOCAB = [];
let seed = 12345;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
for (let i = 0; i < 5000; i++) {
  const n = 3 + Math.floor(rnd() * 8);
  let w = '';
  for (let k = 0; k < n; k++) w += String.fromCharCode(97 + Math.floor(rnd() * rnd() * 26));
  VOCAB.push(w);
}
function* batches() {
  for (let start = 0; start < ROWS; start += 100000) {
    const rows = [];
    for (let i = start; i < Math.min(ROWS, start + 100000); i++) {
      const n = 10 + Math.floor(rnd() * 21);
      const w = [];
      for (let k = 0; k < n; k++) w.push(VOCAB[Math.floor(rnd() ** 2 * VOCAB.length)]);
      rows.push({ id: i, text: w.join(' ') });
    }
    yield rows;
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dirBytes = (d) => fs.readdirSync(d).reduce((s, f) => s + fs.statSync(path.join(d, f)).size, 0);
const indexDir = (uri) => {
  const d = path.join(uri, '_indices');
  return fs.existsSync(d) && fs.readdirSync(d).length ? path.join(d, fs.readdirSync(d)[0]) : null;
};
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

const db = await lancedb.connect(DIR);
const uri = (t) => path.join(DIR, `${t}.lance`);
const fresh = !REUSE || !indexDir(uri('ref')) || !indexDir(uri('ours'));
const build = {};
if (fresh) {
  fs.rmSync(DIR, { recursive: true, force: true });
  fs.mkdirSync(DIR, { recursive: true });
  if (PLAIN) {
    spawnSync('cp', ['-al', PLAIN, uri('plain')]);
  } else {
    log(`writing ${ROWS} rows`);
    let plain;
    for (const rows of batches()) {
      if (!plain) plain = await db.createTable('plain', rows);
      else await plain.add(rows);
    }
  }
  for (const t of ['ref', 'ours']) spawnSync('cp', ['-al', uri('plain'), uri(t)]);
  log('building lance 12\'s FM index');
  let t0 = performance.now();
  await (await db.openTable('ref')).createIndex('text', { config: lancedb.Index.fm() });
  build.ref = performance.now() - t0;
  log('building ours');
  t0 = performance.now();
  const cr = spawnSync(LANCE, ['create-index', uri('ours'), 'text', '--type', 'fm']);
  build.ours = performance.now() - t0;
  if (cr.status !== 0) throw new Error(cr.stderr.toString());
}
if (fresh) fs.writeFileSync(path.join(DIR, 'build.json'), JSON.stringify(build));
else Object.assign(build, JSON.parse(fs.readFileSync(path.join(DIR, 'build.json'))));
if (process.argv.includes('--setup-only')) process.exit(0);
const sizeRef = dirBytes(indexDir(uri('ref')));
const sizeOurs = dirBytes(indexDir(uri('ours')));

if (PLAIN) {
  // the harness's words, rank 0 the most frequent
  const { makeVocab } = await import(pathToFileURL(path.resolve(arg('--vocab-from'))).href);
  VOCAB.splice(0, VOCAB.length, ...makeVocab(Number(arg('--seed', 42))));
}
const NEEDLES = [
  ['0 hits, 2 bytes', 'qz'],
  ['0 hits, 2 words', PLAIN ? `${VOCAB[4990]} ${VOCAB[4991]}` : `${VOCAB[40]} ${VOCAB[41]}`],
  ['few hits, 3 words', null],  // filled below: three adjacent words of one row
  // on the harness's rows rank 7 is in ~25 % of them: lance 12's FM locate of 250k matches
  // alone takes minutes; rank 60 (~3 %) and 4 bytes of rank 150 are "many" enough
  ['many hits, a word', PLAIN ? VOCAB[60] : VOCAB[7]],
  [PLAIN ? 'many hits, 4 bytes' : 'many hits, 3 bytes', PLAIN ? VOCAB[150].slice(0, 4) : VOCAB[3].slice(1, 4)],
];
{
  const row = (await (await db.openTable('plain')).query().where('id = 4321').select(['text']).toArray())[0].text.split(' ');
  NEEDLES[2][1] = `${row[3]} ${row[4]} ${row[5]}`;
}
const ref = await db.openTable('ref');
const plain = await db.openTable('plain');
const idsOf = (tbl) => (tbl.numRows === 0 ? [] : Array.from(tbl.getChild('id').toArray(), Number)).sort((a, b) => a - b).join(',');
async function timeRef(t, where) {
  const q = () => t.query().where(where).select(['id']).toArrow();
  let t0 = performance.now();
  let c0 = cpuMs();
  const first = await q();
  const firstMs = performance.now() - t0;
  const firstCpu = cpuMs() - c0;
  const out = { first_ms: firstMs, ms: firstMs, cpu_ms: firstCpu, ids: idsOf(first), hits: first.numRows, reps: 0 };
  if (firstMs > SLOW_MS) return out;  // a query this slow is timed once: its first call
  const ms = [];
  c0 = cpuMs();
  for (let i = 0; i < REPS; i++) {
    t0 = performance.now();
    await q();
    ms.push(performance.now() - t0);
  }
  return { ...out, ms: median(ms), cpu_ms: (cpuMs() - c0) / REPS, reps: REPS };
}
const queries = [];
const FORMS = [['contains', (n) => `contains(text, '${n}')`]];
if (LIKE) FORMS.push(['LIKE', (n) => `text LIKE '%${n}%'`]);
for (const [form, make] of FORMS) for (const [name, needle] of NEEDLES) {
  const where = make(needle);
  const plan = await ref.query().where(where).explainPlan(true);
  const refIndexed = /@text_idx\(Fm\)/.test(plan);
  // lance 12 plans contains() on its FM index; LIKE it may scan (reported, not required)
  if (form === 'contains' && !refIndexed) throw new Error(`lance 12 did not plan ${where} on its index: ${plan}`);
  log(`lance 12: ${where}`);
  const rIdx = await timeRef(ref, where);
  const rScan = await timeRef(plain, where);
  if (rIdx.ids !== rScan.ids) throw new Error(`${where}: lance 12's index and scan differ`);
  const o = spawnSync(LANCE, ['scan', uri('ours'), '--where', where, '--columns', 'id'], { maxBuffer: 1 << 30 });
  if (o.status !== 0) throw new Error(o.stderr.toString());
  const oIds = o.stdout.toString().split('\n').filter((l) => l).map((l) => Number(JSON.parse(l).id)).sort((a, b) => a - b).join(',');
  if (oIds !== rIdx.ids) throw new Error(`${where}: our ids differ from lance 12's`);
  queries.push({ name, form, needle, where, hits: rIdx.hits, ref_indexed: refIndexed, ref_index: rIdx, ref_scan: rScan });
}
fs.writeFileSync(path.join(DIR, 'queries.txt'), queries.map((q) => q.where).join('\n') + '\n');

log('running lance_bench');
const env = { ...process.env, LANCE_SCALAR_BENCH_DIR: DIR, LANCE_SCALAR_BENCH_QUERIES: path.join(DIR, 'queries.txt') };
const b = spawnSync(BENCH, ['--benchmark_filter=BM_Scalar', '--benchmark_format=json', '--benchmark_min_time=0.5'],
  { env, maxBuffer: 1 << 30 });
if (b.status !== 0) throw new Error(b.stderr.toString());
const bench = JSON.parse(b.stdout.toString()).benchmarks;
const msOf = (r) => (r.time_unit === 'us' ? r.real_time / 1000 : r.real_time);
for (const [i, q] of queries.entries()) {
  for (const [key, name] of [['ours_scan', `BM_ScalarScan/${i}`], ['ours_index', `BM_ScalarIndex/ours/${i}`],
    ['ours_on_ref', `BM_ScalarIndex/ref/${i}`]]) {
    const r = bench.find((x) => x.name === name || x.name === `${name}/real_time`);
    if (!r || r.error_occurred) throw new Error(`${name}: ${r?.error_message ?? 'missing'}`);
    if (r.hits !== q.hits) throw new Error(`${name}: ${r.hits} hits, lance 12 ${q.hits}`);
    q[key] = { ms: msOf(r), cpu_ms: r.cpu_ms, first_ms: r.first_ms, iterations: r.iterations };
  }
  delete q.ref_index.ids;
  delete q.ref_scan.ids;
}
fs.writeFileSync(path.join(DIR, 'results.json'), JSON.stringify({ rows: ROWS, reps: REPS, build, sizeRef, sizeOurs, queries }, null, 1));

const f = (x) => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
const lines = [`${queries.length ? (await plain.countRows()) : ROWS} rows; wall ms (CPU ms); ratio = lance 12 / ours; load ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`, ''];
if (build.ref) lines.push(`build FM: lance 12 ${f(build.ref)} ms, ours ${f(build.ours)} ms (${(build.ref / build.ours).toFixed(2)}x)`);
lines.push(`index size: lance 12 ${(sizeRef / 1024).toFixed(0)} KiB, ours ${(sizeOurs / 1024).toFixed(0)} KiB`, '');
lines.push('| filter | hits | lance 12 FM, warm | ours FM, warm | ratio | ours on lance 12\'s index | first call: lance 12 / ours | lance 12 scan | ours scan | ratio |');
lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const q of queries) {
  const r = q.ref_index, o = q.ours_index;
  const label = q.form === 'contains' ? `contains, ${q.name}: \`${q.needle}\`` : `LIKE '%..%', ${q.name}${q.ref_indexed ? '' : ' (lance 12: no index)'}`;
  lines.push(`| ${label} | ${q.hits} | ${f(r.ms)} (${f(r.cpu_ms)}) | ${f(o.ms)} (${f(o.cpu_ms)}) | ${(r.ms / o.ms).toFixed(1)}x | ${f(q.ours_on_ref.ms)} (${f(q.ours_on_ref.cpu_ms)}) | ${f(r.first_ms)} / ${f(o.first_ms)} | ${f(q.ref_scan.ms)} (${f(q.ref_scan.cpu_ms)}) | ${f(q.ours_scan.ms)} (${f(q.ours_scan.cpu_ms)}) | ${(q.ref_scan.ms / q.ours_scan.ms).toFixed(1)}x |`);
}
console.log('\n' + lines.join('\n'));
if (OUT) {
  fs.writeFileSync(OUT, JSON.stringify({ rows: ROWS, reps: REPS, build, sizeRef, sizeOurs, queries }));
  fs.writeFileSync(`${OUT}.md`, lines.join('\n') + '\n');
}
