//===- CheckParallelWrites.cpp - graph-check-parallel-writes --------------===//
//
// The legality of parallel updates (docs/language.md, section 11.2): in a
// loop whose schedule is not `parallel: serial`, a plain write at a vertex
// the iteration does not own must provably write the same value from every
// iteration that writes that element (a fixed value, or BFS's
// level-synchronous write), else it is a located error; a plain write and a
// reduction into one property race unless both are at the owned vertex; a
// read of a property the loop writes plainly, where another iteration may be
// writing it, gets a warning, and so does a read at the vertex where
// iterations that do not own it reduce into the property, unless it only
// skips reductions that would change nothing. A compare_swap is an atomic
// write, legal anywhere, but not with a plain write of its property in the
// loop. Passes.td states the rules; the IR is not changed.
//
//===----------------------------------------------------------------------===//
#include "dialects/Graph/IR/GraphSchema.h"
#include "dialects/Graph/Transforms/LevelProof.h"
#include "dialects/Graph/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace sluice::graph {
#define GEN_PASS_DEF_GRAPHCHECKPARALLELWRITES
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace sluice::graph

using namespace mlir;
using namespace sluice::graph;

namespace {

/// Whether `a` and `b`, in two regions of `loop` (its `where` and its
/// body), compute the same expression: the same binder, equal constants, a
/// value from outside the loop, or the same op (pure, or a property read)
/// of such operands.
bool sameExpression(Value a, Value b, Operation *loop) {
  if (a == b)
    return true;
  std::optional<unsigned> ba = binderOf(a, loop), bb = binderOf(b, loop);
  if (ba || bb)
    return ba == bb;
  Operation *da = a.getDefiningOp(), *db = b.getDefiningOp();
  if (!da || !db || !loop->isAncestor(da) || !loop->isAncestor(db))
    return false;
  if (da->getName() != db->getName() ||
      da->getAttrDictionary() != db->getAttrDictionary() ||
      da->getResultTypes() != db->getResultTypes() ||
      da->getNumOperands() != db->getNumOperands() ||
      (!isPureLeaf(da) && !isa<PropGetOp>(da)))
    return false;
  return llvm::all_of(
      llvm::zip(da->getOperands(), db->getOperands()), [&](auto pair) {
        return sameExpression(std::get<0>(pair), std::get<1>(pair), loop);
      });
}

/// Whether `read`, in `edges`' `where`, only skips reductions `r` that
/// would change nothing: the whole condition is `E < p[v]` (or `<=`, `!=`,
/// either way round) for `p[v] min= E`, `E > p[v]` (or `>=`, `!=`) for
/// `max=`, E the reduction's value (a relaxation's filter).
bool skipsOnlyNoOps(PropGetOp read, PropReduceOp r, EdgesOp edges) {
  if (!edges || edges.getWhere().empty() ||
      !edges.getWhere().isAncestor(read->getParentRegion()) ||
      (r.getKind() != ReductionKind::Min && r.getKind() != ReductionKind::Max))
    return false;
  auto yield = cast<YieldOp>(edges.getWhere().front().getTerminator());
  Operation *cmp = yield.getValues().front().getDefiningOp();
  if (!cmp || cmp->getNumOperands() != 2)
    return false;
  // `below`: the condition holds when E < p; `above`: when E > p (E the
  // operand other than the read).
  bool readLeft = cmp->getOperand(0) == read.getResult();
  if (!readLeft && cmp->getOperand(1) != read.getResult())
    return false;
  Value other = cmp->getOperand(readLeft ? 1 : 0);
  bool below = false, above = false;
  if (auto i = dyn_cast<arith::CmpIOp>(cmp)) {
    using P = arith::CmpIPredicate;
    P pred = i.getPredicate();
    bool lt =
        pred == P::slt || pred == P::ult || pred == P::sle || pred == P::ule;
    bool gt =
        pred == P::sgt || pred == P::ugt || pred == P::sge || pred == P::uge;
    below = pred == P::ne || (readLeft ? gt : lt);
    above = pred == P::ne || (readLeft ? lt : gt);
  } else if (auto f = dyn_cast<arith::CmpFOp>(cmp)) {
    using P = arith::CmpFPredicate;
    P pred = f.getPredicate();
    bool lt =
        pred == P::OLT || pred == P::ULT || pred == P::OLE || pred == P::ULE;
    bool gt =
        pred == P::OGT || pred == P::UGT || pred == P::OGE || pred == P::UGE;
    bool ne = pred == P::ONE || pred == P::UNE;
    below = ne || (readLeft ? gt : lt);
    above = ne || (readLeft ? lt : gt);
  } else {
    return false;
  }
  if (!(r.getKind() == ReductionKind::Min ? below : above))
    return false;
  return sameExpression(other, r.getValue(), edges);
}

/// One loop and how it runs.
struct Loop {
  Operation *op = nullptr;
  mutable EdgesOp edges; ///< null for a vertices loop
  bool push = false;     ///< runs push rounds (the source is owned)
  bool pull = false;     ///< runs pull rounds (the destination is owned)
  bool parallel = true;  ///< not `parallel: serial`
  std::string name;      ///< "loop 'expand' of algorithm 'bfs'"
  std::string how;       ///< "push", "pull", "hybrid: push and pull rounds"
  std::optional<unsigned> owned; ///< the binder every iteration owns

