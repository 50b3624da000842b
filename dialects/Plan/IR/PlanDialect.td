//===- PlanDialect.td - The plan dialect -------------------*- tablegen -*-===//
//
// The `plan` dialect holds what the compiler decides to move where and when:
// the transfer demands of a program (`plan.demands`) and the schedules
// planned for them (`plan.schedule` of `plan.transfer` and `plan.compute`
// ops on named streams).
//
//===----------------------------------------------------------------------===//

#ifndef SLUICE_PLAN_DIALECT
#define SLUICE_PLAN_DIALECT

include "mlir/IR/OpBase.td"

def Plan_Dialect : Dialect {
  let name = "plan";
  let cppNamespace = "::sluice::plan";
  let summary = "Transfer demands and the schedules planned for them";
  let description = [{
    `plan.demands` lists the transfers a program asks for on a topology
    (point-to-point sets, gathers and collectives over device groups, named
    by device path patterns such as `gpu[*]`). `plan-schedule-flows`
    replaces each with a `plan.schedule`: the makespan, the solver and its
    bound, and one `plan.transfer` per path (source, destination, bytes,
    the devices it crosses, its rate and its time window). `plan.compute`
    marks work on a stream, so that other planners (offload, swapping) can
    put transfers and compute on the same timeline. Quantities are in base
    units: bytes, seconds, bytes per second. The decisions a plan records
    (demand kinds, collectives, schedule methods) are enums (PlanEnums.td).
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
  private:
    void registerAttributes();
  }];
}

class Plan_Op<string mnemonic, list<Trait> traits = []>
    : Op<Plan_Dialect, mnemonic, traits>;

#endif // SLUICE_PLAN_DIALECT
