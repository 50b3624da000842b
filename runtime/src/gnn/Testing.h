//===- Testing.h - Hooks for tests of GNN training's error paths -*- C++ -*-===//
//
// Tests reach the feature store that sluice_gnn_train opens (to arm an I/O
// fault in its engine) through an observer called right after the store
// opens. Not part of the C API; null (the default) does nothing.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_GNN_TESTING_H
#define SLUICE_RUNTIME_SRC_GNN_TESTING_H

namespace sluice::rt::features {
class FeatureStore;
}

namespace sluice::rt::gnn {

using StoreObserver = void (*)(features::FeatureStore &store);
/// Sets the observer (null: none); returns the previous one.
StoreObserver setStoreObserverForTesting(StoreObserver observer);

} // namespace sluice::rt::gnn

#endif // SLUICE_RUNTIME_SRC_GNN_TESTING_H
