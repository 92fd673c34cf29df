// Our full-text tokenizers (`lance tokenize`, src/index/fts/) against the reference's
// tokenize() (lance 12.0.0 in @lancedb/lancedb 0.39.0): the whole token list (text and
// position, in order) of every document of a multilingual corpus, for a cross product of every
// option the reference accepts, plus every Unicode code point through the code-point rules.
//
// The one known gap is stemming: we stem with Debian's libstemmer (Snowball 2.2), the
// reference with Snowball 3.x. The stemmer test asserts exactly which corpus words stem
// differently, per language; in the cross product a document of such a language may differ
// only if it contains one of those words. Every other mismatch fails.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import * as lancedb from '@lancedb/lancedb';

import { lance, lanceOk } from './lib/cli.mjs';
import { CORPUS } from './lib/fts_corpus.mjs';

const LANGUAGES = ['Arabic', 'Danish', 'Dutch', 'English', 'Finnish', 'French', 'German', 'Greek', 'Hungarian',
  'Italian', 'Norwegian', 'Portuguese', 'Romanian', 'Russian', 'Spanish', 'Swedish', 'Tamil', 'Turkish'];
const NO_LIMIT = 1000000;  // the reference's tokenize() cannot switch the length limit off

// How many distinct corpus words (tokens of the simple and whitespace tokenizers, lower-cased
// and not) Snowball 2.2 and the reference's Snowball 3.x stem differently, per language; the
// test prints them. Absent = none. Snowball 3 replaced the Dutch stemmer (Kraaij-Pohlmann).
const STEMMER_GAP_COUNT = { Danish: 7, Dutch: 164, English: 5, Finnish: 7, French: 4, German: 21, Greek: 1,
  Italian: 5, Norwegian: 10, Romanian: 6, Swedish: 2, Turkish: 16 };
// Filled by the stemmer test: language -> Set of words stemmed differently.
const gap = {};
let gapMeasured = null;

// The reference's option names -> the params JSON keys lance stores (and `--config` reads).
function paramsJson(o) {
  const j = {};
  const keys = { baseTokenizer: 'base_tokenizer', language: 'language', maxTokenLength: 'max_token_length',
    lowercase: 'lower_case', stem: 'stem', removeStopWords: 'remove_stop_words', customStopWords: 'custom_stop_words',
    asciiFolding: 'ascii_folding', ngramMinLength: 'min_ngram_length', ngramMaxLength: 'max_ngram_length',
    prefixOnly: 'prefix_only' };
  for (const [k, v] of Object.entries(o)) {
    if (!(k in keys)) throw new Error(`unknown option ${k}`);
    j[keys[k]] = v;
  }
  return JSON.stringify(j);
}

function ours(options, docs) {
  const r = lanceOk(['tokenize', '--jsonl', '--config', paramsJson(options)],
    { input: docs.map((d) => JSON.stringify(d)).join('\n') + '\n' });
  const lines = r.stdout.split('\n').filter((l) => l.length);
  assert.equal(lines.length, docs.length, `one line per document for ${JSON.stringify(options)}`);
  return lines.map((l) => JSON.parse(l));
}

async function theirs(options, docs) {
  const out = [];
  for (const d of docs) out.push((await lancedb.tokenize(d, options)).map((t) => ({ text: t.text, position: t.position })));
  return out;
}

// The lower-cased, unstemmed words of a document (to tell a stemmer difference from a bug).
async function wordsOf(doc, base, lowercase = true) {
  const toks = await lancedb.tokenize(doc, { baseTokenizer: base, lowercase, stem: false, removeStopWords: false,
    asciiFolding: false, maxTokenLength: NO_LIMIT });
  return new Set(toks.map((t) => t.text));
}

// Every distinct word the stemmer sees in the cross products below.
async function corpusWords() {
  const words = new Set();
  for (const base of ['simple', 'whitespace']) {
    for (const lowercase of [true, false]) {
      for (const d of CORPUS) {
        const toks = await lancedb.tokenize(d, { baseTokenizer: base, lowercase, stem: false, removeStopWords: false,
          asciiFolding: false, maxTokenLength: NO_LIMIT });
        toks.forEach((t) => words.add(t.text));
      }
    }
  }
  return [...words];
}

