// The read side of the index type x metric matrix (docs/vector-interop-matrix.md) for the
// combinations the golden tables (vector_index_read) and vector_rq do not build: lance 12
// builds IVF_HNSW_SQ / IVF_HNSW_PQ with cosine and dot, IVF_RQ with dot and with 2- and 4-bit
// codes (more in vector_rq_bits); where this library reads the index our `lance search` returns
// what lance 12's own search returns (row ids in order, distances) for nprobes 1 / 2 / 4, ef and
// a prefilter, and where it does not, it refuses with NotSupported naming the index file (never
// another answer).
import assert from 'node:assert/strict';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import * as A from 'apache-arrow';
import * as lancedb from '@lancedb/lancedb';

import { lance, scratchDir } from './lib/cli.mjs';
import { makeTable } from './lib/gen.mjs';
import { assertSame, clustered, ours, referenceSearch } from './lib/vector_search.mjs';

const DIM = 16;
const ROWS = 1500;
const vs = clustered(17, ROWS, DIM, 8, 3);
const qs = clustered(53, 3, DIM, 8, 3).map((v) => v.map((x) => Math.fround(x * 0.9)));

const table = () => makeTable([
  { name: 'id', type: new A.Int32(), nullable: false, values: vs.map((_, i) => i) },
  { name: 'vec', type: new A.FixedSizeList(DIM, new A.Field('item', new A.Float32(), true)),
    values: vs.map((v, i) => (i === 4 ? null : v)) },
], [ROWS]);

// [name, lance 12's config, metric, read here]
const CASES = [
  ['hnsw_sq_cosine', () => lancedb.Index.hnswSq({ numPartitions: 4, distanceType: 'cosine' }), 'cosine', true],
  ['hnsw_pq_cosine', () => lancedb.Index.hnswPq({ numPartitions: 4, numSubVectors: 4, distanceType: 'cosine' }), 'cosine', true],
  ['hnsw_sq_dot', () => lancedb.Index.hnswSq({ numPartitions: 4, distanceType: 'dot' }), 'dot', true],
  ['hnsw_pq_dot', () => lancedb.Index.hnswPq({ numPartitions: 4, numSubVectors: 4, distanceType: 'dot' }), 'dot', true],
  ['rq_dot', () => lancedb.Index.ivfRq({ numPartitions: 4, distanceType: 'dot' }), 'dot', true],
  ['rq_2bit', () => lancedb.Index.ivfRq({ numPartitions: 4, numBits: 2 }), 'l2', true],
  ['rq_4bit_dot', () => lancedb.Index.ivfRq({ numPartitions: 4, numBits: 4, distanceType: 'dot' }), 'dot', true],
];
const SEARCHES = [{ nprobes: 1 }, { nprobes: 2 }, { nprobes: 4 }, { nprobes: 2, ef: 40 },
  { nprobes: 3, ef: 30, filter: 'id % 3 = 1' }, { nprobes: 2, refineFactor: 2, ef: 40 }];

describe('our search of the indexes lance 12 builds for the rest of the type x metric matrix', () => {
  let dir, db;
  before(async () => {
    dir = scratchDir('lance-vector-matrix-');
    db = await lancedb.connect(dir);
  });

  for (const [name, config, metric, readable] of CASES) {
    test(`${name}: ${readable ? 'read as lance 12 reads it' : 'refused as not supported'}`, async () => {
      const t = await db.createTable(name, table());
      await t.createIndex('vec', { config: config() });
      const uri = path.join(dir, `${name}.lance`);
      if (!readable) {
        const r = lance(['search', uri, '--column', 'vec', '--vector', JSON.stringify(qs[0]), '-k', '10',
          '--nprobes', '2', '--metric', metric]);
        assert.notEqual(r.status, 0, `${name}: searched instead of refusing: ${r.stdout.slice(0, 200)}`);
        assert.match(r.stderr, /not ?supported|NotSupported/i, r.stderr);
        assert.match(r.stderr, /auxiliary\.idx|index\.idx/, r.stderr);
        return;
      }
      for (const [qi, q] of qs.entries()) {
        for (const s of SEARCHES) {
          for (const k of [1, 10]) {
            assertSame(ours(uri, q, metric, s, k), await referenceSearch(t, q, metric, s, k),
              `${name} q${qi} k${k} ${JSON.stringify(s)}`);
          }
        }
      }
    });
  }
});
