// Reading the token dictionary of a lance 12 inverted-index partition: an `fst` crate (0.4)
// Map, serialized as the crate writes it (format version 3):
//
//   u64 version | u64 type | nodes ... | u64 key count | u64 root address | u32 checksum
//
// Nodes are written bottom-up and addressed by the position of their last byte (the state
// byte, read backwards). A state byte's top two bits say the kind: 11 one transition to the
// node compiled just before (no output), 10 one transition with packed delta address and
// output, 0x any number of transitions (bit 6: final). Outputs add up along a key's path; a
// final node may carry a final output. Inputs of the one-transition kinds may be one of 63
// common bytes named by an index in the state byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/core/result.h"

namespace lance::index::fts {

// Every (key, value) of the map, in key order. `what` names the bytes in errors.
// Errors: Corruption (bad header, addresses or sizes out of range, a cycle, more keys than the
// count says).
Result<std::vector<std::pair<std::string, uint64_t>>> DecodeFstMap(std::string_view bytes,
                                                                   std::string_view what);

// Serializes `entries` (keys strictly ascending, bytewise) as an fst crate 0.4 map (format 3,
// map type 0, the crate's masked CRC-32C checksum at the end), readable by DecodeFstMap and by
// the crate. The automaton is the keys' trie (prefixes shared, suffixes not), each key's value
// its final node's output. InvalidArgument when the keys are not strictly ascending.
// The crate's checksum of `bytes` (CRC-32C, masked as snappy masks it): a format-3 fst ends
// with the checksum of the bytes before it.
uint32_t FstChecksum(std::string_view bytes);
Result<std::string> EncodeFstMap(const std::vector<std::pair<std::string, uint64_t>>& entries);

}  // namespace lance::index::fts
