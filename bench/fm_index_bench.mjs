// contains(text, 'x') over 1M rows of 10-30-word text, with and without an FM index, lance 12
// (@lancedb/lancedb 0.39.0, in process, median of --reps after a first call) and ours (`lance
// scan --filter` as a whole process: start, open the version, load the index, answer), on
// two copies of the same table (lance 12 builds the FM index on one, `lance create-index
// --type fm` on the other). Prints build times, sizes, query latencies and ratios; checks
// every side returns the same ids.
//   node bench/fm_index_bench.mjs --lance build/lance [--rows 1000000] [--reps 5] [--work DIR]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.resolve('tests/interop/package.json'));
const lancedb = require('@lancedb/lancedb');

const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const LANCE = path.resolve(arg('--lance', 'build/lance'));
const ROWS = Number(arg('--rows', 1000000));
const REPS = Number(arg('--reps', 5));
const WORK = arg('--work', '/tmp/lance-fm-bench');

const VOCAB = [];
{
  let s = 12345;
  const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) / 4294967296);
  for (let i = 0; i < 5000; i++) {
    const n = 3 + Math.floor(rnd() * 8);
    let w = '';
    for (let k = 0; k < n; k++) w += String.fromCharCode(97 + Math.floor(rnd() * rnd() * 26));
    VOCAB.push(w);
  }
  globalThis.rnd = rnd;
}
function* batches() {
  for (let start = 0; start < ROWS; start += 100000) {
    const rows = [];
    for (let i = start; i < Math.min(ROWS, start + 100000); i++) {
      const n = 10 + Math.floor(globalThis.rnd() * 21);
      const w = [];
      for (let k = 0; k < n; k++) w.push(VOCAB[Math.floor(globalThis.rnd() ** 2 * VOCAB.length)]);
      rows.push({ id: i, text: w.join(' ') });
    }
    yield rows;
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dirBytes = (d) => fs.readdirSync(d).reduce((s, f) => s + fs.statSync(path.join(d, f)).size, 0);
const indexDir = (uri) => path.join(uri, '_indices', fs.readdirSync(path.join(uri, '_indices'))[0]);

function ours(uri, where, extra = []) {
  const t0 = performance.now();
  const r = spawnSync(LANCE, ['scan', uri, '--filter', where, '--columns', 'id', ...extra], { maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(r.stderr.toString());
  const ids = r.stdout.toString().split('\n').filter((l) => l).map((l) => Number(JSON.parse(l).id)).sort((a, b) => a - b);
  return { ms, ids };
}

fs.rmSync(WORK, { recursive: true, force: true });
fs.mkdirSync(WORK, { recursive: true });
const db = await lancedb.connect(WORK);
let ref;
for (const rows of batches()) {
  if (!ref) ref = await db.createTable('ref', rows);
  else await ref.add(rows);
}
const uriRef = path.join(WORK, 'ref.lance');
const uriOurs = path.join(WORK, 'ours.lance');
fs.cpSync(uriRef, uriOurs, { recursive: true });
let t0 = performance.now();
await ref.createIndex('text', { config: lancedb.Index.fm() });
const buildRef = performance.now() - t0;
t0 = performance.now();
const cr = spawnSync(LANCE, ['create-index', uriOurs, 'text', '--type', 'fm']);
const buildOurs = performance.now() - t0;
if (cr.status !== 0) throw new Error(cr.stderr.toString());
const sizeRef = dirBytes(indexDir(uriRef));
const sizeOurs = dirBytes(indexDir(uriOurs));
console.log(`rows ${ROWS}; build FM: ref ${buildRef.toFixed(0)} ms, ours ${buildOurs.toFixed(0)} ms (ref/ours ${(buildRef / buildOurs).toFixed(2)}x); size ref ${(sizeRef / 1024).toFixed(0)} KiB, ours ${(sizeOurs / 1024).toFixed(0)} KiB`);

const reopened = await db.openTable('ref');
const refPlain = path.join(WORK, 'refplain.lance');
fs.cpSync(uriOurs, refPlain, { recursive: true });
// refplain: the same data without the index (the version before create-index).
const refPlainT = await (await lancedb.connect(WORK)).openTable('refplain');
await refPlainT.checkout(1);

console.log('| query | hits | ref FM ms | ours FM ms | ref/ours | ref scan ms | ours scan ms | ref/ours |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const needle of [VOCAB[7], VOCAB[40] + ' ' + VOCAB[41], 'qz', VOCAB[3].slice(1, 4)]) {
  const where = `contains(text, '${needle}')`;
  const plan = await reopened.query().where(where).explainPlan(true);
  if (!/@text_idx\(Fm\)/.test(plan)) throw new Error(`lance 12 did not plan ${where} on its index: ${plan}`);
  const time = async (t) => {
    const ids = (await t.query().where(where).select(['id']).toArray()).map((r) => Number(r.id)).sort((a, b) => a - b);
    const ms = [];
    for (let i = 0; i < REPS; i++) {
      const s = performance.now();
      await t.query().where(where).select(['id']).toArray();
      ms.push(performance.now() - s);
    }
    return { ms: median(ms), ids };
  };
  const rIdx = await time(reopened);
  const rScan = await time(refPlainT);
  const oIdx = []; const oScan = [];
  let oi, os;
  for (let i = 0; i < REPS; i++) { oi = ours(uriOurs, where); oIdx.push(oi.ms); os = ours(uriOurs, where, ['--no-index']); oScan.push(os.ms); }
  if (JSON.stringify(oi.ids) !== JSON.stringify(rIdx.ids) || JSON.stringify(os.ids) !== JSON.stringify(rIdx.ids)) {
    throw new Error(`${where}: ids differ (ours FM ${oi.ids.length}, ours scan ${os.ids.length}, ref ${rIdx.ids.length})`);
  }
  const a = median(oIdx), b = median(oScan);
  console.log(`| \`${where}\` | ${rIdx.ids.length} | ${rIdx.ms.toFixed(1)} | ${a.toFixed(1)} | ${(rIdx.ms / a).toFixed(2)}x | ${rScan.ms.toFixed(1)} | ${b.toFixed(1)} | ${(rScan.ms / b).toFixed(2)}x |`);
}
