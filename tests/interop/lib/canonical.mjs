// The JS reference view of Arrow rows in the canonical JSON-lines form printed by
// `lance ipc cat`, and an exact comparator for that output.
//
// Canonical form (one JSON object per row, keys in schema order):
//   null -> null; bool -> true/false; integers of every width -> exact JSON integers;
//   floats -> shortest decimal that round-trips at the type's width (float16/32/64),
//   NaN/Infinity/-Infinity as the strings "NaN", "Infinity", "-Infinity";
//   utf8 -> string; binary / fixed_size_binary -> base64; date32 -> days;
//   date64, time, timestamp, duration -> integer in the type's unit;
//   decimal128 -> string with exactly `scale` fraction digits; lists -> arrays;
//   structs -> objects; maps -> arrays of [key, value]; dictionaries decoded.
//
// The expected rows are built from the raw Arrow buffers (not the lossy JS getters), so
// 64-bit integers and nanosecond timestamps stay exact. Expected values use these shapes:
//   null | boolean | string | bigint (integer) | Float | array | Obj
// The parser turns our output into the same shapes except numbers, which stay raw text
// (Num), so nothing is rounded before it is compared.
import * as A from 'apache-arrow';

export class Float {
  constructor(value, bits) {
    this.value = value;
    this.bits = bits;
  }

  // The shortest decimal of this value (memoized: rows are compared and printed).
  get shortest() {
    this.memo ??= shortestFloat(this.value, this.bits);
    return this.memo;
  }
}

export class Obj {
  constructor(entries) {
    this.entries = entries;  // [[key, value], ...] in order
  }
}

export class Num {
  constructor(raw) {
    this.raw = raw;
  }
}

// ---------------------------------------------------------------------------------------
// Float helpers: exact rounding to float16 / float32 and the shortest round-trip decimal.

// Rounds a double to the nearest float16 value (ties to even), returned as a double.
export function roundToFloat16(x) {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= 65520) return x > 0 ? Infinity : -Infinity;  // 65520 = max + half ulp, rounds up
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  if (2 ** (e + 1) <= a) e += 1;
  if (e < -14) e = -14;  // subnormal range has the quantum of the smallest normal
  const q = 2 ** (e - 10);
  const r = a / q;  // exact: scaling by a power of two
  let n = Math.floor(r);
  const frac = r - n;
  if (frac > 0.5 || (frac === 0.5 && n % 2 === 1)) n += 1;
  const out = n * q;
  return x < 0 ? -out : out;
}

// float16 bits <-> double, exact.
export function float16BitsToNumber(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  if (exp === 0) return sign * frac * 2 ** -24;
  return sign * (1024 + frac) * 2 ** (exp - 25);
}

export function numberToFloat16Bits(x) {
  if (Number.isNaN(x)) return 0x7e00;
  const r = roundToFloat16(x);
  const sign = r < 0 || Object.is(r, -0) ? 0x8000 : 0;
  const a = Math.abs(r);
  if (a === Infinity) return sign | 0x7c00;
  if (a === 0) return sign;
  if (a < 2 ** -14) return sign | Math.round(a / 2 ** -24);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e -= 1;
  if (2 ** (e + 1) <= a) e += 1;
  return sign | ((e + 15) << 10) | (Math.round(a / 2 ** (e - 10)) - 1024);
}

const ROUNDERS = {
  16: roundToFloat16,
  32: Math.fround,
  64: (x) => x,
};
const MAX_DIGITS = { 16: 5, 32: 9, 64: 17 };

// A finite decimal as sign + significant digits (no leading/trailing zeros) + exponent,
// meaning (-1)^neg * 0.d1d2d3... * 10^exp. Zero has digits ''.
export function normalizeDecimal(text) {
  const m = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return null;
  const neg = !!m[1];
  const intPart = m[2];
  const fracPart = m[3] || '';
  let exp = (m[4] ? parseInt(m[4], 10) : 0) + intPart.length;
  let digits = intPart + fracPart;
  const lead = digits.match(/^0*/)[0].length;
  digits = digits.slice(lead);
  exp -= lead;
  digits = digits.replace(/0+$/, '');
  if (digits === '') exp = 0;
  return { neg, digits, exp };
}

