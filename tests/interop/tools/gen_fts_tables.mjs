// Regenerates the fact tables of our full-text tokenizers (src/index/fts/*.inc) from the
// behaviour of the reference, lance 12.0.0's tokenize() in @lancedb/lancedb 0.39.0:
//
//   unicode_tables.inc  every code point probed: which are alphanumeric (the simple
//                       tokenizer's rule), what the lower-case filter and the ASCII-folding
//                       filter turn each one into (both filters map one code point at a time).
//   stop_words.inc      per language, the candidate words the reference removes. Candidates
//                       are the public lists its stop-word filter is built from: the Snowball
//                       project's stop lists (as vendored by tantivy 0.24.2), the Lucene English
//                       list, the NLTK stop-word corpus and stopwords-iso (as packaged by the
//                       stop-words crate 0.10.0). A candidate is kept iff the reference drops it
//                       (raw tokenizer, no other filter), so the table is the reference's list
//                       restricted to the union of those sources.
//
// Usage (from tests/interop, with the upstream lists checked out somewhere):
//   node tools/gen_fts_tables.mjs --tantivy TANTIVY_GIT_DIR --stop-words STOP_WORDS_GIT_DIR OUT_DIR
// where each *_GIT_DIR is a git directory (read with `git show`, tantivy at tag 0.24.2).
import * as lancedb from "@lancedb/lancedb";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  if (i < 0 || i + 1 >= args.length) throw new Error(`missing ${name}`);
  return args[i + 1];
};
const tantivyGit = opt("--tantivy");
const stopWordsGit = opt("--stop-words");
const outDir = args[args.length - 1];

const OFF = { lowercase: false, stem: false, removeStopWords: false, asciiFolding: false, maxTokenLength: 100000 };
const hex = (c) => "0x" + c.toString(16).toUpperCase();
const cEscape = (s) =>
  // Three-digit octal escapes: unlike a hex escape, one never swallows the digits after it.
  [...Buffer.from(s, "utf8")].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : "\\" + b.toString(8).padStart(3, "0"))).join("");

// ---- Unicode tables -------------------------------------------------------------------------
const codePoints = [];
for (let c = 0; c < 0x110000; c++) if (c < 0xd800 || c > 0xdfff) codePoints.push(c);
const BATCH = 20000;

async function alphanumericRanges() {
  const alnum = [];
  for (let i = 0; i < codePoints.length; i += BATCH) {
    const chunk = codePoints.slice(i, i + BATCH);
    const toks = await lancedb.tokenize(chunk.map((c) => String.fromCodePoint(c)).join(" "), { ...OFF, baseTokenizer: "simple" });
    for (const t of toks) {
      if ([...t.text].length !== 1) throw new Error(`simple tokenizer joined ${JSON.stringify(t.text)}`);
      alnum.push(t.text.codePointAt(0));
    }
  }
  const ranges = [];
  for (const c of alnum) {
    if (ranges.length && ranges[ranges.length - 1][1] === c - 1) ranges[ranges.length - 1][1] = c;
    else ranges.push([c, c]);
  }
  return ranges;
}

// What a one-token filter makes of each code point (ASCII whitespace separates the tokens, so it
// is probed on its own: the whitespace tokenizer never yields it).
async function perCodePoint(filter) {
  const ws = new Set([0x09, 0x0a, 0x0c, 0x0d, 0x20]);
  const list = codePoints.filter((c) => !ws.has(c));
  const map = new Map();
  for (let i = 0; i < list.length; i += BATCH) {
    const chunk = list.slice(i, i + BATCH);
    const toks = await lancedb.tokenize(chunk.map((c) => String.fromCodePoint(c)).join(" "), { ...OFF, ...filter, baseTokenizer: "whitespace" });
    if (toks.length !== chunk.length) throw new Error(`expected ${chunk.length} tokens, got ${toks.length}`);
    for (const t of toks) {
      const c = chunk[t.position];
      if (t.text !== String.fromCodePoint(c)) map.set(c, t.text);
    }
  }
  return map;
}

// ---- stop words -----------------------------------------------------------------------------
const LANGUAGES = ["Arabic", "Danish", "Dutch", "English", "Finnish", "French", "German", "Greek", "Hungarian", "Italian",
  "Norwegian", "Portuguese", "Romanian", "Russian", "Spanish", "Swedish", "Tamil", "Turkish"];
const ISO = { Arabic: "ar", Danish: "da", Dutch: "nl", English: "en", Finnish: "fi", French: "fr", German: "de", Greek: "el",
  Hungarian: "hu", Italian: "it", Norwegian: "no", Portuguese: "pt", Romanian: "ro", Russian: "ru", Spanish: "es",
  Swedish: "sv", Tamil: "ta", Turkish: "tr" };