  Loop(Operation *loop, AlgorithmOp algo) : op(loop) {
    edges = dyn_cast<EdgesOp>(loop);
    auto schedule = loop->getAttrOfType<ScheduleAttr>("schedule");
    Parallel par = schedule && schedule.getParallel() ? *schedule.getParallel()
                                                      : kDefaultParallel;
    parallel = par != Parallel::Serial;
    auto label = loop->getAttrOfType<StringAttr>("label");
    name = (label ? "loop '" + label.getValue().str() + "'"
                  : std::string(edges ? "unlabelled edges loop"
                                      : "unlabelled vertices loop")) +
           " of algorithm '" + algo.getSymName().str() + "'";
    if (!edges) {
      owned = 0;
      how = "vertices";
      return;
    }
    Direction dir = schedule && schedule.getDirection()
                        ? *schedule.getDirection()
                        : kDefaultDirection;
    push =
        dir == Direction::Push || (dir == Direction::Hybrid && edges.getFrom());
    pull = dir == Direction::Pull || dir == Direction::Hybrid;
    if (push && pull) {
      how = "hybrid: push and pull rounds";
      return;
    }
    owned = push ? 0 : 1;
    how = push ? "push" : "pull";
  }

  bool isOwned(Value vertex) const {
    return owned && binderOf(vertex, op) == owned;
  }

  /// Where a plain write at `vertex` goes, for messages.
  std::string describe(Value vertex) const {
    std::optional<unsigned> b = binderOf(vertex, op);
    if (!edges)
      return b ? "the loop's vertex" : "a vertex other than the loop's vertex";
    if (b == 0u)
      return "the source";
    if (b == 1u)
      return "the destination";
    return "a vertex other than the edge's source and destination";
  }
};

/// Whether `v` is the same in every iteration that writes at `x`: computed
/// from fixed values, `x` and reads at such vertices of properties the loop
/// does not write.
bool determinedBy(Value v, Value x, const Loop &loop,
                  const llvm::StringSet<> &written) {
  if (v == x || isFixed(v, loop.op))
    return true;
  std::optional<unsigned> bv = binderOf(v, loop.op);
  if (bv && bv == binderOf(x, loop.op))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto get = dyn_cast<PropGetOp>(def))
    return !written.contains(get.getProperty()) &&
           determinedBy(get.getVertex(), x, loop, written);
  return isPureLeaf(def) && llvm::all_of(def->getOperands(), [&](Value o) {
           return determinedBy(o, x, loop, written);
         });
}

class CheckParallelWrites
    : public sluice::graph::impl::GraphCheckParallelWritesBase<
          CheckParallelWrites> {
public:
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](AlgorithmOp algo) {
      algo.walk([&](Operation *op) {
        if (isa<VerticesOp, EdgesOp>(op))
          failed |= !checkLoop(Loop(op, algo), algo);
      });
    });
    if (failed)
      signalPassFailure();
  }

