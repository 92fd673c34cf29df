// Arrow IPC interop with apache-arrow JS 18.1.0:
//  (a) apache-arrow writes streams and files -> `lance ipc cat` prints exactly the canonical
//      rows of the JS table;
//  (b) `lance ipc convert` rewrites them (stream, file, zstd, lz4) -> apache-arrow reads the
//      uncompressed output back equal (schema with metadata, rows); compressed output is
//      checked with `lance ipc cat` (apache-arrow cannot read IPC body compression);
//  (c) JSON lines -> `lance ipc convert --schema` -> apache-arrow reads the table equal, and
//      Arrow -> .jsonl gives the canonical text;
//  (d) truncated / garbage input gives a clean error: non-zero exit, stderr message, no signal.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import * as A from 'apache-arrow';

import { canonicalLines, diffRows, expectedRows } from './lib/canonical.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import {
  cases, dictionaryEvolutionStream, floatBitsTable, invalidValueTables, singleTypeCases, toIPC,
  unsupportedTypeTables,
} from './lib/gen.mjs';
import { describeSchema, schemaToJson } from './lib/schema.mjs';

const dir = scratchDir();
const EXT = { stream: 'arrows', file: 'arrow' };

function slug(name) {
  return name.replace(/[^A-Za-z0-9]+/g, '_');
}

function writeInput(c, format) {
  const file = path.join(dir, `in_${slug(c.name)}.${EXT[format]}`);
  if (!fs.existsSync(file)) fs.writeFileSync(file, toIPC(c.table, format));
  return file;
}

function catProblem(file, rows) {
  const r = lance(['ipc', 'cat', file]);
  if (r.status !== 0) return `exit ${r.status ?? r.signal}: ${r.stderr.trim()}`;
  return diffRows(rows, r.stdout);
}

function assertCat(file, rows, what) {
  const problem = catProblem(file, rows);
  if (problem) assert.fail(`${what}: ${problem}`);
}

// Names the types that fail on their own (run only when a combined table failed).
function perTypeProblems(format) {
  const out = [];
  for (const c of singleTypeCases()) {
    const problem = catProblem(writeInput(c, format), expectedRows(c.table));
    if (problem) out.push(`  ${c.name}: ${problem.split('\n')[0]}`);
  }
  return out.length ? `\nfailing on their own:\n${out.join('\n')}` : '\nevery type passes on its own';
}

const CASES = cases();

describe('(a) apache-arrow writes, lance ipc cat reads', () => {
  for (const c of CASES) {
    for (const format of ['stream', 'file']) {
      test(`${c.name} [${format}]`, () => {
        let problem = catProblem(writeInput(c, format), expectedRows(c.table));
        if (problem && c.name === 'all types in one table') problem += perTypeProblems(format);
        if (problem) assert.fail(`${c.name} ${format}: ${problem}`);
      });
    }
  }

  test('float16/32/64 bit patterns print the same shortest text', () => {
    const table = floatBitsTable();
    const file = path.join(dir, 'float_bits.arrow');
    fs.writeFileSync(file, toIPC(table, 'file'));
    assertCat(file, expectedRows(table), 'float bit patterns');
  });

  test('all-null arrays whose values buffer apache-arrow leaves empty', () => {
    // apache-arrow writes 0 bytes of values for an all-null bool array; the slots are read as
    // zeros (they are null anyway), not refused.
    const table = A.tableFromArrays({
      b: A.vectorFromArray([null, null, null], new A.Bool()),
      i: A.vectorFromArray([null, null, null], new A.Int32()),
      l: A.vectorFromArray([[null], null, [null, null]],
        new A.List(new A.Field('item', new A.Bool(), true))),
    });
    const bytes = toIPC(table, 'stream');
    const file = path.join(dir, 'all_null_values.arrows');
    fs.writeFileSync(file, bytes);
    assertCat(file, expectedRows(table), 'all-null values');
  });

  test('dictionary replacement and delta in one stream', () => {
    const { bytes, table } = dictionaryEvolutionStream();
    const file = path.join(dir, 'dict_evolution.arrows');
    fs.writeFileSync(file, bytes);
    assertCat(file, expectedRows(table), 'dictionary evolution');
  });
});

// Output variants of `lance ipc convert`: [suffix, extra args, format, compressed]
const OUTPUTS = [
  ['stream', [], 'stream', false],
  ['file', [], 'file', false],
  ['zstd_stream', ['--compression', 'zstd'], 'stream', true],
  ['zstd_file', ['--compression', 'zstd'], 'file', true],
  ['lz4_stream', ['--compression', 'lz4'], 'stream', true],
  ['lz4_file', ['--compression', 'lz4'], 'file', true],
];

