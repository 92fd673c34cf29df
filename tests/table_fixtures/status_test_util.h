// GoogleTest assertions on lance::Status / Result<T> for the unit tests: the failing expression
// and the status text in the message.
//   TEST_OK(expr);                 // expr is a Status
//   TEST_ASSIGN(auto x, expr);     // expr is a Result<T>; x = its value
#pragma once

#include <utility>

#include <gtest/gtest.h>

#include "lance/core/result.h"

#define LANCE_TEST_CONCAT_INNER(a, b) a##b
#define LANCE_TEST_CONCAT(a, b) LANCE_TEST_CONCAT_INNER(a, b)
#define TEST_OK(expr)                                           \
  do {                                                          \
    const ::lance::Status _st = (expr);                         \
    ASSERT_TRUE(_st.ok()) << #expr << ": " << _st.ToString();   \
  } while (0)
#define LANCE_TEST_ASSIGN_IMPL(tmp, lhs, rexpr)                             \
  auto tmp = (rexpr);                                                       \
  ASSERT_TRUE(tmp.ok()) << #rexpr << ": " << tmp.status().ToString();       \
  lhs = std::move(*tmp)
#define TEST_ASSIGN(lhs, rexpr) \
  LANCE_TEST_ASSIGN_IMPL(LANCE_TEST_CONCAT(_test_res_, __LINE__), lhs, rexpr)
