// FM-index build, lance 12 (@lancedb/lancedb 0.39.0, in process) against ours (`lance
// create-index --type fm`, a whole process), on the same table, alternating, --reps builds each.
// Each build runs on a fresh hard-linked copy of --plain (lance 12's table with a utf8 `text`
// column, e.g. run_fts_bench.sh's plain.lance of the harness's 1M rows). Wall ms and CPU ms
// (lance 12: process.cpuUsage() over createIndex, every thread; ours: the child's user + system
// time from /usr/bin/time), medians, ratio = lance 12 / ours, the load average before and after.
// Checks: both indexes give the same ids for a few needles (ours through `lance scan --where`
// on each index, lance 12 through its own), and the index files are the same size.
//   node bench/fm_build_bench.mjs --lance build/lance --plain DIR/tables/plain.lance
//        [--reps 3] [--work /tmp/lance-fm-build] [--out FILE]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.resolve('tests/interop/package.json'));
const lancedb = require('@lancedb/lancedb');

const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : d; };
const LANCE = path.resolve(arg('--lance', 'build/lance'));
const PLAIN = path.resolve(arg('--plain', '/tmp/lance-fts-bench/rows-1000000/tables/plain.lance'));
const REPS = Number(arg('--reps', 3));
const DIR = arg('--work', '/tmp/lance-fm-build');
const OUT = arg('--out', null);
const log = (m) => console.error(`[fm-build] ${m}`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(' ');
const indexBytes = (uri) => {
  const d = path.join(uri, '_indices');
  const sub = path.join(d, fs.readdirSync(d)[0]);
  return fs.readdirSync(sub).reduce((s, f) => s + fs.statSync(path.join(sub, f)).size, 0);
};

fs.rmSync(DIR, { recursive: true, force: true });
fs.mkdirSync(DIR, { recursive: true });
const db = await lancedb.connect(DIR);
const fresh = (t) => {
  const uri = path.join(DIR, `${t}.lance`);
  fs.rmSync(uri, { recursive: true, force: true });
  spawnSync('cp', ['-al', PLAIN, uri]);
  return uri;
};
const loadBefore = load();
const ref = { wall: [], cpu: [] }, ours = { wall: [], cpu: [] };
for (let r = 0; r < REPS; r++) {
  const ru = fresh('ref');
  let t0 = performance.now(), c0 = cpuMs();
  await (await db.openTable('ref')).createIndex('text', { config: lancedb.Index.fm() });
  ref.wall.push(performance.now() - t0);
  ref.cpu.push(cpuMs() - c0);
  const ou = fresh('ours');
  t0 = performance.now();
  const cr = spawnSync('/usr/bin/time', ['-f', '%U %S', LANCE, 'create-index', ou, 'text', '--type', 'fm']);
  ours.wall.push(performance.now() - t0);
  if (cr.status !== 0) throw new Error(cr.stderr.toString());
  const [u, s] = cr.stderr.toString().trim().split('\n').pop().split(' ').map(Number);
  ours.cpu.push((u + s) * 1000);
  log(`rep ${r}: lance 12 ${ref.wall[r].toFixed(0)} ms (CPU ${ref.cpu[r].toFixed(0)}), ours ${ours.wall[r].toFixed(0)} ms (CPU ${ours.cpu[r].toFixed(0)})`);
  if (r + 1 < REPS) continue;
  // The last pair: same answers, same size.
  const refTable = await db.openTable('ref');
  for (const needle of ['qz', 'gawolife rubi', 'lowihoke sozruposi zosim']) {
    const where = `contains(text, '${needle}')`;
    const theirs = (await refTable.query().where(where).select(['id']).toArray()).map((x) => Number(x.id)).sort((a, b) => a - b);
    const sc = spawnSync(LANCE, ['scan', ou, '--where', where, '--columns', 'id'], { maxBuffer: 1 << 30 });
    if (sc.status !== 0) throw new Error(sc.stderr.toString());
    const mine = sc.stdout.toString().trim().split('\n').filter(Boolean).map((l) => JSON.parse(l).id).sort((a, b) => a - b);
    if (JSON.stringify(theirs) !== JSON.stringify(mine)) throw new Error(`${where}: ${theirs.length} ids from lance 12, ${mine.length} from ours`);
  }
  log(`answers equal; index bytes lance 12 ${indexBytes(ru)}, ours ${indexBytes(ou)}`);
}
const m = (x) => median(x).toFixed(0);
const lines = [
  `FM build on ${PLAIN}, ${REPS} builds each, medians; load ${loadBefore} before, ${load()} after; ratio = lance 12 / ours`,
  '',
  '| | lance 12 | ours | ratio |',
  '|---|---:|---:|---:|',
  `| wall ms | ${m(ref.wall)} | ${m(ours.wall)} | ${(median(ref.wall) / median(ours.wall)).toFixed(2)}x |`,
  `| CPU ms | ${m(ref.cpu)} | ${m(ours.cpu)} | ${(median(ref.cpu) / median(ours.cpu)).toFixed(2)}x |`,
];
console.log(lines.join('\n'));
if (OUT) {
  fs.writeFileSync(OUT, JSON.stringify({ ref, ours }));
  fs.writeFileSync(`${OUT}.md`, lines.join('\n') + '\n');
}
