// Uuid: the 16-byte identifier of a MemWAL shard.
//
// Shard directories are named by the canonical lowercase text form
// ("4a388480-a25b-59a8-b058-24217f980256"); shard manifests store the 16 raw bytes. lancedb
// derives shard ids as name-based UUIDs (version 5, SHA-1, RFC 9562) in a fixed namespace (see
// sharding.h); manually created shards may use random (version 4) ids. A plain value type.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "lance/core/result.h"

namespace lance::memwal {

struct Uuid {
  std::array<uint8_t, 16> bytes{};

  // "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lowercase hex.
  std::string ToString() const;
  // The 16 bytes as a string (what the protobuf messages hold).
  std::string ToBytes() const;
  bool IsNil() const;

  // The canonical text form (either case). Errors: InvalidArgument naming the text.
  static Result<Uuid> Parse(std::string_view text);
  // Exactly 16 raw bytes. Errors: Corruption (`what` names the field in the message).
  static Result<Uuid> FromBytes(std::string_view bytes, std::string_view what = "uuid");
  // Name-based UUID version 5: SHA-1 of namespace bytes + name, version and variant bits set.
  static Uuid V5(const Uuid& name_space, std::string_view name);
  // A random UUID version 4.
  static Uuid RandomV4();

  friend bool operator==(const Uuid&, const Uuid&) = default;
  friend auto operator<=>(const Uuid&, const Uuid&) = default;
};

}  // namespace lance::memwal
