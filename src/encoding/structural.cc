// DecodePage: the dispatch of a page to its layout's decoder (layout_decoders.h), the
// selection of rows from decoded levels, and the one-line descriptions of layouts.
#include "encoding/structural.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <optional>

#include "encoding/compressive.h"
#include "encoding/fsst.h"
#include "encoding/layout_decoders.h"
#include "lance/core/bit_util.h"

namespace lance::encoding {

using layout::CheckLayers;
using layout::Layers;
using layout::NumListLayers;

namespace pb21 = ::lance::encodings21;

namespace {

// The index of the `nth` (0-based) of `a[0, n)` equal to `value`, or n when fewer are: whole
// blocks are counted (vectorized) and skipped, the one holding it is walked.
size_t NthEqual(const uint16_t* a, size_t n, uint16_t value, int64_t nth) {
  constexpr size_t kBlock = 64;
  size_t i = 0;
  int64_t seen = 0;
  for (; i + kBlock <= n; i += kBlock) {
    int64_t c = 0;
    for (size_t j = 0; j < kBlock; ++j) c += a[i + j] == value ? 1 : 0;
    if (seen + c > nth) break;
    seen += c;
  }
  for (; i < n; ++i) {
    if (a[i] != value) continue;
    if (seen == nth) return i;
    ++seen;
  }
  return n;
}

}  // namespace

Result<int64_t> AppendSelectedRows(const DecodedPage& run, int64_t first_row, bool has_preamble,
                                   const int64_t* rows, size_t num_rows, DecodedPage* out,
                                   DataBlock* values) {
  const bool has_rep = !run.rep.empty();
  const bool has_def = !run.def.empty();
  if (has_rep && has_def && run.rep.size() != run.def.size()) {
    return Status::Corruption("{} repetition but {} definition levels", run.rep.size(),
                              run.def.size());
  }
  const size_t num_levels = has_rep ? run.rep.size() : has_def ? run.def.size()
                                                              : static_cast<size_t>(run.num_values);
  if (!has_rep && !has_def && run.values.num_values != run.num_values) {
    return Status::Corruption("{} values decoded, {} counted", run.values.num_values,
                              run.num_values);
  }
  if (!has_rep && has_preamble) {
    return Status::Corruption("a chunk without repetition cannot continue a row");
  }
  // Which definition codes carry a value: every code the layers define, checked once against
  // the largest level (a plain max, vectorized). They run innermost layer first, so the
  // visible ones (inside the innermost list) are a prefix: below `num_visible`.
  std::vector<uint8_t> visible;
  uint16_t num_visible = 0;
  bool visible_prefix = true;
  if (has_def) {
    const uint16_t* def = run.def.data();
    uint32_t max_def = 0;
    for (size_t i = 0; i < run.def.size(); ++i) max_def = std::max<uint32_t>(max_def, def[i]);
    visible.resize(static_cast<size_t>(max_def) + 1);
    for (size_t d = 0; d < visible.size(); ++d) {
      LANCE_ASSIGN_OR_RAISE(bool v, IsVisibleDefinition(run.layers, static_cast<uint16_t>(d)));
      visible[d] = v ? 1 : 0;
    }
    while (num_visible < visible.size() && visible[num_visible] != 0) ++num_visible;
    for (size_t d = num_visible; d < visible.size(); ++d) visible_prefix = visible_prefix && visible[d] == 0;
  }
  const auto start_rep = static_cast<uint16_t>(NumListLayers(run.layers));
  if (has_rep && num_levels > 0 && (run.rep[0] == start_rep) == has_preamble) {
    return Status::Corruption("the repetition index says the levels {} a row, they {}",
                              has_preamble ? "continue" : "start",
                              has_preamble ? "start one" : "do not");
  }
  const int64_t values_before = values->num_values;
  int64_t row = first_row - 1;  // the row of the current level
  int64_t starts = 0;
  int64_t v = 0;                // the current level's value, when visible
  int64_t copy_from = -1, copy_len = 0;  // a run of values to copy
  size_t next = 0;
  while (next < num_rows && rows[next] < first_row) ++next;
  // The selected rows of the run are consecutive (a range read): their levels and values are
  // one stretch of the run's, copied whole instead of level by level. The rows are ascending
  // and unique, so the first and the last selected row of the run decide.
  if (next < num_rows) {
    // The run's rows: one per start level (a plain count over the levels, vectorized).
    int64_t run_rows = static_cast<int64_t>(num_levels);
    if (has_rep) {
      const uint16_t* rep = run.rep.data();
      run_rows = 0;
      for (size_t i = 0; i < num_levels; ++i) run_rows += rep[i] == start_rep ? 1 : 0;
    }
    const int64_t* end_sel = std::upper_bound(rows + next, rows + num_rows, first_row + run_rows - 1);
    const auto k = static_cast<int64_t>(end_sel - (rows + next));
    if (k > 0 && rows[next + static_cast<size_t>(k) - 1] - rows[next] == k - 1) {
      const int64_t lo = rows[next] - first_row;  // the ordinal of the first selected start
      // The levels [from, to) of the selected rows and, with definition levels, how many
      // values come before them and with them.
      size_t from = num_levels, to = num_levels;
      int64_t skipped = 0, taken_end = 0;
      if (!has_rep) {
        from = static_cast<size_t>(lo);
        to = static_cast<size_t>(std::min<int64_t>(lo + k, static_cast<int64_t>(num_levels)));
      } else {
        from = NthEqual(run.rep.data(), num_levels, start_rep, lo);
        if (lo + k < run_rows) to = from + NthEqual(run.rep.data() + from, num_levels - from, start_rep, k);
      }
      if (has_def) {
        // Plain sums (register accumulators, vectorized for the prefix case): the values
        // before the selection, in it.
        const uint16_t* def = run.def.data();
        int64_t taken = 0;
        if (visible_prefix) {
          for (size_t i = 0; i < from; ++i) skipped += def[i] < num_visible ? 1 : 0;
          for (size_t i = from; i < to; ++i) taken += def[i] < num_visible ? 1 : 0;
        } else {
          const uint8_t* vis = visible.data();
          for (size_t i = 0; i < from; ++i) skipped += vis[def[i]];
          for (size_t i = from; i < to; ++i) taken += vis[def[i]];
        }
        taken_end = skipped + taken;
      } else {
        skipped = static_cast<int64_t>(from);
        taken_end = static_cast<int64_t>(to);
      }
      if (taken_end > run.values.num_values) {
        return Status::Corruption("levels name {} values, {} were decoded", taken_end, run.values.num_values);
      }
      const auto a = static_cast<std::ptrdiff_t>(from), b = static_cast<std::ptrdiff_t>(to);
      if (has_rep) out->rep.insert(out->rep.end(), run.rep.begin() + a, run.rep.begin() + b);
      if (has_def) out->def.insert(out->def.end(), run.def.begin() + a, run.def.begin() + b);
      if (taken_end > skipped) LANCE_RETURN_NOT_OK(values->AppendRange(run.values, skipped, taken_end - skipped));
      out->num_values += taken_end - skipped;
      return run_rows;
    }
  }
  auto flush = [&]() -> Status {
    if (copy_len > 0) LANCE_RETURN_NOT_OK(values->AppendRange(run.values, copy_from, copy_len));
    copy_len = 0;
    return Status::OK();
  };
  bool taking = false;
  for (size_t i = 0; i < num_levels; ++i) {
    const bool starts_row = has_rep ? run.rep[i] == start_rep : true;
    if (starts_row) {
      ++row;
      ++starts;
      while (next < num_rows && rows[next] < row) ++next;
      taking = next < num_rows && rows[next] == row;
      if (taking) ++next;
    }
    const bool has_value = !has_def || visible[run.def[i]] != 0;
    if (taking) {
      if (has_rep) out->rep.push_back(run.rep[i]);
      if (has_def) out->def.push_back(run.def[i]);
      if (has_value) {
        if (copy_len > 0 && copy_from + copy_len == v) {
          ++copy_len;
        } else {
          LANCE_RETURN_NOT_OK(flush());
          copy_from = v;
          copy_len = 1;
        }
      }
    }
    if (has_value) ++v;
  }
  LANCE_RETURN_NOT_OK(flush());
  if (v > run.values.num_values) {
    return Status::Corruption("levels name {} values, {} were decoded", v, run.values.num_values);
  }
  out->num_values += values->num_values - values_before;
  return starts;
}


Result<DecodedPage> DecodePage(const PageInput& input) {
  if (input.layout == nullptr) return Status::InvalidArgument("DecodePage: no layout");
  switch (input.layout->layout_case()) {
    case pb21::PageLayout::kMiniBlockLayout:
      return layout::DecodeMiniBlock(input);
    case pb21::PageLayout::kFullZipLayout:
      return layout::DecodeFullZip(input);
    case pb21::PageLayout::kConstantLayout:
      return layout::DecodeConstant(input);
    case pb21::PageLayout::kBlobLayout:
      return Status::NotSupported("blob page layout");
    default:
      return Status::NotSupported("page layout {}", static_cast<int>(input.layout->layout_case()));
  }
}

std::string DescribePageLayout(const pb21::PageLayout& layout) {
  switch (layout.layout_case()) {
    case pb21::PageLayout::kMiniBlockLayout: {
      const auto& mb = layout.mini_block_layout();
      std::string s = "mini_block(values=" + DescribeEncoding(mb.value_compression());
      if (mb.has_dictionary()) s += ", dictionary=" + DescribeEncoding(mb.dictionary());
      if (mb.has_rep_compression()) s += ", rep=" + DescribeEncoding(mb.rep_compression());
      if (mb.has_def_compression()) s += ", def=" + DescribeEncoding(mb.def_compression());
      return s + ")";
    }
    case pb21::PageLayout::kFullZipLayout:
      return "full_zip(values=" + DescribeEncoding(layout.full_zip_layout().value_compression()) + ")";
    case pb21::PageLayout::kConstantLayout:
      return layout.constant_layout().has_inline_value() ? "constant(inline)" : "constant";
    case pb21::PageLayout::kBlobLayout:
      return "blob";
    default:
      return "unknown";
  }
}

}  // namespace lance::encoding
