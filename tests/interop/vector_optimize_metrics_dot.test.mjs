// `lance index optimize` of cosine and dot vector indexes both ways with lance 12
// (@lancedb/lancedb 0.39.0), for IVF_FLAT, IVF_PQ, IVF_HNSW_SQ and IVF_HNSW_PQ (2000 rows, 4
// partitions, 600 appended; lib/vector_optimize_metrics.mjs), dot here (cosine:
// vector_optimize_metrics.test.mjs):
//   * we build the index, lance 12 appends; of two copies we optimize one (lance 12 reads it:
//     one segment, plan over our uuid, a full search = its brute force, its answers at nprobes
//     1 / 2 / 4 (HNSW: and an ef, a prefilter) = ours), lance 12 optimizes the other and our
//     search of it equals its own;
//   * lance 12 builds the index and appends: the same two ways;
//   * IVF_SQ (cosine) and IVF_HNSW_FLAT (cosine, dot), which lance 12's node API cannot build:
//     ours, the same two ways.
// Dot PQ with 16 sub-vectors (codes of the raw vectors: few sub-vectors tie many rows).
import { describeOptimizes } from './lib/vector_optimize_metrics.mjs';

describeOptimizes('lance index optimize of dot vector indexes, both ways with lance 12', ['dot'],
  [['ivf_hnsw_flat', 'dot']]);
