// The reference's side of the tokenizer bench: writes the corpus (the interop corpus repeated
// to about --mb MiB, in 64 KiB documents, one JSON string per line) and times lance 12's tokenize() on it for the
// option sets bench/fts_tokenizer_bench.cc times in ours. Prints one JSON line per set:
// {"name", "tokens", "wall_s", "cpu_s"}.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { CORPUS } from '../tests/interop/lib/fts_corpus.mjs';

// Resolved through NODE_PATH (the run script points it at tests/interop/node_modules).
const lancedb = createRequire(import.meta.url)('@lancedb/lancedb');
const args = process.argv.slice(2);
const arg = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const out = arg('--corpus', '/tmp/fts-corpus.jsonl');
const mb = Number(arg('--mb', '4'));
// Documents of about 64 KiB (corpus sentences joined by newlines), so that the binding's
// per-call cost does not dominate the reference's figure.
const docs = [];
let size = 0;
let doc = [];
let docSize = 0;
for (let rep = 0; size < mb * (1 << 20); rep++) {
  for (const d of CORPUS) {
    const s = rep % 2 ? d.toUpperCase() : d;
    doc.push(s);
    docSize += Buffer.byteLength(s) + 1;
    size += Buffer.byteLength(s) + 1;
    if (docSize >= 1 << 16) { docs.push(doc.join('\n')); doc = []; docSize = 0; }
  }
}
if (doc.length) docs.push(doc.join('\n'));
fs.writeFileSync(out, docs.map((d) => JSON.stringify(d)).join('\n') + '\n');

const SETS = {
  default: {},
  simple_plain: { stem: false, removeStopWords: false, asciiFolding: false, lowercase: false },
  whitespace: { baseTokenizer: 'whitespace' },
  raw: { baseTokenizer: 'raw', maxTokenLength: 1 << 30 },  // one 64 KiB token per document
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
