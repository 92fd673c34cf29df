// InvertedIndex::SearchPartition: one partition's document-at-a-time walk (MaxScore, block-max,
// the rarest token driving AND and phrase queries), declared in lance/index/fts/inverted_index.h.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "index/fts/bm25.h"
#include "index/fts/posting_codec.h"
#include "index/fts/posting_cursor.h"
#include "lance/core/status.h"
#include "lance/index/fts/inverted_index.h"

namespace lance::index::fts {

namespace {

// `hit` into `out`: every hit (limit 0), else a heap of the best `limit` (Better order).
void Collect(const ScoredRow& hit, size_t limit, std::vector<ScoredRow>* out) {
  if (limit == 0) {
    out->push_back(hit);
  } else if (out->size() < limit) {
    out->push_back(hit);
    std::push_heap(out->begin(), out->end(), Better);
  } else if (Better(hit, out->front())) {
    std::pop_heap(out->begin(), out->end(), Better);
    out->back() = hit;
    std::push_heap(out->begin(), out->end(), Better);
  }
}

}  // namespace

Status InvertedIndex::SearchPartition(const InvertedPartition& part, const std::vector<std::string>& tokens,
                                      const std::vector<uint32_t>& positions, MatchMode mode,
                                      const std::function<bool(uint64_t)>& keep, size_t limit, uint32_t slop,
                                      std::vector<ScoredRow>* out, SearchStats* stats) const {
  // unique tokens, and each query token's slot
  std::vector<std::string> uniq;
  std::vector<size_t> slot(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    auto it = std::find(uniq.begin(), uniq.end(), tokens[i]);
    slot[i] = static_cast<size_t>(it - uniq.begin());
    if (it == uniq.end()) uniq.push_back(tokens[i]);
  }
  // kAll: every query position must be matched by one of its tokens. Tokens sharing a
  // position (an ngram tokenizer puts all its grams of a string at one) are alternatives, as
  // lance 12 answers such AND queries; with one token per position this is "every token".
  std::vector<size_t> group(tokens.size());
  size_t groups = tokens.size();
  if (mode == MatchMode::kAll && positions.size() == tokens.size()) {
    std::vector<uint32_t> seen;
    for (size_t i = 0; i < tokens.size(); ++i) {
      auto it = std::find(seen.begin(), seen.end(), positions[i]);
      group[i] = static_cast<size_t>(it - seen.begin());
      if (it == seen.end()) seen.push_back(positions[i]);
    }
    groups = seen.size();
  } else {
    for (size_t i = 0; i < tokens.size(); ++i) group[i] = i;
  }
  std::vector<char> hit_group(groups);
  auto every_group = [&](const auto& token_present) {
    std::fill(hit_group.begin(), hit_group.end(), 0);
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (token_present(slot[i])) hit_group[group[i]] = 1;
    }
    return std::all_of(hit_group.begin(), hit_group.end(), [](char c) { return c != 0; });
  };
  std::vector<float> idf(uniq.size());
  for (size_t u = 0; u < uniq.size(); ++u) {
    const uint64_t n = DocsWithToken(uniq[u]);
    idf[u] = n == 0 ? 0.0f : Bm25Idf(n, num_docs_);
  }
  const float avgdl = Bm25AvgDocLength(total_tokens_, num_docs_);
  std::unordered_set<uint32_t> deleted(deleted_fragments_.begin(), deleted_fragments_.end());
  std::vector<PostingCursor> cur(uniq.size());
  std::vector<bool> present(uniq.size(), false);
  bool any = false, all = true;
  for (size_t u = 0; u < uniq.size(); ++u) {
    auto id = part.TokenId(uniq[u]);
    if (!id) {
      all = false;
      continue;
    }
    LANCE_RETURN_NOT_OK(cur[u].Init(part, *id, mode == MatchMode::kPhrase));
    present[u] = true;
    any = true;
  }
  if (!any || (mode == MatchMode::kPhrase && !all)) return Status::OK();
  // the score of `doc` from freq[] (per unique token: its frequency there, 0 = absent), in the
  // query tokens' order (repeats count again)
  const auto score_of = [&](uint32_t doc, const std::vector<uint32_t>& freq) {
    const uint32_t dl = part.DocTokens(doc);
    float score = 0.0f;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const size_t u = slot[i];
      if (freq[u] == 0) continue;
      score += idf[u] * Bm25DocWeight(freq[u], dl, avgdl);
    }
    return score;
  };
  const auto skip = [&](uint64_t row) {
    return (!deleted.empty() && deleted.count(static_cast<uint32_t>(row >> 32)) != 0) || (keep && !keep(row));
  };
  if (mode == MatchMode::kAll && !every_group([&](size_t u) { return present[u]; })) return Status::OK();
  // One document-at-a-time walk over the ascending posting cursors of the present tokens, in
  // `order`: the smallest doc id under the cursors of order[essential..], the tokens at it,
  // then those cursors advance; tokens before `essential` are sought to it, not walked.
  // MaxScore (kAny top-k): each token's upper bound (its repeats x its best stored block score
  // with one partition, else the best its `_impacts` groups allow over the index's statistics,
  // else x idf x the doc weight of its highest frequency in the shortest document; with a
  // margin for float rounding), ascending; the longest prefix whose bounds sum below the k-th
  // score cannot put a document in the top k alone, so only documents of the other
  // ("essential") tokens are scored. Block-max (any top-k; one partition: the stored block
  // scores, which are over the index's statistics then; several: each block's bound from its
  // impacts; a phrase scores as its tokens): the blocks every token has at the walk's document
  // bound its score until the first of their ends; when their bounds sum below the k-th score
  // (or, with impacts, their joint bound: one document has one length) the essential cursors
  // jump there. Per document, the others' bounds are their impacts at its length (doc_bound).
  // kAll with one token per position and kPhrase need every token: the rarest walks, the
  // others are sought; a phrase passes over its walked block in one loop like MaxScore's.
  const bool max_score = mode == MatchMode::kAny && limit > 0;
  // the stored block scores are over this partition's statistics: the index's with one
  // partition; with several the blocks' `_impacts` bound them over the index's statistics
  const bool stored = partitions_.size() == 1;
  bool impacts = true;
  for (size_t u = 0; u < uniq.size(); ++u) impacts = impacts && (!present[u] || cur[u].has_impacts());
  const bool block_max = limit > 0 && (stored || impacts);
  const bool drive_rarest = mode == MatchMode::kPhrase || (mode == MatchMode::kAll && groups == tokens.size());
  constexpr double kMargin = 1.0 + 1e-4;
  std::vector<double> reps(uniq.size(), 0.0), bound(uniq.size(), 0.0), w(uniq.size(), 0.0);
  for (size_t i = 0; i < tokens.size(); ++i) reps[slot[i]] += 1;
  for (size_t u = 0; u < uniq.size(); ++u) w[u] = reps[u] * static_cast<double>(idf[u]) * kMargin;
  // token u's contribution to any document of impacts entry e (a block, or a group of 32):
  // the best of its pairs at the shortest length of their codes
  const auto entry_bound = [&](size_t u, size_t e) {
    float best = 0;
    for (const auto* p = cur[u].ImpactsBegin(e); p != cur[u].ImpactsEnd(e); ++p) {
      best = std::max(best, DocWeight(p->first, std::max<uint32_t>(1, MinLengthOfCode(p->second)), avgdl));
    }
    return w[u] * static_cast<double>(best);
  };
  // ... to any document of block b
  const auto block_bound = [&](size_t u, size_t b) {
    return stored ? reps[u] * static_cast<double>(cur[u].BlockMax(b)) * kMargin : entry_bound(u, b);
  };
  // ... to document d of dl tokens: with impacts, the doc weight at dl of the highest
  // frequency a document of that length code can have in u's block there; else its block's
  // bound, or its list's, or none (infinite). -1: u is surely not at d.
  const auto doc_bound = [&](size_t u, uint32_t d, uint32_t dl) -> double {
    const PostingCursor& c = cur[u];
    if (d < c.FirstDoc()) return -1.0;
    const size_t b = c.BlockOf(d);
    if (!c.has_impacts()) return block_max ? block_bound(u, b) : max_score ? bound[u] : HUGE_VAL;
    if (d > c.BlockLast(b)) return -1.0;
    const uint32_t f = c.FreqCap(b, LengthCode(dl));
    return f == 0 ? -1.0 : w[u] * static_cast<double>(DocWeight(f, dl, avgdl));
  };
  // A tighter bound of the window where token u's block is blk[u] (SIZE_MAX: u has no
  // document there): one document has one length, so per length code c (the codes of the
  // blocks' impacts, ascending) the sum over tokens of the doc weight of the highest frequency
  // a document of code <= c can have, at c's shortest length; `required`: every token at c
  const bool required = drive_rarest && impacts;  // every token needed: one surely absent rules a document out
  std::vector<size_t> order;  // the present tokens, filled below
  std::vector<const PostingCursor::ImpactPair*> jp(uniq.size()), je(uniq.size());
  std::vector<uint32_t> jf(uniq.size());
  const auto joint_bound = [&](const std::vector<size_t>& blk) {
    for (size_t u : order) {
      jf[u] = 0;
      jp[u] = je[u] = nullptr;
      if (blk[u] == SIZE_MAX) {
        if (required) return 0.0;
        continue;
      }
      jp[u] = cur[u].ImpactsBegin(blk[u]);
      je[u] = cur[u].ImpactsEnd(blk[u]);
    }
    double best = 0;
    while (true) {
      uint32_t c = UINT32_MAX;
      for (size_t u : order) {
        if (jp[u] != je[u]) c = std::min(c, jp[u]->second);
      }
      if (c == UINT32_MAX) break;
      const uint32_t dl = std::max<uint32_t>(1, MinLengthOfCode(c));
      double sum = 0;
      bool every = true;
      for (size_t u : order) {
        while (jp[u] != je[u] && jp[u]->second <= c) jf[u] = (jp[u]++)->first;
        if (jf[u] == 0) {
          every = false;
          continue;
        }
        sum += w[u] * static_cast<double>(DocWeight(jf[u], dl, avgdl));
      }
      if (every || !required) best = std::max(best, sum);
    }
    return best;
  };
  std::vector<size_t> blk(uniq.size(), SIZE_MAX);
  for (size_t u = 0; u < uniq.size(); ++u) {
    if (!present[u]) continue;
    order.push_back(u);
    if (!max_score) continue;
    if (stored) {
      float best = 0;
      for (size_t b = 0; b < cur[u].num_blocks(); ++b) best = std::max(best, cur[u].BlockMax(b));
      bound[u] = reps[u] * static_cast<double>(best) * kMargin;
    } else if (impacts) {
      for (size_t e = cur[u].num_blocks(); e < cur[u].num_impact_entries(); ++e) {
        bound[u] = std::max(bound[u], entry_bound(u, e));
      }
    } else {
      LANCE_ASSIGN_OR_RAISE(PostingList pl, part.Postings(*part.TokenId(uniq[u]), false));
      uint32_t fmax = 0;
      for (uint32_t f : pl.freqs) fmax = std::max(fmax, f);
      bound[u] = reps[u] * static_cast<double>(idf[u]) *
                 static_cast<double>(Bm25DocWeight(fmax, part.MinDocTokens(), avgdl)) * kMargin;
    }
  }
  if (max_score) std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bound[a] < bound[b]; });
  if (drive_rarest) {
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cur[a].length() > cur[b].length(); });
  }
  std::vector<double> prefix(order.size() + 1, 0.0);
  for (size_t j = 0; j < order.size(); ++j) prefix[j + 1] = prefix[j] + bound[order[j]];
  std::vector<uint32_t> freq(uniq.size(), 0);  // per unique token: its frequency at the document; 0 = absent
  std::vector<const uint32_t*> pb(tokens.size()), pe(tokens.size());
  // phrase: the walked token's bound at the shortest length per frequency 1..7 (the same
  // doubles the walk would compute per document, without a division each)
  std::array<double, 8> walked_min{};
  if (mode == MatchMode::kPhrase && !order.empty()) {
    const size_t u = order.back();
    for (uint32_t f = 1; f < walked_min.size(); ++f) {
      walked_min[f] = w[u] * static_cast<double>(DocWeight(f, part.MinDocTokens(), avgdl));
    }
  }
  uint32_t window_end = 0;  // block-max: the block bound below holds for documents before this
  double window_bound = 0;
  while (true) {
    size_t essential = drive_rarest ? order.size() - 1 : 0;  // order[essential..] drive the walk
    const bool full = limit > 0 && out->size() >= limit;
    const double kth = full ? static_cast<double>(out->front().score) : 0.0;
    if (full && max_score) {
      while (essential < order.size() && prefix[essential + 1] < kth) ++essential;
    }
    if (essential == order.size()) break;
    uint32_t doc = PostingCursor::kEnd;
    for (size_t j = essential; j < order.size(); ++j) doc = std::min(doc, cur[order[j]].doc());
    if (doc == PostingCursor::kEnd) break;
    if (block_max && full) {
      if (doc >= window_end) {
        window_end = PostingCursor::kEnd;
        window_bound = 0;
        for (size_t u : order) {
          blk[u] = SIZE_MAX;
          if (doc < cur[u].FirstDoc()) {  // no document of u before its first block
            window_end = std::min(window_end, cur[u].FirstDoc());
            continue;
          }
          const size_t b = blk[u] = cur[u].BlockOf(doc);
          window_bound += block_bound(u, b);
          window_end = std::min(window_end, cur[u].BlockEnd(b));
        }
        if (impacts && order.size() > 1 && window_bound >= kth) window_bound = std::min(window_bound, joint_bound(blk));
      }
      if (window_bound < kth) {
        for (size_t j = essential; j < order.size(); ++j) cur[order[j]].SeekShallow(window_end);
        continue;
      }
    }
    // the cursors at `doc` decoded: their exact documents may lie further on
    bool moved = false;
    for (size_t j = essential; j < order.size(); ++j) {
      PostingCursor& c = cur[order[j]];
      if (c.doc() == doc && !c.decoded()) {
        LANCE_RETURN_NOT_OK(c.Materialize());
        moved = moved || c.doc() != doc;
      }
    }
    if (moved) continue;
    // MaxScore per document: the essential tokens' exact scores plus the bounds of the others
    // (doc_bound: at the document's length) below the k-th score: the others are not sought
    if ((full && max_score && essential + 1 == order.size()) || (mode == MatchMode::kPhrase && order.size() > 1)) {
      // one essential (or walked) token: its decoded block passed over in one loop while each
      // document's exact score plus the others' bounds stays below the k-th score (as below,
      // per document, without the walk's per-document overhead); AND and phrase also pass over
      // a document another token's impacts say it is not in
      PostingCursor& c = cur[order[essential]];
      const size_t ue = order[essential];
      // the others' bounds over the whole block first (the best of their blocks overlapping
      // it): a document below the k-th score even with those needs no per-document bounds
      const uint32_t end = c.BlockEnd(c.BlockOf(doc));
      double others = 0;
      for (size_t j = 0; j < essential && full; ++j) {
        const size_t u = order[j];
        if (!block_max) {
          others += max_score ? bound[u] : HUGE_VAL;
          continue;
        }
        if (end <= cur[u].FirstDoc()) continue;
        // a walked block spanning many of u's (a rare token's beside a common one): u's list
        // bound (OR) or none (AND, phrase) rather than a walk over them
        double best = 0;
        size_t b = doc < cur[u].FirstDoc() ? 0 : cur[u].BlockOf(doc);
        for (size_t n = 0; b < cur[u].num_blocks(); ++b, ++n) {
          if (n == 8) {
            best = max_score ? bound[u] : HUGE_VAL;
            break;
          }
          best = std::max(best, block_bound(u, b));
          if (cur[u].BlockEnd(b) >= end) break;
        }
        others += best;
      }
      bool stopped = false;
      if (mode == MatchMode::kPhrase) {
        // every token is needed: the others' cursors step along the walked block's documents
        // (decoding their blocks as they reach them), so a document is passed over on an exact
        // miss, or on its exact score bound below the k-th, with no per-document bounds or
        // length look-up before the others are known to be there
        Status err;
        const auto walked_at_min = [&](uint32_t f) {
          return f < walked_min.size() ? walked_min[f]
                                       : w[ue] * static_cast<double>(DocWeight(f, part.MinDocTokens(), avgdl));
        };
        stopped = c.SkipInBlock([&](uint32_t d, uint32_t f) {
          if (full && walked_at_min(f) + others < kth) return true;
          for (size_t j = 0; j < essential; ++j) {
            PostingCursor& o = cur[order[j]];
            if (o.doc() < d || (o.doc() == d && !o.decoded())) {
              err = o.SeekTo(d);
              if (!err.ok()) return false;
            }
            if (o.doc() != d) return true;
          }
          if (!full) return false;
          const uint32_t dl = part.DocTokens(d);
          double ub = w[ue] * static_cast<double>(DocWeight(f, dl, avgdl));
          for (size_t j = 0; j < essential; ++j) {
            const size_t u = order[j];
            ub += w[u] * static_cast<double>(DocWeight(cur[u].freq(), dl, avgdl));
          }
          return ub < kth;
        });
        LANCE_RETURN_NOT_OK(err);
      } else {
      stopped = c.SkipInBlock([&](uint32_t d, uint32_t f) {
        const uint32_t dl = part.DocTokens(d);
        double ub = full ? w[ue] * static_cast<double>(DocWeight(f, dl, avgdl)) : 0.0;
        if (full && ub + others < kth) return true;
        for (size_t j = 0; j < essential; ++j) {
          const double b = doc_bound(order[j], d, dl);
          if (b < 0) {
            if (required) return true;
            continue;
          }
          ub += b;
          if (!required && ub >= kth) return false;
        }
        return full && ub < kth;
      });
      }
      if (!stopped) continue;
      doc = c.doc();
      if (block_max && full && doc >= window_end) continue;  // a new window: bound it first
    } else if (full && max_score && essential > 0) {
      const uint32_t dl = part.DocTokens(doc);
      double ub = 0;
      for (size_t j = essential; j < order.size(); ++j) {
        const size_t u = order[j];
        if (cur[u].doc() == doc) ub += reps[u] * static_cast<double>(idf[u] * Bm25DocWeight(cur[u].freq(), dl, avgdl));
      }
      ub *= kMargin;
      for (size_t j = 0; j < essential && ub < kth; ++j) ub += std::max(0.0, doc_bound(order[j], doc, dl));
      if (ub < kth) {
        for (size_t j = essential; j < order.size(); ++j) {
          if (cur[order[j]].doc() == doc) LANCE_RETURN_NOT_OK(cur[order[j]].Next());
        }
        continue;
      }
    }
    bool every = all;
    for (size_t j = 0; j < order.size(); ++j) {
      const size_t u = order[j];
      if (j < essential) LANCE_RETURN_NOT_OK(cur[u].SeekTo(doc));
      freq[u] = cur[u].doc() == doc ? cur[u].freq() : 0;
      every = every && freq[u] != 0;
    }
    bool take = true;
    if (mode == MatchMode::kPhrase && !every) take = false;
    if (take && mode == MatchMode::kAll && !every_group([&](size_t u) { return freq[u] != 0; })) take = false;
    if (take) {
      if (stats) ++stats->scored;
      const float score = score_of(doc, freq);
      // below the k-th score it cannot enter: its positions, its row id (a cache miss) and the
      // filter are not needed then (a phrase scores as its tokens do)
      if (limit == 0 || out->size() < limit || score >= out->front().score) {
        if (mode == MatchMode::kPhrase) {
          for (size_t i = 0; i < tokens.size(); ++i) LANCE_RETURN_NOT_OK(cur[slot[i]].Positions(&pb[i], &pe[i]));
          take = PhraseMatches(pb, pe, positions, slop);
        }
        const uint64_t row = take ? part.RowId(doc) : 0;
        if (take && !skip(row)) Collect({row, score}, limit, out);
      }
    }
    for (size_t j = essential; j < order.size(); ++j) {
      if (cur[order[j]].doc() == doc) LANCE_RETURN_NOT_OK(cur[order[j]].Next());
    }
  }
  return Status::OK();
}

}  // namespace lance::index::fts
