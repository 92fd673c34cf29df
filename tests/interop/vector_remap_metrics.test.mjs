// Compaction remap of cosine, dot and hamming vector indexes both ways with lance 12
// (@lancedb/lancedb 0.39.0): three fragments of 400 rows, 2 partitions, rows deleted, then
// compacted.
//   * lance 12 builds IVF_FLAT / IVF_PQ / IVF_HNSW_SQ / IVF_HNSW_PQ (cosine, dot) or IVF_FLAT
//     (hamming, over fixed_size_list<uint8>); of two copies its optimize() compacts one, our
//     `lance compact` the other: the segment its Rewrite writes and ours have the same
//     auxiliary.idx row for row (IVF_FLAT / IVF_PQ: index.idx too; HNSW graphs are built anew
//     with random levels, so only a node per kept row is checked), lance 12 answers from our
//     remapped index exactly as our `lance search` does and we answer from its remapped index
//     exactly as it does (nprobes 1 / 2, a prefilter, HNSW: an ef; a full search = brute force);
//   * we build the same (seeded), delete and compact: lance 12 lists the remapped segment over
//     the new fragment, plans through it and answers as we do; also IVF_SQ (l2, cosine) and
//     IVF_HNSW_FLAT (cosine, dot), which lance 12's node API cannot build.
import { describeRemaps } from './lib/vector_remap_metrics.mjs';

describeRemaps('compaction remaps cosine, dot and hamming vector indexes', [
  ...['cosine', 'dot'].flatMap((metric) => ['ivf_flat', 'ivf_pq', 'ivf_hnsw_sq', 'ivf_hnsw_pq'].map((type) => [type, metric])),
  ['ivf_flat', 'hamming'],
], [['ivf_sq', 'l2'], ['ivf_sq', 'cosine'], ['ivf_hnsw_flat', 'cosine'], ['ivf_hnsw_flat', 'dot']]);
