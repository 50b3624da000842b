//===- SvgRender.cpp - sluicec --format=svg: DOT to one SVG ---------------===//
//
// Renders DOT with Graphviz's `dot` (a child process, 60 s limit) and
// stacks the SVG documents of several graphs into one.
//
//===----------------------------------------------------------------------===//
#include "compiler/tools/sluicec/SvgRender.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <optional>
#include <string>

namespace {

/// The value of attribute `name` of the first `<svg` element of `doc`, as a
/// number of points ("340pt" -> 340); 0 when absent.
double svgLength(llvm::StringRef doc, llvm::StringRef name) {
  size_t root = doc.find("<svg");
  if (root == llvm::StringRef::npos)
    return 0;
  llvm::StringRef tag = doc.substr(root, doc.find('>', root) - root);
  size_t at = tag.find((" " + name + "=\"").str());
  if (at == llvm::StringRef::npos)
    return 0;
  llvm::StringRef value = tag.substr(at + name.size() + 3);
  value = value.take_until([](char c) { return c == '"'; });
  double points = 0;
  value.consume_back("pt");
  return value.getAsDouble(points) ? 0 : points;
}

/// Writes dot's output as one SVG document: as it is for one graph, or, for
/// several (a plan with several schedules), each graph's <svg> nested in one
/// root, stacked top to bottom.
void writeOneSvg(llvm::StringRef text, llvm::raw_ostream &os) {
  llvm::SmallVector<llvm::StringRef> docs;
  for (size_t start = text.find("<?xml"); start != llvm::StringRef::npos;) {
    size_t next = text.find("<?xml", start + 1);
    docs.push_back(text.slice(start, next));
    start = next;
  }
  if (docs.size() <= 1) {
    os << text;
    return;
  }
  double width = 0, height = 0;
  for (llvm::StringRef doc : docs) {
    width = std::max(width, svgLength(doc, "width"));
    height += svgLength(doc, "height");
  }
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
     << "<!-- " << docs.size()
     << " graphs rendered by Graphviz's dot, one under another -->\n"
     << "<svg width=\"" << llvm::format("%g", width) << "pt\" height=\""
     << llvm::format("%g", height)
     << "pt\" xmlns=\"http://www.w3.org/2000/svg\" "
        "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n";
  double y = 0;
  for (llvm::StringRef doc : docs) {
    size_t root = doc.find("<svg");
    size_t end = doc.rfind("</svg>");
    if (root == llvm::StringRef::npos || end == llvm::StringRef::npos)
      continue;
    os << "<svg x=\"0\" y=\"" << llvm::format("%g", y) << "pt\""
       << doc.slice(root + 4, end + 6) << "\n";
    y += svgLength(doc, "height");
  }
  os << "</svg>\n";
}

/// Renders DOT to SVG with Graphviz's `dot`.
} // namespace

mlir::LogicalResult sluice::renderSvg(llvm::StringRef dotText,
                                      llvm::raw_ostream &os) {
  auto dot = llvm::sys::findProgramByName("dot");
  if (!dot) {
    llvm::errs() << "sluicec: error: --format=svg needs Graphviz's 'dot' on "
                    "PATH (apt-get install graphviz)\n";
    return mlir::failure();
  }
  llvm::SmallString<128> inPath, outPath;
  int inFd;
  if (llvm::sys::fs::createTemporaryFile("sluice", "dot", inFd, inPath) ||
      llvm::sys::fs::createTemporaryFile("sluice", "svg", outPath)) {
    llvm::errs() << "sluicec: error: cannot create a temporary file\n";
    return mlir::failure();
  }
  llvm::FileRemover removeIn(inPath), removeOut(outPath);
  {
    llvm::raw_fd_ostream in(inFd, /*shouldClose=*/true);
    in << dotText;
  }
  // dot writes one SVG document per graph to its standard output (with -o
  // it would write the first to the file and the rest to ours).
  std::string err;
  llvm::StringRef args[] = {*dot, "-Tsvg", inPath};
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(outPath), std::nullopt};
  int rc = llvm::sys::ExecuteAndWait(*dot, args, std::nullopt, redirects, 60, 0,
                                     &err);
  if (rc != 0) {
    llvm::errs() << "sluicec: error: dot failed (" << rc << ")"
                 << (err.empty() ? "" : ": " + err) << "\n";
    return mlir::failure();
  }
  auto svg = llvm::MemoryBuffer::getFile(outPath);
  if (!svg) {
    llvm::errs() << "sluicec: error: cannot read dot's output\n";
    return mlir::failure();
  }
  writeOneSvg((*svg)->getBuffer(), os);
  return mlir::success();
}