const git = (dir, spec) => execFileSync("git", ["--git-dir", dir, "show", spec], { maxBuffer: 1 << 28 }).toString("utf8");
const rustStrings = (src) => [...src.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`));

function candidates() {
  const out = Object.fromEntries(LANGUAGES.map((l) => [l, new Set()]));
  const snowball = git(tantivyGit, "0.24.2:src/tokenizer/stop_word_filter/stopwords.rs");
  for (const m of snowball.matchAll(/pub const ([A-Z]+): &\[&str\] = &\[([^\]]*)\]/g)) {
    const lang = m[1][0] + m[1].slice(1).toLowerCase();
    if (out[lang]) rustStrings(m[2]).forEach((w) => out[lang].add(w));
  }
  const lucene = git(tantivyGit, "0.24.2:src/tokenizer/stop_word_filter/mod.rs").match(/Language::English => \{[^[]*\[([^\]]*)\]/);
  rustStrings(lucene[1]).forEach((w) => out.English.add(w));
  for (const lang of LANGUAGES) {
    try {
      git(stopWordsGit, `HEAD:src/nltk/${lang.toLowerCase()}`).split("\n").filter((w) => w.length).forEach((w) => out[lang].add(w));
    } catch {}
  }
  const iso = JSON.parse(git(stopWordsGit, "HEAD:src/iso/stopwords-iso.json"));
  for (const lang of LANGUAGES) (iso[ISO[lang]] ?? []).forEach((w) => out[lang].add(w));
  return out;
}

async function removedBy(language, words) {
  const kept = [];
  for (const w of words) {
    const toks = await lancedb.tokenize(w, { ...OFF, baseTokenizer: "raw", language, removeStopWords: true });
    if (toks.length === 0) kept.push(w);
  }
  return kept;
}

// ---- output ---------------------------------------------------------------------------------
const header = (what) =>
  `// Generated by tests/interop/tools/gen_fts_tables.mjs from the behaviour of lance 12.0.0's tokenize()\n` +
  `// (@lancedb/lancedb 0.39.0): ${what}. Do not edit; regenerate.\n`;

const alnum = await alphanumericRanges();
const lower = await perCodePoint({ lowercase: true });
const fold = await perCodePoint({ asciiFolding: true });
let u = header("alphanumeric code points, lower-case and ASCII-folding maps of every code point");
u += `// ${alnum.length} ranges of alphanumeric code points (inclusive).\n`;
u += "constexpr CodePointRange kAlphanumericRanges[] = {\n";
for (const [a, b] of alnum) u += `    {${hex(a)}, ${hex(b)}},\n`;
u += "};\n\n";
u += `// ${lower.size} code points whose lower case differs, with it (UTF-8).\n`;
u += "constexpr CodePointMapping kLowerCase[] = {\n";
for (const [c, s] of [...lower].sort((a, b) => a[0] - b[0])) u += `    {${hex(c)}, "${cEscape(s)}"},\n`;
u += "};\n\n";
u += `// ${fold.size} code points the ASCII-folding filter replaces, with their replacement.\n`;
u += "constexpr CodePointMapping kAsciiFolding[] = {\n";
for (const [c, s] of [...fold].sort((a, b) => a[0] - b[0])) u += `    {${hex(c)}, "${cEscape(s)}"},\n`;
u += "};\n";
fs.writeFileSync(path.join(outDir, "unicode_tables.inc"), u);
console.log(`alphanumeric ranges ${alnum.length}, lower ${lower.size}, fold ${fold.size}`);

const cands = candidates();
let s = header("per language, the words of the public stop lists (Snowball via tantivy 0.24.2, Lucene, NLTK, stopwords-iso) that it removes");
s += "// One entry per language, in the order of the Language enum; words sorted, UTF-8.\n";
for (const lang of LANGUAGES) {
  const words = [...cands[lang]].sort();
  const kept = await removedBy(lang, words);
  console.log(`${lang}: ${kept.length} of ${words.length} candidates are stop words`);
  s += `constexpr const char* kStopWords${lang}[] = {\n`;
  for (const w of kept) s += `    "${cEscape(w)}",\n`;
  s += "};\n";
}
s += "constexpr StopWordList kStopWordLists[] = {\n";
for (const lang of LANGUAGES) s += `    {kStopWords${lang}, std::size(kStopWords${lang})},\n`;
s += "};\n";
fs.writeFileSync(path.join(outDir, "stop_words.inc"), s);
