// CSV in and out of datasets, checked against the reference (lance 12):
//   * `lance create --input X.csv` without a schema: the CSV (RFC 4180 quoting, CRLF, line
//     breaks in quoted fields, nulls) is parsed independently here in JS with the same
//     inference rules (int64 / float64 / bool / utf8); lance 12 reads our dataset equal to
//     those rows, with those types;
//   * with `--schema`: narrower and temporal/nested types, read by lance 12 equal to the
//     JSON-lines twin of the same rows written through `lance create --input X.jsonl`;
//   * TSV and `--delimiter`, with ISO 8601 dates, times and timestamps (offsets on zoned
//     columns): read by lance 12 equal to the JSON-lines twin holding the integers;
//   * malformed CSV: the error names the file, line and column;
//   * `lance scan --output X.arrows|.arrow|.jsonl|.csv` of a dataset lance 12 wrote: each
//     file read back (apache-arrow JS, text, the JS CSV parser and `lance create` again)
//     equals what lance 12 reads.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { canonicalLines, diffRows, expectedRows } from './lib/canonical.mjs';
import { lance, lanceOk, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';

// ---- an RFC 4180 reader and the inference rules, written independently of the C++ one ----

function parseCsv(text) {
  if (text.startsWith('\ufeff')) text = text.slice(1);
  const records = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '\n' || text.startsWith('\r\n', i)) {  // blank line (multi-column files)
      i += text[i] === '\n' ? 1 : 2;
      continue;
    }
    const rec = [];
    for (;;) {
      let value = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          const q = text.indexOf('"', i);
          if (q < 0) throw new Error('unterminated quote');
          value += text.slice(i, q);
          if (text[q + 1] === '"') { value += '"'; i = q + 2; continue; }
          i = q + 1;
          break;
        }
      } else {
        let j = i;
        while (j < text.length && text[j] !== ',' && text[j] !== '\n' && !text.startsWith('\r\n', j)) j++;
        value = text.slice(i, j);
        i = j;
      }
      rec.push(value);
      if (text[i] === ',') { i++; continue; }
      if (i < text.length) i += text[i] === '\n' ? 1 : 2;
      break;
    }
    records.push(rec);
  }
  return { header: records[0], rows: records.slice(1) };
}

const INT = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(nan|inf|infinity)$/i;
const BOOL = /^(true|false)$/i;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const isInt = (s) => INT.test(s) && BigInt(s) >= I64_MIN && BigInt(s) <= I64_MAX;
const toFloat = (s) => {
  const t = s.toLowerCase().replace(/^\+/, '');
  if (t === 'nan' || t === '-nan') return NaN;
  if (t === 'inf' || t === 'infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  return Number(t);
};

// Arrow columns of the parsed CSV: per column the first of int64, float64, bool that every
// non-empty cell is, else utf8 (empty string, not null, for strings).
function inferColumns({ header, rows }) {
  return header.map((name, k) => {
    const cells = rows.map((r) => r[k]);
    const set = cells.filter((c) => c !== '');
    if (set.length === 0) return { name, type: new A.Utf8(), values: cells };
    if (set.every(isInt)) {
      return { name, type: new A.Int64(), values: cells.map((c) => (c === '' ? null : BigInt(c))) };
    }
    if (set.every((c) => FLOAT.test(c))) {
      return { name, type: new A.Float64(), values: cells.map((c) => (c === '' ? null : toFloat(c))) };
    }
    if (set.every((c) => BOOL.test(c))) {
      return { name, type: new A.Bool(), values: cells.map((c) => (c === '' ? null : c.toLowerCase() === 'true')) };
    }
    return { name, type: new A.Utf8(), values: cells };
  });
}

// ---- helpers ----

const quote = (s) => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);

async function referenceRead(dir, name) {
  const t = await (await lancedb.connect(dir)).openTable(name);
  return { arrow: await t.query().toArrow(), schema: await t.schema() };
}

const typeNames = (schema) => schema.fields.map((f) => `${f.name}:${String(f.type)}`);

