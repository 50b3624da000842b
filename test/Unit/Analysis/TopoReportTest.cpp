//===- TopoReportTest.cpp - Golden output of the topology writers ---------===//
//
// The table and DOT writers against full golden text, the JSON writer
// against golden snippets and a parse-back, and all three for byte-for-byte
// determinism.
//
//===----------------------------------------------------------------------===//
#include "compiler/Target/TopoReport.h"

#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"

using namespace sluice;
using namespace sluice::analysis;
using namespace sluice::target;

namespace {

/// Two GPUs on NVLink in box[0], a top-level switch with unequal up and
/// down links, and one measured GPU pair.
TopoGraph tiny() {
  TopoGraph g;
  unsigned g0 = g.addDevice("box[0].gpu[0]", "gpu");
  unsigned g1 = g.addDevice("box[0].gpu[1]", "gpu");
  unsigned sw = g.addDevice("sw", "switch");
  g.addQuantity(g0, "memory", 80.0 * (1ull << 30), Dim::bytes());
  g.addQuantity(g1, "memory", 80.0 * (1ull << 30), Dim::bytes());
  g.addInt(g0, "sms", 132);
  g.addString(g0, "model", "H\"100\"");
  g.addBool(sw, "reduce", true);
  g.addLink(g0, g1, 450e9, 1e-6, true, 0, "nvlink4");
  g.addLink(g1, sw, 25e9, 2.5e-6, false, 1);
  g.addLink(sw, g1, 20e9, 2.5e-6, false, 2);
  g.addMeasured(g0, g1, 400e9);
  return g;
}

std::string table(const TopoGraph &g, const TopoAnalysisResult &r) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeTopoTable(os, g, r);
  return out;
}

std::string json(const TopoGraph &g, const TopoAnalysisResult &r,
                 unsigned indent) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeTopoJSON(os, g, r, indent);
  return out;
}

std::string dot(const TopoGraph &g, const TopoAnalysisResult *r,
                const TopoDotOptions &opts = {}) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeTopoDot(os, g, r, opts);
  return out;
}

TopoAnalysisResult analyzeTiny(const TopoGraph &g) {
  TopoAnalysisOptions opts;
  opts.cuts.push_back({"gpus to switch", devicesOfKind(g, "gpu"), {2}});
  return analyzeTopology(g, opts);
}

TEST(TopoReport, TableGolden) {
  TopoGraph g = tiny();
  const char *expected =
      R"(topology: 3 devices in 1 group, 3 links (4 arcs, 1 measured), 1 component
aggregate link bandwidth: 945 GB/s

kinds:
  KIND    COUNT  ARCS OUT    EGRESS  ARCS IN   INGRESS
  gpu         2         3  925 GB/s        3  920 GB/s
  switch      1         1   20 GB/s        1   25 GB/s

property totals:
  KIND  PROPERTY    TOTAL  DEVICES
  gpu   memory    160 GiB        2
        sms           132        1

pairs (gpu, 2 devices):
  #0  box[0].gpu[0]
  #1  box[0].gpu[1]

widest-path bandwidth (the best single path, row -> column):
            #0        #1
  #0         -  450 GB/s
  #1  450 GB/s         -

max-flow bandwidth (all paths at once, row -> column):
            #0        #1
  #0         -  450 GB/s
  #1  450 GB/s         -

latency along the widest path:
        #0    #1
  #0     -  1 us
  #1  1 us     -

hops (fewest):
      #0  #1
  #0   -   1
  #1   1   -

attained (measured) bandwidth:
      #0        #1
  #0   -  400 GB/s
  #1   ?         -

bisection of gpu (1 | 1): 450 GB/s
  first -> second: 450 GB/s over 1 arc
    from: box[0].gpu[0]
    to:   box[0].gpu[1]
    FROM               TO             BANDWIDTH
    box[0].gpu[0]  ->  box[0].gpu[1]   450 GB/s
  second -> first: 450 GB/s over 1 arc
    from: box[0].gpu[1]
    to:   box[0].gpu[0]
    FROM               TO             BANDWIDTH
    box[0].gpu[1]  ->  box[0].gpu[0]   450 GB/s

cuts:
  "gpus to switch": 25 GB/s over 1 arc
    from: box[0].gpu[0], box[0].gpu[1]
    to:   sw
    FROM               TO  BANDWIDTH
    box[0].gpu[1]  ->  sw    25 GB/s
)";
  EXPECT_EQ(table(g, analyzeTiny(g)), expected);
}

