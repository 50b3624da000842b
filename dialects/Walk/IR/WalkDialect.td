//===- WalkDialect.td - The walk dialect -------------------*- tablegen -*-===//
//
// The `walk` dialect describes random walks over graphs (docs/language.md,
// section 10): a `walk.walk` holds the walk's parameters, state, schedule
// and one region per walk item (weight, stop, update, state init, length,
// start, stop probability), each region shaped like the function of the
// walk kernel ABI (runtime/include/sluice/walk.h) it is lowered to.
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_WALK_DIALECT
#define SLUICE_WALK_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Walk_Dialect : Dialect {
  let name = "walk";
  let cppNamespace = "::sluice::walk";
  let summary = "Random walks over graphs: weights, stops, state, bounds";
  let description = [{
    `walk.graph` names a graph file; `walk.walk` is a walk over one, with
    regions computing the transition weight of one candidate edge, the stop
    condition, the state update and initialiser, and (after `walk-bounds`)
    per-vertex bounds of the weight. Expressions inside the regions use
    `arith`, `math` and `scf` plus the walk ops for graph fields and walker
    state (`walk.degree`, `walk.has_edge`, `walk.state.get`, ...).
    `walk.job` is a run of a walk with its options.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
  private:
    void registerTypes();
    void registerAttributes();
  }];
}

class Walk_Op<string mnemonic, list<Trait> traits = []>
    : Op<Walk_Dialect, mnemonic, traits>;

class Walk_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Walk_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Walk_ListType : Walk_Type<"List", "list"> {
  let summary = "A list of i64 (a [i64] walk parameter)";
  let description = [{
    The value of a `[i64]` walk parameter. At run time it is a pointer to a
    `sluice_walk_list_t` (data, size) in the parameter block.
  }];
}

#endif // SLUICE_WALK_DIALECT
