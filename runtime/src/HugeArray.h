//===- HugeArray.h - Arrays on transparent huge pages -----------*- C++ -*-===//
//
// What the walk engine's vertex tables (walk/VertexTables.h) and the tiled
// in-edges of algorithms (algo/TiledCsc.h) allocate large arrays with.
// Internal to libsluicert.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_SRC_HUGEARRAY_H
#define SLUICE_RUNTIME_SRC_HUGEARRAY_H

#include <cstdint>
#include <new>
#include <vector>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace sluice::rt {

/// An array of trivially copyable T (zero-filled) in anonymous memory
/// that the kernel is asked to back with transparent huge pages (Linux
/// madvise; elsewhere, or when mmap fails, plain pages): a walk reads
/// one random cell per step, and with 4 KiB pages a table of a few
/// megabytes misses the TLB as often as the cache; a large array written
/// once (tiled in-edges) takes a page fault per 2 MiB, not per 4 KiB.
template <class T> class HugeArray {
public:
  HugeArray() = default;
  HugeArray(const HugeArray &) = delete;
  HugeArray &operator=(const HugeArray &) = delete;
  ~HugeArray() { release(); }

  void resize(uint64_t n) {
    release();
    if (n == 0)
      return;
    if (n > UINT64_MAX / sizeof(T))
      throw std::bad_alloc();
#ifdef __linux__
    constexpr uint64_t kHuge = uint64_t(2) << 20;
    uint64_t bytes = n * sizeof(T);
    if (bytes >= kHuge) {
      uint64_t mapped = (bytes + 2 * kHuge - 1) & ~(kHuge - 1);
      void *p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p != MAP_FAILED) {
        // Start at a 2 MiB boundary, so that every huge page is full.
        uintptr_t a = reinterpret_cast<uintptr_t>(p);
        uintptr_t aligned = (a + kHuge - 1) & ~uintptr_t(kHuge - 1);
        ::madvise(reinterpret_cast<void *>(aligned), mapped - (aligned - a),
                  MADV_HUGEPAGE);
        map_ = p;
        mapped_ = mapped;
        data_ = reinterpret_cast<T *>(aligned);
        size_ = n;
        return; // anonymous memory is zero
      }
    }
#endif
    vector_.assign(n, T{});
    data_ = vector_.data();
    size_ = n;
  }
  T *data() { return data_; }
  const T *data() const { return data_; }
  T &operator[](uint64_t i) { return data_[i]; }
  uint64_t size() const { return size_; }

private:
  void release() {
#ifdef __linux__
    if (map_)
      ::munmap(map_, mapped_);
#endif
    map_ = nullptr;
    mapped_ = 0;
    std::vector<T>().swap(vector_);
    data_ = nullptr;
    size_ = 0;
  }

  void *map_ = nullptr;
  uint64_t mapped_ = 0;
  std::vector<T> vector_;
  T *data_ = nullptr;
  uint64_t size_ = 0;
};

} // namespace sluice::rt

#endif // SLUICE_RUNTIME_SRC_HUGEARRAY_H
