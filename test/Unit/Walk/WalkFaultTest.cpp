//===- WalkFaultTest.cpp - Kernel faults: reported, not fatal -------------===//
//
// A kernel function that indexes a list out of range (through
// sluice_kernel_list_get, as compiled kernels do) records a fault in the
// frame; sluice_walk_run stops every thread and returns OUT_OF_RANGE with a
// message naming the walk, walker, step, vertex and index, for every
// sampler and thread count, and the writer's output never appears.
//
//===----------------------------------------------------------------------===//
#include "WalkTestUtil.h"

#include "sluice/walk_support.h"

#include <dirent.h>
#include <cstring>

using namespace sluice::walktest;

namespace {

/// The list parameter (slot 0) of the kernels below.
const sluice_walk_list_t *listParam(const sluice_walk_frame_t *f) {
  const sluice_walk_list_t *list;
  std::memcpy(&list, f->params, sizeof(list));
  return list;
}

/// weight = w * xs[step]: xs has 3 elements, so step 3 faults.
double stepIndexedWeight(const sluice_walk_frame_t *f, uint32_t, uint64_t,
                         double w) {
  return w * double(sluice_kernel_list_get(f, listParam(f), f->step));
}
double boundOne(const sluice_walk_frame_t *) { return 1.0; }
/// An upper bound that reads xs[-1].
double badBound(const sluice_walk_frame_t *f) {
  return double(sluice_kernel_list_get(f, listParam(f), -1));
}

sluice_walk_kernel_t faultyKernel() {
  sluice_walk_kernel_t k;
  std::memset(&k, 0, sizeof(k));
  k.abi_version = SLUICE_WALK_ABI_VERSION;
  k.name = "faulty";
  k.weight_class = SLUICE_WALK_WEIGHT_DYNAMIC;
  k.flags = SLUICE_WALK_MAY_BE_ZERO;
  k.num_params = 1;
  k.weight = stepIndexedWeight;
  k.upper_bound = boundOne;
  return k;
}

/// Directed ring with chords (no sinks), as in WalkEngineTest.
GraphPtr ring(uint32_t n) {
  std::vector<std::pair<uint32_t, uint32_t>> e;
  for (uint32_t v = 0; v < n; ++v) {
    e.push_back({v, (v + 1) % n});
    e.push_back({v, (v + 3) % n});
  }
  return makeGraph(n, e);
}

/// Entries of a folder other than "." and "..".
int entries(const std::string &dir) {
  int n = 0;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
        ++n;
    closedir(d);
  }
  return n;
}

struct Outcome {
  sluice_status_t status;
  std::string message;
  int filesLeft;
};

/// One run into `format` in a fresh folder, then release the writer as a
/// caller does on error; how many files the folder still holds.
Outcome runInto(const sluice_graph_t *g, const sluice_walk_kernel_t &k,
                const void *params, const sluice_walk_options_t &o,
                sluice_walk_format_t format) {
  TempFile file(format == SLUICE_WALK_FORMAT_TEXT ? ".walks" : ".npy");
  std::string dir = file.path().substr(0, file.path().rfind('/'));
  sluice_walk_writer_t *writer = nullptr;
  sluice_error_t error;
  Outcome out{};
  out.status = sluice_walk_writer_open(file.path().c_str(), format,
                                       o.max_length, 0, g, &writer, &error);
  if (out.status != SLUICE_STATUS_OK) {
    out.message = error.message;
    return out;
  }
  out.status = sluice_walk_run(g, &k, params, &o, writer, nullptr, &error);
  if (out.status != SLUICE_STATUS_OK)
    out.message = error.message;
  sluice_walk_writer_release(writer);
  out.filesLeft = entries(dir);
  return out;
}

