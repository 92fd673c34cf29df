// Recursive-descent parser for the filter language (see ast.h). Precedence, loosest first:
// OR, AND, NOT, predicates (comparison, IS, IN, BETWEEN, LIKE), + -, * / %, unary minus.
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "expr/temporal.h"
#include "lance/expr/ast.h"

namespace lance::expr {

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kEq: return "=";
    case Op::kNe: return "!=";
    case Op::kLt: return "<";
    case Op::kLe: return "<=";
    case Op::kGt: return ">";
    case Op::kGe: return ">=";
    case Op::kAnd: return "AND";
    case Op::kOr: return "OR";
    case Op::kNot: return "NOT";
    case Op::kNeg: return "-";
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kDiv: return "/";
    case Op::kMod: return "%";
  }
  return "?";
}

Op Flip(Op op) {
  switch (op) {
    case Op::kLt: return Op::kGt;
    case Op::kLe: return Op::kGe;
    case Op::kGt: return Op::kLt;
    case Op::kGe: return Op::kLe;
    default: return op;
  }
}

namespace {

enum class Tok : uint8_t { kEnd, kIdent, kQuotedIdent, kInt, kFloat, kString, kSymbol };

struct Token {
  Tok kind = Tok::kEnd;
  int64_t pos = 0;
  std::string text;  // identifier / symbol / number digits / unescaped string
};

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<NodePtr> ParseAll() {
    LANCE_RETURN_NOT_OK(Tokenize());
    if (Peek().kind == Tok::kEnd) return Error(Peek(), "an expression");
    LANCE_ASSIGN_OR_RAISE(NodePtr n, ParseOr());
    if (Peek().kind != Tok::kEnd) return Error(Peek(), "an operator or the end of the filter");
    return n;
  }

 private:
  // The text quoted by text_[open] (a doubled quote inside stands for one) into `out`; returns
  // the position after the closing quote, or 0 when there is none.
  size_t ScanQuoted(size_t open, std::string* out) const {
    const char q = text_[open];
    size_t j = open + 1;
    while (j < text_.size()) {
      if (text_[j] == q) {
        if (j + 1 < text_.size() && text_[j + 1] == q) {
          *out += q;
          j += 2;
          continue;
        }
        return j + 1;
      }
      *out += text_[j++];
    }
    return 0;
  }

  Status Tokenize() {
    size_t i = 0;
    while (i < text_.size()) {
      const char c = text_[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i;
        continue;
      }
      Token t;
      t.pos = static_cast<int64_t>(i);
      if (IsIdentStart(c)) {
        size_t j = i;
        while (j < text_.size() && IsIdentChar(text_[j])) ++j;
        t.kind = Tok::kIdent;
        t.text = std::string(text_.substr(i, j - i));
        i = j;
      } else if (c == '`' || c == '"') {
        const size_t j = ScanQuoted(i, &t.text);
        if (j == 0) return PosError(t.pos, fmt::format("unterminated quoted name (missing {})", c));
        t.kind = Tok::kQuotedIdent;
        i = j;
      } else if (c == '\'') {
        const size_t j = ScanQuoted(i, &t.text);
        if (j == 0) return PosError(t.pos, "unterminated string literal (missing ')");
        t.kind = Tok::kString;
        i = j;
      } else if (IsDigit(c) || (c == '.' && i + 1 < text_.size() && IsDigit(text_[i + 1]))) {
        size_t j = i;
        bool is_float = false;
        while (j < text_.size() && IsDigit(text_[j])) ++j;
        if (j < text_.size() && text_[j] == '.') {
          is_float = true;
          ++j;
          while (j < text_.size() && IsDigit(text_[j])) ++j;
        }
        if (j < text_.size() && (text_[j] == 'e' || text_[j] == 'E')) {
          size_t k = j + 1;
          if (k < text_.size() && (text_[k] == '+' || text_[k] == '-')) ++k;
          if (k < text_.size() && IsDigit(text_[k])) {
            is_float = true;
            while (k < text_.size() && IsDigit(text_[k])) ++k;
            j = k;
          }
        }
        if (j < text_.size() && IsIdentStart(text_[j])) {
          return PosError(t.pos, fmt::format("malformed number '{}'", text_.substr(i, j - i + 1)));
        }
        t.kind = is_float ? Tok::kFloat : Tok::kInt;
        t.text = std::string(text_.substr(i, j - i));
        i = j;
      } else {
        static const char* kTwo[] = {"<=", ">=", "<>", "!=", "=="};
        t.kind = Tok::kSymbol;
        for (const char* two : kTwo) {
          if (text_.substr(i, 2) == two) t.text = two;
        }
        if (t.text.empty()) {
          if (std::string_view("=<>+-*/%(),.").find(c) == std::string_view::npos) {
            return PosError(t.pos, fmt::format("unexpected character '{}'", c));
          }
          t.text = std::string(1, c);
        }
        i += t.text.size();
      }
      tokens_.push_back(std::move(t));
    }
    Token end;
    end.pos = static_cast<int64_t>(text_.size());
    tokens_.push_back(end);
    return Status::OK();
  }

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool IsKeyword(const Token& t, std::string_view kw) const {
    return t.kind == Tok::kIdent && Upper(t.text) == kw;
  }
  bool AcceptKeyword(std::string_view kw) {
    if (!IsKeyword(Peek(), kw)) return false;
    Next();
    return true;
  }
  bool IsSymbol(const Token& t, std::string_view s) const {
    return t.kind == Tok::kSymbol && t.text == s;
  }
  bool AcceptSymbol(std::string_view s) {
    if (!IsSymbol(Peek(), s)) return false;
    Next();
    return true;
  }

