// Exact (flat) vector search, ours (`lance flat-search`, the linalg layer's FlatSearch) against
// lance 12's brute-force search of the same table (no index: `query().nearestTo(q)` with
// `withRowId`): every returned row id and every `_distance`, bit for bit, in order, for
// float16 / float32 / float64 vectors with l2, cosine and dot, uint8 vectors with hamming,
// dimensions from 1 to 768, several fragments, null vectors, deleted rows, exact ties (ordered
// by row id) and infinities / NaN (rows with a NaN distance are dropped by both).
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lanceOk, scratchDir } from './lib/cli.mjs';
import { roundToFloat16 } from './lib/canonical.mjs';
import { makeTable } from './lib/gen.mjs';
import { assertSameRows, cpuUlps } from './lib/vector_search.mjs';

// Deterministic uniform [-1, 1) values (32-bit LCG), rounded to float32.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return Math.fround((s / 4294967296) * 2 - 1);
  };
}

const ELEMENT = {
  f16: () => new A.Float16(),
  f32: () => new A.Float32(),
  f64: () => new A.Float64(),
  u8: () => new A.Uint8(),
};

function table(start, vectors, element, dim) {
  return makeTable([
    { name: 'id', type: new A.Int32(), nullable: false, values: vectors.map((_, i) => start + i) },
    { name: 'vector', type: new A.FixedSizeList(dim, new A.Field('item', ELEMENT[element](), true)),
      values: vectors },
  ], [vectors.length]);
}

async function reference(t, q, metric, k) {
  const rows = await t.query().nearestTo(q).distanceType(metric).limit(k).withRowId(true).toArray();
  return rows.map((r) => ({ rowid: BigInt(r._rowid), distance: r._distance }));
}

function ours(uri, q, metric, k) {
  const text = JSON.stringify(q, (_, x) => (typeof x === 'number' && !Number.isFinite(x)
    ? (Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf') : x));
  const out = lanceOk(['flat-search', uri, '--column', 'vector', '--vector', text,
    '-k', String(k), '--metric', metric]).stdout;
  return out.split('\n').filter((l) => l).map((l) => {
    const m = /^\{"_rowid":(\d+),"_distance":(.*)\}$/.exec(l);
    assert.ok(m, `bad line ${l}`);
    // Our distances print as the shortest decimal of a float32; as a double it is that float.
    const d = m[2] === 'inf' ? Infinity : m[2] === '-inf' ? -Infinity : Math.fround(Number(m[2]));
    return { rowid: BigInt(m[1]), distance: d };
  });
}

// Bit for bit, in lance 12's order (within cpuUlps on AVX-512 machines: lib/vector_search.mjs).
function assertSame(got, want, what) {
  assertSameRows(got, want, what, cpuUlps, false);
}

describe('flat search equals lance 12 brute force', () => {
  let dir;
  let db;
  before(async () => {
    dir = scratchDir('lance-linalg-');
    db = await lancedb.connect(dir);
  });

  // Random vectors in three fragments, one null vector, one deleted row.
  const cases = [];
  for (const dim of [1, 3, 7, 8, 15, 16, 17, 31, 127, 128, 129, 768]) cases.push(['f32', dim]);
  for (const dim of [3, 16, 37, 128]) cases.push(['f16', dim], ['f64', dim]);
  for (const [element, dim] of cases) {
    test(`${element} dim ${dim}`, async () => {
      const next = rng(dim * 7919 + element.length);
      const vec = (i) => (i === 17 ? null : Array.from({ length: dim }, () => {
        const x = next();
        return element === 'f16' ? roundToFloat16(x) : x;
      }));
      const name = `${element}_${dim}`;
      const sizes = [120, 90, 70];
      let start = 0;
      let t;
      for (const n of sizes) {
        const rows = Array.from({ length: n }, (_, i) => vec(start + i));
        const data = table(start, rows, element, dim);
        t = start === 0 ? await db.createTable(name, data) : (await t.add(data), t);
        start += n;
      }
      await t.delete('id = 42');
      const uri = path.join(dir, `${name}.lance`);
      for (const metric of ['l2', 'cosine', 'dot']) {
        for (const k of [1, 10, 300]) {
          const q = Array.from({ length: dim }, () => next());
          assertSame(ours(uri, q, metric, k), await reference(t, q, metric, k), `${name} ${metric} k=${k}`);
        }
      }
    });
  }

  test('uint8 vectors with hamming', async () => {
    for (const dim of [1, 5, 8, 16, 33, 64]) {
      const next = rng(dim + 99);
      const byte = () => Math.floor((next() + 1) * 128) & 255;
      const rows = Array.from({ length: 150 }, (_, i) => (i === 3 ? null : Array.from({ length: dim }, byte)));
      const t = await db.createTable(`u8_${dim}`, table(0, rows, 'u8', dim));
      const uri = path.join(dir, `u8_${dim}.lance`);
      for (const k of [1, 10, 200]) {
        const q = Array.from({ length: dim }, byte);
        assertSame(ours(uri, q, 'hamming', k), await reference(t, q, 'hamming', k), `u8 dim ${dim} k=${k}`);
      }
    }
  });

  test('ties are ordered by row id across fragments, and a k cut inside a tie group', async () => {
    const dim = 4;
    const f = (i) => [i % 3, 0, 0, 0];
    let t;
    for (let frag = 0; frag < 3; frag++) {
      const rows = Array.from({ length: 10 }, (_, i) => f(frag * 10 + i));
      const data = table(frag * 10, rows, 'f32', dim);
      t = frag === 0 ? await db.createTable('ties', data) : (await t.add(data), t);
    }
    await t.delete('id = 3');
    const uri = path.join(dir, 'ties.lance');
    for (const metric of ['l2', 'dot', 'cosine']) {
      for (const k of [1, 5, 9, 12, 40]) {
        assertSame(ours(uri, [0.5, 0, 0, 0], metric, k), await reference(t, [0.5, 0, 0, 0], metric, k),
          `ties ${metric} k=${k}`);
      }
    }
  });

  test('infinities and NaN: inf distances kept, NaN distances dropped before the top k', async () => {
    const dim = 4;
    const rows = [[0, 0, 0, 0], [Infinity, 0, 0, 0], [-Infinity, 0, 0, 0], [3, 0, 0, 0],
      [3.4e38, 3.4e38, 0, 0], [NaN, 0, 0, 0], null, [7, 0, 0, 0]];
    const t = await db.createTable('inf', table(0, rows, 'f32', dim));
    const uri = path.join(dir, 'inf.lance');
    for (const metric of ['l2', 'cosine', 'dot']) {
      for (const q of [[1, 0, 0, 0], [Infinity, 0, 0, 0], [0, 0, 0, 0], [-2, 1, 0, 0]]) {
        for (const k of [1, 3, 10]) {
          assertSame(ours(uri, q, metric, k), await reference(t, q, metric, k),
            `inf ${metric} q=${q} k=${k}`);
        }
      }
    }
  });
});