function assertReadBackEqual(bytes, table, what) {
  const back = A.tableFromIPC(bytes);
  assert.equal(describeSchema(back.schema), describeSchema(table.schema), `${what}: schema`);
  const d = diffRows(expectedRows(table), canonicalLines(back));
  if (d) assert.fail(`${what}: ${d}`);
}

describe('(b) lance ipc convert writes, apache-arrow reads', () => {
  // Compression is exercised on the cases that differ in body layout; the others share
  // their code paths with 'all types in one table'.
  const COMPRESSED_CASES = new Set(['all types in one table', 'empty batches only', 'zero batches',
                                    'sliced arrays', 'many rows']);
  for (const c of CASES) {
    for (const [suffix, args, format, compressed] of OUTPUTS) {
      if (compressed && !COMPRESSED_CASES.has(c.name)) continue;
      test(`${c.name} -> ${suffix}`, () => {
        const input = writeInput(c, 'file');
        const out = path.join(dir, `out_${slug(c.name)}_${suffix}.${EXT[format]}`);
        lanceOk(['ipc', 'convert', input, out, ...args]);
        const bytes = fs.readFileSync(out);
        const magic = bytes.subarray(0, 6).toString('latin1');
        if (format === 'file') {
          assert.equal(magic, 'ARROW1', 'file magic');
          assert.equal(bytes.subarray(bytes.length - 6).toString('latin1'), 'ARROW1', 'trailing magic');
        } else {
          assert.notEqual(magic, 'ARROW1', 'a stream has no file magic');
          assert.equal(bytes.subarray(bytes.length - 8).toString('hex'), 'ffffffff00000000', 'stream ends with EOS');
        }
        if (!compressed) {
          assertReadBackEqual(bytes, c.table, `${c.name} ${suffix}`);
        } else {
          // apache-arrow 18 refuses compressed bodies: proof the output really is compressed.
          if (c.table.numRows > 0) {
            assert.throws(() => A.tableFromIPC(bytes), /compression not implemented/, 'output is compressed');
          }
          assertCat(out, expectedRows(c.table), `${c.name} ${suffix}`);
        }
      });
    }
  }

  test('stream input to stream output, dictionary replacement and delta preserved', () => {
    const { bytes, table } = dictionaryEvolutionStream();
    const input = path.join(dir, 'dict_evolution_in.arrows');
    fs.writeFileSync(input, bytes);
    const out = path.join(dir, 'dict_evolution_out.arrows');
    lanceOk(['ipc', 'convert', input, out]);
    assertReadBackEqual(fs.readFileSync(out), table, 'dictionary evolution');
  });

  test('a file cannot hold a dictionary replacement: clean error or equal rows', () => {
    const { bytes, table } = dictionaryEvolutionStream();
    const input = path.join(dir, 'dict_evolution_in2.arrows');
    fs.writeFileSync(input, bytes);
    const out = path.join(dir, 'dict_evolution_out.arrow');
    const r = lance(['ipc', 'convert', input, out]);
    assert.equal(r.signal, null, 'no crash');
    if (r.status === 0) {
      assertReadBackEqual(fs.readFileSync(out), table, 'dictionary evolution to file');
    } else {
      assert.equal(r.status, 1);
      assert.match(r.stderr, /dictionar/i);
    }
  });

  test('all types from a stream input, every output', () => {
    const c = CASES.find((x) => x.name === 'all types in one table');
    const input = writeInput(c, 'stream');
    for (const [suffix, args, format, compressed] of OUTPUTS) {
      const out = path.join(dir, `from_stream_${suffix}.${EXT[format]}`);
      lanceOk(['ipc', 'convert', input, out, ...args]);
      if (compressed) assertCat(out, expectedRows(c.table), suffix);
      else assertReadBackEqual(fs.readFileSync(out), c.table, suffix);
    }
  });

  test('compressed output converts back to uncompressed equal', () => {
    const c = CASES.find((x) => x.name === 'all types in one table');
    const input = writeInput(c, 'file');
    for (const codec of ['zstd', 'lz4']) {
      const mid = path.join(dir, `roundtrip_${codec}.arrows`);
      const back = path.join(dir, `roundtrip_${codec}_back.arrow`);
      lanceOk(['ipc', 'convert', input, mid, '--compression', codec]);
      lanceOk(['ipc', 'convert', mid, back]);
      assertReadBackEqual(fs.readFileSync(back), c.table, codec);
    }
  });
});