  static std::string Describe(const Token& t) {
    switch (t.kind) {
      case Tok::kEnd: return "the end of the filter";
      case Tok::kString: return fmt::format("'{}'", t.text);
      case Tok::kQuotedIdent: return fmt::format("`{}`", t.text);
      default: return fmt::format("'{}'", t.text);
    }
  }
  Status PosError(int64_t pos, const std::string& what) const {
    return Status::InvalidArgument("syntax error at position {} in filter \"{}\": {}", pos, text_,
                                   what);
  }
  Status Error(const Token& t, const std::string& expected) const {
    return PosError(t.pos, fmt::format("expected {}, found {}", expected, Describe(t)));
  }
  Status ExpectSymbol(std::string_view s) {
    if (!AcceptSymbol(s)) return Error(Peek(), fmt::format("'{}'", s));
    return Status::OK();
  }

  static NodePtr MakeNode(Node::Kind kind, int64_t pos) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->pos = pos;
    return n;
  }
  static NodePtr Binary(Op op, NodePtr a, NodePtr b, int64_t pos) {
    NodePtr n = MakeNode(Node::Kind::kBinary, pos);
    n->op = op;
    n->args.push_back(std::move(a));
    n->args.push_back(std::move(b));
    return n;
  }

  // A left-associative chain `operand (OP operand)*`: `op_at` gives the operator the next token
  // stands for, or nullopt where the chain ends.
  template <typename OpAt>
  Result<NodePtr> ParseChain(Result<NodePtr> (Parser::*operand)(), const OpAt& op_at) {
    LANCE_ASSIGN_OR_RAISE(NodePtr left, (this->*operand)());
    while (const std::optional<Op> op = op_at(Peek())) {
      const int64_t pos = Next().pos;
      LANCE_ASSIGN_OR_RAISE(NodePtr right, (this->*operand)());
      left = Binary(*op, std::move(left), std::move(right), pos);
    }
    return left;
  }

  // An AND (or OR) chain `operand (KW operand)*`: one n-ary node when there are two operands
  // or more, so that a long chain is a wide node, not a deep tree.
  Result<NodePtr> ParseLogicChain(Result<NodePtr> (Parser::*operand)(), std::string_view kw, Op op) {
    LANCE_ASSIGN_OR_RAISE(NodePtr first, (this->*operand)());
    if (!IsKeyword(Peek(), kw)) return first;
    NodePtr n = MakeNode(Node::Kind::kBinary, Peek().pos);
    n->op = op;
    n->args.push_back(std::move(first));
    while (IsKeyword(Peek(), kw)) {
      Next();
      LANCE_ASSIGN_OR_RAISE(NodePtr next, (this->*operand)());
      n->args.push_back(std::move(next));
    }
    return n;
  }

  // Counts one level of nesting for as long as it lives; Enter() refuses a level beyond
  // kMaxNestingDepth, so that the recursion (and every later walk of the tree) stays shallow.
  class Nesting {
   public:
    explicit Nesting(int* depth) : depth_(depth) { ++*depth_; }
    ~Nesting() { --*depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    int* depth_;
  };
  Status CheckDepth(int64_t pos) const {
    if (depth_ <= kMaxNestingDepth) return Status::OK();
    return PosError(pos, fmt::format("the expression is nested more than {} levels deep "
                                     "(parentheses, IN lists, function arguments, CAST, NOT, "
                                     "unary minus)", kMaxNestingDepth));
  }

  Result<NodePtr> ParseOr() {
    Nesting level(&depth_);
    LANCE_RETURN_NOT_OK(CheckDepth(Peek().pos));
    return ParseLogicChain(&Parser::ParseAnd, "OR", Op::kOr);
  }

  Result<NodePtr> ParseAnd() { return ParseLogicChain(&Parser::ParseNot, "AND", Op::kAnd); }

  Result<NodePtr> ParseNot() {
    if (IsKeyword(Peek(), "NOT")) {
      const int64_t pos = Next().pos;
      Nesting level(&depth_);
      LANCE_RETURN_NOT_OK(CheckDepth(pos));
      LANCE_ASSIGN_OR_RAISE(NodePtr inner, ParseNot());
      NodePtr n = MakeNode(Node::Kind::kUnary, pos);
      n->op = Op::kNot;
      n->args.push_back(std::move(inner));
      return n;
    }
    return ParsePredicate();
  }

  Result<NodePtr> ParsePredicate() {
    LANCE_ASSIGN_OR_RAISE(NodePtr left, ParseAdditive());
    const Token& t = Peek();
    if (t.kind == Tok::kSymbol) {
      static const std::pair<const char*, Op> kCmp[] = {
          {"=", Op::kEq},  {"==", Op::kEq}, {"!=", Op::kNe}, {"<>", Op::kNe},
          {"<", Op::kLt},  {"<=", Op::kLe}, {">", Op::kGt},  {">=", Op::kGe}};
      for (const auto& [sym, op] : kCmp) {
        if (t.text == sym) {
          const int64_t pos = Next().pos;
          LANCE_ASSIGN_OR_RAISE(NodePtr right, ParseAdditive());
          if (Peek().kind == Tok::kSymbol) {
            for (const auto& [sym2, op2] : kCmp) {
              if (Peek().text == sym2) {
                return PosError(Peek().pos, "comparisons do not chain; use AND");
              }
            }
          }
          return Binary(op, std::move(left), std::move(right), pos);
        }
      }
      return left;
    }
    if (IsKeyword(t, "IS")) {
      const int64_t pos = Next().pos;
      const bool negated = AcceptKeyword("NOT");
      Node::Kind kind;
      if (AcceptKeyword("NULL")) {
        kind = Node::Kind::kIsNull;
      } else if (AcceptKeyword("TRUE")) {
        kind = Node::Kind::kIsTrue;
      } else if (AcceptKeyword("FALSE")) {
        kind = Node::Kind::kIsFalse;
      } else {
        return Error(Peek(), "NULL, TRUE or FALSE after IS");
      }
      NodePtr n = MakeNode(kind, pos);
      n->negated = negated;
      n->args.push_back(std::move(left));
      return n;
    }
    bool negated = false;
    int64_t pos = t.pos;
    if (IsKeyword(t, "NOT") &&
        (IsKeyword(Peek(1), "IN") || IsKeyword(Peek(1), "BETWEEN") || IsKeyword(Peek(1), "LIKE") ||
         IsKeyword(Peek(1), "ILIKE"))) {
      Next();
      negated = true;
    }
    if (AcceptKeyword("IN")) {
      NodePtr n = MakeNode(Node::Kind::kIn, pos);
      n->negated = negated;
      n->args.push_back(std::move(left));
      LANCE_RETURN_NOT_OK(ExpectSymbol("("));
      if (IsSymbol(Peek(), ")")) return Error(Peek(), "a value in the IN list");
      do {
        LANCE_ASSIGN_OR_RAISE(NodePtr item, ParseOr());
        n->args.push_back(std::move(item));
      } while (AcceptSymbol(","));
      LANCE_RETURN_NOT_OK(ExpectSymbol(")"));
      return n;
    }
    if (AcceptKeyword("BETWEEN")) {
      NodePtr n = MakeNode(Node::Kind::kBetween, pos);
      n->negated = negated;
      n->args.push_back(std::move(left));
      LANCE_ASSIGN_OR_RAISE(NodePtr lo, ParseAdditive());
      if (!AcceptKeyword("AND")) return Error(Peek(), "AND in BETWEEN ... AND ...");
      LANCE_ASSIGN_OR_RAISE(NodePtr hi, ParseAdditive());
      n->args.push_back(std::move(lo));
      n->args.push_back(std::move(hi));
      return n;
    }
    const bool like = IsKeyword(Peek(), "LIKE");
    if (like || IsKeyword(Peek(), "ILIKE")) {
      Next();
      NodePtr n = MakeNode(Node::Kind::kLike, pos);
      n->negated = negated;
      n->case_insensitive = !like;
      n->args.push_back(std::move(left));
      LANCE_ASSIGN_OR_RAISE(NodePtr pattern, ParseAdditive());
      n->args.push_back(std::move(pattern));
      return n;
    }
    if (negated) return Error(Peek(), "IN, BETWEEN or LIKE after NOT");
    return left;
  }

  Result<NodePtr> ParseAdditive() {
    return ParseChain(&Parser::ParseMultiplicative, [this](const Token& t) -> std::optional<Op> {
      if (IsSymbol(t, "+")) return Op::kAdd;
      if (IsSymbol(t, "-")) return Op::kSub;
      return std::nullopt;
    });
  }

  Result<NodePtr> ParseMultiplicative() {
    return ParseChain(&Parser::ParseUnary, [this](const Token& t) -> std::optional<Op> {
      if (IsSymbol(t, "*")) return Op::kMul;
      if (IsSymbol(t, "/")) return Op::kDiv;
      if (IsSymbol(t, "%")) return Op::kMod;
      return std::nullopt;
    });
  }

  Result<NodePtr> ParseUnary() {
    if (IsSymbol(Peek(), "-")) {
      const int64_t pos = Next().pos;
      // Fold "-<number>" so that -9223372036854775808 is an int64 literal.
      if (Peek().kind == Tok::kInt || Peek().kind == Tok::kFloat) {
        Token t = Next();
        t.text = "-" + t.text;
        LANCE_ASSIGN_OR_RAISE(NodePtr lit, NumberLiteral(t));
        lit->pos = pos;
        return lit;
      }
      Nesting level(&depth_);
      LANCE_RETURN_NOT_OK(CheckDepth(pos));
      LANCE_ASSIGN_OR_RAISE(NodePtr inner, ParseUnary());
      NodePtr n = MakeNode(Node::Kind::kUnary, pos);
      n->op = Op::kNeg;
      n->args.push_back(std::move(inner));
      return n;
    }
    if (IsSymbol(Peek(), "+")) {
      const int64_t pos = Next().pos;
      Nesting level(&depth_);
      LANCE_RETURN_NOT_OK(CheckDepth(pos));
      return ParseUnary();
    }
    return ParsePrimary();
  }

  Result<NodePtr> NumberLiteral(const Token& t) {
    NodePtr n = MakeNode(Node::Kind::kLiteral, t.pos);
    if (t.kind == Tok::kInt) {
      errno = 0;
      char* end = nullptr;
      const long long v = std::strtoll(t.text.c_str(), &end, 10);
      if (errno == 0 && end == t.text.c_str() + t.text.size()) {
        n->literal.kind = Literal::Kind::kInt;
        n->literal.int_value = v;
        return n;
      }
      // Too large for int64: keep it as a float, as SQL engines do for huge literals.
    }
    n->literal.kind = Literal::Kind::kFloat;
    n->literal.float_value = std::strtod(t.text.c_str(), nullptr);
    n->literal.text = t.text;
    return n;
  }

  Result<DataTypePtr> ParseType() {
    const Token& t = Peek();
    if (t.kind != Tok::kIdent) return Error(t, "a type name");
    const std::string name = Upper(Next().text);
    if (name == "TINYINT") return int8();
    if (name == "SMALLINT") return int16();
    if (name == "INT" || name == "INTEGER") return int32();
    if (name == "BIGINT") return int64();
    if (name == "FLOAT" || name == "REAL") return float32();
    if (name == "DOUBLE") {
      AcceptKeyword("PRECISION");
      return float64();
    }
    if (name == "STRING" || name == "VARCHAR" || name == "TEXT" || name == "CHAR") {
      if (AcceptSymbol("(")) {  // VARCHAR(n): the length is not enforced
        if (Peek().kind != Tok::kInt) return Error(Peek(), "a length");
        Next();
        LANCE_RETURN_NOT_OK(ExpectSymbol(")"));
      }
      return utf8();
    }
    if (name == "BOOLEAN" || name == "BOOL") return boolean();
    if (name == "DATE") return date32();
    if (name == "TIMESTAMP") return timestamp(TimeUnit::kNano);
    if (name == "DECIMAL" || name == "NUMERIC") {
      int32_t precision = 38, scale = 10;
      if (AcceptSymbol("(")) {
        if (Peek().kind != Tok::kInt) return Error(Peek(), "a precision");
        precision = std::atoi(Next().text.c_str());
        scale = 0;
        if (AcceptSymbol(",")) {
          if (Peek().kind != Tok::kInt) return Error(Peek(), "a scale");
          scale = std::atoi(Next().text.c_str());
        }
        LANCE_RETURN_NOT_OK(ExpectSymbol(")"));
      }
      if (precision < 1 || precision > 76 || scale < 0 || scale > precision) {
        return PosError(t.pos, fmt::format("DECIMAL({}, {}) is out of range (precision 1..76, "
                                           "scale 0..precision)", precision, scale));
      }
      // As SQL engines on Arrow do: up to 38 digits is decimal128, more is decimal256.
      return precision <= 38 ? decimal128(precision, scale) : decimal256(precision, scale);
    }
    return PosError(t.pos, fmt::format("unknown type '{}' (known: tinyint, smallint, int, bigint, "
                                       "float, double, string, varchar, boolean, date, timestamp, "
                                       "decimal(p, s))", t.text));
  }

  Result<NodePtr> ParsePrimary() {
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kEnd:
        return Error(t, "an expression");
      case Tok::kInt:
      case Tok::kFloat:
        return NumberLiteral(Next());
      case Tok::kString: {
        NodePtr n = MakeNode(Node::Kind::kLiteral, t.pos);
        n->literal.kind = Literal::Kind::kString;
        n->literal.text = Next().text;
        return n;
      }
      case Tok::kSymbol: {
        if (IsSymbol(t, "(")) {
          Next();
          LANCE_ASSIGN_OR_RAISE(NodePtr inner, ParseOr());
          LANCE_RETURN_NOT_OK(ExpectSymbol(")"));
          return inner;
        }
        return Error(t, "an expression");
      }
      case Tok::kQuotedIdent:
      case Tok::kIdent:
        break;
    }
    if (t.kind == Tok::kIdent) {
      const std::string kw = Upper(t.text);
      if (kw == "NULL" || kw == "TRUE" || kw == "FALSE") {
        NodePtr n = MakeNode(Node::Kind::kLiteral, Next().pos);
        n->literal.kind = kw == "NULL" ? Literal::Kind::kNull : Literal::Kind::kBool;
        n->literal.bool_value = kw == "TRUE";
        return n;
      }
      if (kw == "X" && Peek(1).kind == Tok::kString) {
        // X'0a1B': a binary literal, two hex digits per byte.
        const int64_t pos = Next().pos;
        const Token& s = Next();
        auto hex = [](char c) -> int {
          if (c >= '0' && c <= '9') return c - '0';
          if (c >= 'a' && c <= 'f') return c - 'a' + 10;
          if (c >= 'A' && c <= 'F') return c - 'A' + 10;
          return -1;
        };
        std::string bytes;
        for (size_t k = 0; k + 1 < s.text.size(); k += 2) {
          const int hi = hex(s.text[k]), lo = hex(s.text[k + 1]);
          if (hi < 0 || lo < 0) break;
          bytes.push_back(static_cast<char>(hi * 16 + lo));
        }
        if (bytes.size() * 2 != s.text.size()) {
          return PosError(s.pos, fmt::format("X'{}' is not a binary literal (an even number of hex "
                                             "digits)", s.text));
        }
        NodePtr n = MakeNode(Node::Kind::kLiteral, pos);
        n->literal.kind = Literal::Kind::kBinary;
        n->literal.text = std::move(bytes);
        return n;
      }
      if ((kw == "DATE" || kw == "TIMESTAMP") && Peek(1).kind == Tok::kString) {
        const int64_t pos = Next().pos;
        const Token& s = Next();
        NodePtr n = MakeNode(Node::Kind::kLiteral, pos);
        if (kw == "DATE") {
          auto d = ParseDate(s.text);
          if (!d) return PosError(s.pos, fmt::format("'{}' is not a date (YYYY-MM-DD)", s.text));
          n->literal.kind = Literal::Kind::kDate;
          n->literal.int_value = *d;
        } else {
          auto ts = ParseTimestampNs(s.text);
          if (!ts) {
            return PosError(s.pos, fmt::format("'{}' is not a timestamp (YYYY-MM-DD HH:MM:SS[.f])",
                                               s.text));
          }
          n->literal.kind = Literal::Kind::kTimestamp;
          n->literal.int_value = *ts;
        }
        return n;
      }
      if (kw == "CAST" && IsSymbol(Peek(1), "(")) {
        const int64_t pos = Next().pos;
        Next();
        NodePtr n = MakeNode(Node::Kind::kCast, pos);
        LANCE_ASSIGN_OR_RAISE(NodePtr inner, ParseOr());
        n->args.push_back(std::move(inner));
        if (!AcceptKeyword("AS")) return Error(Peek(), "AS in CAST(... AS type)");
        LANCE_ASSIGN_OR_RAISE(n->cast_type, ParseType());
        LANCE_RETURN_NOT_OK(ExpectSymbol(")"));
        return n;
      }
      static const char* kReserved[] = {"AND", "OR", "NOT", "IN", "IS", "BETWEEN", "LIKE",
                                        "ILIKE", "AS"};
      for (const char* r : kReserved) {
        if (kw == r) return Error(t, "an expression");
      }
      if (IsSymbol(Peek(1), "(")) {
        const Token& name = Next();
        Next();
        NodePtr n = MakeNode(Node::Kind::kCall, name.pos);
        n->name = name.text;
        for (char& c : n->name) {
          if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        }
        if (!AcceptSymbol(")")) {
          do {
            LANCE_ASSIGN_OR_RAISE(NodePtr arg, ParseOr());
            n->args.push_back(std::move(arg));
          } while (AcceptSymbol(","));
          LANCE_RETURN_NOT_OK(ExpectSymbol(")"));
        }
        return n;
      }
    }
    NodePtr n = MakeNode(Node::Kind::kColumn, t.pos);
    n->path.push_back(Next().text);
    while (IsSymbol(Peek(), ".")) {
      Next();
      const Token& part = Peek();
      if (part.kind != Tok::kIdent && part.kind != Tok::kQuotedIdent) {
        return Error(part, "a field name after '.'");
      }
      n->path.push_back(Next().text);
    }
    return n;
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
};

