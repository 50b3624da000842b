//===- SemaOptions.h - Keyed options checked against tables ---*- C++ -*-===//
//
// The keyed options of `load(...)`, schedules, model constructors and jobs
// are described by tables of OptionSpec (name, value kind, accepted words,
// required, positive) and checked by one routine, OptionChecker, so that
// every unknown key or value lists the valid ones and every required one
// is reported missing. The tables are in SemaSchemas.cpp (graphs, models,
// jobs) and SemaSchedules.cpp (schedules); the checker in SemaOptions.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_FRONTENDS_SLUICE_SEMAOPTIONS_H
#define SLUICE_FRONTENDS_SLUICE_SEMAOPTIONS_H

#include "frontends/sluice/SemaInternal.h"

#include <map>
#include <string>
#include <vector>

namespace sluice::sema {

enum class OptKind {
  Int,   ///< i64
  Float, ///< f64 (i64 accepted)
  Bool,
  String,
  Word,      ///< one of `words`, written bare: `format: snap`
  IntOrAuto, ///< `auto` or an i64: `tile: auto`, `tile: 64`
  Parallel,  ///< `serial`, `static` or `dynamic(n)`
  Frontier,  ///< `sparse`, `dense`, `bitmap`, `auto` or `buckets(delta)`
  Direction, ///< `push`, `pull`, `hybrid` or `hybrid(alpha, beta)`
  IntList,   ///< [i64]
  Model,     ///< the name of a model
  Graph,     ///< the name of a graph
  Bytes,     ///< a size in bytes: `512 MiB`
};

struct OptionSpec {
  llvm::StringRef name;
  OptKind kind;
  llvm::ArrayRef<llvm::StringRef> words = {};
  bool required = false;
  bool positive = false;
  int64_t max = 0;        ///< Int: the largest accepted value (0: none)
};

OptionSpec req(llvm::StringRef name, OptKind kind);
OptionSpec pos(llvm::StringRef name, OptKind kind);
OptionSpec opt(llvm::StringRef name, OptKind kind);
/// A positive i64 of at most `max` (the runtime field it narrows to).
OptionSpec upTo(llvm::StringRef name, int64_t max);
OptionSpec word(llvm::StringRef name, llvm::ArrayRef<llvm::StringRef> words);

std::vector<std::string> specNames(llvm::ArrayRef<OptionSpec> specs);
/// Types the value of an option that was already reported (unknown key,
/// unknown owner) without reporting option words in it.
void checkLoose(Sema &s, ast::Expr *e);
/// The kind of a model ("transformer", "gnn", "distill"), or "".
llvm::StringRef modelKind(const Symbol *sym);
std::vector<OptionItem> itemsOf(std::vector<ast::Prop> &props);
/// The i64 value of option `name`, or null.
const Value *argValue(Sema &s, const std::map<std::string, ast::Expr *> &args,
                      llvm::StringRef name);

/// Appends the adversarial-training options of train jobs
/// (SemaAdversarial.cpp).
void appendAdversarialOptions(std::vector<OptionSpec> &specs);

/// Checks one option list against `specs` (and, for walk and run jobs, the
/// parameters of the walk or algorithm).
class OptionChecker {
public:
  OptionChecker(Sema &s, llvm::StringRef noun, std::string owner,
                ast::SourceRange ownerRange)
      : s(s), noun(noun), owner(std::move(owner)), ownerRange(ownerRange) {}

  /// Extra keys: the parameters of `paramOwner` ("walk 'n2v'").
  void setParams(llvm::ArrayRef<ast::Param> p, std::string pOwner) {
    params = p;
    paramOwner = std::move(pOwner);
  }
  /// Accept unknown keys silently (their owner's parameters are unknown
  /// because of an error reported already).
  void setLenient() { lenient = true; }

  /// Checks `items`; returns the value of each accepted key.
  std::map<std::string, ast::Expr *> run(llvm::ArrayRef<OptionItem> items,
                                         llvm::ArrayRef<OptionSpec> specs);

private:
  void checkValue(const OptionSpec &spec, ast::Expr *e);
  void checkInt(const OptionSpec &spec, ast::Expr *e);
  void unknownWord(const OptionSpec &spec, ast::NameExpr &n,
                   llvm::ArrayRef<llvm::StringRef> words);
  std::string what(const OptionSpec &spec) const {
    return noun.str() + " '" + spec.name.str() + "'";
  }

  Sema &s;
  llvm::StringRef noun;
  std::string owner;
  ast::SourceRange ownerRange;
  llvm::ArrayRef<ast::Param> params;
  std::string paramOwner;
  bool lenient = false;
};

} // namespace sluice::sema

#endif // SLUICE_FRONTENDS_SLUICE_SEMAOPTIONS_H