TEST(TopoReport, TableComponentsAndUnreachable) {
  TopoGraph g;
  g.addDevice("a", "gpu");
  g.addDevice("b", "gpu");
  g.addDevice("c", "cpu");
  g.addLink(0, 2, 10e9, 0, false);
  std::string out = table(g, analyzeTopology(g));
  EXPECT_NE(out.find("3 devices in 0 groups, 1 link (1 arc, 0 measured), "
                     "2 components\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("components:\n  #0: 2 devices: a, c\n"
                     "  #1: 1 device: b\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  #0     -  none\n  #1  none     -\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("bisection of gpu (1 | 1): 0 B/s\n"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("attained"), std::string::npos) << out;
}

TEST(TopoReport, DotGolden) {
  TopoGraph g = tiny();
  TopoAnalysisResult r = analyzeTiny(g);
  const char *expected = R"(digraph topology {
  graph [rankdir=LR, fontname="Helvetica", compound=true];
  node [fontname="Helvetica", fontsize=10];
  edge [fontname="Helvetica", fontsize=9];
  subgraph cluster_0 {
    label="box[0]";
    n0 [label="gpu[0]", shape=box3d, tooltip="box[0].gpu[0]"];
    n1 [label="gpu[1]", shape=box3d, tooltip="box[0].gpu[1]"];
  }
  n2 [label="sw", shape=diamond, tooltip="sw"];
  n0 -> n1 [label="450 GB/s", dir=both, color=red, fontcolor=red, penwidth=2];
  n1 -> n2 [label="25 GB/s"];
  n2 -> n1 [label="20 GB/s"];
  legend [shape=note, fontsize=9, label="red: links in the bisection cut of the gpu devices (either direction)\n"];
}
)";
  EXPECT_EQ(dot(g, &r), expected);

  // Without results nothing is highlighted; measured arcs on request.
  std::string plain = dot(g, nullptr, {/*showMeasured=*/true});
  EXPECT_NE(plain.find("  n0 -> n1 [label=\"450 GB/s\", dir=both];\n"),
            std::string::npos)
      << plain;
  EXPECT_NE(plain.find("  n0 -> n1 [label=\"attained 400 GB/s\", "
                       "style=dashed, constraint=false];\n"),
            std::string::npos)
      << plain;
}

