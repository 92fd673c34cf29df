// Compaction remap of cosine and dot IVF_RQ indexes, 1 bit ('ivf_rq') and 2, 4 and 9 bits
// ('ivf_rq2', 'ivf_rq4', 'ivf_rq9'),
// both ways with lance 12 (@lancedb/lancedb 0.39.0), as vector_remap_metrics.test.mjs does for
// the other kinds (lib/vector_remap_metrics.mjs): three fragments of 400 rows, 2 partitions,
// rows deleted, then compacted.
//   * lance 12 builds it (Index.ivfRq({numBits})); of two copies its optimize() compacts one,
//     our `lance compact` the other: the two remapped segments have the same auxiliary.idx and
//     index.idx, lance 12 answers from ours as we do and we from its as it does (nprobes 1 / 2,
//     a prefilter; a full search with a refine = brute force);
//   * we build it (seeded, --num-bits), delete and compact: lance 12 lists the remapped
//     segment over the new fragment, plans through it and answers as we do.
import { describeRemaps } from './lib/vector_remap_metrics.mjs';

describeRemaps('compaction remaps cosine and dot IVF_RQ (1, 2, 4 and 9 bits)',
  ['cosine', 'dot'].flatMap((metric) => ['ivf_rq', 'ivf_rq2', 'ivf_rq4', 'ivf_rq9'].map((type) => [type, metric])), []);
