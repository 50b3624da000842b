// RUN: sluice-opt %s -split-input-file -verify-diagnostics
// Quotes the box's width message, the ball's height message (not the
// box's), and a depth message without the end of its text.

// expected-error@+1 {{width must be positive, got 0}}
toy.box width 0

// -----

// expected-error@+1 {{height must be positive, got 0}}
toy.ball height 0

// -----

// expected-error@+1 {{depth 11 exceeds the limit}}
toy.box depth 11