TEST(WalkFault, ListIndexOutOfRangeIsReportedForEverySampler) {
  // 20 000 walkers: several chunks, so that threads are stopped mid-run.
  GraphPtr g = ring(20000);
  int64_t data[3] = {1, 1, 1};
  sluice_walk_list_t xs = {data, 3};
  const sluice_walk_list_t *slot = &xs;
  sluice_walk_kernel_t k = faultyKernel();
  for (sluice_walk_sampler_t sampler :
       {SLUICE_WALK_SAMPLER_REJECTION, SLUICE_WALK_SAMPLER_RESERVOIR,
        SLUICE_WALK_SAMPLER_AUTO}) {
    for (uint32_t threads : {1u, 4u}) {
      sluice_walk_options_t o = testOptions();
      o.max_length = 10;
      o.sampler = sampler;
      o.threads = threads;
      for (sluice_walk_format_t format :
           {SLUICE_WALK_FORMAT_TEXT, SLUICE_WALK_FORMAT_NPY_INT32}) {
        Outcome r = runInto(g.get(), k, &slot, o, format);
        SCOPED_TRACE("sampler " + std::to_string(int(sampler)) + ", " +
                     std::to_string(threads) + " threads");
        EXPECT_EQ(r.status, SLUICE_STATUS_OUT_OF_RANGE) << r.message;
        EXPECT_NE(r.message.find("walk 'faulty': walker "), std::string::npos)
            << r.message;
        EXPECT_NE(r.message.find(" at step 3, vertex "), std::string::npos)
            << r.message;
        EXPECT_NE(r.message.find(": list index 3 out of range (the list has "
                                 "3 elements)"),
                  std::string::npos)
            << r.message;
        if (threads == 1) {
          EXPECT_EQ(r.message.rfind("walk 'faulty': walker 0 (start vertex "
                                    "0) at step 3, vertex ",
                                    0),
                    0u)
              << r.message;
        }
        EXPECT_EQ(r.filesLeft, 0) << "the writer left a file behind";
      }
    }
  }
  // A list long enough: the same kernel runs to the end.
  int64_t longer[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  xs = {longer, 10};
  sluice_walk_options_t o = testOptions();
  o.max_length = 10;
  Walks ok = runWalks(g.get(), &k, &slot, o);
  ASSERT_EQ(ok.status, SLUICE_STATUS_OK) << ok.error.message;
  EXPECT_EQ(ok.stats.steps, 20000u * 9);
}

TEST(WalkFault, FaultInBoundFunctionNamesTheVertex) {
  GraphPtr g = ring(50);
  int64_t data[2] = {1, 1};
  sluice_walk_list_t xs = {data, 2};
  const sluice_walk_list_t *slot = &xs;
  sluice_walk_kernel_t k = faultyKernel();
  k.upper_bound = badBound;
  sluice_walk_options_t o = testOptions();
  o.max_length = 3;
  o.sampler = SLUICE_WALK_SAMPLER_REJECTION;
  Outcome r = runInto(g.get(), k, &slot, o, SLUICE_WALK_FORMAT_TEXT);
  EXPECT_EQ(r.status, SLUICE_STATUS_OUT_OF_RANGE);
  EXPECT_NE(r.message.find("walk 'faulty': computing the bounds of vertex "),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("list index -1 out of range (the list has 2 "
                           "elements)"),
            std::string::npos)
      << r.message;
  EXPECT_EQ(r.filesLeft, 0);
}

TEST(WalkFault, DescribeAndListGetInRange) {
  int64_t data[2] = {7, 9};
  sluice_walk_list_t xs = {data, 2};
  sluice_walk_fault_t fault;
  std::memset(&fault, 0, sizeof(fault));
  sluice_walk_frame_t f;
  std::memset(&f, 0, sizeof(f));
  f.fault = &fault;
  f.walker = 5;
  f.step = 2;
  f.cur = 4;
  EXPECT_EQ(sluice_kernel_list_get(&f, &xs, 1), 9);
  EXPECT_EQ(fault.code, SLUICE_WALK_FAULT_NONE);
  EXPECT_EQ(sluice_kernel_list_get(&f, &xs, 2), 0);
  EXPECT_EQ(fault.code, SLUICE_WALK_FAULT_LIST_INDEX);
  EXPECT_EQ(fault.index, 2);
  EXPECT_EQ(fault.size, 2);
  EXPECT_EQ(fault.walker, 5u);
  EXPECT_EQ(fault.step, 2);
  EXPECT_EQ(fault.cur, 4u);
  // Only the first fault is kept.
  EXPECT_EQ(sluice_kernel_list_get(&f, &xs, -8), 0);
  EXPECT_EQ(fault.index, 2);
  char text[16];
  size_t n = sluice_walk_fault_describe(&fault, text, sizeof(text));
  EXPECT_EQ(n, std::strlen("list index 2 out of range (the list has 2 "
                           "elements)"));
  EXPECT_STREQ(text, "list index 2 ou"); // cut to the capacity
}

} // namespace