private:
  bool checkLoop(const Loop &loop, AlgorithmOp algo);
};

/// Where a plain write may go in a parallel loop, for the notes.
constexpr const char *kOwnedRule =
    "a parallel plain write goes to the vertex its iteration owns (a "
    "vertices loop's vertex, a push loop's source, a pull loop's "
    "destination; a hybrid loop over a frontier owns neither), or writes "
    "a value that every iteration writing that vertex provably shares "
    "(docs/language.md, section 11.2)";

bool CheckParallelWrites::checkLoop(const Loop &loop, AlgorithmOp algo) {
  if (!loop.parallel)
    return true;
  SmallVector<PropSetOp> sets;
  SmallVector<PropReduceOp> reduces;
  SmallVector<PropGetOp> reads;
  SmallVector<CompareSwapOp> swaps;
  llvm::StringSet<> written;
  loop.op->walk([&](Operation *op) {
    if (auto c = dyn_cast<CompareSwapOp>(op)) {
      // Atomic at any vertex: legal, and its reads are its own.
      swaps.push_back(c);
      written.insert(c.getProperty());
    }
    if (auto s = dyn_cast<PropSetOp>(op)) {
      sets.push_back(s);
      written.insert(s.getProperty());
    } else if (auto r = dyn_cast<PropReduceOp>(op)) {
      reduces.push_back(r);
      written.insert(r.getProperty());
    } else if (auto g = dyn_cast<PropGetOp>(op)) {
      reads.push_back(g);
    }
  });
  bool ok = true;
  // The reads the level-synchronous rule shows to be benign.
  llvm::SmallPtrSet<Operation *, 4> covered;
  // The properties with an illegal write: their reads get no warning (the
  // write is to be fixed first).
  llvm::StringSet<> illegal;
  for (PropSetOp set : sets) {
    StringRef p = set.getProperty();
    // A plain write can undo another iteration's swap (or make its
    // compare see a value that is not there any more), at the owned
    // vertex too: other iterations swap wherever they like.
    auto swap = llvm::find_if(
        swaps, [&](CompareSwapOp c) { return c.getProperty() == p; });
    if (swap != swaps.end()) {
      InFlightDiagnostic diag = set.emitError();
      diag << "plain write to '" << p << "' at "
           << loop.describe(set.getVertex()) << " in parallel " << loop.name
           << " (" << loop.how << ") while other iterations compare_swap '" << p
           << "': the write is not atomic with their swaps; update '" << p
           << "' with compare_swap only in this loop or schedule it "
              "`parallel: serial`";
      diag.attachNote(swap->getLoc()) << "the compare_swap of '" << p << "'";
      illegal.insert(p);
      ok = false;
      continue;
    }
    if (loop.isOwned(set.getVertex())) {
      // Other iterations' reductions into p at vertices they do not own
      // race with this write.
      for (PropReduceOp r : reduces) {
        if (r.getProperty() != p || loop.isOwned(r.getVertex()))
          continue;
        InFlightDiagnostic diag = set.emitError();
        diag << "plain write to '" << p << "' at "
             << loop.describe(set.getVertex()) << " in parallel " << loop.name
             << " (" << loop.how << ") while other iterations reduce into '"
             << p
             << "' at vertices they do not own: the result depends on their "
                "order; update '"
             << p << "' one way in this loop or schedule it `parallel: serial`";
        diag.attachNote(r.getLoc()) << "the reduction into '" << p << "'";
        illegal.insert(p);
        ok = false;
        break;
      }
      continue;
    }
    // At a vertex the iteration does not own: the same value from every
    // iteration that writes there, or an error.
    bool onlyWrite =
        llvm::count_if(
            sets, [&](PropSetOp s) { return s.getProperty() == p; }) == 1 &&
        llvm::none_of(reduces,
                      [&](PropReduceOp r) { return r.getProperty() == p; });
    if (onlyWrite &&
        determinedBy(set.getValue(), set.getVertex(), loop, written)) {
      // A fixed value under `where p[dst] == K` (BFS writing a round
      // counter, `depth[dst] = level`): an iteration that reads K writes
      // the value, one that reads the value skips; the result is the same.
      if (loop.edges && isFixed(set.getValue(), loop.op))
        if (std::optional<LevelShape> shape = levelShape(loop.edges, p))
          covered.insert(shape->guard);
      continue;
    }
    if (loop.edges && binderOf(set.getVertex(), loop.op) == 1u) {
      if (std::optional<LevelShape> shape = levelShape(loop.edges, p)) {
        LevelProof proof(algo, p, shape->bound, topLevel(loop.op, algo));
        if (proof.writesAgree() &&
            proof.uniformFrontier(loop.edges.getFrom())) {
          covered.insert(shape->guard);
          for (PropGetOp g : reads)
            if (g.getProperty() == p && binderOf(g.getVertex(), loop.op) == 0u)
              covered.insert(g);
          continue;
        }
      }
    }
    InFlightDiagnostic diag = set.emitError();
    diag << "plain write to '" << p << "' at " << loop.describe(set.getVertex())
         << " in parallel " << loop.name << " (" << loop.how
         << "): several iterations may write different values to one "
            "vertex; use a reduction (min=, max=, +=, -=) or schedule the "
            "loop `parallel: serial`";
    diag.attachNote() << kOwnedRule;
    if (loop.edges && !levelShape(loop.edges, p) &&
        levelShape(loop.edges, p, /*others=*/true))
      diag.attachNote() << "one value per frontier (as BFS's depth) is "
                           "known only for a loop that writes nothing but '"
                        << p << "'";
    illegal.insert(p);
    ok = false;
  }
  // Reads that another iteration's plain write may overlap.
  for (PropGetOp read : reads) {
    StringRef p = read.getProperty();
    auto first =
        llvm::find_if(sets, [&](PropSetOp s) { return s.getProperty() == p; });
    if (first == sets.end() || covered.contains(read) || illegal.contains(p))
      continue;
    bool allOwned = llvm::all_of(sets, [&](PropSetOp s) {
      return s.getProperty() != p || loop.isOwned(s.getVertex());
    });
    if (allOwned && loop.isOwned(read.getVertex()))
      continue;
    InFlightDiagnostic diag = read.emitWarning();
    diag << "read of '" << p << "' at " << loop.describe(read.getVertex())
         << " in parallel " << loop.name << " (" << loop.how
         << ") may see another iteration's plain write to '" << p
         << "': the value read depends on timing; read '" << p
         << "' only at the vertex the iteration owns, or schedule the loop "
            "`parallel: serial`";
    diag.attachNote(first->getLoc()) << "the plain write to '" << p << "'";
  }
  // Reads of a property at the binder where iterations that do not own it
  // reduce into it (BFS parents: `where parent[dst] == -1 { parent[dst]
  // max= id(src) }` pushed): which iterations pass, and so the result,
  // depend on timing, unless the read only skips reductions that would
  // change nothing.
  for (PropGetOp read : reads) {
    StringRef p = read.getProperty();
    std::optional<unsigned> at = binderOf(read.getVertex(), loop.op);
    if (!at || covered.contains(read) || illegal.contains(p))
      continue;
    auto r = llvm::find_if(reduces, [&](PropReduceOp r) {
      return r.getProperty() == p && binderOf(r.getVertex(), loop.op) == at &&
             !loop.isOwned(r.getVertex());
    });
    if (r == reduces.end() || skipsOnlyNoOps(read, *r, loop.edges))
      continue;
    InFlightDiagnostic diag = read.emitWarning();
    diag << "read of '" << p << "' at " << loop.describe(read.getVertex())
         << " in parallel " << loop.name << " (" << loop.how
         << ") may see other iterations' reductions into '" << p
         << "' there: which iterations see which value depends on timing, "
            "and so does the result; schedule the loop so that it owns "
            "that vertex (`direction: pull` for the destination), guard on "
            "a property the loop does not update, or schedule it "
            "`parallel: serial`";
    diag.attachNote(r->getLoc()) << "the reduction into '" << p << "'";
  }
  return ok;
}

} // namespace
