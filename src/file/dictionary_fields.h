// Arrow dictionary fields in Lance data files. The reference stores a dictionary field as its
// values (the page encodings pick their own dictionaries), so a reader decodes such a field
// as its value type (StorageType) and dictionary-encodes the result again
// (RestoreDictionaries): first occurrences in order become the dictionary. Internal to the
// file layer.
#pragma once

#include "lance/columnar/array.h"
#include "lance/core/result.h"

namespace lance::file {

// Whether `t` is or contains a dictionary type.
bool HasDictionary(const DataType& t);

// `t` with every dictionary type replaced by its value type.
DataTypePtr StorageType(const DataTypePtr& t);

// Turns an array read with StorageType(type) into `type`.
// Errors: NotSupported for dictionary value types without a byte width, Corruption when the
// values need more dictionary entries than the index type holds.
Result<ArrayPtr> RestoreDictionaries(const DataTypePtr& type, const ArrayPtr& arr);

}  // namespace lance::file
