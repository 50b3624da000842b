//===- WalkDeviceCodeTest.cpp - instantiating walk-to-gpu's device code ---===//
//
// DeviceCodeBuilder over small device files: per-walk renaming, tagged
// constants set from DeviceFrame.h and the walk, and the internal errors
// that keep the checked-in files and the C++ from drifting apart (a slot
// number that differs from FrameSlot, an unknown tag, a missing or
// mistyped import, a symbol defined twice).
//
//===----------------------------------------------------------------------===//
#include "compiler/Conversion/WalkToGPU/DeviceFrame.h"
#include "compiler/Conversion/WalkToGPU/WalkDeviceCode.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"

#include <gtest/gtest.h>

#include <string>

using namespace mlir;
using namespace sluice::conversion;

namespace {

class DeviceCodeTest : public ::testing::Test {
protected:
  DeviceCodeTest()
      : handler(&ctx, [this](Diagnostic &d) {
          errors += d.str() + "\n";
          return success();
        }) {
    ctx.loadDialect<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                    LLVM::LLVMDialect, scf::SCFDialect>();
    OpBuilder b(&ctx);
    module = ModuleOp::create(b.getUnknownLoc());
    b.setInsertionPointToEnd(module->getBody());
    gpuModule = b.create<gpu::GPUModuleOp>(b.getUnknownLoc(), "m");
  }
  LogicalResult append(DeviceCodeBuilder &builder, const std::string &body,
                       const WalkInstance *walk = nullptr) {
    return builder.append("gpu.module @f {\n" + body + "\n}\n", "test.mlir",
                          walk, UnknownLoc::get(&ctx));
  }
  int64_t constantNamed(StringRef fn) {
    auto f = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        gpuModule, StringAttr::get(&ctx, fn));
    EXPECT_TRUE(f) << fn.str();
    if (!f)
      return -1;
    int64_t value = -1;
    f.walk([&](arith::ConstantOp c) {
      EXPECT_FALSE(c->hasAttr("sluice.frame_slot"));
      EXPECT_FALSE(c->hasAttr("sluice.walk_constant"));
      value = cast<IntegerAttr>(c.getValue()).getInt();
    });
    return value;
  }

  MLIRContext ctx;
  std::string errors;
  ScopedDiagnosticHandler handler;
  OwningOpRef<ModuleOp> module;
  gpu::GPUModuleOp gpuModule;
};

