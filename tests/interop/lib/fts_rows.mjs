// Deterministic English-like rows for the full-text search goldens and interop tests:
// `id` int64, `body` utf8 (3..24 words from a skewed vocabulary, plus `lance` in three rows of
// four, so its postings span several 128-document blocks; every 17th null, every 29th empty) and
// `title` utf8 (2..5 words; every 13th null).
import * as arrow from 'apache-arrow';

export const VOCAB = [
  'the', 'search', 'engine', 'lance', 'quick', 'brown', 'fox', 'jumps', 'over', 'lazy', 'dog',
  'index', 'format', 'vector', 'column', 'query', 'score', 'rust', 'native', 'table', 'data',
  'running', 'runner', 'runs', 'ranked', 'block', 'posting', 'token', 'phrase', 'documents',
  'river', 'mountain', 'green', 'forest', 'city', 'night', 'light', 'storm', 'ocean', 'stone',
  'café', 'naïve', 'Zebra', 'APPLE', 'banana', 'cherry', 'delta', 'echo', 'foxtrot', 'golf',
];

function rng(seed) {
  let s = BigInt(seed) * 6364136223846793005n + 1442695040888963407n;
  return () => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number(s >> 33n) / 2 ** 31;
  };
}

function words(r, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    // skewed: low indexes much more often
    const x = r();
    out.push(VOCAB[Math.floor(x * x * VOCAB.length)]);
  }
  return out;
}

export function ftsRow(id) {
  const r = rng(id + 1);
  const n = 3 + Math.floor(r() * 22);
  const w = words(r, n);
  // a word in three of four rows, so its posting lists span full 128-document blocks
  if (id % 4 !== 0) w.splice(Math.floor(r() * w.length), 0, 'lance');
  let body = w.join(' ');
  if (id % 5 === 1) body = body.replace(' ', ', ') + '.';
  if (id % 17 === 4) body = null;
  else if (id % 29 === 8) body = '';
  let title = words(r, 2 + Math.floor(r() * 4)).join(' ');
  if (id % 13 === 6) title = null;
  return { id, body, title };
}

export function ftsRows(start, count) {
  return Array.from({ length: count }, (_, i) => ftsRow(start + i));
}

export function ftsTable(start, count) {
  const rows = ftsRows(start, count);
  return arrow.tableFromArrays({
    id: BigInt64Array.from(rows.map((r) => BigInt(r.id))),
    body: arrow.vectorFromArray(rows.map((r) => r.body), new arrow.Utf8()),
    title: arrow.vectorFromArray(rows.map((r) => r.title), new arrow.Utf8()),
  });
}
