//===- TopoAttrs.cpp - Attributes of the topo dialect ---------------------===//
//
// QuantityAttr (`#topo.q<80 GiB>`), parsed from the raw text of the
// attribute because unit spellings such as `GB/s` are not MLIR tokens, and
// EndpointAttr (`#topo.ep<server[3]::gpu[2]>`), whose path syntax is shared
// with the op formats of topo.link and topo.override.
//
//===----------------------------------------------------------------------===//
#include "dialects/Topo/IR/TopoAttrs.h"

#include "dialects/Topo/IR/TopoDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "support/NumberFormat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>

using namespace mlir;
using namespace sluice;
using namespace sluice::topo;

#define GET_ATTRDEF_CLASSES
#include "dialects/Topo/IR/TopoAttrs.cpp.inc"

//===----------------------------------------------------------------------===//
// QuantityAttr
//===----------------------------------------------------------------------===//

LogicalResult QuantityAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   llvm::APFloat number, llvm::StringRef unit) {
  // Unreachable from .mlir: parseQuantity reads digits only and reports a
  // number out of range first. The check stays for the C++ builders
  // (MLIRGen's QuantityAttr::get, asserted in debug builds; getChecked).
  if (!number.isFinite())
    return emitError() << "quantity must be finite";
  if (!lookupUnit(unit))
    return emitError() << "unknown unit '" << unit << "'";
  return success();
}

double QuantityAttr::getBaseValue() const {
  std::optional<UnitInfo> info = lookupUnit(getUnit());
  assert(info && "QuantityAttr with an unknown unit: build it with getChecked");
  return info ? getValue() * info->factor : std::nan("");
}

Dim QuantityAttr::getDim() const {
  std::optional<UnitInfo> info = lookupUnit(getUnit());
  assert(info && "QuantityAttr with an unknown unit: build it with getChecked");
  return info ? info->dim : Dim();
}

std::string QuantityAttr::str() const {
  return formatNumber(getValue()) + " " + getUnit().str();
}

/// Parses the body of `#topo.q<body>`: a decimal number (sign, digits,
/// optional fraction and exponent) followed by a unit spelling.
static Attribute parseQuantity(DialectAsmParser &parser, StringRef body) {
  auto locAt = [&](StringRef text) {
    return llvm::SMLoc::getFromPointer(text.data());
  };
  StringRef rest = body.ltrim();
  size_t len = 0;
  auto digits = [&] {
    size_t start = len;
    while (len < rest.size() && llvm::isDigit(rest[len]))
      ++len;
    return len - start;
  };
  if (len < rest.size() && (rest[len] == '-' || rest[len] == '+'))
    ++len;
  if (digits() == 0) {
    parser.emitError(locAt(rest)) << "expected a number at the start of a "
                                     "quantity, got '"
                                  << body.trim() << "'";
    return {};
  }
  if (len < rest.size() && rest[len] == '.') {
    ++len;
    digits();
  }
  if (len < rest.size() && (rest[len] == 'e' || rest[len] == 'E')) {
    size_t mark = len++;
    if (len < rest.size() && (rest[len] == '-' || rest[len] == '+'))
      ++len;
    if (digits() == 0)
      len = mark; // not an exponent: the unit starts here
  }
  StringRef numberText = rest.take_front(len);
  double value;
  if (numberText.getAsDouble(value) || !std::isfinite(value)) {
    parser.emitError(locAt(numberText))
        << "number " << numberText << " is out of range";
    return {};
  }
  StringRef unit = rest.drop_front(len).trim();
  if (unit.empty()) {
    parser.emitError(locAt(rest.drop_front(len)))
        << "expected a unit after " << numberText;
    return {};
  }
  // The unit is checked by QuantityAttr::verify, reported at the unit.
  return QuantityAttr::getChecked([&] { return parser.emitError(locAt(unit)); },
                                  parser.getContext(), value, unit);
}

//===----------------------------------------------------------------------===//
// EndpointAttr
//===----------------------------------------------------------------------===//

/// A name that can be written without quotes in an endpoint.
static bool isBareName(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name.front()) || name.front() == '_'))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

std::string EndpointSegment::str() const {
  std::string out = name.getValue().str();
  if (index)
    out += "[" + std::to_string(*index) + "]";
  return out;
}

