//===- AttachSchedule.cpp - graph-attach-schedule: each loop's schedule ---===//
//
// Resolves what an algorithm's `schedule` declaration asks for (carried on
// graph.algorithm by MLIRGen) into a complete #graph.schedule on every loop
// and a #graph.algorithm_schedule on the algorithm: per key, the loop's
// label entry, else the algorithm's loop defaults, else the built-in default
// of GraphSchema.h. Passes.td states the rule and the before/after IR.
//
//===----------------------------------------------------------------------===//
#include "dialects/Graph/Transforms/Passes.h"
#include "llvm/Support/Format.h"

namespace sluice::graph {
#define GEN_PASS_DEF_GRAPHATTACHSCHEDULE
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace sluice::graph

using namespace mlir;
using namespace sluice::graph;

namespace {

/// Where a key of a loop's schedule came from.
enum class Source { Default, Algorithm, Label };

/// One key's decided value and its source.
template <typename T> struct Decided {
  T value;
  Source from = Source::Default;
  void set(T v, Source s) {
    value = v;
    from = s;
  }
};

/// The schedule of one loop, key by key.
struct LoopSchedule {
  Decided<Direction> direction{kDefaultDirection};
  FloatAttr alpha, beta; ///< with direction = hybrid (absent: the defaults)
  Decided<Parallel> parallel{kDefaultParallel};
  std::optional<int64_t> chunk; ///< goes with `parallel`
  Decided<Tile> tile{Tile::none()};
  Decided<FrontierKind> frontier{kDefaultFrontier};
  FloatAttr delta; ///< with frontier = buckets
  Decided<EdgeFormat> format{kDefaultFormat};
  /// Absent: the graph's order (not written, as `order` is rarely given).
  Decided<std::optional<VertexOrder>> order{std::nullopt};
  /// Absent: auto (not written, as `fusion` is rarely given).
  Decided<std::optional<Fusion>> fusion{std::nullopt};

  /// Takes the keys `request` gives (those of edges loops only when
  /// `isEdges`).
  void apply(ScheduleAttr request, Source from, bool isEdges) {
    if (!request)
      return;
    if (auto p = request.getParallel()) {
      parallel.set(*p, from);
      chunk = request.getChunk();
    }
    if (!request.getTile().isNone())
      tile.set(request.getTile(), from);
    if (!isEdges)
      return;
    if (auto d = request.getDirection()) {
      direction.set(*d, from);
      alpha = request.getAlpha();
      beta = request.getBeta();
    }
    if (auto f = request.getFrontier()) {
      frontier.set(*f, from);
      delta = request.getDelta();
    }
    if (auto f = request.getFormat())
      format.set(*f, from);
    if (auto o = request.getOrder())
      order.set(*o, from);
    if (auto f = request.getFusion())
      fusion.set(*f, from);
  }

  ScheduleAttr toAttr(MLIRContext *ctx, bool isEdges) const {
    auto onEdges = [&](auto v) {
      return isEdges ? std::optional(v) : std::nullopt;
    };
    return ScheduleAttr::get(
        ctx, onEdges(direction.value), parallel.value, chunk, tile.value,
        onEdges(frontier.value), isEdges ? delta : FloatAttr(),
        onEdges(format.value), isEdges ? order.value : std::nullopt,
        isEdges ? alpha : FloatAttr(), isEdges ? beta : FloatAttr(),
        isEdges ? fusion.value : std::nullopt);
  }
};

/// "(@gather)", "(algorithm schedule)", "(default)".
std::string sourceText(Source from, llvm::StringRef label) {
  switch (from) {
  case Source::Default:
    return "(default)";
  case Source::Algorithm:
    return "(algorithm schedule)";
  case Source::Label:
    return ("(@" + label + ")").str();
  }
  llvm_unreachable("unknown schedule source");
}

/// A float attribute as %g: "16", "2.5".
std::string shortNumber(FloatAttr x) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", x.getValueAsDouble());
  return text;
}

struct GraphAttachSchedulePass
    : public sluice::graph::impl::GraphAttachScheduleBase<
          GraphAttachSchedulePass> {
  using GraphAttachScheduleBase::GraphAttachScheduleBase;

  void runOnOperation() override {
    getOperation().walk([&](AlgorithmOp algo) { attach(algo); });
  }

  void attach(AlgorithmOp algo) {
    MLIRContext *ctx = algo.getContext();
    Target target = algo.getTarget().value_or(kDefaultTarget);
    int64_t threads = algo.getThreads().value_or(0);
    algo.setScheduleAttr(AlgorithmScheduleAttr::get(ctx, target, threads));
    if (remarks) {
      InFlightDiagnostic remark =
          algo.emitRemark("algorithm '")
          << algo.getSymName() << "' runs on " << stringifyTarget(target) << " "
          << sourceText(algo.getTarget() ? Source::Algorithm : Source::Default,
                        "")
          << " with ";
      if (threads)
        remark << threads << " threads (algorithm schedule)";
      else
        remark << "the runtime's default threads (default)";
    }
    algo.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto loop = dyn_cast<VerticesOp>(op))
        loop.setScheduleAttr(decide(algo, op, loop.getLabelAttr(), false));
      else if (auto loop = dyn_cast<EdgesOp>(op))
        loop.setScheduleAttr(decide(algo, op, loop.getLabelAttr(), true));
    });
  }

  ScheduleAttr decide(AlgorithmOp algo, Operation *loop, StringAttr label,
                      bool isEdges) {
    LoopSchedule s;
    s.apply(algo.getLoopDefaultsAttr(), Source::Algorithm, isEdges);
    if (label)
      s.apply(algo.getLabelSchedule(label.getValue()), Source::Label, isEdges);
    if (remarks)
      remark(loop, label, isEdges, s);
    return s.toAttr(algo.getContext(), isEdges);
  }

  static void remark(Operation *loop, StringAttr label, bool isEdges,
                     const LoopSchedule &s) {
    llvm::StringRef name = label ? label.getValue() : "";
    InFlightDiagnostic r = loop->emitRemark();
    r << (isEdges ? "edges" : "vertices") << " loop "
      << (label ? ("@" + name).str() : std::string("(unlabelled)")) << " gets ";
    if (isEdges)
      r << "direction = " << stringifyDirection(s.direction.value);
    if (isEdges && s.alpha)
      r << "(" << shortNumber(s.alpha) << ", " << shortNumber(s.beta) << ")";
    if (isEdges)
      r << " " << sourceText(s.direction.from, name) << ", ";
    r << "parallel = " << stringifyParallel(s.parallel.value);
    if (s.chunk)
      r << "(" << *s.chunk << ")";
    r << " " << sourceText(s.parallel.from, name)
      << ", tile = " << s.tile.value.str() << " "
      << sourceText(s.tile.from, name);
    if (isEdges)
      r << ", frontier = " << stringifyFrontierKind(s.frontier.value);
    if (isEdges && s.delta)
      r << "(" << shortNumber(s.delta) << ")";
    if (isEdges)
      r << " " << sourceText(s.frontier.from, name)
        << ", format = " << stringifyEdgeFormat(s.format.value) << " "
        << sourceText(s.format.from, name);
    if (isEdges && s.order.value)
      r << ", order = " << stringifyVertexOrder(*s.order.value) << " "
        << sourceText(s.order.from, name);
    if (isEdges && s.fusion.value)
      r << ", fusion = " << stringifyFusion(*s.fusion.value) << " "
        << sourceText(s.fusion.from, name);
  }
};

} // namespace