async function measureGap() {
  if (gapMeasured) return gapMeasured;
  const words = await corpusWords();
  for (const language of LANGUAGES) {
    const options = { baseTokenizer: 'raw', language, lowercase: false, stem: true, removeStopWords: false,
      asciiFolding: false, maxTokenLength: NO_LIMIT };
    const expect = await theirs(options, words);
    const got = ours(options, words);
    gap[language] = new Map();
    words.forEach((w, i) => {
      if (JSON.stringify(got[i]) !== JSON.stringify(expect[i])) gap[language].set(w, [expect[i][0].text, got[i][0].text]);
    });
  }
  gapMeasured = gap;
  return gap;
}

// Whether a document's mismatch is explained by a word the stemmers disagree on.
async function explainedByStemmer(doc, options) {
  const lang = options.language ?? 'English';
  const stems = options.stem ?? options.baseTokenizer !== 'ngram';
  if (!stems) return false;
  const g = (await measureGap())[lang];
  if (g.size === 0) return false;
  if (options.baseTokenizer === 'raw' || options.baseTokenizer === 'ngram') return true;  // whole text / grams: not word-aligned
  const words = await wordsOf(doc, options.baseTokenizer ?? 'simple', options.lowercase ?? true);
  return [...words].some((w) => g.has(w));
}

// Compares all documents; returns the number that differ only through a known stemmer gap.
async function compare(options, docs = CORPUS) {
  const expect = await theirs(options, docs);
  const got = ours(options, docs);
  let known = 0;
  for (let i = 0; i < docs.length; i++) {
    if (JSON.stringify(got[i]) === JSON.stringify(expect[i])) continue;
    if (await explainedByStemmer(docs[i], options)) { known++; continue; }
    assert.deepEqual(got[i], expect[i], `document ${i} ${JSON.stringify(docs[i]).slice(0, 80)} with ${JSON.stringify(options)}`);
  }
  return known;
}