LogicalResult EndpointAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayRef<EndpointSegment> segments) {
  // Unreachable from .mlir: parsePath reads at least one name or reports
  // "expected a device or instance name". The check stays for the C++
  // builders (MLIRGen, getFlat), and resolveEndpoint relies on it.
  if (segments.empty())
    return emitError() << "endpoint must name at least one segment";
  for (const EndpointSegment &segment : segments)
    if (!segment.name || segment.name.getValue().empty())
      return emitError() << "endpoint segment names must not be empty";
  return success();
}

EndpointAttr EndpointAttr::getFlat(MLIRContext *context, StringRef path) {
  return get(context, EndpointSegment::get(context, path));
}

std::string EndpointAttr::getPath() const {
  std::string out;
  for (const EndpointSegment &segment : getSegments()) {
    if (!out.empty())
      out += ".";
    out += segment.str();
  }
  return out;
}

/// endpoint ::= segment (`::` segment)*
/// segment  ::= (bare-id | string-literal) (`[` integer `]`)?
FailureOr<EndpointAttr> EndpointAttr::parsePath(AsmParser &parser) {
  llvm::SMLoc start = parser.getCurrentLocation();
  SmallVector<EndpointSegment> segments;
  do {
    llvm::SMLoc loc = parser.getCurrentLocation();
    std::string name;
    if (failed(parser.parseOptionalString(&name))) {
      StringRef keyword;
      if (failed(parser.parseOptionalKeyword(&keyword)))
        return parser.emitError(loc, "expected a device or instance name");
      if (!isBareName(keyword))
        return parser.emitError(loc)
               << "invalid name '" << keyword
               << "' in an endpoint; separate segments with '::'";
      name = keyword.str();
    }
    std::optional<int64_t> index;
    if (succeeded(parser.parseOptionalLSquare())) {
      int64_t value = 0;
      if (parser.parseInteger(value) || parser.parseRSquare())
        return failure();
      index = value;
    }
    segments.push_back(EndpointSegment::get(parser.getContext(), name, index));
    if (failed(parser.parseOptionalColon()))
      break;
    if (parser.parseColon())
      return failure();
  } while (true);
  EndpointAttr attr = getChecked([&] { return parser.emitError(start); },
                                 parser.getContext(), segments);
  if (!attr)
    return failure();
  return attr;
}

void EndpointAttr::printPath(AsmPrinter &printer) const {
  llvm::interleave(
      getSegments(), printer.getStream(),
      [&](const EndpointSegment &segment) {
        StringRef name = segment.name.getValue();
        if (isBareName(name))
          printer.getStream() << name;
        else
          printer.printString(name);
        if (segment.index)
          printer.getStream() << "[" << *segment.index << "]";
      },
      "::");
}

Attribute EndpointAttr::parse(AsmParser &parser, Type type) {
  if (parser.parseLess())
    return {};
  FailureOr<EndpointAttr> attr = parsePath(parser);
  if (failed(attr) || parser.parseGreater())
    return {};
  return *attr;
}

void EndpointAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printPath(printer);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// TopoDialect attribute hooks
//===----------------------------------------------------------------------===//

void TopoDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Topo/IR/TopoAttrs.cpp.inc"
      >();
}

Attribute TopoDialect::parseAttribute(DialectAsmParser &parser,
                                      Type type) const {
  // The full text of a pretty attribute is `mnemonic<body>`; the parser
  // resumes after it whatever tokens the hook consumed.
  StringRef spec = parser.getFullSymbolSpec();
  if (spec.starts_with("q<") && spec.ends_with(">")) {
    if (type) {
      parser.emitError(parser.getNameLoc(), "a quantity has no type");
      return {};
    }
    return parseQuantity(parser, spec.drop_front(2).drop_back());
  }
  StringRef mnemonic;
  Attribute attr;
  OptionalParseResult result =
      generatedAttributeParser(parser, &mnemonic, type, attr);
  if (result.has_value())
    return attr;
  parser.emitError(parser.getNameLoc())
      << "unknown topo attribute '" << mnemonic << "'";
  return {};
}

void TopoDialect::printAttribute(Attribute attr,
                                 DialectAsmPrinter &printer) const {
  if (auto quantity = dyn_cast<QuantityAttr>(attr)) {
    printer << "q<" << quantity.str() << ">";
    return;
  }
  if (succeeded(generatedAttributePrinter(attr, printer)))
    return;
  llvm_unreachable("unknown topo attribute");
}
