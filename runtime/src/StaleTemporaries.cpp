//===- StaleTemporaries.cpp - Temporaries left by killed processes --------===//
#include "runtime/src/StaleTemporaries.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace sluice::rt;

bool sluice::rt::parsePid(std::string_view digits, pid_t &pid) {
  if (digits.empty() || digits.size() > 10 || digits[0] == '0')
    return false;
  int64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9')
      return false;
    value = value * 10 + (c - '0');
  }
  if (value > INT32_MAX)
    return false;
  pid = static_cast<pid_t>(value);
  return true;
}

pid_t sluice::rt::atomicTemporaryOwner(std::string_view name,
                                       std::string_view base) {
  // "." base ".tmp-" pid "-" n
  const std::string_view tag = ".tmp-";
  if (name.size() < 1 + base.size() + tag.size() || name[0] != '.' ||
      name.substr(1, base.size()) != base ||
      name.substr(1 + base.size(), tag.size()) != tag)
    return 0;
  std::string_view rest = name.substr(1 + base.size() + tag.size());
  size_t dash = rest.find('-');
  if (dash == std::string_view::npos)
    return 0;
  std::string_view serial = rest.substr(dash + 1);
  if (serial.empty() ||
      serial.find_first_not_of("0123456789") != std::string_view::npos)
    return 0;
  pid_t pid = 0;
  return parsePid(rest.substr(0, dash), pid) ? pid : 0;
}

bool sluice::rt::processIsGone(pid_t pid) {
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

uint64_t sluice::rt::removeStaleTemporaries(
    const std::string &dir,
    const std::function<pid_t(std::string_view)> &ownerOf) {
  std::vector<std::string> stale;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name.empty() || name[0] != '.')
        continue;
      pid_t pid = ownerOf(name);
      if (pid > 0 && pid != ::getpid() && processIsGone(pid))
        stale.emplace_back(name);
    }
    ::closedir(d);
  }
  uint64_t removed = 0;
  for (const std::string &name : stale) {
    // Regular files only: never a link (whatever it points to) or a
    // directory that happens to have such a name.
    const std::string path = dir + "/" + name;
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::unlink(path.c_str()) == 0)
      ++removed;
  }
  return removed;
}
