// Self-tests of the JS reference view (lib/canonical.mjs) and the table generator
// (lib/gen.mjs): the comparator must catch every kind of wrong output, and apache-arrow's
// own IPC round trip must agree with the canonical rows. No lance binary needed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import * as A from 'apache-arrow';

import {
  diffRows, expectedRows, float16BitsToNumber, floatText, numberToFloat16Bits, parseJson,
  parseJsonLines, roundToFloat16, toJson,
} from './lib/canonical.mjs';
import { cases, dictionaryEvolutionStream, makeTable, singleTypeCases, toIPC } from './lib/gen.mjs';
import { describeSchema } from './lib/schema.mjs';

describe('shortest round-trip floats', () => {
  test('known values', () => {
    const known = [
      [Math.fround(0.1), 32, '0.1'], [3.4028234663852886e38, 32, '3.4028235e38'],
      [1.401298464324817e-45, 32, '1e-45'], [Math.fround(1 / 3), 32, '0.33333334'],
      [16777216, 32, '16777216.0'], [Math.fround(-123.456), 32, '-123.456'],
      [65504, 16, '65500.0'], [5.960464477539063e-8, 16, '6e-8'], [0.0999755859375, 16, '0.1'],
      [5e-324, 64, '5e-324'], [0.1, 64, '0.1'], [1e21, 64, '1e21'], [-0, 64, '-0.0'],
      [NaN, 32, '"NaN"'], [-Infinity, 16, '"-Infinity"'],
      [183723.875, 32, '183723.87'], [0.046875, 16, '0.04687'], [-183723.875, 32, '-183723.87'],
      [1e-7, 64, '1e-7'], [0.0000015, 64, '0.0000015'], [1e20, 64, '100000000000000000000.0'],
    ];
    for (const [x, bits, want] of known) assert.equal(floatText(x, bits), want, `${x} as float${bits}`);
  });

  test('every float16 value round-trips through its bits and its shortest text', () => {
    for (let h = 0; h < 65536; h++) {
      const v = float16BitsToNumber(h);
      if (Number.isNaN(v)) continue;
      assert.equal(numberToFloat16Bits(v), h);
      const t = floatText(v, 16);
      if (!t.startsWith('"')) assert.ok(Object.is(roundToFloat16(Number(t)), v), `${h}: ${t}`);
    }
  });

  test('float32 shortest text round-trips and is never longer than 9 digits', () => {
    const f = new Float32Array(1);
    const u = new Uint32Array(f.buffer);
    let s = 12345;
    for (let i = 0; i < 5000; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      u[0] = s;
      const v = f[0];
      if (!Number.isFinite(v)) continue;
      const t = floatText(v, 32);
      assert.equal(Math.fround(Number(t)), v, t);
      assert.ok(t.replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '').length <= 9, t);
    }
  });
});