// A clean failure: a non-zero exit code (not a signal) and a message on stderr.
function assertCleanError(r, what) {
  assert.equal(r.signal, null, `${what}: killed by ${r.signal}`);
  assert.notEqual(r.status, 0, `${what}: expected a non-zero exit code`);
  assert.ok(r.status > 0 && r.status < 128, `${what}: exit code ${r.status}`);
  assert.ok(r.stderr.trim().length > 0, `${what}: no message on stderr`);
}

// Runs `lance ipc cat` on bytes that may or may not be valid; never a crash, and when it
// succeeds its rows must be a prefix of `rows` (a stream cut at a message boundary is a valid
// stream without its end-of-stream marker).
function catMaybe(bytes, name, rows) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  const r = lance(['ipc', 'cat', file]);
  assert.equal(r.signal, null, `${name}: killed by ${r.signal}`);
  if (r.status !== 0) {
    assertCleanError(r, name);
    return false;
  }
  if (rows) {
    const n = r.stdout === '' ? 0 : r.stdout.split('\n').length - 1;
    assert.ok(n <= rows.length, `${name}: ${n} rows from a truncated input`);
    const d = diffRows(rows.slice(0, n), r.stdout);
    if (d) assert.fail(`${name}: ${d}`);
  }
  return true;
}

describe('(d) damaged input fails cleanly', () => {
  const c = CASES.find((x) => x.name === 'all types in one table');
  const rows = expectedRows(c.table);
  const fileBytes = Buffer.from(toIPC(c.table, 'file'));
  const streamBytes = Buffer.from(toIPC(c.table, 'stream'));

  test('missing file, empty file, garbage, bare magic', () => {
    assertCleanError(lance(['ipc', 'cat', path.join(dir, 'does_not_exist.arrow')]), 'missing file');
    const inputs = {
      'empty.arrow': Buffer.alloc(0),
      'empty.arrows': Buffer.alloc(0),
      'garbage.arrow': Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 131 + 7) & 255)),
      'garbage.arrows': Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 97 + 3) & 255)),
      'magic_only.arrow': Buffer.from('ARROW1\0\0ARROW1', 'latin1'),
      'text.arrows': Buffer.from('{"a":1}\n{"a":2}\n'),
      'huge_length.arrows': Buffer.from([0xff, 0xff, 0xff, 0xff, 0xf0, 0xff, 0xff, 0x7f, 1, 2, 3]),
    };
    for (const [name, bytes] of Object.entries(inputs)) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, bytes);
      assertCleanError(lance(['ipc', 'cat', file]), name);
      assertCleanError(lance(['ipc', 'convert', file, path.join(dir, `${name}.out.arrows`)]), `convert ${name}`);
    }
  });

  test('every truncation of a file fails cleanly', () => {
    const cuts = new Set([1, 5, 6, 8, 12, fileBytes.length - 1, fileBytes.length - 6, fileBytes.length - 10]);
    for (let k = 1; k < 12; k++) cuts.add(Math.floor((fileBytes.length * k) / 12));
    for (const cut of cuts) {
      const file = path.join(dir, `cut_${cut}.arrow`);
      fs.writeFileSync(file, fileBytes.subarray(0, cut));
      assertCleanError(lance(['ipc', 'cat', file]), `file cut at ${cut}/${fileBytes.length}`);
    }
  });

  test('truncated streams fail cleanly or yield a prefix of the rows', () => {
    let failures = 0;
    const cuts = new Set([1, 4, 7, 8, streamBytes.length - 1, streamBytes.length - 4]);
    for (let k = 1; k < 12; k++) cuts.add(Math.floor((streamBytes.length * k) / 12));
    for (const cut of cuts) {
      if (!catMaybe(streamBytes.subarray(0, cut), `cut_${cut}.arrows`, rows)) failures++;
    }
    assert.ok(failures >= cuts.size / 2, `only ${failures} of ${cuts.size} truncations were rejected`);
  });

  test('corrupted bytes never crash the reader', () => {
    let s = 99;
    for (const [bytes, ext] of [[fileBytes, 'arrow'], [streamBytes, 'arrows']]) {
      for (let k = 0; k < 12; k++) {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        const damaged = Buffer.from(bytes);
        const at = s % damaged.length;
        damaged[at] ^= 1 << (k % 8);
        if (k % 3 === 0) damaged.writeUInt32LE(0xfffffff0 >>> 0, Math.min(at & ~3, damaged.length - 4));
        catMaybe(damaged, `flip_${k}.${ext}`, null);
      }
    }
  });

  test('types lance-cpp does not model (intervals, unions) are refused by name', () => {
    for (const [name, table] of Object.entries(unsupportedTypeTables())) {
      const field = table.schema.fields[0].name;
      for (const format of ['stream', 'file']) {
        const file = path.join(dir, `unsupported_${name}.${EXT[format]}`);
        fs.writeFileSync(file, toIPC(table, format));
        assert.equal(A.tableFromIPC(fs.readFileSync(file)).numRows, table.numRows, 'apache-arrow reads it');
        const r = lance(['ipc', 'cat', file]);
        assertCleanError(r, `${name} ${format}`);
        assert.match(r.stderr, /not ?supported/i, `${name} ${format}`);
        assert.ok(r.stderr.includes(`'${field}'`), `${name} ${format}: the error names field ${field}: ${r.stderr}`);
      }
    }
  });

  test('invalid values (bad UTF-8, dictionary index out of range) are refused, naming the column', () => {
    for (const [name, { table, field, pattern }] of Object.entries(invalidValueTables())) {
      for (const format of ['stream', 'file']) {
        const file = path.join(dir, `invalid_${name}.${EXT[format]}`);
        fs.writeFileSync(file, toIPC(table, format));
        for (const args of [['ipc', 'cat', file], ['ipc', 'convert', file, path.join(dir, `invalid_${name}.out.arrows`)]]) {
          const r = lance(args);
          assertCleanError(r, `${name} ${format} ${args[1]}`);
          assert.match(r.stderr, pattern, `${name} ${format}`);
          assert.ok(r.stderr.includes(`'${field}'`), `${name} ${format}: the error names column ${field}: ${r.stderr}`);
        }
      }
    }
  });

  test('truncated compressed output fails cleanly', () => {
    const input = writeInput(c, 'file');
    for (const codec of ['zstd', 'lz4']) {
      const out = path.join(dir, `trunc_${codec}.arrows`);
      lanceOk(['ipc', 'convert', input, out, '--compression', codec]);
      const bytes = fs.readFileSync(out);
      for (const frac of [0.5, 0.95]) {
        catMaybe(bytes.subarray(0, Math.floor(bytes.length * frac)), `trunc_${codec}_${frac}.arrows`, rows);
      }
    }
  });
});

