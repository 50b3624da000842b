//===- RoundArena.h - A context's memory for its rounds ---------*- C++ -*-===//
//
// The bucket queue of a `frontier: buckets` loop, its buckets and the
// frontiers' lists and bitmaps are allocated and grown round after round;
// on the first run of a process each fresh 4 KiB page costs a fault
// (11-22 us on the bench's VM: ~430 of them, ~5 ms, in SSSP's first run on
// soc-Slashdot0902, bench/RESULTS.md). A RoundArena is one address range
// per context, reserved (not committed) up front and advised as
// transparent huge pages (madvise(MADV_HUGEPAGE)), so the first touches
// fault in 2 MiB at a time. It is a std::pmr::memory_resource:
// power-of-two size classes, a block freed goes to its class's free list
// for the next allocation of that class (a growing vector's old buffer
// serves the next vector that grows to it), one mutex (allocations are
// rare: vectors grow geometrically and buffers are reused). Past the
// range, or where the range could not be mapped, blocks come from
// operator new. The mapping is unmapped when the arena goes (with its
// context).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_ALGO_ROUNDARENA_H
#define SLUICE_RUNTIME_SRC_ALGO_ROUNDARENA_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <new>
#include <type_traits>

namespace sluice::rt {

class RoundArena final : public std::pmr::memory_resource {
public:
  /// An arena of no range yet: blocks come from operator new until
  /// reserve().
  RoundArena() = default;
  ~RoundArena() override;
  /// Reserves room for the round structures of a graph of `numVertices`
  /// vertices (address space only: pages are committed when touched);
  /// once, before the first allocation. Without it (or when the mapping
  /// fails) every block comes from operator new.
  void reserve(uint64_t numVertices);
  RoundArena(const RoundArena &) = delete;
  RoundArena &operator=(const RoundArena &) = delete;

  /// The bytes reserved for a graph of `numVertices` vertices: 64 MiB and
  /// 64 bytes a vertex (lists, bitmaps, slots and buckets with their
  /// stale entries), in whole 2 MiB pages; 0 when that overflows.
  static uint64_t reserveFor(uint64_t numVertices);
  /// The bytes of the range taken so far (blocks handed out or freed to
  /// their class), and whether the range was mapped.
  uint64_t bytesTaken() const;
  bool mapped() const { return base != nullptr; }

private:
  void *do_allocate(size_t bytes, size_t align) override;
  void do_deallocate(void *p, size_t bytes, size_t align) override;
  bool do_is_equal(const memory_resource &other) const noexcept override {
    return this == &other;
  }
  /// The class of a block of `bytes` (its size 2^class), or -1 when the
  /// size is too large for any class.
  static int classOf(size_t bytes, size_t align);
  bool owns(const void *p) const {
    return base && static_cast<const char *>(p) >= base &&
           static_cast<const char *>(p) < base + size;
  }

  static constexpr int kClasses = 48;
  /// A freed block, linked into its class's list.
  struct FreeBlock {
    FreeBlock *next;
  };

  mutable std::mutex mutex;
  /// The whole mapping (unmapped at the end) and its 2 MiB aligned part.
  void *mapping = nullptr;
  size_t mappingSize = 0;
  char *base = nullptr;
  uint64_t size = 0;
  uint64_t used = 0;
  FreeBlock *freeLists[kClasses] = {};
};

/// Deletes an array of trivially destructible `T` that `allocateArray`
/// took from an arena.
template <typename T> struct ArenaArrayDelete {
  std::pmr::memory_resource *memory = nullptr;
  size_t count = 0;
  void operator()(T *p) const {
    if (p)
      memory->deallocate(p, count * sizeof(T), alignof(T));
  }
};
template <typename T>
using ArenaArray = std::unique_ptr<T[], ArenaArrayDelete<T>>;

/// `count` (at least one) default-initialised `T` from `memory` (their
/// bytes as the arena had them: the caller writes them).
template <typename T>
ArenaArray<T> allocateArray(std::pmr::memory_resource *memory, size_t count) {
  static_assert(std::is_trivially_destructible_v<T>,
                "arena arrays are freed without destructors");
  if (count == 0)
    count = 1;
  if (count > SIZE_MAX / sizeof(T))
    throw std::bad_alloc();
  T *p = static_cast<T *>(memory->allocate(count * sizeof(T), alignof(T)));
  std::uninitialized_default_construct_n(p, count);
  return ArenaArray<T>(p, ArenaArrayDelete<T>{memory, count});
}

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_ALGO_ROUNDARENA_H
