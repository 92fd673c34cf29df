// The CLI under long, deep, hostile and careless input (issue 15), each case a class of input
// and its neighbours, and where the reference decides, lance 12's behaviour beside ours:
//   * long and deep filters: an 8000-term OR answers as lance 12 does (count, scan, delete),
//     10000 '+' terms answer (lance 12 overflows its stack at 1000), 5000 nested parentheses,
//     NOT, calls are refused with a clear error, never a signal;
//   * schemas the format cannot hold and names lance 12 refuses or cannot read (fixed_size_list
//     0, fixed_size_binary 0, duplicate names at the top and inside a struct, '.' in a top-level
//     name, empty names) are refused by create / append / overwrite / add-columns / CSV headers
//     before anything is written, and lance 12 refuses or cannot read the same schemas; names it
//     accepts (case-only differences, spaces, '.' below the top level) are accepted;
//   * numeric options are range-checked (no negative version meaning "latest", no clamping);
//   * `lance --version`, unknown commands and stray words are reported by name;
//   * `--input -` (stdin), a FIFO and `<(...)` work for CSV, JSON lines and Arrow IPC;
//   * a file input is read in bounded batches (item 8) with the answer of a whole read:
//     types, rows and errors (line numbers included) equal reading the same bytes from stdin;
//   * stdin, FIFOs and Arrow IPC streams are read in bounded batches too (errors name the
//     whole input's line; a type change on a stream is refused, asking for --schema);
//   * JSON lines without --schema are typed by inference (or by the table they are rows for);
//   * progress goes to stderr (with --progress), never into stdout's result.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { canonicalLines } from './lib/canonical.mjs';
import { LANCE_BIN, lance, lanceAll, lanceOk, scratchDir } from './lib/cli.mjs';

const dir = scratchDir('lance-robust-');
const csv = path.join(dir, 't.csv');
const table = path.join(dir, 't.lance');

// The command ends with exit 1 (or a usage error) and a message on stderr, never a signal.
function refused(args, pattern, opts) {
  const r = lance(args, opts);
  assert.equal(r.signal, null, `lance ${args.join(' ').slice(0, 80)}: killed by ${r.signal}`);
  assert.notEqual(r.status, 0, `lance ${args.join(' ').slice(0, 80)} succeeded: ${r.stdout.slice(0, 200)}`);
  if (pattern) assert.match(r.stderr, pattern, `lance ${args.join(' ').slice(0, 80)}`);
  return r;
}

const count = (uri, filter) =>
  Number(lanceOk(['count', uri, ...(filter === undefined ? [] : ['--filter', filter])]).stdout.trim());

before(() => {
  fs.writeFileSync(csv, ['id,v', ...Array.from({ length: 1000 }, (_, i) => `${i},${i * 2}`)].join('\n') + '\n');
  lanceOk(['create', table, '--input', csv]);
});

describe('long and deep filters', () => {
  const longOr = (n, from = 0) => Array.from({ length: n }, (_, i) => `id=${i + from}`).join(' OR ');

  test('an 8000-term OR answers as lance 12 does', async () => {
    const t = await (await lancedb.connect(dir)).openTable('t');
    for (const [n, from] of [[8000, 0], [8000, 500], [3000, 999]]) {
      const f = longOr(n, from);
      assert.equal(count(table, f), await t.countRows(f), `${n} terms from ${from}`);
    }
    const f = longOr(6000, 990);
    const ours = lanceOk(['scan', table, '--filter', f]).stdout.trim().split('\n').map((l) => JSON.parse(l).id);
    const theirs = (await t.query().where(f).toArray()).map((r) => Number(r.id));
    assert.deepEqual(ours, theirs);
    // Long ANDs too.
    const and = Array.from({ length: 8000 }, (_, i) => `id <> ${i * 3}`).join(' AND ');
    assert.equal(count(table, and), await t.countRows(and));
  });

  test('an 8000-term OR deletes the rows it names', () => {
    const copy = path.join(dir, 'del.lance');
    lanceOk(['create', copy, '--input', csv]);
    lanceOk(['delete', copy, '--filter', longOr(8000, 100)]);
    assert.equal(count(copy), 100);
    assert.equal(count(copy, 'id < 100'), 100);
  });

  test('10000 + terms answer', () => {
    // lance 12 itself dies with SIGSEGV at 1000 terms (checked by hand), so no comparison here.
    assert.equal(count(table, 'id' + ' + 1'.repeat(10000) + ' > 10005'), 994);
    assert.equal(count(table, 'v' + ' - 1'.repeat(1000) + ' >= 0'), 500);
    assert.equal(count(table, 'id' + ' * 1'.repeat(5000) + ' / 1'.repeat(5000) + ' < 10'), 10);
  });

  test('deep nesting is refused by name, never a crash', async () => {
    for (const depth of [257, 5000, 60000]) {
      refused(['count', table, '--filter', '('.repeat(depth) + 'id=1' + ')'.repeat(depth)],
              /nested more than 256 levels deep/);
    }
    for (const f of ['NOT '.repeat(5000) + 'id=1', 'abs('.repeat(5000) + 'id' + ')'.repeat(5000),
                     'id = ' + '-'.repeat(5000) + '1', '('.repeat(60000)]) {
      refused(['scan', table, '--filter', f], /error/);
    }
    assert.equal(count(table, '('.repeat(255) + 'id=1' + ')'.repeat(255)), 1);
    // lance 12 refuses far less deep nesting (its SQL parser's recursion limit).
    const t = await (await lancedb.connect(dir)).openTable('t');
    await assert.rejects(t.countRows('('.repeat(60) + 'id=1' + ')'.repeat(60)), /recursion limit/);
  });
});