function decimalText({ neg, digits, exp }) {
  if (digits === '') return neg ? '-0.0' : '0.0';
  const s = neg ? '-' : '';
  const n = digits.length;
  if (exp > 0 && exp <= 21) {
    if (n <= exp) return `${s}${digits}${'0'.repeat(exp - n)}.0`;
    return `${s}${digits.slice(0, exp)}.${digits.slice(exp)}`;
  }
  if (exp <= 0 && exp > -6) return `${s}0.${'0'.repeat(-exp)}${digits}`;
  const mant = n === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${s}${mant}e${exp - 1}`;
}

// Adds `delta` (-1, 0, +1) units in the last place to a digit string; returns normalized.
function bumpDigits(neg, digits, exp, delta) {
  if (delta === 0) return { neg, digits, exp };
  let v = BigInt(digits) + BigInt(delta);
  if (v <= 0n) return null;
  let s = v.toString();
  const e = exp + (s.length - digits.length);
  return normalizeDecimal(`${neg ? '-' : ''}0.${s}e${e}`);
}

// Exact rationals [numerator, denominator] (BigInt, denominator > 0) for tie-breaking.
function exactRational(x) {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const exp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e;
  if (exp === 0) {
    e = -1074;
  } else {
    mant |= 1n << 52n;
    e = exp - 1075;
  }
  if (hi >>> 31) mant = -mant;
  return e >= 0 ? [mant << BigInt(e), 1n] : [mant, 1n << BigInt(-e)];
}

function decimalRational({ neg, digits, exp }) {
  // value = 0.DIGITS * 10^exp = DIGITS * 10^(exp - len)
  const k = exp - digits.length;
  let num = BigInt(digits || '0');
  if (neg) num = -num;
  return k >= 0 ? [num * 10n ** BigInt(k), 1n] : [num, 10n ** BigInt(-k)];
}

function absDiff([a, b], [c, d]) {
  const n = a * d - c * b;
  return [n < 0n ? -n : n, b * d];
}

function lessThan([a, b], [c, d]) {
  return a * d < c * b;
}

// Shortest decimal that rounds back to `x` at the given float width; among candidates of
// the shortest length the one nearest to x. `x` must already be representable at that width.
export function shortestFloat(x, bits) {
  if (Number.isNaN(x)) return { special: 'NaN' };
  if (x === Infinity) return { special: 'Infinity' };
  if (x === -Infinity) return { special: '-Infinity' };
  if (x === 0) return { neg: Object.is(x, -0), digits: '', exp: 0 };
  // ECMAScript Number::toString already yields the shortest, nearest round-trip digits.
  if (bits === 64) return normalizeDecimal(String(x));
  const round = ROUNDERS[bits];
  // Fast path: p0 = the fewest digits whose correctly rounded decimal reads back to x. When
  // x is not a power of two its round-trip interval is symmetric, so no shorter decimal can
  // read back and only the neighbours at p0 need the exact nearest/tie check. At powers of
  // two the interval is lopsided and every length is searched.
  let p0 = MAX_DIGITS[bits];
  for (let p = 1; p < MAX_DIGITS[bits]; p++) {
    if (round(Number(x.toPrecision(p))) === x) {
      p0 = p;
      break;
    }
  }
  const pow2 = Math.abs(x) === 2 ** Math.round(Math.log2(Math.abs(x)));
  if (!pow2) {
    // toPrecision rounds the exact value correctly, so its p0 digits are the nearest p0-digit
    // decimal, unless x lies exactly halfway between two (then it picks the larger magnitude
    // and the tie rule wants the smaller): x is then a (p0+1)-digit decimal ending in 5.
    const longer = x.toExponential(p0);
    const tie = /5e/.test(longer) && Number(longer) === x;
    if (!tie) return normalizeDecimal(x.toPrecision(p0));
  }
  for (let p = pow2 ? 1 : p0; p <= MAX_DIGITS[bits]; p++) {
    const found = nearestAtLength(x, bits, p);
    if (found) return found;
  }
  return normalizeDecimal(x.toExponential(16));
}

// Among the p-digit decimals next to x that read back to x at the given width, the one
// nearest to x (exact rational distance; on a tie the smaller magnitude), or null.
function nearestAtLength(x, bits, p) {
  const round = ROUNDERS[bits];
  const base = normalizeDecimal(x.toExponential(p - 1));
  const padded = base.digits.padEnd(p, '0');
  const hits = [];
  for (const d of [-1, 0, 1]) {  // increasing magnitude
    const c = bumpDigits(base.neg, padded, base.exp, d);
    if (c && round(Number(decimalText(c))) === x) hits.push(c);
  }
  if (hits.length <= 1) return hits[0] ?? null;
  const exact = exactRational(x);
  let best = hits[0];
  let bestDist = absDiff(decimalRational(best), exact);
  for (const c of hits.slice(1)) {
    const dist = absDiff(decimalRational(c), exact);
    if (lessThan(dist, bestDist)) {
      best = c;
      bestDist = dist;
    }
  }
  return best;
}

export function floatText(x, bits) {
  const s = shortestFloat(x, bits);
  return s.special ? JSON.stringify(s.special) : decimalText(s);
}

// ---------------------------------------------------------------------------------------
// Expected values from Arrow data.

function base64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

// Little-endian two's-complement words -> BigInt.
function wordsToBigInt(words, start, count) {
  let v = 0n;
  for (let i = count - 1; i >= 0; i--) v = (v << 32n) | BigInt(words[start + i]);
  const bits = BigInt(32 * count);
  if (v >> (bits - 1n)) v -= 1n << bits;
  return v;
}

export function decimalString(unscaled, scale) {
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString();
  if (scale <= 0) return (neg ? '-' : '') + digits + '0'.repeat(-scale);
  digits = digits.padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

// Locates global index `i` of a (possibly chunked) dictionary vector.
function dictionaryValue(dict, i) {
  for (const d of dict.data) {
    if (i < d.length) return valueAt(d, i);
    i -= d.length;
  }
  throw new Error(`dictionary index ${i} out of range`);
}

function floatBits(type) {
  return [16, 32, 64][type.precision];
}

// The canonical value of row `i` of one Arrow `Data` chunk.
export function valueAt(data, i) {
  const { type } = data;
  if (type.typeId === A.Type.Null) return null;
  if (!data.getValid(i)) return null;
  const T = A.Type;
  switch (type.typeId) {
    case T.Bool: {
      const pos = data.offset + i;
      return (data.values[pos >> 3] & (1 << (pos & 7))) !== 0;
    }
    case T.Int:
      return BigInt(data.values[i]);
    case T.Float: {
      const bits = floatBits(type);
      const raw = data.values[i];
      return new Float(bits === 16 ? float16BitsToNumber(raw) : raw, bits);
    }
    case T.Date:
    case T.Time:
    case T.Timestamp:
    case T.Duration:
      return BigInt(data.values[i]);
    case T.Decimal: {
      const words = type.bitWidth / 32;
      return decimalString(wordsToBigInt(data.values, i * words, words), type.scale);
    }
    case T.Utf8:
    case T.LargeUtf8:
    case T.Binary:
    case T.LargeBinary: {
      const start = Number(data.valueOffsets[i]);
      const end = Number(data.valueOffsets[i + 1]);
      const bytes = data.values.subarray(start, end);
      return type.typeId === T.Utf8 || type.typeId === T.LargeUtf8 ? utf8Decoder.decode(bytes)
                                                                   : base64(bytes);
    }
    case T.FixedSizeBinary: {
      const w = type.byteWidth;
      return base64(data.values.subarray(i * w, (i + 1) * w));
    }
    case T.List: {
      const start = data.valueOffsets[i];
      const end = data.valueOffsets[i + 1];
      const out = [];
      for (let j = start; j < end; j++) out.push(valueAt(data.children[0], j));
      return out;
    }
    case T.FixedSizeList: {
      const n = type.listSize;
      const out = [];
      for (let j = i * n; j < (i + 1) * n; j++) out.push(valueAt(data.children[0], j));
      return out;
    }
    case T.Struct:
      return new Obj(type.children.map((f, k) => [f.name, valueAt(data.children[k], i)]));
    case T.Map: {
      const start = data.valueOffsets[i];
      const end = data.valueOffsets[i + 1];
      const entries = data.children[0];
      const out = [];
      for (let j = start; j < end; j++) {
        if (!entries.getValid(j)) throw new Error('null map entry');
        out.push([valueAt(entries.children[0], j), valueAt(entries.children[1], j)]);
      }
      return out;
    }
    case T.Dictionary:
      return dictionaryValue(data.dictionary, Number(data.values[i]));
    default:
      throw new Error(`canonical: unsupported type ${type}`);
  }
}

// Expected rows (array of Obj) of an apache-arrow Table or RecordBatch. Duck-typed: tables
// from another copy of apache-arrow (the CommonJS build used by @lancedb/lancedb) work too.
const rowsMemo = new WeakMap();
export function expectedRows(tableOrBatch) {
  let rows = rowsMemo.get(tableOrBatch);
  if (rows === undefined) {
    rows = computeRows(tableOrBatch);
    rowsMemo.set(tableOrBatch, rows);
  }
  return rows;
}

function computeRows(tableOrBatch) {
  const batches = Array.isArray(tableOrBatch.batches) ? tableOrBatch.batches : [tableOrBatch];
  const rows = [];
  for (const batch of batches) {
    const fields = batch.schema.fields;
    const cols = fields.map((_, k) => batch.data.children[k]);
    for (let i = 0; i < batch.numRows; i++) {
      rows.push(new Obj(fields.map((f, k) => [f.name, valueAt(cols[k], i)])));
    }
  }
  return rows;
}

// Serializes an expected value as canonical JSON text.
export function toJson(v) {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Float) {
    const f = v.shortest;
    return f.special ? JSON.stringify(f.special) : decimalText(f);
  }
  if (v instanceof Num) return v.raw;
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  if (v instanceof Obj) {
    return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`).join(',')}}`;
  }
  throw new Error(`toJson: unexpected value ${v}`);
}

// Canonical JSON lines of expected rows (memoized per rows array).
const textMemo = new WeakMap();
export function rowsText(rows) {
  let text = textMemo.get(rows);
  if (text === undefined) {
    text = rows.map((r) => toJson(r) + '\n').join('');
    textMemo.set(rows, text);
  }
  return text;
}

// The JS reference view: canonical JSON lines of a Table / RecordBatch.
export function canonicalLines(tableOrBatch) {
  return rowsText(expectedRows(tableOrBatch));
}

// ---------------------------------------------------------------------------------------
// A strict JSON parser that keeps numbers as raw text and object keys in order.

export function parseJson(text) {
  let pos = 0;
  const fail = (what) => {
    throw new SyntaxError(`JSON: ${what} at offset ${pos} in ${JSON.stringify(text.slice(0, 200))}`);
  };
  const ws = () => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos])) pos++;
  };
  const value = () => {
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const entries = [];
      const seen = new Set();
      ws();
      if (text[pos] === '}') {
        pos++;
        return new Obj(entries);
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail('expected key');
        const k = string();
        if (seen.has(k)) fail(`duplicate key ${k}`);
        seen.add(k);
        ws();
        if (text[pos++] !== ':') fail('expected :');
        entries.push([k, value()]);
        ws();
        const d = text[pos++];
        if (d === '}') return new Obj(entries);
        if (d !== ',') fail('expected , or }');
      }
    }
    if (c === '[') {
      pos++;
      const out = [];
      ws();
      if (text[pos] === ']') {
        pos++;
        return out;
      }
      for (;;) {
        out.push(value());
        ws();
        const d = text[pos++];
        if (d === ']') return out;
        if (d !== ',') fail('expected , or ]');
      }
    }
    if (c === '"') return string();
    for (const [lit, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(lit, pos)) {
        pos += lit.length;
        return v;
      }
    }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(pos, pos + 400));
    if (!m) fail('unexpected character');
    pos += m[0].length;
    return new Num(m[0]);
  };
  const string = () => {
    pos++;  // opening quote
    let out = '';
    for (;;) {
      if (pos >= text.length) fail('unterminated string');
      const c = text[pos++];
      if (c === '"') return out;
      if (c.charCodeAt(0) < 0x20) fail('raw control character in string');
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = text[pos++];
      const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e in simple) {
        out += simple[e];
      } else if (e === 'u') {
        const hex = text.slice(pos, pos + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
        out += String.fromCharCode(parseInt(hex, 16));
        pos += 4;
      } else {
        fail('bad escape');
      }
    }
  };
  const v = value();
  ws();
  if (pos !== text.length) fail('trailing characters');
  return v;
}

// Parses JSON-lines output: every line one JSON value, the text ends with a newline
// (or is empty).
export function parseJsonLines(text) {
  if (text === '') return [];
  if (!text.endsWith('\n')) throw new SyntaxError('JSON lines output does not end with a newline');
  return text.slice(0, -1).split('\n').map((line, i) => {
    try {
      return parseJson(line);
    } catch (e) {
      e.message = `line ${i + 1}: ${e.message}`;
      throw e;
    }
  });
}

// ---------------------------------------------------------------------------------------
// Comparison: returns null when `actual` (parsed output) equals `expected`, otherwise a
// message naming the first difference by path.

function describe(v) {
  try {
    return toJson(v);
  } catch {
    return String(v);
  }
}

export function diffValue(expected, actual, path = '$') {
  const bad = (why) => `${path}: ${why}: expected ${describe(expected)}, got ${describe(actual)}`;
  if (expected === null || typeof expected === 'boolean' || typeof expected === 'string') {
    return expected === actual ? null : bad('differs');
  }
  if (typeof expected === 'bigint') {
    if (!(actual instanceof Num)) return bad('expected an integer');
    if (!/^-?(0|[1-9]\d*)$/.test(actual.raw)) return bad('integer not written as an exact JSON integer');
    return BigInt(actual.raw) === expected ? null : bad('integer differs');
  }
  if (expected instanceof Float) {
    const want = expected.shortest;
    if (want.special) return actual === want.special ? null : bad('special float differs');
    if (!(actual instanceof Num)) return bad('expected a number');
    const got = normalizeDecimal(actual.raw);
    if (got.neg !== want.neg || got.digits !== want.digits || got.exp !== want.exp) {
      return bad(`float${expected.bits} not the shortest round-trip decimal`);
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return bad('expected an array');
    if (actual.length !== expected.length) return bad(`array length ${actual.length} != ${expected.length}`);
    for (let i = 0; i < expected.length; i++) {
      const d = diffValue(expected[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (expected instanceof Obj) {
    if (!(actual instanceof Obj)) return bad('expected an object');
    const ek = expected.entries.map((e) => e[0]);
    const ak = actual.entries.map((e) => e[0]);
    if (ek.join('\u0000') !== ak.join('\u0000')) {
      return bad(`keys [${ak}] != [${ek}] (schema order)`);
    }
    for (let i = 0; i < ek.length; i++) {
      const d = diffValue(expected.entries[i][1], actual.entries[i][1], `${path}.${ek[i]}`);
      if (d) return d;
    }
    return null;
  }
  throw new Error(`diffValue: unexpected expected value ${expected}`);
}

// Compares JSON-lines text against expected rows; returns null or a message listing the
// first differences (at most one per column, at most `limit`). Values are compared first
// (exact integers, float digits, strings); then, unless `exact` is false, the text itself
// must equal the canonical serialization byte for byte (docs/cli.md fixes the notation).
export function diffRows(expectedRowsList, outputText, { limit = 8, exact = true } = {}) {
  const want = exact ? rowsText(expectedRowsList) : null;
  if (exact && want === outputText) return null;  // the text is unique: values equal too
  const problem = diffRowValues(expectedRowsList, outputText, limit);
  if (problem || !exact) return problem;
  const got = outputText.split('\n');
  const exp = want.split('\n');
  for (let i = 0; i < exp.length; i++) {
    if (got[i] === exp[i]) continue;
    let c = 0;
    while (c < exp[i].length && got[i][c] === exp[i][c]) c++;
    return `line ${i + 1} equal in value but not in canonical text at column ${c + 1}:\n` +
      `  expected ...${exp[i].slice(Math.max(0, c - 40), c + 60)}\n` +
      `  got      ...${got[i].slice(Math.max(0, c - 40), c + 60)}`;
  }
  return 'output differs from the canonical text';
}

function diffRowValues(expectedRowsList, outputText, limit) {
  let actual;
  try {
    actual = parseJsonLines(outputText);
  } catch (e) {
    return `output is not canonical JSON lines: ${e.message}`;
  }
  const problems = [];
  if (actual.length !== expectedRowsList.length) {
    problems.push(`row count ${actual.length} != expected ${expectedRowsList.length}`);
  }
  const seenColumns = new Set();
  const n = Math.min(actual.length, expectedRowsList.length);
  for (let r = 0; r < n && problems.length < limit; r++) {
    const exp = expectedRowsList[r];
    const act = actual[r];
    if (!(act instanceof Obj) || act.entries.length !== exp.entries.length) {
      problems.push(diffValue(exp, act, `row ${r}`));
      break;
    }
    for (let k = 0; k < exp.entries.length && problems.length < limit; k++) {
      const col = exp.entries[k][0];
      if (seenColumns.has(col)) continue;
      if (act.entries[k][0] !== col) {
        problems.push(`row ${r}: key ${k} is ${JSON.stringify(act.entries[k][0])}, expected ${JSON.stringify(col)}`);
        seenColumns.add(col);
        continue;
      }
      const d = diffValue(exp.entries[k][1], act.entries[k][1], `row ${r}.${col}`);
      if (d) {
        problems.push(d);
        seenColumns.add(col);
      }
    }
  }
  return problems.length ? problems.join('\n') : null;
}