describe('(c) JSON lines <-> Arrow IPC', () => {
  for (const name of ['all types in one table', 'custom schema and field metadata', 'zero batches', 'many rows']) {
    const c = CASES.find((x) => x.name === name);
    test(`${name}: jsonl --schema -> stream and file -> apache-arrow reads it equal`, () => {
      const jsonl = path.join(dir, `rows_${slug(name)}.jsonl`);
      fs.writeFileSync(jsonl, canonicalLines(c.table));
      for (const format of ['stream', 'file']) {
        const out = path.join(dir, `from_jsonl_${slug(name)}.${EXT[format]}`);
        lanceOk(['ipc', 'convert', jsonl, out, '--schema', schemaToJson(c.table.schema)]);
        assertReadBackEqual(fs.readFileSync(out), c.table, `${name} ${format}`);
      }
    });

    test(`${name}: arrow -> jsonl is the canonical text`, () => {
      const out = path.join(dir, `to_jsonl_${slug(name)}.jsonl`);
      lanceOk(['ipc', 'convert', writeInput(c, 'file'), out]);
      const d = diffRows(expectedRows(c.table), fs.readFileSync(out, 'utf8'));
      if (d) assert.fail(d);
    });
  }

  test('jsonl that does not fit the schema fails cleanly, naming the line', () => {
    const schema = JSON.stringify({ fields: [{ name: 'a', type: 'int8', nullable: true }, { name: 's', type: 'utf8', nullable: false }] });
    const bad = {
      'out_of_range.jsonl': '{"a":1,"s":"x"}\n{"a":128,"s":"y"}\n',
      'wrong_kind.jsonl': '{"a":1,"s":"x"}\n{"a":"one","s":"y"}\n',
      'not_json.jsonl': '{"a":1,"s":"x"}\n{"a":1,"s":\n',
      'unknown_key.jsonl': '{"a":1,"s":"x"}\n{"a":1,"s":"y","zzz":3}\n',
    };
    for (const [name, text] of Object.entries(bad)) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      const r = lance(['ipc', 'convert', file, path.join(dir, `${name}.arrows`), '--schema', schema]);
      assertCleanError(r, name);
      assert.match(r.stderr, /line 2|:2\b/, `${name}: the error names line 2`);
    }
  });
});