TEST(TopoReport, DotPairsOnlyEqualOppositeArcs) {
  TopoGraph g;
  g.addDevice("x\"q", "nvme");
  g.addDevice("p[0].y", "csd");
  g.addDevice("p[1].z", "smartnic");
  g.addLink(0, 1, 5e9, 0, false);
  g.addLink(1, 0, 5e9, 0, false);
  g.addLink(1, 0, 5e9, 0, false); // A second, unpaired parallel arc.
  g.addLink(1, 2, 1e9, 0, true);
  g.addLink(2, 2, 1e9, 0, false); // Self loop: never dir=both.
  std::string out = dot(g, nullptr);
  EXPECT_NE(out.find("  n0 [label=\"x\\\"q\", shape=cylinder, "
                     "tooltip=\"x\\\"q\"];\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("subgraph cluster_1 {\n    label=\"p[1]\";\n"
                     "    n2 [label=\"z\", shape=doubleoctagon"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("    n1 [label=\"y\", shape=folder"), std::string::npos)
      << out;
  // One direction has one link, the other two parallel ones: two edges.
  EXPECT_NE(out.find("  n0 -> n1 [label=\"5 GB/s\"];\n"
                     "  n1 -> n0 [label=\"2 x 5 GB/s\"];\n"
                     "  n1 -> n2 [label=\"1 GB/s\", dir=both];\n"
                     "  n2 -> n2 [label=\"1 GB/s\"];\n"
                     "  legend [shape=note, fontsize=9, label=\"n x B: n "
                     "parallel links of B each\\n\"];\n}\n"),
            std::string::npos)
      << out;
}

TEST(TopoReport, JsonSnippets) {
  TopoGraph g = tiny();
  std::string out = json(g, analyzeTiny(g), 0);
  auto has = [&](llvm::StringRef snippet) {
    return out.find(snippet.str()) != std::string::npos;
  };
  EXPECT_TRUE(has(R"({"summary":{"devices":3,"groups":1,"links":3,)"
                  R"("modeled_arcs":4,"measured_arcs":1,)"
                  R"("arc_bandwidth":945000000000,)"
                  R"("arc_bandwidth_display":"945 GB/s","components":1},)"
                  R"("devices":[{"index":0,)"))
      << out;
  EXPECT_TRUE(has(R"({"index":0,"name":"box[0].gpu[0]","kind":"gpu",)"
                  R"("group":"box[0]","properties":{"memory":)"
                  R"({"value":85899345920,"dim":"bytes","display":"80 GiB"},)"
                  R"("sms":132,"model":"H\"100\""}})"))
      << out;
  EXPECT_TRUE(has(R"({"index":2,"name":"sw","kind":"switch","group":"",)"
                  R"("properties":{"reduce":true}})"))
      << out;
  EXPECT_TRUE(has(R"({"index":2,"from":1,"to":2,"bandwidth":25000000000,)"
                  R"("bandwidth_display":"25 GB/s","latency":2.5e-06,)"
                  R"("latency_display":"2.5 us","measured":false,"link":1,)"
                  R"("type":""})"))
      << out;
  EXPECT_TRUE(has(R"("measured":true,"link":null,"type":""})")) << out;
  EXPECT_TRUE(has(R"("components":[[0,1,2]],)")) << out;
  EXPECT_TRUE(has(R"({"name":"memory","dim":"bytes","value":171798691840,)"
                  R"("value_display":"160 GiB","devices":2})"))
      << out;
  EXPECT_TRUE(has(R"("matrix_kind":"gpu","matrix":{"devices":[0,1],)"
                  R"("max_flow_skipped":null,)"
                  R"("pairs":[{"from":0,"to":1,"reachable":true,)"
                  R"("widest_path":450000000000,)"
                  R"("widest_path_display":"450 GB/s",)"
                  R"("max_flow":450000000000,"max_flow_display":"450 GB/s",)"
                  R"("latency":1e-06,"latency_display":"1 us","hops":1,)"
                  R"("path_hops":1,"attained":400000000000,)"
                  R"("attained_display":"400 GB/s"},)"))
      << out;
  EXPECT_TRUE(has(R"("path_hops":1,"attained":null}]},)")) << out;
  EXPECT_TRUE(has(R"("cuts":[{"label":"gpus to switch","sources":[0,1],)"
                  R"("sinks":[2],"capacity":25000000000,)"
                  R"("capacity_display":"25 GB/s","cut_arcs":[2]}]})"))
      << out;
  EXPECT_EQ(out.back(), '\n');
}

TEST(TopoReport, JsonParsesBackWithNullForUnbounded) {
  TopoGraph g = tiny();
  TopoAnalysisOptions opts;
  opts.matrixKind = "";
  opts.cuts.push_back({"overlap", {0, 1}, {1}});
  opts.cuts.push_back({"fractional", {2}, {1}});
  g.addLink(2, 1, 0.125, 1e-7, false); // 1 bit/s: not an integer.
  std::string out = json(g, analyzeTopology(g, opts), 2);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(out);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *root = parsed->getAsObject();
  ASSERT_NE(root, nullptr);
  const llvm::json::Array *cuts = root->getArray("cuts");
  ASSERT_NE(cuts, nullptr);
  ASSERT_EQ(cuts->size(), 2u);
  const llvm::json::Object *overlap = (*cuts)[0].getAsObject();
  EXPECT_EQ(overlap->get("capacity")->kind(), llvm::json::Value::Null);
  EXPECT_EQ(overlap->getString("capacity_display"), "unbounded");
  const llvm::json::Object *frac = (*cuts)[1].getAsObject();
  EXPECT_EQ(frac->getNumber("capacity"), std::optional<double>(20e9 + 0.125));
  // Every device pair but the diagonal: 3 * 2.
  const llvm::json::Array *pairs = root->getObject("matrix")->getArray("pairs");
  ASSERT_NE(pairs, nullptr);
  EXPECT_EQ(pairs->size(), 6u);
  EXPECT_NE(out.find("\"latency\": 1e-07,"), std::string::npos) << out;
  EXPECT_NE(out.find("\"bandwidth\": 0.125,"), std::string::npos) << out;
}

TEST(TopoReport, OutputIsDeterministic) {
  // Two independently built graphs and analyses write the same bytes.
  TopoGraph g1 = tiny(), g2 = tiny();
  TopoAnalysisResult r1 = analyzeTiny(g1), r2 = analyzeTiny(g2);
  EXPECT_EQ(table(g1, r1), table(g2, r2));
  EXPECT_EQ(json(g1, r1, 2), json(g2, r2, 2));
  EXPECT_EQ(dot(g1, &r1), dot(g2, &r2));
  // And repeated writes of the same results do too.
  EXPECT_EQ(json(g1, r1, 0), json(g1, r1, 0));
}

} // namespace
