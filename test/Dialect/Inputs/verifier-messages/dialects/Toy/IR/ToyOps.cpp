// A verifier for check-verifier-messages.py to audit (verifier-messages.test).
LogicalResult BoxOp::verify() {
  if (getWidth() <= 0)
    return emitOpError() << "width must be positive, got " << getWidth();
  if (getHeight() <= 0)
    return emitOpError() << "height must be positive, got " << getHeight();
  if (getDepth() > 10)
    return emitOpError() << "depth " << getDepth()
                         << " exceeds the limit of "
                            "10";
  // Unreachable from .mlir: the parser rejects a negative count first.
  if (getCount() < 0)
    return emitOpError() << "count must be non-negative";
  if (getCount() > 5)
    return emitOpError() << "count must be at most 5";
  return emitOpError() << getMessage();
}

LogicalResult BallOp::verify() {
  return emitOpError() << "height must be positive, got " << getHeight();
}

// A diagnostic factory: its text is the verify function's, not a message.
Attribute ShapeAttr::parse(AsmParser &parser, Type type) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), parseSides(parser));
}
