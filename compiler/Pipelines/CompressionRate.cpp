//===- CompressionRate.cpp - Measured host codec of blockio demands -------===//
#include "compiler/Pipelines/CompressionRate.h"

#include "dialects/Plan/IR/PlanOps.h"
#include "sluice/compress.h"

#include "mlir/IR/Builders.h"
#include <map>

using namespace mlir;
using namespace sluice;

LogicalResult sluice::attachMeasuredCompression(ModuleOp module) {
  std::map<std::tuple<double, double, plan::Codec>, sluice_compress_report_t>
      cache;
  bool ok = true;
  module.walk([&](plan::DemandOp op) {
    DictionaryAttr job = op.getJobAttr();
    if (op.getKind() != plan::DemandKind::BlockIO || !job ||
        job.get("cpu_rate"))
      return;
    auto c = job.getAs<FloatAttr>("compressibility");
    if (!c)
      return; // the verifier reports it
    double block = op.getBytes().convertToDouble();
    plan::Codec codec = plan::Codec::Zstd;
    if (auto a = job.getAs<plan::CodecAttr>("codec"))
      codec = a.getValue();
    auto key = std::make_tuple(block, c.getValueAsDouble(), codec);
    auto it = cache.find(key);
    if (it == cache.end()) {
      sluice_compress_options_t options;
      sluice_compress_options_init(&options);
      options.block_bytes = static_cast<uint64_t>(block);
      options.compressibility = c.getValueAsDouble();
      options.codec = codec == plan::Codec::Lz4 ? SLUICE_COMPRESS_LZ4
                                                : SLUICE_COMPRESS_ZSTD;
      // At least 256 blocks or 64 MiB of distinct data, whichever is less.
      options.blocks = std::max<uint64_t>(
          1, std::min<uint64_t>(256, (64ull << 20) / options.block_bytes));
      sluice_compress_report_t report;
      sluice_error_t error;
      if (sluice_compress_measure(&options, &report, &error) !=
          SLUICE_STATUS_OK) {
        char buf[512];
        sluice_error_format(&error, buf, sizeof(buf));
        op.emitError() << "cannot measure the host codec: " << buf;
        ok = false;
        return;
      }
      it = cache.emplace(key, report).first;
    }
    OpBuilder b(op.getContext());
    NamedAttrList attrs(job);
    attrs.set("cpu_rate", b.getF64FloatAttr(it->second.compress_bytes_per_s));
    attrs.set("cpu_decompress_rate",
              b.getF64FloatAttr(it->second.decompress_bytes_per_s));
    attrs.set("cpu_ratio", b.getF64FloatAttr(it->second.ratio));
    op.setJobAttr(attrs.getDictionary(op.getContext()));
  });
  return success(ok);
}
