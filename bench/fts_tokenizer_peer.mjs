// The reference's side of the tokenizer bench: writes the corpus (the interop corpus repeated
// to about --mb MiB, one JSON string per line) and times lance 12's tokenize() on it for the
// option sets bench/fts_tokenizer_bench.cc times in ours. Prints one JSON line per set:
// {"name", "tokens", "wall_s", "cpu_s"}.
import fs from 'node:fs';
import * as lancedb from '@lancedb/lancedb';
import { CORPUS } from '../tests/interop/lib/fts_corpus.mjs';

const args = process.argv.slice(2);
const arg = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const out = arg('--corpus', '/tmp/fts-corpus.jsonl');
const mb = Number(arg('--mb', '4'));
const docs = [];
let size = 0;
for (let rep = 0; size < mb * (1 << 20); rep++) {
  for (const d of CORPUS) { const doc = rep % 2 ? d.toUpperCase() : d; docs.push(doc); size += Buffer.byteLength(doc); }
}
fs.writeFileSync(out, docs.map((d) => JSON.stringify(d)).join('\n') + '\n');

const SETS = {
  default: {},
  simple_plain: { stem: false, removeStopWords: false, asciiFolding: false, lowercase: false },
  whitespace: { baseTokenizer: 'whitespace' },
  raw: { baseTokenizer: 'raw', maxTokenLength: 1 << 30 },
  ngram3: { baseTokenizer: 'ngram' },
};
for (const [name, options] of Object.entries(SETS)) {
  await lancedb.tokenize(docs[0], options);  // warm-up
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let tokens = 0;
  for (const d of docs) tokens += (await lancedb.tokenize(d, options)).length;
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ name, docs: docs.length, bytes: size, tokens, wall_s: wall, cpu_s: (cpu.user + cpu.system) / 1e6 }));
}