describe('fts tokenizer equals lance 12 tokenize()', () => {
  test('every code point: alphanumeric, lower case, ASCII folding', async () => {
    const cps = [];
    for (let c = 0; c < 0x110000; c++) if (c < 0xd800 || c > 0xdfff) cps.push(c);
    const docs = [];
    for (let i = 0; i < cps.length; i += 20000) docs.push(cps.slice(i, i + 20000).map((c) => String.fromCodePoint(c)).join(' '));
    const off = { lowercase: false, stem: false, removeStopWords: false, asciiFolding: false, maxTokenLength: NO_LIMIT };
    for (const extra of [{ baseTokenizer: 'simple' }, { baseTokenizer: 'whitespace', lowercase: true },
      { baseTokenizer: 'whitespace', asciiFolding: true }, { baseTokenizer: 'whitespace', lowercase: true, asciiFolding: true }]) {
      assert.equal(await compare({ ...off, ...extra }, docs), 0);
    }
  });

  test('stemmers: equal except the Snowball 2.2 / 3.x differences, counted per language', async () => {
    const g = await measureGap();
    const counts = Object.fromEntries(LANGUAGES.filter((l) => g[l].size).map((l) => [l, g[l].size]));
    for (const l of LANGUAGES) {
      if (g[l].size) console.log(`# ${l} stems ${g[l].size} words differently: ${JSON.stringify([...g[l]].slice(0, 12))}`);
    }
    assert.deepEqual(counts, STEMMER_GAP_COUNT);
  });

  test('base tokenizers x filters x length limits (English)', async () => {
    let known = 0;
    let combos = 0;
    for (const baseTokenizer of ['simple', 'whitespace', 'raw', 'ngram']) {
      for (const lowercase of [true, false]) {
        for (const asciiFolding of [true, false]) {
          for (const stem of [true, false]) {
            for (const removeStopWords of [true, false]) {
              for (const maxTokenLength of [undefined, 1, 5, 40, NO_LIMIT]) {
                const o = { baseTokenizer, lowercase, asciiFolding, stem, removeStopWords };
                if (maxTokenLength !== undefined) o.maxTokenLength = maxTokenLength;
                known += await compare(o);
                combos++;
              }
            }
          }
        }
      }
    }
    console.log(`# ${combos} option combinations, ${known} documents differ by the English stemmer gap`);
  });

  test('every language: stemming and stop words, simple and whitespace', async () => {
    const known = {};
    for (const language of LANGUAGES) {
      for (const baseTokenizer of ['simple', 'whitespace']) {
        for (const [stem, removeStopWords] of [[true, true], [true, false], [false, true]]) {
          for (const lowercase of [true, false]) {
            known[language] = (known[language] ?? 0) + await compare({ baseTokenizer, language, stem, removeStopWords, lowercase });
          }
        }
      }
      // Defaults (stem, stop words, folding, lower case on) for the raw tokenizer too.
      known[language] += await compare({ baseTokenizer: 'raw', language });
    }
    for (const language of LANGUAGES) if (!(language in STEMMER_GAP_COUNT)) assert.equal(known[language], 0, language);
    console.log(`# documents differing by the stemmer gap: ${JSON.stringify(known)}`);
  });

  test('ngram lengths, prefix-only, and its defaults', async () => {
    for (const [ngramMinLength, ngramMaxLength] of [[1, 1], [1, 2], [2, 4], [3, 3], [1, 5], [4, 4], [2, 10]]) {
      for (const prefixOnly of [false, true]) {
        for (const lowercase of [true, false]) {
          assert.equal(await compare({ baseTokenizer: 'ngram', ngramMinLength, ngramMaxLength, prefixOnly, lowercase }), 0);
        }
      }
    }
    // ngram turns stemming and stop words off unless asked for; asked for, they apply per gram.
    assert.equal(await compare({ baseTokenizer: 'ngram' }), 0);
    assert.equal(await compare({ baseTokenizer: 'ngram', removeStopWords: true, ngramMinLength: 1, ngramMaxLength: 4 }), 0);
    await compare({ baseTokenizer: 'ngram', stem: true, removeStopWords: true, language: 'Spanish' });
  });

  test('custom stop words replace the built-in list', async () => {
    for (const customStopWords of [[], ['the', 'quick', 'dogs'], ['Die', 'die', 'straße', 'ü', 'é', ''], ['run', 'jump']]) {
      for (const baseTokenizer of ['simple', 'whitespace', 'raw', 'ngram']) {
        for (const [lowercase, stem] of [[true, true], [false, false], [true, false]]) {
          await compare({ baseTokenizer, customStopWords, removeStopWords: true, lowercase, stem });
        }
      }
    }
    // Without removeStopWords the custom list does nothing.
    assert.equal(await compare({ customStopWords: ['quick'], removeStopWords: false, stem: false }), 0);
  });

  test('the default options', async () => {
    for (const baseTokenizer of [undefined, 'simple', 'whitespace', 'raw', 'ngram']) {
      await compare(baseTokenizer ? { baseTokenizer } : {});
    }
  });

  test('options the reference refuses are refused', async () => {
    for (const [o, message] of [
      [{ baseTokenizer: 'ngram', ngramMinLength: 0 }, /min_ngram_length must be greater than 0/],
      [{ baseTokenizer: 'ngram', ngramMinLength: 4, ngramMaxLength: 3 }, /must not be greater than max_ngram_length/],
      [{ baseTokenizer: 'bogus' }, /unknown base tokenizer 'bogus'/],
      [{ language: 'english' }, /unknown tokenizer language 'english'/],
      [{ language: 'Klingon' }, /unknown tokenizer language 'Klingon'/],
    ]) {
      await assert.rejects(lancedb.tokenize('abc', o));
      const r = lance(['tokenize', '--config', paramsJson(o), 'abc']);
      assert.equal(r.status, 1, JSON.stringify(o));
      assert.match(r.stderr, message);
    }
    // ngram lengths do not matter to the other base tokenizers.
    assert.equal(await compare({ baseTokenizer: 'simple', ngramMinLength: 0, stem: false }), 0);
  });

  test('CLI flags mean what the params JSON means', () => {
    const text = 'The Running Dogs of Straße ÉCOLE';
    const viaFlags = lanceOk(['tokenize', '--base-tokenizer', 'whitespace', '--language', 'German', '--stem', 'false',
      '--lower-case', 'true', '--ascii-folding', 'false', '--max-token-length', 'none',
      '--custom-stop-words', '["of"]', text]).stdout;
    const viaConfig = lanceOk(['tokenize', '--config', JSON.stringify({ base_tokenizer: 'whitespace', language: 'German',
      stem: false, lower_case: true, ascii_folding: false, max_token_length: null, custom_stop_words: ['of'] }), text]).stdout;
    assert.equal(viaFlags, viaConfig);
    assert.deepEqual(JSON.parse(viaFlags).map((t) => t.text), ['the', 'running', 'dogs', 'straße', 'école']);
    // Positions as the index stores them keep leading gaps; offsets are bytes of the input.
    const idx = JSON.parse(lanceOk(['tokenize', '--index-positions', '--offsets', 'the dog']).stdout);
    assert.deepEqual(idx, [{ text: 'dog', position: 1, offset_from: 4, offset_to: 7 }]);
  });
});