describe('CSV input and scan --output, read by lance 12', () => {
  let dir;
  before(() => { dir = scratchDir('lance-csv-'); });

  test('an inferred CSV: lance 12 reads what JS parses, types included', async () => {
    const words = ['plain', 'comma, inside', 'say "hi"', 'two\nlines', 'crlf\r\nin', 'café ☕', '', ' padded '];
    const lines = ['id,score,ok,label,big,maybe_num,empty'];
    for (let i = 0; i < 300; i++) {
      const score = i % 11 === 0 ? '' : i % 13 === 0 ? 'NaN' : i % 17 === 0 ? '-Infinity' : (i * 1.25 - 100).toString();
      const ok = i % 7 === 0 ? '' : i % 3 === 0 ? 'TRUE' : i % 2 === 0 ? 'false' : 'True';
      const label = words[i % words.length];
      const big = i % 5 === 0 ? '' : (BigInt(i) * 30000000000000000n - 4611686018427387904n).toString();
      const maybe = i === 150 ? 'n/a' : String(i);  // one word makes the column utf8
      // Quote some unquoted-safe cells too: quoting does not change a cell's value.
      const idCell = i % 4 === 0 ? `"${i}"` : String(i);
      lines.push([idCell, score, ok, quote(label), big, maybe, ''].join(','));
    }
    const text = '\ufeff' + lines.join('\r\n') + '\r\n\r\n';
    const file = path.join(dir, 'inferred.csv');
    fs.writeFileSync(file, text);
    const uri = path.join(dir, 'inferred.lance');
    const out = JSON.parse(lanceOk(['create', uri, '--input', file, '--max-rows-per-file', '128']).stdout);
    assert.equal(out.rows_written, 300);

    const expected = makeTable(inferColumns(parseCsv(text)), [300]);
    assert.deepEqual(expected.schema.fields.map((f) => String(f.type)),
      ['Int64', 'Float64', 'Bool', 'Utf8', 'Int64', 'Utf8', 'Utf8']);
    const { arrow, schema } = await referenceRead(dir, 'inferred');
    assert.deepEqual(typeNames(schema), typeNames(expected.schema));
    assert.equal(diffRows(expectedRows(expected), canonicalLines(arrow)), null);
    // and our own scan agrees
    assert.equal(diffRows(expectedRows(expected), lanceOk(['scan', uri]).stdout), null);
  });

  test('a CSV with --schema equals its JSON-lines twin in lance 12', async () => {
    const schema = {
      fields: [
        { name: 'id', type: 'int32', nullable: false },
        { name: 'f', type: 'float32' },
        { name: 'day', type: 'date32' },
        { name: 'price', type: { name: 'decimal128', precision: 12, scale: 2 } },
        { name: 'tags', type: { name: 'list', item: { name: 'item', type: 'utf8' } } },
        { name: 'name', type: 'utf8' },
        { name: 'flag', type: 'bool' },
      ],
    };
    const schemaFile = path.join(dir, 'typed.schema.json');
    fs.writeFileSync(schemaFile, JSON.stringify(schema));
    const csv = ['name,id,f,day,price,tags,flag'];  // header order differs from the schema's
    const jsonl = [];
    for (let i = 0; i < 120; i++) {
      const f = i % 9 === 0 ? null : (i / 4).toString();
      const day = i % 10 === 0 ? null : 19000 + i;
      const price = i % 6 === 0 ? null : `${i * 3}.${String(i % 100).padStart(2, '0')}`;
      const tags = i % 8 === 0 ? null : i % 3 === 0 ? [] : [`t${i}`, `x,"${i}"`];
      const name = `n${i}`;
      const flag = i % 5 === 0 ? null : i % 2 === 0;
      csv.push([quote(name), i, f ?? '', day ?? '', price ?? '', tags === null ? '' : quote(JSON.stringify(tags)),
                flag === null ? '' : String(flag)].join(','));
      jsonl.push(JSON.stringify({ id: i, f: f === null ? null : Number(f), day, price, tags, name, flag }));
    }
    const csvFile = path.join(dir, 'typed.csv');
    const jsonlFile = path.join(dir, 'typed.jsonl');
    fs.writeFileSync(csvFile, csv.join('\n') + '\n');
    fs.writeFileSync(jsonlFile, jsonl.join('\n') + '\n');
    lanceOk(['create', path.join(dir, 'typed_csv.lance'), '--input', csvFile, '--schema', schemaFile]);
    lanceOk(['create', path.join(dir, 'typed_jsonl.lance'), '--input', jsonlFile, '--schema', schemaFile]);
    const a = await referenceRead(dir, 'typed_csv');
    const b = await referenceRead(dir, 'typed_jsonl');
    assert.deepEqual(typeNames(a.schema), typeNames(b.schema));
    assert.equal(a.arrow.numRows, 120);
    assert.equal(diffRows(expectedRows(b.arrow), canonicalLines(a.arrow)), null);
  });

  test('TSV and --delimiter with ISO 8601 temporal text equal their JSON-lines twin in lance 12', async () => {
    const schema = {
      fields: [
        { name: 'id', type: 'int32', nullable: false },
        { name: 'day', type: 'date32' },
        { name: 'at', type: { name: 'timestamp', unit: 'us' } },
        { name: 'atz', type: { name: 'timestamp', unit: 'ms', timezone: 'UTC' } },
        { name: 'tod', type: { name: 'time64', unit: 'us' } },
        { name: 'note', type: 'utf8' },
      ],
    };
    const schemaFile = path.join(dir, 'iso.schema.json');
    fs.writeFileSync(schemaFile, JSON.stringify(schema));
    const pad = (n, w = 2) => String(n).padStart(w, '0');
    const rows = [];
    for (let i = 0; i < 90; i++) {
      const y = 1960 + i;  // before and after the epoch, leap years included
      const m = 1 + (i % 12);
      const d = 1 + ((i * 7) % 28) + (m === 2 && i % 4 === 0 ? 1 : 0);
      const h = i % 24;
      const mi = (i * 13) % 60;
      const sec = (i * 17) % 60;
      const frac = (i * 12345) % 1000000;  // microseconds
      const off = [0, 330, -90, 60][i % 4];  // minutes east of UTC, for the zoned column
      const dayMs = Date.UTC(y, m - 1, d);
      const local = dayMs + ((h * 60 + mi) * 60 + sec) * 1000;
      const offText = off === 0 ? 'Z' : `${off < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
      const ms = Math.trunc(frac / 1000);
      rows.push({
        id: i,
        day: i % 9 === 0 ? null : { text: `${y}-${pad(m)}-${pad(d)}`, value: dayMs / 86400000 },
        at: i % 10 === 0 ? null : {
          text: `${y}-${pad(m)}-${pad(d)}${i % 2 ? 'T' : ' '}${pad(h)}:${pad(mi)}:${pad(sec)}.${pad(frac, 6)}`,
          value: (BigInt(local) * 1000n + BigInt(frac)).toString() },
        atz: i % 11 === 0 ? null : {
          text: `${y}-${pad(m)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(sec)}.${pad(ms, 3)}${offText}`,
          value: (BigInt(local - off * 60000) + BigInt(ms)).toString() },
        tod: i % 12 === 0 ? null : {
          text: `${pad(h)}:${pad(mi)}:${pad(sec)}.${pad(frac, 6)}`,
          value: ((h * 3600 + mi * 60 + sec) * 1000000 + frac).toString() },
        note: `n${i}, "quoted"; |piped|`,
      });
    }
    const cols = ['id', 'day', 'at', 'atz', 'tod', 'note'];
    const cell = (r, c, sep) => {
      const v = r[c];
      if (v === null) return '';
      if (typeof v === 'object') return v.text;
      const text = String(v);
      return text.includes(sep) || text.includes('"') ? `"${text.replaceAll('"', '""')}"` : text;
    };
    const write = (name, sep) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, [cols.join(sep), ...rows.map((r) => cols.map((c) => cell(r, c, sep)).join(sep))].join('\n') + '\n');
      return file;
    };
    const jsonl = path.join(dir, 'iso.jsonl');
    fs.writeFileSync(jsonl, rows.map((r) => `{${cols.map((c) => {
      const v = r[c];
      return `"${c}":${v === null ? 'null' : typeof v === 'object' ? v.value : JSON.stringify(v)}`;
    }).join(',')}}`).join('\n') + '\n');
    lanceOk(['create', path.join(dir, 'iso_tsv.lance'), '--input', write('iso.tsv', '\t'), '--schema', schemaFile]);
    lanceOk(['create', path.join(dir, 'iso_semi.lance'), '--input', write('iso_semi.csv', ';'), '--schema', schemaFile,
             '--delimiter', ';']);
    lanceOk(['create', path.join(dir, 'iso_jsonl.lance'), '--input', jsonl, '--schema', schemaFile]);
    const twin = await referenceRead(dir, 'iso_jsonl');
    assert.equal(twin.arrow.numRows, 90);
    for (const name of ['iso_tsv', 'iso_semi']) {
      const got = await referenceRead(dir, name);
      assert.deepEqual(typeNames(got.schema), typeNames(twin.schema), name);
      assert.equal(diffRows(expectedRows(twin.arrow), canonicalLines(got.arrow)), null, name);
    }
    // Without --delimiter the ';' file is one column per record, and its quoted notes break the
    // CSV quoting rules: the error names the record.
    const r = lance(['create', path.join(dir, 'iso_wrong.lance'), '--input', path.join(dir, 'iso_semi.csv'),
                     '--schema', schemaFile]);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /iso_semi\.csv: line 2, column 1: '"' inside an unquoted field/);
    // An offset on a timestamp without time zone names the cell.
    const bad = path.join(dir, 'bad_offset.tsv');
    fs.writeFileSync(bad, 'id\tat\n1\t2024-01-01T00:00:00+01:00\n');
    const badSchema = path.join(dir, 'bad_offset.schema.json');
    fs.writeFileSync(badSchema, JSON.stringify({ fields: [schema.fields[0], schema.fields[2]] }));
    const e = lance(['create', path.join(dir, 'bad_offset.lance'), '--input', bad, '--schema', badSchema]);
    assert.notEqual(e.status, 0);
    assert.match(e.stderr, /bad_offset\.tsv: line 2, column 2 \('at'\): '2024-01-01T00:00:00\+01:00' is not a valid timestamp\[us\] value: the text has a UTC offset, but the column is a timestamp without time zone/);
    // scan --output .tsv and --delimiter '|' read back into equal datasets.
    const uri = path.join(dir, 'iso_tsv.lance');
    for (const [out, extra] of [['back.tsv', []], ['back_pipe.csv', ['--delimiter', '|']]]) {
      const file = path.join(dir, out);
      const info = JSON.parse(lanceOk(['scan', uri, '--output', file, ...extra]).stdout);
      assert.equal(info.format, out.endsWith('.tsv') ? 'tsv' : 'csv');
      const name = out.replace('.', '_');
      lanceOk(['create', path.join(dir, `${name}.lance`), '--input', file, '--schema', schemaFile, ...extra]);
      const back = await referenceRead(dir, name);
      assert.equal(diffRows(expectedRows(twin.arrow), canonicalLines(back.arrow)), null, out);
    }
    assert.match(fs.readFileSync(path.join(dir, 'back.tsv'), 'utf8').split('\n')[0], /^id\tday\tat\tatz\ttod\tnote$/);
    assert.notEqual(lance(['scan', uri, '--delimiter', ';']).status, 0);
    assert.notEqual(lance(['create', path.join(dir, 'x.lance'), '--input', jsonl, '--schema', schemaFile,
                           '--delimiter', ';']).status, 0);
  });

  test('malformed CSV: the error names file, line and column', () => {
    const cases = [
      ['bad_count.csv', 'a,b\n1,2\n3\n', /bad_count\.csv: line 3: expected 2 fields/],
      ['bad_quote.csv', 'a,b\n1,2\n3,"open\n\n', /bad_quote\.csv: line 3, column 2: quoted field is never closed/],
      ['bad_stray.csv', 'a,b\n1,x"y\n', /bad_stray\.csv: line 2, column 2: '"' inside an unquoted field/],
    ];
    for (const [name, text, re] of cases) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, text);
      const r = lance(['create', path.join(dir, `${name}.lance`), '--input', file]);
      assert.notEqual(r.status, 0, name);
      assert.match(r.stderr, re);
      assert.equal(fs.existsSync(path.join(dir, `${name}.lance`, '_versions')), false, name);
    }
    const schemaFile = path.join(dir, 'narrow.schema.json');
    fs.writeFileSync(schemaFile, JSON.stringify({ fields: [{ name: 'a', type: 'int8' }, { name: 'b', type: 'utf8' }] }));
    const file = path.join(dir, 'narrow.csv');
    fs.writeFileSync(file, 'b,a\nx,1\n"multi\nline",2\ny,300\n');
    const r = lance(['create', path.join(dir, 'narrow.lance'), '--input', file, '--schema', schemaFile]);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /narrow\.csv: line 5, column 2 \('a'\): '300' is not a valid int8 value/);
  });

  test('scan --output of each format reads back equal to lance 12', async () => {
    const n = 200;
    const ref = makeTable([
      { name: 'id', type: new A.Int64(), nullable: false, values: Array.from({ length: n }, (_, i) => BigInt(i)) },
      { name: 'x', type: new A.Float64(), values: Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : i / 3)) },
      { name: 's', type: new A.Utf8(), values: Array.from({ length: n }, (_, i) => (i % 5 === 0 ? `q"${i}",\n` : `s${i}`)) },
      { name: 'b', type: new A.Bool(), values: Array.from({ length: n }, (_, i) => (i % 4 === 0 ? null : i % 2 === 0)) },
      { name: 'l', type: new A.List(new A.Field('item', new A.Int32(), true)),
        values: Array.from({ length: n }, (_, i) => (i % 6 === 0 ? null : [i, null, -i])) },
    ], [n]);
    const db = await lancedb.connect(dir);
    await db.createTable('written_by_lance', ref);
    const uri = path.join(dir, 'written_by_lance.lance');
    const { arrow } = await referenceRead(dir, 'written_by_lance');
    const want = expectedRows(arrow);
    assert.equal(diffRows(want, lanceOk(['scan', uri]).stdout), null);  // stdout stays JSON lines

    for (const ext of ['arrows', 'arrow', 'jsonl', 'csv']) {
      const file = path.join(dir, `out.${ext}`);
      const info = JSON.parse(lanceOk(['scan', uri, '--output', file]).stdout);
      assert.equal(info.num_rows, n, ext);
      const bytes = fs.readFileSync(file);
      if (ext === 'arrows' || ext === 'arrow') {
        assert.equal(diffRows(want, canonicalLines(A.tableFromIPC(bytes))), null, ext);
      } else if (ext === 'jsonl') {
        assert.equal(diffRows(want, bytes.toString('utf8')), null, ext);
      } else {
        const parsed = parseCsv(bytes.toString('utf8'));
        assert.deepEqual(parsed.header, ['id', 'x', 's', 'b', 'l']);
        assert.equal(parsed.rows.length, n);
        for (let i = 0; i < n; i++) {
          const r = parsed.rows[i];
          assert.equal(r[0], String(i));
          assert.equal(r[2], i % 5 === 0 ? `q"${i}",\n` : `s${i}`);
          assert.equal(r[3], i % 4 === 0 ? '' : String(i % 2 === 0));
          assert.equal(r[4], i % 6 === 0 ? '' : `[${i},null,${-i}]`);
          assert.equal(r[1] === '' ? null : Number(r[1]), i % 7 === 0 ? null : i / 3);
        }
        // and the CSV goes back into a dataset (with the dataset's schema) equal again
        const schemaFile = path.join(dir, 'out.schema.json');
        fs.writeFileSync(schemaFile, lanceOk(['schema', uri]).stdout);
        lanceOk(['create', path.join(dir, 'from_csv.lance'), '--input', file, '--schema', schemaFile]);
        const back = await referenceRead(dir, 'from_csv');
        assert.equal(diffRows(want, canonicalLines(back.arrow)), null, 'csv -> lance create -> lance 12');
      }
    }
    // filtered, projected scan to CSV: the header names only the projected columns
    const file = path.join(dir, 'few.csv');
    lanceOk(['scan', uri, '--columns', 'id,b', '--filter', 'id < 3', '--output', file]);
    assert.equal(fs.readFileSync(file, 'utf8'), 'id,b\n0,\n1,false\n2,true\n');
    lanceOk(['scan', uri, '--filter', 'id < 0', '--columns', 'id,s', '--output', file]);
    assert.equal(fs.readFileSync(file, 'utf8'), 'id,s\n');
  });
});
