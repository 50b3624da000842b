# Writes a copy of diamond.json with one of the schedule's numbers made
# inconsistent: python3 mutate.py IN OUT CASE.
import json, sys

src, dst, case = sys.argv[1:4]
s = json.load(open(src))
d0 = s["demands"][0]
if case == "over":        # the paths carry more than the demand
    d0["bytes"] = 900000
elif case == "finish":    # a path's predicted finish that its segments contradict
    d0["paths"][1]["finish"] = 0.25
elif case == "rate":      # segments that carry fewer bytes than the path
    d0["paths"][1]["segments"][0]["rate"] = 700000
elif case == "chunk":     # a timeline chunk dropped
    del s["timeline"][0]["chunks"][5]
elif case == "local":     # a local demand that carries paths
    s["demands"][1]["destination"] = 2
elif case == "makespan":  # a makespan no demand reaches
    s["makespan"] = 0.75
json.dump(s, open(dst, "w"))
