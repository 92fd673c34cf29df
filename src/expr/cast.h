// Scalar casts shared by the binder (coercing literals) and the CAST kernel.
#pragma once

#include <string>

#include "expr/datum.h"

namespace lance::expr {

// `s` converted to `to` by the CAST rules. Errors as lance::expr::Cast.
Result<Scalar> CastScalar(const Scalar& s, const DataTypePtr& to);
// SQL-ish text of a scalar for messages: 5, 'abc', 2024-01-02, NULL.
std::string ScalarToString(const Scalar& s);

}  // namespace lance::expr