describe('schemas and names', () => {
  const I = { name: 'i', type: 'int32', nullable: true };
  const schemaFile = (name, fields) => {
    const p = path.join(dir, `${name}.schema.json`);
    fs.writeFileSync(p, JSON.stringify({ fields }));
    return p;
  };
  const BAD = {
    fsl0: [I, { name: 'v', type: { name: 'fixed_size_list', list_size: 0, item: { name: 'item', type: 'float32' } } }],
    fsb0: [I, { name: 'v', type: { name: 'fixed_size_binary', byte_width: 0 } }],
    dup: [I, { name: 'i', type: 'int64' }],
    dup_nested: [I, { name: 's', type: { name: 'struct', fields: [{ name: 'x', type: 'int32' }, { name: 'x', type: 'int32' }] } }],
    dot: [I, { name: 'a.b', type: 'int32' }],
    empty: [I, { name: '', type: 'int32' }],
  };
  const REASON = {
    fsl0: /fixed_size_list of list_size 0/, fsb0: /fixed_size_binary of byte_width 0/,
    dup: /duplicate field name 'i'/, dup_nested: /duplicate field name 'x' in 's'/,
    dot: /'a\.b' cannot contain '\.'/, empty: /empty/,
  };

  test('every write mode refuses them before writing anything; the table keeps working', () => {
    const existing = path.join(dir, 'keep.lance');
    fs.writeFileSync(path.join(dir, 'i.jsonl'), '{"i":1}\n');
    lanceOk(['create', existing, '--input', path.join(dir, 'i.jsonl'), '--schema', schemaFile('good', [I])]);
    for (const [name, fields] of Object.entries(BAD)) {
      const rows = path.join(dir, `${name}.jsonl`);
      fs.writeFileSync(rows, '');
      const s = schemaFile(name, fields);
      const fresh = path.join(dir, `bad_${name}.lance`);
      refused(['create', fresh, '--input', rows, '--schema', s], REASON[name]);
      assert.equal(fs.existsSync(fresh), false, `${name}: ${fresh} was created`);
      for (const mode of ['append', 'overwrite']) {
        refused(['create', existing, '--mode', mode, '--input', rows, '--schema', s], REASON[name]);
      }
      // And as the schema of CSV input.
      refused(['create', path.join(dir, `bad_csv_${name}.lance`), '--input', csv, '--schema', s], REASON[name]);
    }
    assert.equal(count(existing), 1);
    assert.equal(lanceOk(['versions', existing]).stdout.trim().split('\n').length, 1);
  });

  test('lance 12 refuses or cannot read the same schemas', async () => {
    const db = await lancedb.connect(path.join(dir, 'ref'));
    const f = (name, type) => new A.Field(name, type, true);
    const cases = {
      fsl0: [f('i', new A.Int32()), f('v', new A.FixedSizeList(0, f('item', new A.Float32())))],
      dup: [f('i', new A.Int32()), f('i', new A.Int64())],
      dup_nested: [f('i', new A.Int32()), f('s', new A.Struct([f('x', new A.Int32()), f('x', new A.Int32())]))],
      dot: [f('i', new A.Int32()), f('a.b', new A.Int32())],
      empty: [f('i', new A.Int32()), f('', new A.Int32())],
    };
    for (const [name, fields] of Object.entries(cases)) {
      // Refused at create, or created but unreadable: either way not a table to write.
      let readable = false;
      try {
        const t = await db.createEmptyTable(name, new A.Schema(fields), { mode: 'overwrite' });
        await t.query().toArray();
        readable = true;
      } catch { /* refused */ }
      assert.equal(readable, false, `lance 12 reads a table with schema ${name}`);
    }
  });

  test('names lance 12 accepts are accepted', async () => {
    const s = schemaFile('fine', [I, { name: 'I', type: 'int32' }, { name: 'a b', type: 'int32' },
      { name: 's', type: { name: 'struct', fields: [{ name: 'x.y', type: 'int32' }] } }]);
    const rows = path.join(dir, 'fine.jsonl');
    fs.writeFileSync(rows, '{"i":1,"I":2,"a b":3,"s":{"x.y":4}}\n');
    const uri = path.join(dir, 'fine.lance');
    lanceOk(['create', uri, '--input', rows, '--schema', s]);
    const t = await (await lancedb.connect(dir)).openTable('fine');
    const got = (await t.query().toArray()).map((r) => r.toJSON());
    assert.deepEqual(JSON.parse(JSON.stringify(got, (k, v) => (typeof v === 'bigint' ? Number(v) : v))),
                     [{ i: 1, I: 2, 'a b': 3, s: { 'x.y': 4 } }]);
  });

  test('CSV headers, add-columns and rename-column keep the same rules', () => {
    const dot = path.join(dir, 'dot.csv');
    fs.writeFileSync(dot, 'a.b,c\n1,2\n');
    refused(['create', path.join(dir, 'dot.lance'), '--input', dot], /'a\.b' cannot contain '\.'/);
    assert.equal(fs.existsSync(path.join(dir, 'dot.lance')), false);
    const dupCsv = path.join(dir, 'dup.csv');
    fs.writeFileSync(dupCsv, 'a,a\n1,2\n');
    refused(['create', path.join(dir, 'dup.lance'), '--input', dupCsv], /repeats the header name 'a'/);
    const copy = path.join(dir, 'names.lance');
    lanceOk(['create', copy, '--input', csv]);
    refused(['add-columns', copy, '--expr', 'x.y = id + 1'], /'x\.y' cannot contain '\.'/);
    refused(['add-columns', copy, '--expr', 'v = id + 1'], /already exists/);
    refused(['rename-column', copy, 'v', 'x.y'], /'\.'/);
    refused(['rename-column', copy, 'v', 'id'], /taken/);
    // Appending CSV input with a duplicated header to an existing table.
    refused(['create', copy, '--mode', 'append', '--input', dupCsv], /repeats the header name 'a'/);
    assert.equal(lanceOk(['versions', copy]).stdout.trim().split('\n').length, 1);
  });
});

describe('numeric options', () => {
  test('out-of-range and malformed numbers are refused by name', () => {
    const cases = [
      ['count', table, '--version', '-1'], ['count', table, '--version', '0'],
      ['count', table, '--version', '18446744073709551616'], ['scan', table, '--version', '1x'],
      ['scan', table, '--limit', '-1'], ['scan', table, '--limit', '99999999999999999999'],
      ['scan', table, '--offset', '-1'], ['scan', table, '--limit', '+5'],
      ['scan', table, '--batch-size', '0'], ['scan', table, '--batch-size', '-2'],
      ['tag', 'create', table, 'v', '--version', '-3'], ['restore', table, '--version', '-1'],
      ['cleanup', table, '--keep', '0'], ['cleanup', table, '--keep', '-1'],
      ['compact', table, '--target-rows-per-fragment', '0'],
      ['create', path.join(dir, 'n.lance'), '--input', csv, '--max-rows-per-file', '0'],
    ];
    for (const args of cases) {
      const opt = args.find((a) => a.startsWith('--') && args.indexOf(a) > 1 && !['--input'].includes(a));
      const r = refused(args, new RegExp(`${opt}`));
      assert.match(r.stderr, /out of range|not an integer/, args.join(' '));
    }
    assert.equal(fs.existsSync(path.join(dir, 'n.lance')), false);
    // In range: as before.
    assert.equal(lanceOk(['scan', table, '--limit', '0']).stdout, '');
    assert.equal(lanceOk(['scan', table, '--limit', '3', '--offset', '998']).stdout.trim().split('\n').length, 2);
    assert.equal(Number(lanceOk(['count', table, '--version', '1']).stdout), 1000);
    assert.match(lance(['count', table, '--version', '9223372036854775807']).stderr, /does not exist/);
  });
});

