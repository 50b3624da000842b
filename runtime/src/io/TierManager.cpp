//===- TierManager.cpp - Tensors in memory tiers, swapped to disk ---------===//
//
// See sluice/tier.h for the contract and docs/offload-runtime.md for the
// design. Each tensor has at most one operation in flight (an Op: a batch of
// two requests, header and payload); operations are completed ("settled")
// by wait, by a call that needs their memory, or by commit.
//
//===----------------------------------------------------------------------===//
#include "runtime/src/io/TierManagerState.h"

#include "runtime/src/AtomicFile.h"
#include "runtime/src/StaleTemporaries.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>

using namespace sluice::rt;
using namespace sluice::rt::tier;

//===--- C API -------------------------------------------------------------===//

extern "C" void sluice_tier_options_init(sluice_tier_options_t *options) {
  if (!options)
    return;
  options->swap_dir = nullptr;
  options->engine = nullptr;
  options->device_budget = 0;
  options->host_budget = UINT64_MAX;
  options->direct = 1;
  options->durable = 1;
  options->device_cuda = 0;
  options->cuda_ordinal = 0;
}

static sluice_status_t makeManager(const sluice_tier_options_t *options,
                                   std::unique_ptr<sluice_tier_manager_t> &m,
                                   sluice_error_t *error) {
  if (!options->swap_dir || !options->engine)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "the tier manager needs a swap directory and an i/o engine");
  struct stat st;
  if (::stat(options->swap_dir, &st) != 0)
    return failErrno(error, errno, options->swap_dir,
                     "cannot use the swap directory");
  if (!S_ISDIR(st.st_mode))
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {options->swap_dir},
                "the swap directory is not a directory");
  m = std::make_unique<sluice_tier_manager_t>();
  m->options = *options;
  m->dir = options->swap_dir;
  while (m->dir.size() > 1 && m->dir.back() == '/')
    m->dir.pop_back();
  m->options.swap_dir = nullptr; // not kept: the caller's string
  m->budget[SLUICE_TIER_DEVICE] = options->device_budget;
  m->budget[SLUICE_TIER_HOST] = options->host_budget;
  // Swap-file temporaries of killed runs (hundreds of MB each).
  removeStaleTemporaries(m->dir, swapTemporaryOwner);
  if (options->device_cuda)
    return sluice::rt::DeviceMemory::open(options->cuda_ordinal, m->gpu,
                                          error);
  return SLUICE_STATUS_OK;
}

