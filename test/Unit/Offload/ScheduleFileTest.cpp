//===- ScheduleFileTest.cpp - Offload schedules read from JSON ------------===//
//
// The runtime's reader of planned schedules: a well-formed document gives
// the schedule it spells out; every malformed one gives an error with the
// file, line and column of the offending value; the JSON reader itself on
// syntax errors, escapes and big integers; the entry orders the trainer
// accepts (optimizer after all backward entries, or interleaved).
//
//===----------------------------------------------------------------------===//
#include "runtime/src/train/Json.h"
#include "runtime/src/train/ScheduleFile.h"

#include <gtest/gtest.h>

using namespace sluice::train;

namespace {

/// A valid 1-layer schedule; `entries` replaces the entry list when given.
std::string doc(const std::string &extra = "",
                const std::string &entries =
                    "[{\"layer\": 0, \"phase\": \"forward\",\n"
                    "  \"prefetch\": [\"L0.param\", \"L0.act\"]},\n"
                    " {\"layer\": 0, \"phase\": \"backward\", "
                    "\"discard\": [\"L0.act\"], \"io_hidden\": true},\n"
                    " {\"layer\": 0, \"phase\": \"optimizer\", "
                    "\"swap_out\": [\"L0.param\"], \"discard\": "
                    "[\"L0.grad\"]}]") {
  return "{\"format\": \"sluice-offload-schedule\", \"version\": 1,\n"
         "\"layers\": 1,\n" +
         extra + "\"entries\": " + entries + "}\n";
}

std::string errorOf(const std::string &text) {
  OffloadSchedule s;
  std::string error;
  EXPECT_FALSE(parseSchedule(text, "s.json", s, error)) << text;
  return error;
}

TEST(ScheduleFile, ReadsWhatItSays) {
  OffloadSchedule s;
  std::string error;
  ASSERT_TRUE(parseSchedule(
      doc("\"homes\": {\"param\": \"host\", \"adam_m\": \"device\"},\n"
          "\"device_budget\": 8192, \"host_budget\": 18446744073709551615,\n"
          "\"predicted_step_io\": {\"device\": {\"read\": 1, \"written\": 2},"
          " \"host\": {\"read\": 3, \"written\": 4}},\n"
          "\"plan\": {\"param_home\": \"host\", \"seconds\": 1.5e-3},\n"
          "\"abft\": \"recompute\",\n"),
      "s.json", s, error))
      << error;
  EXPECT_EQ(s.abft, AbftMode::Recompute);
  ASSERT_EQ(s.entries.size(), 3u);
  EXPECT_EQ(s.entries[0].prefetch,
            (std::vector<TensorRef>{{0, Slot::Param}, {0, Slot::Activation}}));
  EXPECT_FALSE(s.entries[0].ioHidden);
  EXPECT_TRUE(s.entries[1].ioHidden);
  EXPECT_EQ(s.entries[2].phase, Phase::Optimizer);
  EXPECT_EQ(s.entries[2].discard, (std::vector<TensorRef>{{0, Slot::Grad}}));
  EXPECT_EQ(s.homes[0], SLUICE_TIER_HOST);
  EXPECT_EQ(s.homes[2], SLUICE_TIER_DEVICE);
  EXPECT_EQ(s.homes[3], SLUICE_TIER_HOST); // default
  EXPECT_EQ(s.deviceBudget, 8192u);
  EXPECT_EQ(s.hostBudget, UINT64_MAX);
  ASSERT_TRUE(s.hasPrediction);
  EXPECT_EQ(s.predicted[SLUICE_TIER_DEVICE].read, 1u);
  EXPECT_EQ(s.predicted[SLUICE_TIER_HOST].written, 4u);
  EXPECT_EQ(s.origin, "param_home=host");
}

TEST(ScheduleFile, MalformedDocumentsAreLocated) {
  // JSON syntax.
  EXPECT_EQ(errorOf("{\"format\": \"sluice-offload-schedule\",\n  \"version\" 1}"),
            "s.json:2:13: expected ':' after the field name");
  EXPECT_EQ(errorOf("[1, 2,"), "s.json:1:7: unexpected end of input, "
                               "expected a value");
  EXPECT_EQ(errorOf(doc() + "x"),
            "s.json:7:1: unexpected text after the JSON value");
  // Not a schedule, wrong version.
  EXPECT_EQ(errorOf("{\"format\": \"flow\"}"),
            "s.json:1:12: not an offload schedule (expected \"format\": "
            "\"sluice-offload-schedule\")");
  EXPECT_EQ(errorOf("{\"format\": \"sluice-offload-schedule\", \"version\": 2}"),
            "s.json:1:50: schedule version 2 is not supported (this runtime "
            "reads version 1)");
  // Unknown fields, bad values.
  EXPECT_EQ(errorOf(doc("\"budget\": 3,\n")),
            "s.json:3:11: unknown field 'budget' in the schedule (expected "
            "format, version, layers, homes, device_budget, host_budget, "
            "predicted_step_io, plan, entries, abft)");
  EXPECT_EQ(errorOf(doc("\"abft\": \"maybe\",\n")),
            "s.json:3:9: unknown abft mode 'maybe' (expected off, fail or "
            "recompute)");
  EXPECT_EQ(errorOf(doc("\"device_budget\": -1,\n")),
            "s.json:3:18: 'device_budget' must be a non-negative integer");
  EXPECT_EQ(errorOf(doc("\"homes\": {\"act\": \"nvme\"},\n")),
            "s.json:3:18: unknown home tier 'nvme' (expected device or host)");
  // Entries: tensor names, phases, order, liveness.
  EXPECT_EQ(errorOf(doc("", "[{\"layer\": 0, \"phase\": \"forward\",\n"
                            "  \"prefetch\": [\"L1.param\"]}]")),
            "s.json:4:16: unknown tensor 'L1.param' (the schedule has 1 "
            "layers)");
  EXPECT_EQ(errorOf(doc("", "[{\"layer\": 0, \"phase\": \"forward\",\n"
                            "  \"keep\": [\"L0.weights\"]}]")),
            "s.json:4:12: unknown slot 'weights' (expected param, grad, "
            "adam_m, adam_v or act)");
  EXPECT_EQ(errorOf(doc("", "[{\"layer\": 0, \"phase\": \"sideways\"}]")),
            "s.json:3:35: unknown phase 'sideways' (expected forward, "
            "backward or optimizer)");
  EXPECT_EQ(errorOf(doc("", "[{\"layer\": 0, \"phase\": \"forward\"}]")),
            "s.json:3:12: expected 3 entries (forward, backward, optimizer "
            "of 1 layers), got 1");
  EXPECT_EQ(
      errorOf(doc("", "[{\"layer\": 0, \"phase\": \"forward\"},\n"
                      " {\"layer\": 0, \"phase\": \"optimizer\"},\n"
                      " {\"layer\": 0, \"phase\": \"backward\"}]")),
      "s.json:4:2: entry 1: optimizer of layer 0 before its backward");
  EXPECT_EQ(
      errorOf(doc("", "[{\"layer\": 0, \"phase\": \"forward\", "
                      "\"discard\": [\"L0.act\"]},\n"
                      " {\"layer\": 0, \"phase\": \"backward\"},\n"
                      " {\"layer\": 0, \"phase\": \"optimizer\"}]")),
      "s.json:3:13: entry 0: discards layer 0 act, which entry 1 (backward "
      "of layer 0) reads");
  EXPECT_EQ(
      errorOf(doc("", "[{\"layer\": 0, \"phase\": \"forward\", "
                      "\"io_hidden\": 1}]")),
      "s.json:3:59: 'io_hidden' must be a boolean, not a number");
  // Files.
  OffloadSchedule s;
  std::string error;
  EXPECT_FALSE(loadSchedule("/nonexistent/s.json", s, error));
  EXPECT_EQ(error, "/nonexistent/s.json: cannot open the schedule file");
}

TEST(ScheduleFile, InterleavedOptimizerOrder) {
  // Active gradient offloading: each optimizer entry right after its
  // layer's backward.
  OffloadSchedule s = OffloadSchedule::keepAll(3);
  s.entries = {s.entries[0], s.entries[1], s.entries[2], s.entries[3],
               s.entries[8], s.entries[4], s.entries[7], s.entries[5],
               s.entries[6]};
  EXPECT_EQ(validate(s, 3), "");
  // A backward out of order is named with the one expected.
  std::swap(s.entries[3], s.entries[5]);
  size_t bad = 0;
  EXPECT_EQ(validate(s, 3, &bad),
            "entry 3: expected backward of layer 2, got backward of layer 1");
  EXPECT_EQ(bad, 3u);
}

TEST(Json, Values) {
  json::Value v;
  std::string error;
  ASSERT_TRUE(json::parse("{\"a\": [true, false, null, -0.5e2, \"x\\u00e9\\n\"],"
                          " \"b\": 18446744073709551615}",
                          v, error))
      << error;
  const json::Value *a = v.find("a");
  ASSERT_TRUE(a && a->kind == json::Value::Array && a->items.size() == 5);
  EXPECT_TRUE(a->items[0].boolean);
  EXPECT_EQ(a->items[2].kind, json::Value::Null);
  EXPECT_EQ(a->items[3].number, -50.0);
  EXPECT_EQ(a->items[4].text, "x\xc3\xa9\n");
  uint64_t big = 0;
  EXPECT_TRUE(v.find("b")->asUnsigned(big));
  EXPECT_EQ(big, UINT64_MAX);
  EXPECT_FALSE(a->items[3].asUnsigned(big));
  for (const char *bad : {"{\"a\": 1, \"a\": 2}", "\"\\q\"", "01", "[1,]",
                          "\"\\ud800\"", "{\"a\" 1}", "tru", "\"a\nb\""})
    EXPECT_FALSE(json::parse(bad, v, error)) << bad;
  EXPECT_TRUE(json::parse("  [ ]  ", v, error));
  EXPECT_FALSE(json::parse("01", v, error));
  EXPECT_EQ(error, "1:2: unexpected text after the JSON value");
}

// Found by review while fuzzing the reader: the duplicate-field check
// compared each field with every earlier one, so a 650 KB object of 60,000
// fields took seconds (and a few MB, minutes). With a set it is linear; the
// last duplicate is still found and located.
TEST(Json, ObjectsWithManyFieldsAreLinear) {
  const int n = 100000;
  std::string text = "{";
  for (int i = 0; i < n; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  json::Value v;
  std::string error;
  ASSERT_TRUE(json::parse(text + "}", v, error)) << error;
  EXPECT_EQ(v.fields.size(), size_t(n));
  EXPECT_FALSE(json::parse(text + ",\n\"k17\":1}", v, error));
  EXPECT_EQ(error, "2:6: duplicate field 'k17'");
}

} // namespace
