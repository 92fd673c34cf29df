// `lance index optimize` of cosine and dot IVF_RQ indexes, 1 bit ('ivf_rq') and multi-bit cells
// of 2, 4 and 9 bits ('ivf_rq2', 'ivf_rq4', 'ivf_rq9'), both ways with lance 12
// (@lancedb/lancedb 0.39.0): 2000 rows, 4 partitions, 600 appended (lib/vector_optimize_metrics.mjs):
//   * we build the index, lance 12 appends; of two copies we optimize one (lance 12 reads it:
//     one segment, plan over our uuid, a full search = its brute force, its answers at nprobes
//     1 / 2 / 4, with a refine, with a prefilter = ours), lance 12 optimizes the other and our
//     search of it equals its own;
//   * lance 12 builds the index (Index.ivfRq({numBits})) and appends: the same two ways.
import { describeOptimizes } from './lib/vector_optimize_metrics.mjs';

describeOptimizes('lance index optimize of cosine and dot IVF_RQ (1, 2, 4 and 9 bits), both ways with lance 12',
  ['cosine', 'dot'], [], ['ivf_rq', 'ivf_rq2', 'ivf_rq4', 'ivf_rq9']);