describe('CSV into an existing table', () => {
  test('append and merge-insert type CSV cells by the table\'s schema', async () => {
    const typed = path.join(dir, 'typed.csv');
    fs.writeFileSync(typed, 'id,n,ts\n1,10,2024-01-02T03:04:05\n2,20,2024-02-03T04:05:06.5\n');
    const schema = path.join(dir, 'typed.schema.json');
    fs.writeFileSync(schema, JSON.stringify({ fields: [
      { name: 'id', type: 'int64', nullable: false }, { name: 'n', type: 'int32' },
      { name: 'ts', type: { name: 'timestamp', unit: 'us' } }] }));
    const uri = path.join(dir, 'typed.lance');
    lanceOk(['create', uri, '--input', typed, '--schema', schema]);
    // The very CSV that created it, without --schema (inference would give int64 n and
    // string ts).
    lanceOk(['create', uri, '--mode', 'append', '--input', typed]);
    assert.equal(count(uri), 4);
    // Columns in another order too.
    const reordered = path.join(dir, 'reordered.csv');
    fs.writeFileSync(reordered, 'ts,id,n\n2024-03-04T05:06:07,3,30\n');
    lanceOk(['create', uri, '--mode', 'append', '--input', reordered]);
    // merge-insert: a header-only CSV, and an update by key.
    const headerOnly = path.join(dir, 'header.csv');
    fs.writeFileSync(headerOnly, 'id,n,ts\n');
    lanceOk(['merge-insert', uri, '--input', headerOnly, '--on', 'id']);
    const upd = path.join(dir, 'upd.csv');
    fs.writeFileSync(upd, 'id,n,ts\n3,33,2024-03-04T05:06:08\n9,90,2024-09-09T09:09:09\n');
    lanceOk(['merge-insert', uri, '--input', upd, '--on', 'id']);
    const t = await (await lancedb.connect(dir)).openTable('typed');
    const s = await t.schema();
    assert.deepEqual(s.fields.map((f) => String(f.type)), ['Int64', 'Int32', 'Timestamp<MICROSECOND>']);
    const rows = (await t.query().toArray()).map((r) => [Number(r.id), r.n]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    assert.deepEqual(rows, [[1, 10], [1, 10], [2, 20], [2, 20], [3, 33], [9, 90]]);
  });
});

describe('errors', () => {
  test('the losers of racing creates are told AlreadyExists', async () => {
    for (let round = 0; round < 3; ++round) {
      const uri = path.join(dir, `race${round}.lance`);
      const results = await lanceAll(Array.from({ length: 4 }, () => ['create', uri, '--input', csv]));
      const won = results.filter((r) => r.status === 0);
      assert.equal(won.length, 1, results.map((r) => r.stderr).join('\n'));
      for (const r of results.filter((x) => x.status !== 0)) {
        assert.match(r.stderr, /AlreadyExists: .*a dataset already exists/, r.stderr);
        // The message names the dataset as the user wrote it (an absolute path keeps its '/').
        assert.ok(r.stderr.includes(`AlreadyExists: ${uri}: a dataset already exists`), r.stderr);
      }
      assert.equal(count(uri), 1000);
    }
  });
  test('a truncated data file is Corruption naming the file by its full path', () => {
    const uri = path.join(dir, 'trunc.lance');
    lanceOk(['create', uri, '--input', csv]);
    const file = fs.readdirSync(path.join(uri, 'data'))[0];
    fs.truncateSync(path.join(uri, 'data', file), 50);
    refused(['scan', uri], new RegExp(`Corruption: fragment 0: ${path.join(uri, 'data', file).replace(/[.]/g, '[.]')}: lance file: missing LANC magic`));
  });
  test('a truncated index file is Corruption naming the file by its full path', () => {
    const uri = path.join(dir, 'tidx.lance');
    lanceOk(['create', uri, '--input', csv]);
    const made = JSON.parse(lanceOk(['create-index', uri, 'id', '--type', 'btree']).stdout.trim());
    const file = path.join(uri, '_indices', made.uuid, 'page_data.lance');
    fs.truncateSync(file, 100);
    refused(['scan', uri, '--filter', 'id = 3'], new RegExp(`Corruption: .*lance file '${file.replace(/[.]/g, '[.]')}': lance file: missing LANC magic`));
  });
  test('a create over an existing dataset names it by its full path', () => {
    const uri = path.join(dir, 'race0.lance');
    const r = lance(['create', uri, '--input', csv]);
    assert.notEqual(r.status, 0);
    assert.ok(r.stderr.includes(`AlreadyExists: ${uri}: a dataset already exists (version 1)`), r.stderr);
  });
});

describe('commands', () => {
  test('a search without --column finds the one vector column of the query\'s length, as lance 12 does', async () => {
    const db = await lancedb.connect(dir);
    const emb = (i) => [0, 1, 2, 3].map((d) => Math.fround(Math.sin(i * 7 + d * 3)));
    const rows = Array.from({ length: 60 }, (_, i) => ({ id: i, emb: emb(i), other: [emb(i)[0], emb(i)[1]], txt: `doc ${i % 5}` }));
    const schema = new A.Schema([
      new A.Field('id', new A.Int64(), true),
      new A.Field('emb', new A.FixedSizeList(4, new A.Field('item', new A.Float32(), true)), true),
      new A.Field('other', new A.FixedSizeList(2, new A.Field('item', new A.Float32(), true)), true),
      new A.Field('txt', new A.Utf8(), true),
    ]);
    const t = await db.createTable('vcol', lancedb.makeArrowTable(rows, { schema }));
    const uri = path.join(dir, 'vcol.lance');
    const q = [0.3, -0.2, 0.9, 0.1];
    const ours = (args) => lanceOk(['search', uri, '--vector', JSON.stringify(q), '-k', '5', '--columns', 'id', ...args])
      .stdout.trim().split('\n').map((l) => JSON.parse(l));
    const named = ours(['--column', 'emb']);
    assert.deepEqual(ours([]), named);
    // lance 12 infers the same column (its query names none) and answers with the same rows.
    const theirs = await t.vectorSearch(q).select(['id']).limit(5).toArray();
    assert.deepEqual(named.map((r) => Number(r.id)), theirs.map((r) => Number(r.id)));
    for (const [i, r] of named.entries()) assert.ok(Math.abs(r._distance - theirs[i]._distance) < 1e-5, `${r._distance} ${theirs[i]._distance}`);
    // A 2-value query picks `other`; 3 values match none and the message lists what is there.
    const two = lanceOk(['search', uri, '--vector', '[0.5, 0.5]', '-k', '3', '--columns', 'id']).stdout;
    assert.equal(two, lanceOk(['search', uri, '--vector', '[0.5, 0.5]', '-k', '3', '--columns', 'id', '--column', 'other']).stdout);
    refused(['search', uri, '--vector', '[1, 2, 3]'], /no vector column .*its vector columns are emb \(4 values\), other \(2 values\), and the query has 3 values/);
    // Hybrid: --vector-column defaults the same way.
    lanceOk(['create-index', uri, 'txt', '--type', 'fts']);
    const hybrid = (args) => lanceOk(['search', uri, '--text', 'doc', '--vector', JSON.stringify(q), '-k', '4', '--columns', 'id', ...args]).stdout;
    assert.equal(hybrid([]), hybrid(['--vector-column', 'emb']));
    refused(['search', uri, '--text', 'doc 1', '--phrase'],
      /index txt_idx was built without positions \(rebuild it with them: lance create-index URI txt --type fts --with-position true --name txt_idx --replace\)/);
    lanceOk(['create-index', uri, 'txt', '--type', 'fts', '--with-position', 'true', '--name', 'txt_idx', '--replace']);
    assert.ok(lanceOk(['search', uri, '--text', 'doc 1', '--phrase', '--columns', 'id']).stdout.includes('"id":1,'));
    // JSON arrays under another name are lists: the search and the index builder say how to make vectors.
    const jsonl = path.join(dir, 'vlist.jsonl');
    fs.writeFileSync(jsonl, rows.map((r) => JSON.stringify({ id: r.id, vec: r.emb })).join('\n') + '\n');
    const luri = path.join(dir, 'vlist.lance');
    lanceOk(['create', luri, '--input', jsonl]);
    refused(['search', luri, '--vector', JSON.stringify(q)], /vec is a variable-length list of numbers.*named "vector".*--schema/);
    refused(['create-index', luri, 'vec', '--type', 'ivf_flat'], /is list<item: double>.*named "vector".*--schema/);
  });
  test('create-index and index create take the column as COLUMN or --column', () => {
    const uri = path.join(dir, 'colforms.lance');
    lanceOk(['create', uri, '--input', csv]);
    const made = (args) => JSON.parse(lanceOk(args).stdout.trim().split('\n').pop());
    assert.equal(made(['create-index', uri, 'id', '--type', 'btree', '--name', 'a']).column, 'id');
    assert.equal(made(['create-index', uri, '--column', 'v', '--type', 'btree', '--name', 'b']).column, 'v');
    assert.equal(made(['index', 'create', uri, '--column', 'id', '--type', 'bitmap', '--name', 'c']).column, 'id');
    assert.equal(made(['index', 'create', uri, 'v', '--type', 'bitmap', '--name', 'd']).column, 'v');
    const names = lanceOk(['index', 'list', uri]).stdout.trim().split('\n').map((l) => JSON.parse(l).name).sort();
    assert.deepEqual(names, ['a', 'b', 'c', 'd']);
    refused(['create-index', uri, '--type', 'btree'], /lance create-index: the column to index \(COLUMN or --column\) is required/);
    refused(['index', 'create', uri, '--type', 'btree'], /the column to index \(COLUMN or --column\) is required/);
    refused(['create-index', uri, 'id', '--column', 'v'], /excludes/);
    lanceOk(['lsm', 'enable', uri, '--primary-key', 'id', '--unsharded']);
    const again = refused(['lsm', 'enable', uri, '--primary-key', 'id', '--unsharded']);
    assert.ok(again.stderr.includes(`AlreadyExists: ${uri}: the table already has a MemWAL index`), again.stderr);
  });
  test('lance --version prints what lance version prints', () => {
    const a = lanceOk(['--version']).stdout;
    assert.equal(a, lanceOk(['version']).stdout);
    assert.match(a, /^lance-cpp /);
  });

  test('unknown commands and stray words are named', () => {
    refused(['indx', 'create', table], /unknown command 'indx' for 'lance'/);
    refused(['index', 'frob', table], /unknown command 'frob' for 'lance index' \(commands: create, list, describe, optimize, drop\)/);
    refused(['index', 'create', table], /lance index create: the column to index \(COLUMN or --column\) is required/);
    refused(['frobnicate'], /unknown command 'frobnicate'/);
    refused(['tag', 'frob', table], /unknown command 'frob' for 'lance tag'/);
    refused(['count', table, 'extra'], /extra/);
    refused(['scan', table, '--limit', '2', 'stray'], /stray/);
  });

  test('one search command: vector and text options are not mixed', () => {
    // --text with --vector is a hybrid search: planned, so a table without a vector column is named
    refused(['search', table, '--text', 'a', '--vector', '[1]'], /InvalidArgument: .*t\.lance: no vector column \(no column "vector", no fixed_size_list column of 1 value\)/);
    refused(['search', table, '--text', 'a', '--queries', '/dev/null'], /--text with --queries does not combine/);
    refused(['search', table, '--vector', '[1]', '--vector-column', 'v'], /--vector-column is a hybrid/);
    refused(['search', table, '--text', 'a', '--refine-factor', '2'], /--refine-factor and --metric are vector options/);
    refused(['search', table, '--vector', '[1]', '--phrase'], /--operator and --phrase are --text options/);
    refused(['search', table], /search: give --vector, --queries or --text/);
    refused(['search', table, '--text', 'a'], /INVERTED|FTS|index/i);
  });
});

describe('streaming input', () => {
  const rowsOf = (uri) => lanceOk(['scan', uri]).stdout;
  const expected = () => rowsOf(table);

  test('--input - reads CSV, JSON lines and Arrow IPC from stdin', () => {
    const a = path.join(dir, 'stdin_csv.lance');
    lanceOk(['create', a, '--input', '-'], { input: fs.readFileSync(csv) });
    assert.equal(rowsOf(a), expected());
    const jsonl = lanceOk(['scan', table]).stdout;
    const schema = path.join(dir, 'iv.schema.json');
    fs.writeFileSync(schema, JSON.stringify({ fields: [{ name: 'id', type: 'int64' }, { name: 'v', type: 'int64' }] }));
    const b = path.join(dir, 'stdin_jsonl.lance');
    lanceOk(['create', b, '--input', '-', '--schema', schema], { input: jsonl });
    assert.equal(rowsOf(b), expected());
    const ipc = A.tableToIPC(A.tableFromArrays({ id: BigInt64Array.from([1n, 2n]), v: BigInt64Array.from([2n, 4n]) }), 'stream');
    const c = path.join(dir, 'stdin_ipc.lance');
    lanceOk(['create', c, '--input', '-'], { input: Buffer.from(ipc) });
    assert.equal(rowsOf(c), '{"id":1,"v":2}\n{"id":2,"v":4}\n');
    // Appending from stdin too.
    lanceOk(['create', c, '--mode', 'append', '--input', '-'], { input: Buffer.from(ipc) });
    assert.equal(count(c), 4);
  });

  test('a FIFO and <(...) are read as streams', () => {
    const fifo = path.join(dir, 'rows.fifo');
    const made = spawnSync('mkfifo', [fifo]);
    assert.equal(made.status, 0, String(made.stderr));
    const d = path.join(dir, 'fifo.lance');
    const r = spawnSync('bash', ['-c', `cat "$1" > "$2" & "$3" create "$4" --input "$2"; s=$?; wait; exit $s`,
                                 'x', csv, fifo, LANCE_BIN, d], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(rowsOf(d), expected());
    const e = path.join(dir, 'procsub.lance');
    const p = spawnSync('bash', ['-c', `"$1" create "$2" --input <(cat "$3")`, 'x', LANCE_BIN, e, csv],
                        { encoding: 'utf8' });
    assert.equal(p.status, 0, p.stderr);
    assert.equal(rowsOf(e), expected());
  });
});

describe('JSON lines without --schema', () => {
  // Keys in first-seen order; integers widen to float64 where a float follows; a key missing
  // from a line is null there; "vector" of equal-length number arrays is an embedding.
  const lines = [
    { id: 1, name: 'a', score: 3, tags: ['x', 'y'], vector: [1, 0, 0, 0], meta: { k: 1 } },
    { id: 2, score: 2.5, tags: [], vector: [0, 1, 0, 0], meta: { k: 2, note: 'n' } },
    { id: 3, name: null, score: -1, tags: ['z'], vector: [0.5, 0.5, 0.5, 0.5], meta: null },
  ].map((o) => JSON.stringify(o)).join('\n') + '\n';
  const want = [
    '{"id":1,"name":"a","score":3.0,"tags":["x","y"],"vector":[1.0,0.0,0.0,0.0],"meta":{"k":1,"note":null}}',
    '{"id":2,"name":null,"score":2.5,"tags":[],"vector":[0.0,1.0,0.0,0.0],"meta":{"k":2,"note":"n"}}',
    '{"id":3,"name":null,"score":-1.0,"tags":["z"],"vector":[0.5,0.5,0.5,0.5],"meta":null}',
  ].join('\n') + '\n';

  test('create infers the types from a file and from stdin; lance 12 reads and searches the table', async () => {
    const file = path.join(dir, 'inferred.jsonl');
    fs.writeFileSync(file, lines);
    const a = path.join(dir, 'inferred.lance');
    lanceOk(['create', a, '--input', file]);
    assert.equal(lanceOk(['scan', a]).stdout, want);
    const b = path.join(dir, 'inferred_stdin.lance');
    lanceOk(['create', b, '--input', '-'], { input: lines });
    assert.equal(lanceOk(['scan', b]).stdout, want);
    const t = await (await lancedb.connect(dir)).openTable('inferred');
    const s = await t.schema();
    assert.deepEqual(s.fields.map((f) => [f.name, String(f.type)]), [
      ['id', 'Int64'], ['name', 'Utf8'], ['score', 'Float64'], ['tags', 'List<Utf8>'],
      ['vector', 'FixedSizeList[4]<Float32>'], ['meta', 'Struct<{k:Int64, note:Utf8}>']]);
    const rows = await t.query().toArray();
    assert.deepEqual(rows.map((r) => [Number(r.id), r.name, r.score, [...r.tags], [...r.vector], r.meta?.k === undefined ? null : Number(r.meta.k)]),
                     [[1, 'a', 3, ['x', 'y'], [1, 0, 0, 0], 1], [2, null, 2.5, [], [0, 1, 0, 0], 2],
                      [3, null, -1, ['z'], [0.5, 0.5, 0.5, 0.5], null]]);
    // Vector search prints whole rows, with _distance and (asked) _rowid, as lance 12 does.
    const theirs = await t.search([0, 1, 0, 0.5]).limit(3).withRowId(true).toArrow();
    assert.deepEqual(theirs.schema.fields.map((f) => f.name).slice(-2), ['_distance', '_rowid']);
    assert.equal(lanceOk(['search', a, '--vector', '[0,1,0,0.5]', '-k', '3', '--with-row-id']).stdout,
                 canonicalLines(theirs));
    assert.equal(lanceOk(['search', a, '--vector', '[0,1,0,0.5]', '-k', '3', '--columns', 'id']).stdout,
                 canonicalLines(await t.search([0, 1, 0, 0.5]).limit(3).select(['id']).toArrow()));
  });

  test('appends and merge-inserts are typed by the table', () => {
    const uri = path.join(dir, 'inferred_typed.lance');
    const schema = path.join(dir, 'inferred_typed.schema.json');
    fs.writeFileSync(schema, JSON.stringify({ fields: [
      { name: 'id', type: 'int32', nullable: false }, { name: 'n', type: 'float32' }, { name: 'note', type: 'utf8' }] }));
    const first = path.join(dir, 'inferred_typed.jsonl');
    fs.writeFileSync(first, '{"id":1,"n":1,"note":"one"}\n{"id":2,"n":2,"note":"two"}\n');
    lanceOk(['create', uri, '--input', first, '--schema', schema]);
    lanceOk(['create', uri, '--mode', 'append', '--input', '-'], { input: '{"id":3,"n":3.5,"note":null}\n' });
    // Keys in another order, integers into the float32 column.
    const upd = path.join(dir, 'inferred_upd.jsonl');
    fs.writeFileSync(upd, '{"n":20,"id":2,"note":"two"}\n{"note":null,"id":3,"n":30}\n');
    lanceOk(['merge-insert', uri, '--input', upd, '--on', 'id']);
    const rows = lanceOk(['scan', uri]).stdout.trim().split('\n').map((l) => JSON.parse(l)).sort((x, y) => x.id - y.id);
    assert.deepEqual(rows, [{ id: 1, n: 1, note: 'one' }, { id: 2, n: 20, note: 'two' }, { id: 3, n: 30, note: null }]);
    assert.deepEqual(JSON.parse(lanceOk(['schema', uri]).stdout).fields.map((f) => f.type), ['int32', 'float32', 'utf8']);
  });

  test('kinds that disagree are named by line and key; a later batch of a file is typed by all lines', () => {
    const bad = path.join(dir, 'inferred_bad.jsonl');
    fs.writeFileSync(bad, '{"id":1}\n{"id":"one"}\n');
    const uri = path.join(dir, 'inferred_bad.lance');
    refused(['create', uri, '--input', bad], /line 2: field 'id' is a string where line 1 had an integer; give the types with --schema/);
    assert.equal(fs.existsSync(path.join(uri, '_versions')), false);
    const late = path.join(dir, 'inferred_late.jsonl');
    const many = Array.from({ length: 50 }, (_, i) => JSON.stringify({ id: i, x: i })).join('\n');
    fs.writeFileSync(late, `${many}\n{"id":50,"x":0.5,"extra":"e"}\n`);
    const l = path.join(dir, 'inferred_late.lance');
    lanceOk(['create', l, '--input', late, '--input-batch-bytes', '128']);
    assert.deepEqual(JSON.parse(lanceOk(['schema', l]).stdout).fields.map((f) => [f.name, f.type]),
                     [['id', 'int64'], ['x', 'float64'], ['extra', 'utf8']]);
    assert.equal(count(l), 51);
    // A stream cannot be read again: the error says how to type it.
    refused(['create', path.join(dir, 'inferred_late_stdin.lance'), '--input', '-', '--input-batch-bytes', '128'],
            /line 51: field 'x': value 0.5 does not fit type int64 \(a stream is typed by its first 10000 lines or 128 bytes: give --schema/,
            { input: fs.readFileSync(late) });
    // The failed create leaves no data files, nor the data/ directory they were written to.
    assert.equal(fs.existsSync(path.join(dir, 'inferred_late_stdin.lance', 'data')), false);
  });
});

describe('small surprises (item 11) and error texts (item 9)', () => {
  test('messages name an absolute path with its leading /', () => {
    const missing = path.join(dir, 'missing.lance');
    const r = refused(['scan', missing], /NotFound/);
    assert.ok(r.stderr.includes(`${missing}: not a Lance dataset (no manifest in ${missing}/_versions)`), r.stderr);
    const r2 = refused(['count', table, '--filter', 'nope = 1']);
    assert.doesNotMatch(r2.stderr, new RegExp(`[^/]${dir.slice(1)}`), r2.stderr);
  });

  test('tag create and delete print what they did', () => {
    const t = path.join(dir, 'tags.lance');
    lanceOk(['create', t, '--input', csv]);
    assert.deepEqual(JSON.parse(lanceOk(['tag', 'create', t, 'first']).stdout), { created: 'first', version: 1 });
    assert.deepEqual(JSON.parse(lanceOk(['tag', 'list', t]).stdout), { name: 'first', version: 1 });
    assert.deepEqual(JSON.parse(lanceOk(['tag', 'delete', t, 'first']).stdout), { deleted: 'first' });
    assert.equal(lanceOk(['tag', 'list', t]).stdout, '');
    refused(['tag', 'create', t, 'bad name!'], /invalid tag name 'bad name!': its characters must be letters, digits/);
  });

  test('a column asked for twice is refused by name', () => {
    refused(['scan', table, '--columns', 'id,id'], /column 'id' is asked for twice \(positions 1 and 2/);
    refused(['scan', table, '--columns', 'v,id,_rowid,_rowid'], /column '_rowid' is asked for twice \(positions 3 and 4/);
    assert.equal(lanceOk(['scan', table, '--columns', 'v,id', '--limit', '1']).stdout, '{"v":0,"id":0}\n');
  });

  test('--output into a directory that does not exist is refused, nothing is created', () => {
    const where = path.join(dir, 'no', 'such', 'dir');
    for (const ext of ['csv', 'jsonl', 'arrows', 'arrow']) {
      refused(['scan', table, '--output', path.join(where, `x.${ext}`)], /NotFound: --output .*: the directory .*no\/such\/dir\/ does not exist/);
    }
    assert.equal(fs.existsSync(path.join(dir, 'no')), false);
    const ok = path.join(dir, 'out.csv');
    lanceOk(['scan', table, '--output', ok, '--limit', '2']);
    assert.equal(fs.readFileSync(ok, 'utf8'), 'id,v\n0,0\n1,2\n');
  });

  test('CSV inference refuses numbers beyond int64 / float64 and types ISO dates and times', async () => {
    const big = path.join(dir, 'big.csv');
    fs.writeFileSync(big, 'id,v\n1,5\n2,99999999999999999999\n');
    refused(['create', path.join(dir, 'big.lance'), '--input', big],
            /big\.csv: line 3, column 2 \('v'\): '99999999999999999999' is not a valid int64 value: beyond int64's range; give the column a type with --schema/);
    fs.writeFileSync(big, 'id,v\n1,1.5\n2,1e400\n');
    refused(['create', path.join(dir, 'big.lance'), '--input', big], /'1e400' is not a valid double value: beyond float64's range/);
    assert.equal(fs.existsSync(path.join(dir, 'big.lance', '_versions')), false);

    const ts = path.join(dir, 'ts.csv');
    fs.writeFileSync(ts, 'd,t,tz\n2024-01-02,2024-01-02T03:04:05.25,2024-01-02T03:04:05Z\n,2024-02-29 23:59:59,2024-01-03T01:00:00+01:00\n');
    const uri = path.join(dir, 'ts.lance');
    lanceOk(['create', uri, '--input', ts]);
    const schema = JSON.parse(lanceOk(['schema', uri]).stdout).fields.map((f) => [f.name, f.type]);
    assert.deepEqual(schema, [['d', 'date32'], ['t', { name: 'timestamp', unit: 'us' }],
                              ['tz', { name: 'timestamp', unit: 'us', timezone: 'UTC' }]]);
    // lance 12 reads the same instants.
    const t = await (await lancedb.connect(dir)).openTable('ts');
    const rows = await t.query().toArray();
    assert.equal(rows.length, 2);
    const ms = (v) => (v instanceof Date ? v.getTime() : Number(v));
    assert.deepEqual(rows.map((r) => [r.d === null ? null : ms(r.d), ms(r.t), ms(r.tz)]), [
      [Date.UTC(2024, 0, 2), Date.UTC(2024, 0, 2, 3, 4, 5, 250), Date.UTC(2024, 0, 2, 3, 4, 5)],
      [null, Date.UTC(2024, 1, 29, 23, 59, 59), Date.UTC(2024, 0, 3, 0, 0, 0)],
    ]);
  });
});

describe('bounded input batches', () => {
  // The same bytes as a file read in batches of `bytes` and from stdin (read whole).
  const both = (name, text, extra = [], bytes = '300') => {
    const file = path.join(dir, `${name}.csv`);
    fs.writeFileSync(file, text);
    const a = path.join(dir, `${name}_pieces.lance`);
    const b = path.join(dir, `${name}_whole.lance`);
    const ra = lance(['create', a, '--input', file, '--input-batch-bytes', bytes, ...extra]);
    const rb = lance(['create', b, '--input', '-', ...extra], { input: text });
    return { a, b, ra, rb };
  };
  const same = ({ a, b, ra, rb }) => {
    assert.equal(ra.status, 0, ra.stderr);
    assert.equal(rb.status, 0, rb.stderr);
    assert.equal(lanceOk(['schema', a]).stdout, lanceOk(['schema', b]).stdout);
    assert.equal(lanceOk(['scan', a]).stdout, lanceOk(['scan', b]).stdout);
    return lanceOk(['schema', a]).stdout;
  };
  const rows = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';

  test('quoted line breaks and delimiters across batch ends, CRLF, nulls', () => {
    same(both('quoted', 'id,s,f\r\n' + rows(400, (i) => `${i},"a,""${i}""\nb",${i % 5 ? i / 4 : ''}\r`)));
  });
  test('types settled by later batches: all-empty cells, integers in a float column', () => {
    // s: integers, then empty (later batches of only empty cells read as int64 nulls); f:
    // floats, then integers (read as float64); e: empty, then integers (the first batch alone
    // would say utf8: read whole).
    const schema = same(both('late', 'id,s,f,e\n' + rows(600, (i) => `${i},${i < 300 ? i : ''},${i < 10 ? i + 0.5 : i},${i < 100 ? '' : i}`)));
    assert.match(schema, /"name":"e","type":"int64"/);
    assert.match(schema, /"name":"s","type":"int64"/);
    assert.match(schema, /"name":"f","type":"float64"/);
  });
  test('a type that changes later falls back to the whole read', () => {
    // Integers, then floats, then text: float64 then utf8 for a whole read.
    const schema = same(both('changes', 'id,v,w\n' + rows(700, (i) => `${i},${i < 500 ? i : i + 0.25},${i < 650 ? i : 'x' + i}`)));
    assert.match(schema, /"name":"v","type":"float64"/);
    assert.match(schema, /"name":"w","type":"utf8"/);
  });
  test('with --schema and for appends typed by the table', () => {
    const schemaFile = path.join(dir, 'bounded.schema.json');
    fs.writeFileSync(schemaFile, JSON.stringify({ fields: [{ name: 'id', type: 'int32' }, { name: 'v', type: 'utf8' }] }));
    same(both('typed', 'id,v\n' + rows(500, (i) => `${i},v${i}`), ['--schema', schemaFile]));
    const r = both('appended', 'id,v\n' + rows(500, (i) => `${i + 500},w${i}`));
    const t = path.join(dir, 'typed_pieces.lance');
    lanceOk(['create', t, '--mode', 'append', '--input', path.join(dir, 'appended.csv'), '--input-batch-bytes', '300']);
    assert.equal(count(t), 1000);
    assert.match(lanceOk(['schema', t]).stdout, /"name":"id","type":"int32"/);
    assert.equal(r.ra.status, 0, r.ra.stderr);
  });
  test('an error in a later batch names its line in the whole file; nothing is left behind', () => {
    const text = 'id,v\n' + rows(800, (i) => (i === 700 ? `${i},"unterminated` : `${i},${i}`));
    const { a, ra, rb } = both('bad', text);
    assert.notEqual(ra.status, 0);
    assert.equal(ra.stderr.replace(path.join(dir, 'bad.csv'), 'stdin'), rb.stderr);
    assert.match(ra.stderr, /line 702/);
    assert.equal(fs.existsSync(path.join(a, '_versions')), false);
    assert.deepEqual(fs.existsSync(path.join(a, 'data')) ? fs.readdirSync(path.join(a, 'data')) : [], []);
  });
  test('JSON lines and Arrow IPC files stream too', () => {
    const schemaFile = path.join(dir, 'iv2.schema.json');
    fs.writeFileSync(schemaFile, JSON.stringify({ fields: [{ name: 'id', type: 'int64' }, { name: 'v', type: 'int64' }] }));
    const jsonl = path.join(dir, 'rows.jsonl');
    fs.writeFileSync(jsonl, lanceOk(['scan', table]).stdout);
    const j = path.join(dir, 'jsonl_pieces.lance');
    lanceOk(['create', j, '--input', jsonl, '--schema', schemaFile, '--input-batch-bytes', '100']);
    assert.equal(lanceOk(['scan', j]).stdout, lanceOk(['scan', table]).stdout);
    const arrows = path.join(dir, 'rows.arrows');
    lanceOk(['scan', table, '--output', arrows, '--batch-size', '64']);
    const i = path.join(dir, 'ipc_pieces.lance');
    lanceOk(['create', i, '--input', arrows]);
    assert.equal(lanceOk(['scan', i]).stdout, lanceOk(['scan', table]).stdout);
  });
});

describe('stdin and FIFOs in bounded batches', () => {
  const rows = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join('\n') + '\n';
  // The same text from a file and from stdin, both in batches of 300 bytes.
  const pieces = (name, text, extra = []) => {
    const file = path.join(dir, `${name}.csv`);
    fs.writeFileSync(file, text);
    const a = path.join(dir, `${name}_file.lance`);
    const b = path.join(dir, `${name}_stdin.lance`);
    const ra = lance(['create', a, '--input', file, '--input-batch-bytes', '300', ...extra]);
    const rb = lance(['create', b, '--input', '-', '--input-batch-bytes', '300', ...extra], { input: text });
    return { a, b, ra, rb, file };
  };
  const nothingWritten = (uri) => {
    assert.equal(fs.existsSync(path.join(uri, '_versions')), false);
    assert.deepEqual(fs.existsSync(path.join(uri, 'data')) ? fs.readdirSync(path.join(uri, 'data')) : [], []);
  };

  test('stdin in batches gives the rows and types of a file', () => {
    const { a, b, ra, rb } = pieces('sq', 'id,s,f\r\n' + rows(400, (i) => `${i},"a,""${i}""\nb",${i % 5 ? i / 4 : ''}\r`));
    assert.equal(ra.status, 0, ra.stderr);
    assert.equal(rb.status, 0, rb.stderr);
    assert.equal(lanceOk(['schema', b]).stdout, lanceOk(['schema', a]).stdout);
    assert.equal(lanceOk(['scan', b]).stdout, lanceOk(['scan', a]).stdout);
    assert.equal(count(b), 400);
  });
  test('an error in a later batch of stdin names its line in the whole input', () => {
    for (const [bad, line, pattern] of [[700, 702, /line 702, column 2: quoted field is never closed/],
                                        [650, 652, /line 652: expected 2 fields \(as the header\), found 3/]]) {
      const text = 'id,v\n' + rows(800, (i) => (i === bad ? (bad === 700 ? `${i},"open` : `${i},1,2`) : `${i},${i}`));
      const { a, b, ra, rb, file } = pieces(`sbad${bad}`, text);
      assert.notEqual(rb.status, 0);
      assert.match(rb.stderr, pattern, `line ${line}`);
      assert.equal(ra.stderr.replace(file, 'stdin'), rb.stderr);
      nothingWritten(a);
      nothingWritten(b);
    }
  });
  test('a type that changes in a later batch of stdin is refused by column and line', () => {
    const text = 'id,v\n' + rows(700, (i) => `${i},${i < 500 ? i : 'x' + i}`);
    const { a, b, ra, rb } = pieces('schange', text);
    assert.equal(ra.status, 0, ra.stderr);  // a file is read again, whole
    assert.match(lanceOk(['schema', a]).stdout, /"name":"v","type":"utf8"/);
    assert.notEqual(rb.status, 0);
    assert.match(rb.stderr, /stdin: column 'v' infers as "utf8" from line \d+ on, as "int64" before .*--schema/);
    nothingWritten(b);
    // With a schema, stdin reads it in batches.
    const schemaFile = path.join(dir, 'schange.schema.json');
    fs.writeFileSync(schemaFile, JSON.stringify({ fields: [{ name: 'id', type: 'int64' }, { name: 'v', type: 'utf8' }] }));
    const c = path.join(dir, 'schange_typed.lance');
    lanceOk(['create', c, '--input', '-', '--input-batch-bytes', '300', '--schema', schemaFile], { input: text });
    assert.equal(lanceOk(['scan', c]).stdout, lanceOk(['scan', a]).stdout);
  });
  test('JSON lines: a bad line in a later batch is named by its line, from a file and stdin', () => {
    const schemaFile = path.join(dir, 'jl.schema.json');
    fs.writeFileSync(schemaFile, JSON.stringify({ fields: [{ name: 'id', type: 'int64' }, { name: 'v', type: 'int64' }] }));
    const text = rows(300, (i) => (i === 250 ? `{"id": ${i}, "v": "x"}` : `{"id": ${i}, "v": ${i}}`));
    const file = path.join(dir, 'jl.jsonl');
    fs.writeFileSync(file, text);
    const a = path.join(dir, 'jl_file.lance');
    const ra = lance(['create', a, '--input', file, '--schema', schemaFile, '--input-batch-bytes', '200']);
    const rb = lance(['create', path.join(dir, 'jl_stdin.lance'), '--input', '-', '--schema', schemaFile,
                      '--input-batch-bytes', '200'], { input: text });
    assert.notEqual(ra.status, 0);
    assert.match(ra.stderr, /jl\.jsonl: line 251/);
    assert.match(rb.stderr, /stdin: line 251/);
    nothingWritten(a);
  });
  test('an Arrow IPC stream of many batches from stdin and a FIFO', () => {
    const arrows = path.join(dir, 'many.arrows');
    lanceOk(['scan', table, '--output', arrows, '--batch-size', '7']);
    const s = path.join(dir, 'many_stdin.lance');
    lanceOk(['create', s, '--input', '-'], { input: fs.readFileSync(arrows) });
    assert.equal(lanceOk(['scan', s]).stdout, lanceOk(['scan', table]).stdout);
    const fifo = path.join(dir, 'many.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const f = path.join(dir, 'many_fifo.lance');
    const r = spawnSync('bash', ['-c', `cat "$1" > "$2" & "$3" create "$4" --input "$2"; s=$?; wait; exit $s`,
                                 'x', arrows, fifo, LANCE_BIN, f], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(lanceOk(['scan', f]).stdout, lanceOk(['scan', table]).stdout);
    // A truncated stream is refused, nothing is written.
    const bytes = fs.readFileSync(arrows);
    const t = path.join(dir, 'many_cut.lance');
    const cut = lance(['create', t, '--input', '-'], { input: bytes.subarray(0, bytes.length - 100) });
    assert.notEqual(cut.status, 0);
    assert.match(cut.stderr, /Corruption: IPC/);
    nothingWritten(t);
  });
  test('--input-batch-bytes is checked', () => {
    refused(['create', path.join(dir, 'bb.lance'), '--input', csv, '--input-batch-bytes', '0'], /input-batch-bytes/);
  });
});

describe('progress', () => {
  test('--progress reports on stderr; stdout keeps only the result', () => {
    const t = path.join(dir, 'progress.lance');
    const c = lanceOk(['create', t, '--input', csv, '--progress', '--input-batch-bytes', '1000']);
    assert.match(c.stderr, /^create: \d+ rows read, \d+% of the input/m);
    assert.match(c.stderr, /^create: 1000 rows written, version 1/m);
    assert.equal(JSON.parse(c.stdout).rows_written, 1000);
    const quiet = lanceOk(['create', t, '--mode', 'append', '--input', csv]);
    assert.equal(quiet.stderr, '');  // not a terminal, no --progress: silent
    const ix = lanceOk(['create-index', t, 'id', '--progress']);
    assert.match(ix.stderr, /^create-index: building a btree index on 'id'/m);
    assert.match(ix.stderr, /^create-index: done/m);
    JSON.parse(ix.stdout);
    const cp = lanceOk(['compact', t, '--progress']);
    assert.match(cp.stderr, /^compact: rewriting \d+ fragments/m);
    assert.match(cp.stderr, /^compact: \d+ fragments -> \d+, \d+ rows rewritten/m);
    JSON.parse(cp.stdout);
  });
});