std::string QuoteName(const std::string& name) {
  bool plain = !name.empty() && IsIdentStart(name[0]);
  for (char c : name) plain = plain && IsIdentChar(c);
  if (plain) return name;
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += c;
  }
  return out + "`";
}

}  // namespace

Node::~Node() {
  // Children are moved onto a worklist and freed one by one: no recursion however deep the
  // tree (a long left-deep `a + b + ...` chain).
  std::vector<NodePtr> pending;
  for (NodePtr& a : args) {
    if (a) pending.push_back(std::move(a));
  }
  while (!pending.empty()) {
    NodePtr p = std::move(pending.back());
    pending.pop_back();
    for (NodePtr& a : p->args) {
      if (a) pending.push_back(std::move(a));
    }
    p->args.clear();
  }
}

bool IsArithmetic(Op op) {
  return op == Op::kAdd || op == Op::kSub || op == Op::kMul || op == Op::kDiv || op == Op::kMod;
}

Result<NodePtr> Parse(std::string_view text) { return Parser(text).ParseAll(); }

std::string ToString(const Node& n) {
  auto arg = [&](size_t i) { return ToString(*n.args[i]); };
  const char* neg = n.negated ? "NOT " : "";
  switch (n.kind) {
    case Node::Kind::kLiteral:
      switch (n.literal.kind) {
        case Literal::Kind::kNull: return "NULL";
        case Literal::Kind::kBool: return n.literal.bool_value ? "TRUE" : "FALSE";
        case Literal::Kind::kInt: return std::to_string(n.literal.int_value);
        case Literal::Kind::kFloat: return n.literal.text;
        case Literal::Kind::kBinary: {
          std::string out = "X'";
          for (unsigned char c : n.literal.text) out += fmt::format("{:02X}", c);
          return out + "'";
        }
        case Literal::Kind::kDate: return fmt::format("DATE '{}'", FormatDate(n.literal.int_value));
        case Literal::Kind::kTimestamp:
          return fmt::format("TIMESTAMP '{}'", FormatTimestampNs(n.literal.int_value));
        case Literal::Kind::kString: {
          std::string out = "'";
          for (char c : n.literal.text) {
            out += c;
            if (c == '\'') out += c;
          }
          return out + "'";
        }
      }
      return "?";
    case Node::Kind::kColumn: {
      std::string out;
      for (size_t i = 0; i < n.path.size(); ++i) out += (i ? "." : "") + QuoteName(n.path[i]);
      return out;
    }
    case Node::Kind::kUnary:
      return n.op == Op::kNot ? fmt::format("(NOT {})", arg(0)) : fmt::format("(- {})", arg(0));
    case Node::Kind::kBinary: {
      if (n.op == Op::kAnd || n.op == Op::kOr) {
        std::string out = "(";
        for (size_t i = 0; i < n.args.size(); ++i) {
          out += (i ? fmt::format(" {} ", OpName(n.op)) : "") + arg(i);
        }
        return out + ")";
      }
      if (!IsArithmetic(n.op)) return fmt::format("({} {} {})", arg(0), OpName(n.op), arg(1));
      // A left-deep chain `((a + b) - c)` of any length: its left spine walked in a loop.
      std::vector<const Node*> spine;
      const Node* left = &n;
      while (left->kind == Node::Kind::kBinary && IsArithmetic(left->op)) {
        spine.push_back(left);
        left = left->args[0].get();
      }
      std::string out(spine.size(), '(');
      out += ToString(*left);
      for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
        out += fmt::format(" {} {})", OpName((*it)->op), ToString(*(*it)->args[1]));
      }
      return out;
    }
    case Node::Kind::kIn: {
      std::string out = fmt::format("({} {}IN (", arg(0), neg);
      for (size_t i = 1; i < n.args.size(); ++i) out += (i > 1 ? ", " : "") + arg(i);
      return out + "))";
    }
    case Node::Kind::kBetween:
      return fmt::format("({} {}BETWEEN {} AND {})", arg(0), neg, arg(1), arg(2));
    case Node::Kind::kIsNull: return fmt::format("({} IS {}NULL)", arg(0), neg);
    case Node::Kind::kIsTrue: return fmt::format("({} IS {}TRUE)", arg(0), neg);
    case Node::Kind::kIsFalse: return fmt::format("({} IS {}FALSE)", arg(0), neg);
    case Node::Kind::kLike:
      return fmt::format("({} {}{} {})", arg(0), neg, n.case_insensitive ? "ILIKE" : "LIKE", arg(1));
    case Node::Kind::kCast:
      return fmt::format("CAST({} AS {})", arg(0), n.cast_type->ToString());
    case Node::Kind::kCall: {
      std::string out = n.name + "(";
      for (size_t i = 0; i < n.args.size(); ++i) out += (i ? ", " : "") + arg(i);
      return out + ")";
    }
  }
  return "?";
}

}  // namespace lance::expr