TEST_F(DeviceCodeTest, PerWalkSymbolsAndConstants) {
  DeviceCodeBuilder builder(gpuModule);
  WalkInstance walk{"n2v", 3, 32};
  ASSERT_TRUE(succeeded(append(builder, R"(
  func.func private @sluice_walk_WALK_weight(i32) -> i32
  func.func private @sluice_walk_WALK_a() -> i32 {
    %c = arith.constant {sluice.walk_constant = "num_state"} 1 : i32
    return %c : i32
  }
  func.func private @sluice_walk_WALK_b() -> i64 {
    %c = arith.constant {sluice.walk_constant = "threads_per_walker"} 1 : i64
    %x = func.call @sluice_walk_WALK_a() : () -> i32
    return %c : i64
  }
  func.func private @sluice_walk_WALK_c() -> i32 {
    %c = arith.constant {sluice.frame_slot = "cur"} 11 : i32
    return %c : i32
  })", &walk)))
      << errors;
  EXPECT_EQ(constantNamed("sluice_walk_n2v_a"), 3);
  EXPECT_EQ(constantNamed("sluice_walk_n2v_b"), 32);
  EXPECT_EQ(constantNamed("sluice_walk_n2v_c"), kCur);
  // The call was renamed with its callee; the import is pending.
  std::string text;
  llvm::raw_string_ostream os(text);
  gpuModule.print(os);
  EXPECT_NE(text.find("call @sluice_walk_n2v_a()"), std::string::npos);
  EXPECT_EQ(text.find("WALK"), std::string::npos);
  EXPECT_TRUE(failed(builder.checkImports(UnknownLoc::get(&ctx))));
  EXPECT_NE(errors.find("imports 'sluice_walk_n2v_weight', which nothing "
                        "defines"),
            std::string::npos)
      << errors;
}

TEST_F(DeviceCodeTest, ASlotNumberThatDriftedIsAnError) {
  DeviceCodeBuilder builder(gpuModule);
  EXPECT_TRUE(failed(append(builder, R"(
  func.func private @f() -> i32 {
    %c = arith.constant {sluice.frame_slot = "edge_labels"} 21 : i32
    return %c : i32
  })")));
  EXPECT_NE(errors.find("test.mlir: frame slot 'edge_labels' is 21 in the "
                        "text but 17 in DeviceFrame.h"),
            std::string::npos)
      << errors;
}

TEST_F(DeviceCodeTest, UnknownTagsAreErrors) {
  DeviceCodeBuilder builder(gpuModule);
  EXPECT_TRUE(failed(append(builder, R"(
  func.func private @f() -> i32 {
    %c = arith.constant {sluice.frame_slot = "nowhere"} 1 : i32
    return %c : i32
  })")));
  EXPECT_NE(errors.find("unknown frame slot 'nowhere'"), std::string::npos)
      << errors;
  WalkInstance walk{"w", 1, 1};
  EXPECT_TRUE(failed(append(builder, R"(
  func.func private @g() -> i32 {
    %c = arith.constant {sluice.walk_constant = "speed"} 1 : i32
    return %c : i32
  })", &walk)));
  EXPECT_NE(errors.find("unknown per-walk constant 'speed'"), std::string::npos)
      << errors;
  EXPECT_TRUE(failed(append(builder, R"(
  func.func private @h() -> i32 {
    %c = arith.constant {sluice.walk_constant = "num_state"} 1 : i32
    return %c : i32
  })")));
  EXPECT_NE(errors.find("per-walk constant 'num_state' outside a per-walk "
                        "file"),
            std::string::npos)
      << errors;
}

TEST_F(DeviceCodeTest, ImportsMustMatchTheirDefinitions) {
  DeviceCodeBuilder builder(gpuModule);
  ASSERT_TRUE(succeeded(append(builder, R"(
  func.func private @f(%x: i32) -> i32 {
    return %x : i32
  })")))
      << errors;
  ASSERT_TRUE(succeeded(append(builder, R"(
  func.func private @f(i64) -> i32
  func.func private @g(%x: i64) -> i32 {
    %y = func.call @f(%x) : (i64) -> i32
    return %y : i32
  })")))
      << errors;
  EXPECT_TRUE(failed(builder.checkImports(UnknownLoc::get(&ctx))));
  EXPECT_NE(errors.find("imports 'f' as '(i64) -> i32' but it is '(i32) -> "
                        "i32'"),
            std::string::npos)
      << errors;
}

TEST_F(DeviceCodeTest, ASymbolDefinedTwiceIsAnError) {
  DeviceCodeBuilder builder(gpuModule);
  std::string f = R"(
  func.func private @f() {
    return
  })";
  ASSERT_TRUE(succeeded(append(builder, f))) << errors;
  EXPECT_TRUE(failed(append(builder, f)));
  EXPECT_NE(errors.find("'f' is defined twice"), std::string::npos) << errors;
}

TEST_F(DeviceCodeTest, TheCheckedInFilesInstantiate) {
  DeviceCodeBuilder builder(gpuModule);
  Location loc = UnknownLoc::get(&ctx);
  WalkInstance walk{"w", 2, 1};
  ASSERT_TRUE(succeeded(builder.append(DeviceFile::Library, nullptr, loc)))
      << errors;
  ASSERT_TRUE(
      succeeded(builder.append(DeviceFile::ReservoirLibrary, nullptr, loc)));
  ASSERT_TRUE(succeeded(builder.append(DeviceFile::Driver, &walk, loc)));
  ASSERT_TRUE(
      succeeded(builder.append(DeviceFile::RejectionSampler, &walk, loc)));
  EXPECT_TRUE(failed(builder.append(DeviceFile::Driver, nullptr, loc)));
  EXPECT_TRUE(failed(builder.append(DeviceFile::Library, &walk, loc)));
  EXPECT_NE(errors.find("WalkDriver.mlir needs a walk"), std::string::npos)
      << errors;
  // Only the functions walk-to-gpu outlines from the walk are missing.
  errors.clear();
  EXPECT_TRUE(failed(builder.checkImports(loc)));
  EXPECT_NE(errors.find("imports 'sluice_walk_w_"), std::string::npos)
      << errors;
}

} // namespace
