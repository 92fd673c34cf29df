#include "encoding/repdef.h"

#include <algorithm>

namespace lance::encoding {

namespace {

struct DefMeaning {
  int layer = -1;  // innermost-first index
  bool empty = false;
};

// Definition code -> (layer, null-or-empty), index = code.
std::vector<DefMeaning> DefinitionCodes(const std::vector<LayerKind>& layers) {
  std::vector<DefMeaning> codes(1);  // code 0: valid
  for (size_t i = 0; i < layers.size(); ++i) {
    const int layer = static_cast<int>(i);
    switch (layers[i]) {
      case LayerKind::kNullableItem:
      case LayerKind::kNullableList:
        codes.push_back({layer, false});
        break;
      case LayerKind::kEmptyableList:
        codes.push_back({layer, true});
        break;
      case LayerKind::kNullAndEmptyList:
        codes.push_back({layer, false});
        codes.push_back({layer, true});
        break;
      default:
        break;
    }
  }
  return codes;
}

}  // namespace

void LayerSlots::Append(const LayerSlots& other) {
  if (!validity.empty() || !other.validity.empty()) {
    if (validity.empty()) validity.assign(static_cast<size_t>(length), 1);
    if (other.validity.empty()) {
      validity.insert(validity.end(), static_cast<size_t>(other.length), 1);
    } else {
      validity.insert(validity.end(), other.validity.begin(), other.validity.end());
    }
  }
  if (is_list) {
    if (offsets.empty()) offsets.push_back(0);
    const int64_t base = offsets.back();
    for (size_t i = 1; i < other.offsets.size(); ++i) offsets.push_back(other.offsets[i] + base);
  }
  length += other.length;
}

Result<bool> IsVisibleDefinition(const std::vector<LayerKind>& layers, uint16_t def) {
  if (def == 0) return true;
  const auto codes = DefinitionCodes(layers);
  if (def >= codes.size()) {
    return Status::Corruption("definition level {} but the layers define only {} codes", def,
                              codes.size() - 1);
  }
  for (int i = 0; i <= codes[def].layer; ++i) {
    if (IsListLayer(layers[static_cast<size_t>(i)])) return false;
  }
  return true;
}

Result<std::vector<LayerSlots>> UnravelLevels(const std::vector<LayerKind>& layers_inner_first,
                                              const std::vector<uint16_t>& rep,
                                              const std::vector<uint16_t>& def, int64_t num_rows,
                                              int64_t num_values, bool general) {
  const int k = static_cast<int>(layers_inner_first.size());
  if (k == 0) return Status::Corruption("page has no repetition/definition layers");
  std::vector<LayerKind> layers(layers_inner_first.rbegin(), layers_inner_first.rend());
  std::vector<LayerSlots> out(static_cast<size_t>(k));
  std::vector<int> lists;  // outermost-first layer indices of list layers
  for (int j = 0; j < k; ++j) {
    out[static_cast<size_t>(j)].is_list = IsListLayer(layers[static_cast<size_t>(j)]);
    if (out[static_cast<size_t>(j)].is_list) {
      lists.push_back(j);
      out[static_cast<size_t>(j)].offsets.push_back(0);
    }
  }
  if (out.back().is_list) return Status::Corruption("the innermost layer is a list");
  const int num_lists = static_cast<int>(lists.size());

  // Fast path: no levels at all.
  if (rep.empty() && def.empty()) {
    if (num_lists > 0) return Status::Corruption("list layers without repetition levels");
    if (num_values != num_rows) {
      return Status::Corruption("{} values for {} rows without definition levels", num_values,
                                num_rows);
    }
    for (auto& slots : out) slots.length = num_rows;
    return out;
  }
  if (num_lists > 0 && rep.empty()) return Status::Corruption("lists without repetition levels");
  if (num_lists == 0 && !rep.empty()) return Status::Corruption("repetition without lists");
  if (!rep.empty() && !def.empty() && rep.size() != def.size()) {
    return Status::Corruption("{} repetition levels but {} definition levels", rep.size(),
                              def.size());
  }
  const size_t num_levels = std::max(rep.size(), def.size());

  // Definition code -> outermost-first layer index and null/empty.
  std::vector<DefMeaning> codes = DefinitionCodes(layers_inner_first);
  for (auto& c : codes) {
    if (c.layer >= 0) c.layer = k - 1 - c.layer;
  }
  if (k == 2 && num_lists == 1 && !general) {
    // A list of leaf items (list<T>, the common nested column): the walk below, unrolled for
    // its two layers -- the same slots, without a per-level loop over layers.
    LayerSlots& list = out[0];
    LayerSlots& items = out[1];
    const uint16_t* rep_at = rep.data();
    const uint16_t* def_at = def.empty() ? nullptr : def.data();
    // Checked up front in plain passes (vectorized): the levels' ranges and the row count.
    uint32_t max_rep = 0, max_def = 0;
    int64_t starts = 0;
    for (size_t i = 0; i < num_levels; ++i) {
      max_rep = std::max<uint32_t>(max_rep, rep_at[i]);
      starts += rep_at[i] == 1 ? 1 : 0;
    }
    if (def_at) {
      for (size_t i = 0; i < num_levels; ++i) max_def = std::max<uint32_t>(max_def, def_at[i]);
    }
    if (max_rep > 1) {
      const size_t i = static_cast<size_t>(std::find_if(rep.begin(), rep.end(), [](uint16_t r) { return r > 1; }) - rep.begin());
      return Status::Corruption("repetition level {} at level {} but only 1 list layer", rep[i], i);
    }
    if (max_def >= codes.size()) {
      const size_t i = static_cast<size_t>(
          std::find_if(def.begin(), def.end(), [&](uint16_t d) { return d >= codes.size(); }) - def.begin());
      return Status::Corruption("definition level {} at level {} but only {} codes defined", def[i], i,
                                codes.size() - 1);
    }
    if (num_levels > 0 && rep_at[0] != 1) {
      return Status::Corruption("level 0 continues a list before any list started");
    }
    if (starts != num_rows) {
      return Status::Corruption("levels describe {} rows, the page has {}", starts, num_rows);
    }
    // Per definition code: whether it is a null or empty list (no item), whether the list
    // slot it starts is valid, whether the item it carries is valid.
    struct Code {
      bool at_list, list_valid, item_valid;
    };
    std::vector<Code> code(codes.size());
    for (size_t d = 0; d < codes.size(); ++d) {
      const bool at_list = d != 0 && codes[d].layer == 0;
      code[d] = {at_list, !at_list || codes[d].empty, d == 0 || codes[d].layer != 1};
    }
    // The start of each row, then the end of the last.
    list.offsets.resize(static_cast<size_t>(num_rows) + 1);
    int64_t* off = list.offsets.data();
    // Validity is materialized at the first null only (all-valid pages, the common case,
    // write none).
    std::vector<uint8_t> list_valid, item_valid;
    bool list_nulls = false, item_nulls = false;
    int64_t offset = 0, row = 0;
    // Whether the codes the page uses include a null (else only empty lists break the
    // one-item-per-level pattern; without definition levels every level is a valid item).
    bool any_null_code = false;
    for (size_t d = 0; d <= max_def; ++d) any_null_code = any_null_code || !code[d].list_valid || !code[d].item_valid;
    if (!any_null_code) {
      // No validity to write: branch-free, each level stores the offset at its row (a
      // continuing level's store is overwritten by the next start, or by the end below)
      // and adds an item unless it starts an empty list.
      std::vector<uint8_t> empty_list(code.size());
      for (size_t d = 0; d < code.size(); ++d) empty_list[d] = code[d].at_list ? 1 : 0;
      const uint8_t* empty_at = empty_list.data();
      for (size_t i = 0; i < num_levels; ++i) {
        const int64_t starts_row = rep_at[i] == 1 ? 1 : 0;
        off[row] = offset;
        row += starts_row;
        offset += 1 - (starts_row & empty_at[def_at ? def_at[i] : 0]);
      }
    } else {
      for (size_t i = 0; i < num_levels; ++i) {
        const Code c = code[def_at[i]];
        if (rep_at[i] == 1) {
          if (!c.list_valid && !list_nulls) {
            list_nulls = true;
            list_valid.reserve(static_cast<size_t>(num_rows));
            list_valid.assign(static_cast<size_t>(row), 1);
          }
          if (list_nulls) list_valid.push_back(c.list_valid ? 1 : 0);
          off[row++] = offset;
          if (c.at_list) continue;
        }
        // An item (a null-list code on a continued list stays an item, as in the walk below).
        if (!c.item_valid && !item_nulls) {
          item_nulls = true;
          item_valid.reserve(num_levels);
          item_valid.assign(static_cast<size_t>(offset), 1);
        }
        if (item_nulls) item_valid.push_back(c.item_valid ? 1 : 0);
        ++offset;
      }
    }
    off[num_rows] = offset;
    list.length = num_rows;
    items.length = offset;
    if (list_nulls) list.validity = std::move(list_valid);
    if (item_nulls) items.validity = std::move(item_valid);
    if (offset != num_values) {
      return Status::Corruption("levels describe {} visible values, the page decoded {}", offset, num_values);
    }
    return out;
  }
  auto push_slot = [&](int j, bool valid) {
    LayerSlots& slots = out[static_cast<size_t>(j)];
    if (!valid || !slots.validity.empty()) {
      slots.validity.resize(static_cast<size_t>(slots.length), 1);  // materialize at the first null
      slots.validity.push_back(valid ? 1 : 0);
    }
    ++slots.length;
    if (slots.is_list) slots.offsets.push_back(slots.offsets.back());
    if (j > 0 && out[static_cast<size_t>(j - 1)].is_list) ++out[static_cast<size_t>(j - 1)].offsets.back();
  };

  int64_t values_used = 0;
  for (size_t i = 0; i < num_levels; ++i) {
    const uint16_t r = rep.empty() ? static_cast<uint16_t>(num_lists) : rep[i];
    const uint16_t d = def.empty() ? 0 : def[i];
    if (r > num_lists) {
      return Status::Corruption("repetition level {} at level {} but only {} list layers", r, i,
                                num_lists);
    }
    if (d >= codes.size()) {
      return Status::Corruption("definition level {} at level {} but only {} codes defined", d, i,
                                codes.size() - 1);
    }
    int start = 0;
    if (r < num_lists) {
      start = lists[static_cast<size_t>(num_lists - 1 - r)] + 1;
      if (out[static_cast<size_t>(start - 1)].length == 0) {
        return Status::Corruption("level {} continues a list before any list started", i);
      }
    }
    const int stop = d == 0 ? k : codes[d].layer;
    const bool stop_empty = d != 0 && codes[d].empty;
    bool nullified = false;
    for (int j = start; j < k; ++j) {
      if (out[static_cast<size_t>(j)].is_list) {
        if (j == stop) {
          push_slot(j, stop_empty);
          break;
        }
        if (nullified) {
          push_slot(j, false);
          break;
        }
        push_slot(j, true);
        continue;
      }
      if (j == stop) nullified = true;
      push_slot(j, !nullified);
      if (j == k - 1) ++values_used;
    }
  }
  if (out[0].length != num_rows) {
    return Status::Corruption("levels describe {} rows, the page has {}", out[0].length, num_rows);
  }
  if (values_used != num_values) {
    return Status::Corruption("levels describe {} visible values, the page decoded {}",
                              values_used, num_values);
  }
  return out;
}

}  // namespace lance::encoding
