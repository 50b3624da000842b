//===- Bindings.h - Parts of the sluice._sluice extension -------*- C++ -*-===//
#ifndef SLUICE_PYTHON_BINDINGS_H
#define SLUICE_PYTHON_BINDINGS_H

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace sluice::python {

/// sluice._sluice.Graph and sluice._sluice.Error (GraphBindings.cpp).
void bindGraphs(pybind11::module_ &m);

} // namespace sluice::python

#endif // SLUICE_PYTHON_BINDINGS_H