extern "C" sluice_status_t
sluice_tier_manager_create(const sluice_tier_options_t *options,
                           sluice_tier_manager_t **out_manager,
                           sluice_error_t *error) {
  if (!options || !out_manager)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_manager_create: NULL argument");
  return guarded(error, "", [&]() -> sluice_status_t {
    std::unique_ptr<sluice_tier_manager_t> m;
    sluice_status_t status = makeManager(options, m, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    *out_manager = m.release();
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" sluice_status_t
sluice_tier_manager_open(const sluice_tier_options_t *options,
                         const char *manifest_path,
                         sluice_tier_manager_t **out_manager,
                         sluice_error_t *error) {
  if (!options || !manifest_path || !out_manager)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_manager_open: NULL argument");
  return guarded(error, manifest_path, [&]() -> sluice_status_t {
    std::unique_ptr<sluice_tier_manager_t> m;
    sluice_status_t status = makeManager(options, m, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    std::ifstream in(manifest_path);
    if (!in)
      return failErrno(error, errno ? errno : ENOENT, manifest_path,
                       "cannot open the manifest");
    std::string line;
    uint64_t lineNo = 1;
    if (!std::getline(in, line) || line != "sluice-tier-manifest 1")
      return fail(error, SLUICE_STATUS_PARSE_ERROR, {manifest_path, 1, 1},
                  "expected 'sluice-tier-manifest 1'");
    std::set<std::string> keep;
    while (std::getline(in, line)) {
      ++lineNo;
      if (line.empty())
        continue;
      std::istringstream fields(line);
      Tensor t;
      std::string home, crc;
      std::string rest;
      bool parsed = static_cast<bool>(fields >> t.name >> t.bytes >> home >>
                                      t.generation >> crc) &&
                    !(fields >> rest);
      bool hexCrc = crc.size() == 8 &&
                    crc.find_first_not_of("0123456789abcdefABCDEF") ==
                        std::string::npos;
      if (!parsed || !hexCrc || !validName(t.name.c_str()) ||
          (home != "device" && home != "host") || m->byName.count(t.name) ||
          t.bytes == 0 || t.bytes > (uint64_t(1) << 40))
        return fail(error, SLUICE_STATUS_PARSE_ERROR,
                    {manifest_path, lineNo, 1},
                    "expected '<name> <bytes> device|host <generation> "
                    "<crc32c as 8 hex digits>' with a new name, got " +
                        quote(line));
      t.home = home == "device" ? SLUICE_TIER_DEVICE : SLUICE_TIER_HOST;
      t.crc = static_cast<uint32_t>(std::stoul(crc, nullptr, 16));
      t.padded = (t.bytes + 4095) / 4096 * 4096;
      t.flags = SLUICE_TIER_PERSISTENT;
      t.state = SLUICE_TENSOR_ON_DISK;
      t.dirty = false;
      t.hasCopy = true;
      t.committed = true;
      t.committedGeneration = t.generation;
      t.nextGeneration = t.generation + 1;
      t.copyPath = m->copyPath(t, t.generation);
      // The copy must exist, with a header that matches the manifest and
      // a payload with the CRC it records: a restore that succeeds leaves
      // a committed state that is whole, not one that fails when read.
      status = m->verifyCommittedCopy(t, error);
      if (status != SLUICE_STATUS_OK)
        return status;
      keep.insert(t.copyPath);
      m->byName[t.name] = static_cast<uint32_t>(m->tensors.size());
      m->tensors.push_back(std::move(t));
    }
    // Remove copies and temporaries the manifest does not name.
    if (DIR *d = ::opendir(m->dir.c_str())) {
      while (dirent *e = ::readdir(d)) {
        std::string name = e->d_name;
        auto endsWith = [&](const char *suffix) {
          size_t n = std::strlen(suffix);
          return name.size() > n &&
                 name.compare(name.size() - n, n, suffix) == 0;
        };
        std::string path = m->dir + "/" + name;
        // ".swap.tmp": a temporary named before they carried the pid.
        if ((endsWith(".swap") || endsWith(".swap.tmp")) && !keep.count(path))
          ::unlink(path.c_str());
      }
      ::closedir(d);
    }
    *out_manager = m.release();
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" void sluice_tier_manager_destroy(sluice_tier_manager_t *m) {
  if (!m)
    return;
  for (uint32_t i = 0; i < m->tensors.size(); ++i) {
    sluice_error_t ignored;
    m->settle(i, &ignored);
    Tensor &t = m->tensors[i];
    if (t.hasCopy && !(t.committed && t.generation == t.committedGeneration))
      ::unlink(t.copyPath.c_str());
  }
  delete m;
}

extern "C" sluice_status_t
sluice_tier_tensor_create(sluice_tier_manager_t *m, const char *name,
                          uint64_t bytes, sluice_tier_t home, uint32_t flags,
                          sluice_tensor_t *out_tensor, sluice_error_t *error) {
  if (!m || !name || !out_tensor)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_tensor_create: NULL argument");
  return guarded(error, "", [&]() -> sluice_status_t {
    if (!validName(name))
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "tensor name " + quote(name) +
                      " is not 1-200 characters of [A-Za-z0-9_.-] (not "
                      "starting with '.')");
    if (m->byName.count(name))
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "a tensor named " + quote(name) + " already exists");
    int64_t tier = enumValue(home);
    if (tier != SLUICE_TIER_DEVICE && tier != SLUICE_TIER_HOST)
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "tensor " + quote(name) +
                      ": the home tier must be device or host");
    if (flags & ~uint32_t(SLUICE_TIER_PERSISTENT))
      return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                  "unknown tensor flags " + hex(flags));
    if (bytes == 0 || bytes > (uint64_t(1) << 40))
      return fail(error, SLUICE_STATUS_OUT_OF_RANGE, {},
                  "tensor " + quote(name) + ": size " +
                      std::to_string(bytes) + " is outside 1..2^40 bytes");
    Tensor t;
    t.name = name;
    t.bytes = bytes;
    t.padded = (bytes + 4095) / 4096 * 4096;
    t.home = home;
    t.flags = flags;
    sluice_status_t status = m->reserve(t, error);
    if (status != SLUICE_STATUS_OK)
      return status;
    t.data = m->takeBuffer(t.padded, true);
    if (!t.data) {
      m->account(home, -static_cast<int64_t>(t.padded));
      return failOutOfMemory(error, name);
    }
    t.state = SLUICE_TENSOR_RESIDENT;
    *out_tensor = static_cast<sluice_tensor_t>(m->tensors.size());
    m->byName[t.name] = *out_tensor;
    m->tensors.push_back(std::move(t));
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" sluice_status_t
sluice_tier_tensor_find(const sluice_tier_manager_t *m, const char *name,
                        sluice_tensor_t *out_tensor, sluice_error_t *error) {
  if (!m || !name || !out_tensor)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_tensor_find: NULL argument");
  auto it = m->byName.find(name);
  if (it == m->byName.end())
    return fail(error, SLUICE_STATUS_NOT_FOUND, {},
                "no tensor named " + quote(name));
  *out_tensor = it->second;
  sluice_error_clear(error);
  return SLUICE_STATUS_OK;
}

extern "C" uint32_t sluice_tier_tensor_count(const sluice_tier_manager_t *m) {
  return m ? static_cast<uint32_t>(m->tensors.size()) : 0;
}

#define SLUICE_TENSOR_OR(m, id, fallback)                                      \
  if (!(m) || (id) >= (m)->tensors.size())                                     \
    return fallback;                                                           \
  const Tensor &t = (m)->tensors[id];

extern "C" const char *sluice_tier_tensor_name(const sluice_tier_manager_t *m,
                                               sluice_tensor_t id) {
  SLUICE_TENSOR_OR(m, id, "")
  return t.name.c_str();
}

extern "C" uint64_t sluice_tier_tensor_bytes(const sluice_tier_manager_t *m,
                                             sluice_tensor_t id) {
  SLUICE_TENSOR_OR(m, id, 0)
  return t.bytes;
}

extern "C" sluice_tensor_state_t
sluice_tier_tensor_state(const sluice_tier_manager_t *m, sluice_tensor_t id) {
  SLUICE_TENSOR_OR(m, id, SLUICE_TENSOR_EMPTY)
  return t.state;
}

extern "C" const void *sluice_tier_tensor_read(const sluice_tier_manager_t *m,
                                               sluice_tensor_t id) {
  SLUICE_TENSOR_OR(m, id, nullptr)
  if (t.state == SLUICE_TENSOR_RESIDENT ||
      t.state == SLUICE_TENSOR_SWAPPING_OUT) {
    // A CUDA device tensor: its host view (a copy from the GPU).
    auto *mm = const_cast<sluice_tier_manager_t *>(m);
    if (mm->unpark(mm->tensors[id], nullptr) != SLUICE_STATUS_OK)
      return nullptr;
    return t.data.get();
  }
  return nullptr;
}

extern "C" void *sluice_tier_tensor_write(sluice_tier_manager_t *m,
                                          sluice_tensor_t id) {
  if (!m || id >= m->tensors.size())
    return nullptr;
  Tensor &t = m->tensors[id];
  if (t.state != SLUICE_TENSOR_RESIDENT)
    return nullptr;
  if (m->unpark(t, nullptr) != SLUICE_STATUS_OK)
    return nullptr;
  t.dirty = true;
  t.viewDirty = true;
  return t.data.get();
}

extern "C" uint32_t sluice_tier_tensor_disk_crc(const sluice_tier_manager_t *m,
                                                sluice_tensor_t id,
                                                int *has_copy) {
  if (has_copy)
    *has_copy = 0;
  SLUICE_TENSOR_OR(m, id, 0)
  if (has_copy)
    *has_copy = t.hasCopy;
  return t.hasCopy ? t.crc : 0;
}

extern "C" const char *
sluice_tier_tensor_disk_path(const sluice_tier_manager_t *m,
                             sluice_tensor_t id) {
  SLUICE_TENSOR_OR(m, id, "")
  return t.hasCopy ? t.copyPath.c_str() : "";
}

/// The frame every batch call shares: a NULL-manager check, the exception
/// guard, reaping finished I/O and validating `ids` (`action` names the call
/// in that error), then `body()`.
template <typename Body>
static sluice_status_t batchCall(sluice_tier_manager_t *m,
                                 const sluice_tensor_t *ids, size_t count,
                                 sluice_error_t *error, const char *function,
                                 const char *action, Body body) {
  if (!m)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                std::string(function) + ": NULL manager");
  return guarded(error, "", [&]() -> sluice_status_t {
    m->reap();
    sluice_status_t status = m->checkIds(ids, count, error, action);
    if (status != SLUICE_STATUS_OK)
      return status;
    return body();
  });
}

/// batchCall() whose body runs `step(id, tensor)` on each tensor in order,
/// stopping at the first failure; on success it clears `error`.
template <typename Step>
static sluice_status_t forEachTensor(sluice_tier_manager_t *m,
                                     const sluice_tensor_t *ids, size_t count,
                                     sluice_error_t *error,
                                     const char *function, const char *action,
                                     Step step) {
  return batchCall(m, ids, count, error, function, action,
                   [&]() -> sluice_status_t {
                     for (size_t i = 0; i < count; ++i) {
                       sluice_status_t status =
                           step(ids[i], m->tensors[ids[i]]);
                       if (status != SLUICE_STATUS_OK)
                         return status;
                     }
                     sluice_error_clear(error);
                     return SLUICE_STATUS_OK;
                   });
}

extern "C" sluice_status_t sluice_tier_swap_out(sluice_tier_manager_t *m,
                                                const sluice_tensor_t *ids,
                                                size_t count,
                                                sluice_error_t *error) {
  return forEachTensor(
      m, ids, count, error, "sluice_tier_swap_out", "swap out",
      [&](sluice_tensor_t id, Tensor &t) -> sluice_status_t {
        sluice_status_t status = m->takeDeferred(t, error);
        if (status != SLUICE_STATUS_OK)
          return status;
        if (t.state == SLUICE_TENSOR_SWAPPING_IN) {
          status = m->settle(id, error);
          if (status != SLUICE_STATUS_OK)
            return status;
        }
        if (t.state == SLUICE_TENSOR_SWAPPING_OUT) {
          t.op->keepResident = false;
          return SLUICE_STATUS_OK;
        }
        if (t.state != SLUICE_TENSOR_RESIDENT)
          return SLUICE_STATUS_OK; // already out, or empty
        if (!t.dirty && t.hasCopy) {
          m->giveBuffer(std::move(t.data), t.padded);
          m->dropDevice(t);
          m->account(t.home, -static_cast<int64_t>(t.padded));
          t.state = SLUICE_TENSOR_ON_DISK;
          ++m->stats.swap_outs_clean;
          return SLUICE_STATUS_OK;
        }
        return m->startWrite(id, error);
      });
}

extern "C" sluice_status_t sluice_tier_prefetch(sluice_tier_manager_t *m,
                                                const sluice_tensor_t *ids,
                                                size_t count,
                                                sluice_error_t *error) {
  return forEachTensor(
      m, ids, count, error, "sluice_tier_prefetch", "prefetch",
      [&](sluice_tensor_t id, Tensor &t) -> sluice_status_t {
        sluice_status_t status = m->takeDeferred(t, error);
        if (status != SLUICE_STATUS_OK)
          return status;
        switch (t.state) {
        case SLUICE_TENSOR_RESIDENT:
        case SLUICE_TENSOR_SWAPPING_IN:
          break;
        case SLUICE_TENSOR_SWAPPING_OUT:
          if (!t.op->keepResident)
            m->stats.tier_bytes_reused[t.home] += t.bytes;
          t.op->keepResident = true;
          break;
        case SLUICE_TENSOR_EMPTY:
          status = m->reserve(t, error);
          if (status != SLUICE_STATUS_OK)
            return status;
          t.data = m->takeBuffer(t.padded, true);
          if (!t.data) {
            m->account(t.home, -static_cast<int64_t>(t.padded));
            return failOutOfMemory(error, t.name);
          }
          t.state = SLUICE_TENSOR_RESIDENT;
          t.dirty = true;
          break;
        case SLUICE_TENSOR_ON_DISK:
          return m->startRead(id, error);
        }
        return SLUICE_STATUS_OK;
      });
}

extern "C" sluice_status_t sluice_tier_park(sluice_tier_manager_t *m,
                                            const sluice_tensor_t *ids,
                                            size_t count,
                                            sluice_error_t *error) {
  return forEachTensor(m, ids, count, error, "sluice_tier_park", "park",
                       [&](sluice_tensor_t, Tensor &t) -> sluice_status_t {
                         return m->park(t, error);
                       });
}

extern "C" sluice_status_t sluice_tier_view(sluice_tier_manager_t *m,
                                            const sluice_tensor_t *ids,
                                            size_t count,
                                            sluice_error_t *error) {
  return forEachTensor(m, ids, count, error, "sluice_tier_view", "view",
                       [&](sluice_tensor_t, Tensor &t) -> sluice_status_t {
                         if (t.state != SLUICE_TENSOR_RESIDENT &&
                             t.state != SLUICE_TENSOR_SWAPPING_OUT)
                           return SLUICE_STATUS_OK;
                         return m->unpark(t, error);
                       });
}

extern "C" sluice_status_t sluice_tier_discard(sluice_tier_manager_t *m,
                                               const sluice_tensor_t *ids,
                                               size_t count,
                                               sluice_error_t *error) {
  return forEachTensor(
      m, ids, count, error, "sluice_tier_discard", "discard",
      [&](sluice_tensor_t id, Tensor &t) -> sluice_status_t {
        sluice_error_t ignored; // its outcome no longer matters
        m->settle(id, &ignored);
        m->takeDeferred(t, &ignored);
        if (t.data || t.dev) {
          m->giveBuffer(std::move(t.data), t.padded);
          m->dropDevice(t);
          m->account(t.home, -static_cast<int64_t>(t.padded));
        }
        if (t.hasCopy)
          m->dropCopy(t, t.generation);
        t.hasCopy = false;
        t.copyPath.clear();
        t.dirty = true;
        t.state = SLUICE_TENSOR_EMPTY;
        return SLUICE_STATUS_OK;
      });
}

extern "C" sluice_status_t sluice_tier_wait(sluice_tier_manager_t *m,
                                            const sluice_tensor_t *ids,
                                            size_t count,
                                            sluice_error_t *error) {
  return batchCall(
      m, ids, count, error, "sluice_tier_wait", "wait",
      [&]() -> sluice_status_t {
        sluice_status_t first = SLUICE_STATUS_OK;
        for (size_t i = 0; i < count; ++i) {
          sluice_error_t local;
          sluice_status_t s = m->settle(ids[i], &local);
          if (s != SLUICE_STATUS_OK && first == SLUICE_STATUS_OK) {
            first = s;
            if (error)
              *error = local;
          }
        }
        if (first == SLUICE_STATUS_OK)
          sluice_error_clear(error);
        return first;
      });
}

extern "C" sluice_status_t sluice_tier_wait_all(sluice_tier_manager_t *m,
                                                sluice_error_t *error) {
  if (!m)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_wait_all: NULL manager");
  std::vector<sluice_tensor_t> all(m->tensors.size());
  for (uint32_t i = 0; i < all.size(); ++i)
    all[i] = i;
  sluice_status_t status = sluice_tier_wait(m, all.data(), all.size(), error);
  m->janitor.drain();
  return status;
}

extern "C" sluice_status_t sluice_tier_commit(sluice_tier_manager_t *m,
                                              const char *manifest_path,
                                              sluice_error_t *error) {
  if (!m || !manifest_path)
    return fail(error, SLUICE_STATUS_INVALID_ARGUMENT, {},
                "sluice_tier_commit: NULL argument");
  sluice_status_t status = sluice_tier_wait_all(m, error);
  if (status != SLUICE_STATUS_OK)
    return status;
  return guarded(error, manifest_path, [&]() -> sluice_status_t {
    std::string text = "sluice-tier-manifest 1\n";
    for (const Tensor &t : m->tensors) {
      if (!t.persistent())
        continue;
      if (!t.hasCopy || (t.state == SLUICE_TENSOR_RESIDENT && t.dirty))
        return fail(error, SLUICE_STATUS_FAILED_PRECONDITION, {manifest_path},
                    "persistent tensor '" + t.name +
                        "' has no current disk copy; swap it out before "
                        "committing");
      char crc[16];
      std::snprintf(crc, sizeof(crc), "%08" PRIx32, t.crc);
      text += t.name + " " + std::to_string(t.bytes) + " " +
              tierName(t.home) + " " + std::to_string(t.generation) + " " +
              crc + "\n";
    }
    // The swap files' data is on disk (RWF_DSYNC); make their names
    // durable before the manifest that points at them. A failure here
    // changes nothing: the previous manifest and its copies stay.
    if (m->options.durable) {
      sluice_status_t s = m->syncDirectory(error);
      if (s != SLUICE_STATUS_OK)
        return s;
    }
    AtomicFile file;
    sluice_status_t s = file.open(manifest_path, error);
    if (s == SLUICE_STATUS_OK)
      s = file.write(text.data(), text.size(), error);
    if (s == SLUICE_STATUS_OK)
      s = file.commit(error);
    if (s != SLUICE_STATUS_OK && !file.renamed())
      return s; // the previous manifest is in place
    // The new manifest is in place. Unless it is durable, a crash may bring
    // back the previous one, so the copies that one names stay too.
    const bool durable = s == SLUICE_STATUS_OK;
    m->manifestUnconfirmed = !durable;
    if (durable) {
      for (const std::string &path : m->unconfirmed)
        m->janitor.unlink(path);
      m->unconfirmed.clear();
    }
    for (Tensor &t : m->tensors) {
      if (!t.persistent())
        continue;
      if (t.committed && t.committedGeneration != t.generation) {
        std::string previous = m->copyPath(t, t.committedGeneration);
        if (durable)
          m->janitor.unlink(std::move(previous));
        else
          m->unconfirmed.push_back(std::move(previous));
      }
      t.committed = true;
      t.committedGeneration = t.generation;
    }
    if (!durable)
      return s;
    sluice_error_clear(error);
    return SLUICE_STATUS_OK;
  });
}

extern "C" int sluice_tier_commit_unconfirmed(const sluice_tier_manager_t *m) {
  return m && m->manifestUnconfirmed ? 1 : 0;
}

extern "C" void sluice_tier_stats(const sluice_tier_manager_t *m,
                                  sluice_tier_stats_t *out) {
  if (!m || !out)
    return;
  *out = m->stats;
  if (m->gpu) {
    out->gpu_allocated = m->gpu->allocated();
    out->gpu_peak = m->gpu->peak();
    out->gpu_bytes_h2d = m->gpu->uploaded();
    out->gpu_bytes_d2h = m->gpu->downloaded();
  }
  out->device_used = m->used[SLUICE_TIER_DEVICE];
  out->device_peak = m->peak[SLUICE_TIER_DEVICE];
  out->host_used = m->used[SLUICE_TIER_HOST];
  out->host_peak = m->peak[SLUICE_TIER_HOST];
}
