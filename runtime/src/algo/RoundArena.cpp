//===- RoundArena.cpp - A context's memory for its rounds' structures -----===//
//
// RoundArena (see its header): a reserved range advised as huge pages,
// bump allocation in power-of-two classes with a free list per class.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/algo/RoundArena.h"

#include <algorithm>

#include <sys/mman.h>

using sluice::rt::RoundArena;

namespace {

constexpr uint64_t kHugePage = uint64_t(2) << 20;
/// Blocks are placed at multiples of their size up to this.
constexpr uint64_t kPage = 4096;
/// The smallest block: room for a free list's link.
constexpr int kMinClass = 4;

} // namespace

uint64_t RoundArena::reserveFor(uint64_t numVertices) {
  constexpr uint64_t base = uint64_t(64) << 20, perVertex = 64;
  if (numVertices > (UINT64_MAX - base - kHugePage) / perVertex)
    return 0;
  uint64_t bytes = base + numVertices * perVertex;
  return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}

void RoundArena::reserve(uint64_t numVertices) {
  std::lock_guard<std::mutex> lock(mutex);
  if (mapping || used)
    return;
  uint64_t want = reserveFor(numVertices);
  // A range of whole huge pages inside a mapping one huge page longer.
  if (want == 0 || want > SIZE_MAX - kHugePage)
    return;
  const size_t length = size_t(want + kHugePage);
  void *p = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return;
  mapping = p;
  mappingSize = length;
  uintptr_t at = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) &
                 ~uintptr_t(kHugePage - 1);
  base = reinterpret_cast<char *>(at);
  size = want;
  // Advice only: without transparent huge pages the range is plain pages.
  (void)madvise(base, size, MADV_HUGEPAGE);
}

RoundArena::~RoundArena() {
  if (mapping)
    munmap(mapping, mappingSize);
}

uint64_t RoundArena::bytesTaken() const {
  std::lock_guard<std::mutex> lock(mutex);
  return used;
}

int RoundArena::classOf(size_t bytes, size_t align) {
  size_t need = std::max<size_t>({bytes, align, size_t(1) << kMinClass});
  if (need > (size_t(1) << (kClasses - 1)))
    return -1;
  int c = kMinClass;
  while ((size_t(1) << c) < need)
    ++c;
  return c;
}

void *RoundArena::do_allocate(size_t bytes, size_t align) {
  int c = classOf(bytes, align);
  if (c >= 0 && base && align <= kPage) {
    std::lock_guard<std::mutex> lock(mutex);
    if (FreeBlock *block = freeLists[c]) {
      freeLists[c] = block->next;
      return block;
    }
    // A block of class c at a multiple of its size up to a page (so
    // that a freed block of the class suits every alignment up to that
    // which the class can be asked for), when the range has room.
    const uint64_t blockSize = uint64_t(1) << c;
    const uint64_t step = std::min<uint64_t>(blockSize, kPage);
    uint64_t at = (used + step - 1) & ~(step - 1);
    if (at <= size && blockSize <= size - at) {
      used = at + blockSize;
      return base + at;
    }
  }
  return ::operator new(bytes, std::align_val_t(align));
}

void RoundArena::do_deallocate(void *p, size_t bytes, size_t align) {
  if (!owns(p)) {
    ::operator delete(p, bytes, std::align_val_t(align));
    return;
  }
  int c = classOf(bytes, align);
  std::lock_guard<std::mutex> lock(mutex);
  auto *block = static_cast<FreeBlock *>(p);
  block->next = freeLists[c];
  freeLists[c] = block;
}