describe('parser and comparator', () => {
  test('parser keeps integers exact and keys ordered, and is strict', () => {
    const v = parseJson('{"b":18446744073709551615,"a":[-9223372036854775808,1.5e3,"\\u00e9\\n"]}');
    assert.equal(toJson(v), '{"b":18446744073709551615,"a":[-9223372036854775808,1.5e3,"é\\n"]}');
    for (const bad of ['{"a":1,}', '[1 2]', '{"a":01}', '"raw\u0001"', '{"a":1,"a":2}', '1.', 'NaN', '[1]x']) {
      assert.throws(() => parseJson(bad), SyntaxError, bad);
    }
    assert.throws(() => parseJsonLines('{"a":1}'), SyntaxError);
    assert.deepEqual(parseJsonLines(''), []);
  });

  test('comparator accepts the canonical form and rejects every deviation', () => {
    const table = makeTable([
      { name: 'i', type: new A.Int64(), values: [(1n << 63n) - 1n] },
      { name: 'f', type: new A.Float32(), values: [Math.fround(0.1)] },
      { name: 'z', type: new A.Float64(), values: [-0] },
      { name: 'n', type: new A.Float64(), values: [NaN] },
      { name: 's', type: new A.Utf8(), values: [null] },
    ], [1]);
    const rows = expectedRows(table);
    const canonical = '{"i":9223372036854775807,"f":0.1,"z":-0.0,"n":"NaN","s":null}\n';
    assert.equal(diffRows(rows, canonical), null);
    // Equal in value but not in the canonical notation: accepted only when not exact.
    for (const text of ['{"i":9223372036854775807,"f":1e-1,"z":-0,"n":"NaN","s":null}\n',
                        '{"i":9223372036854775807, "f":0.1,"z":-0.0,"n":"NaN","s":null}\n',
                        '{"i":9223372036854775807,"f":0.1,"z":-0.0,"n":"N\\u0061N","s":null}\n']) {
      assert.equal(diffRows(rows, text, { exact: false }), null, text);
      assert.match(diffRows(rows, text), /not in canonical text/, text);
    }
    const bad = [
      '{"i":9223372036854775806,"f":0.1,"z":-0.0,"n":"NaN","s":null}\n',  // off by one
      '{"i":9223372036854775807.0,"f":0.1,"z":-0.0,"n":"NaN","s":null}\n',  // not an integer
      '{"i":"9223372036854775807","f":0.1,"z":-0.0,"n":"NaN","s":null}\n',  // string
      '{"i":9223372036854775807,"f":0.10000000149011612,"z":-0.0,"n":"NaN","s":null}\n',  // float64 digits
      '{"i":9223372036854775807,"f":0.1,"z":0.0,"n":"NaN","s":null}\n',  // lost sign of zero
      '{"i":9223372036854775807,"f":0.1,"z":-0.0,"n":null,"s":null}\n',  // NaN as null
      '{"f":0.1,"i":9223372036854775807,"z":-0.0,"n":"NaN","s":null}\n',  // key order
      '{"i":9223372036854775807,"f":0.1,"z":-0.0,"n":"NaN"}\n',  // missing key
      '{"i":9223372036854775807,"f":0.1,"z":-0.0,"n":"NaN","s":""}\n',  // null vs empty
      '{"i":9223372036854775807,"f":0.1,"z":-0.0,"n":"NaN","s":null}',  // no final newline
      '',  // no rows
    ];
    for (const text of bad) assert.notEqual(diffRows(rows, text), null, text);
  });
});

describe('generator and apache-arrow agree', () => {
  test('every case survives apache-arrow\'s own stream and file round trip', () => {
    for (const c of [...cases(), ...singleTypeCases()]) {
      const want = expectedRows(c.table);
      for (const fmt of ['stream', 'file']) {
        const back = A.tableFromIPC(toIPC(c.table, fmt));
        assert.equal(describeSchema(back.schema), describeSchema(c.table.schema), `${c.name} ${fmt}`);
        assert.equal(diffRows(want, expectedRows(back).map((r) => toJson(r) + '\n').join('')), null,
                     `${c.name} ${fmt}`);
      }
    }
  });

  test('canonical values agree with apache-arrow getters where those are exact', () => {
    for (const c of cases()) {
      const rows = expectedRows(c.table);
      c.table.schema.fields.forEach((f, k) => {
        const t = f.type;
        const exact = A.DataType.isInt(t) || A.DataType.isUtf8(t) || A.DataType.isBool(t) ||
          (A.DataType.isFloat(t) && t.precision !== A.Precision.HALF) ||
          (A.DataType.isDictionary(t) && A.DataType.isUtf8(t.dictionary));
        if (!exact) return;
        const col = c.table.getChildAt(k);
        for (let i = 0; i < c.table.numRows; i++) {
          const got = rows[i].entries[k][1];
          let want = col.get(i);
          if (want !== null && A.DataType.isInt(t)) want = BigInt(want);
          if (want !== null && A.DataType.isFloat(t)) assert.ok(Object.is(got.value, want), `${c.name} ${f.name}[${i}]`);
          else assert.equal(got, want, `${c.name} ${f.name}[${i}]`);
        }
      });
    }
  });

  test('dictionary replacement and delta stream decodes as written', () => {
    const { bytes, table } = dictionaryEvolutionStream();
    const got = expectedRows(A.tableFromIPC(bytes)).map((r) => toJson(r)).join('\n');
    assert.equal(got, expectedRows(table).map((r) => toJson(r)).join('\n'));
    assert.match(got, /"d":"z","i":5/);
    assert.match(got, /"d":"w","i":11/);
  });
});
