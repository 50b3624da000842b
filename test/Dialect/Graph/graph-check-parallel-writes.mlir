// RUN: sluice-opt %s -split-input-file --graph-check-parallel-writes -verify-diagnostics | FileCheck %s
// The legality of parallel updates (docs/language.md, section 11.2): plain
// writes at the vertex an iteration owns, or of a value every writer
// shares, are legal; other plain writes are located errors; reads that
// another iteration's plain write may overlap get a warning.

// Writes and reads at the loop's own vertex (PageRank's apply), and the
// pushed reductions of gather: nothing to report, the IR is unchanged.
// CHECK-LABEL: graph.algorithm @owned
// CHECK:         graph.prop.set @rank[%{{.*}}] = %{{.*}} : f64
walk.graph @g "g.txt" format snap
graph.algorithm @owned on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %zero = arith.constant 0.0 : f64
  graph.property @rank : f64 = %zero
  graph.property @incoming : f64 = %zero
  graph.edges attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    %r = graph.prop.get @rank[%src] : f64
    graph.prop.reduce add @incoming[%dst], %r : f64
    graph.yield
  }
  graph.vertices attributes {schedule = #graph.schedule<parallel = static>} do {
  ^bb0(%v: i32):
    %x = graph.prop.get @incoming[%v] : f64
    graph.prop.set @rank[%v] = %x : f64
    graph.prop.set @incoming[%v] = %zero : f64
    graph.yield
  }
}

// -----

// A vertices loop writing at another vertex a value that depends on the
// iteration.
walk.graph @g "g.txt" format snap
graph.algorithm @neighbour on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %c0 = arith.constant 0 : i32
  graph.property @comp : i32 = %c0
  graph.property @parent : i32 = %c0
  graph.vertices label "spread" attributes {schedule = #graph.schedule<parallel = dynamic, chunk = 64>} do {
  ^bb0(%v: i32):
    %u = graph.prop.get @comp[%v] : i32
    // expected-error@+2 {{plain write to 'parent' at a vertex other than the loop's vertex in parallel loop 'spread' of algorithm 'neighbour' (vertices): several iterations may write different values to one vertex; use a reduction (min=, max=, +=, -=) or schedule the loop `parallel: serial`}}
    // expected-note@+1 {{a parallel plain write goes to the vertex its iteration owns (a vertices loop's vertex, a push loop's source, a pull loop's destination; a hybrid loop over a frontier owns neither), or writes a value that every iteration writing that vertex provably shares (docs/language.md, section 11.2)}}
    graph.prop.set @parent[%u] = %v : i32
    graph.yield
  }
}

// -----

// At a fixed vertex: a fixed value is legal, a value of the iteration is
// not.
walk.graph @g "g.txt" format snap
graph.algorithm @fixed on @g attributes {param_names = ["s"], param_defaults = [0], outputs = []} {
^bb0(%s: i64):
  %zero = arith.constant 0 : i64
  graph.property @mark : i64 = %zero
  graph.property @last : i64 = %zero
  %x = graph.vertex_of %s
  graph.vertices attributes {schedule = #graph.schedule<parallel = static>} do {
  ^bb0(%v: i32):
    %one = arith.constant 1 : i64
    graph.prop.set @mark[%x] = %one : i64
    %id = graph.original_id %v : i64
    // expected-error@+2 {{plain write to 'last' at a vertex other than the loop's vertex in parallel unlabelled vertices loop of algorithm 'fixed' (vertices): several iterations may write different values to one vertex}}
    // expected-note@+1 {{a parallel plain write goes to the vertex its iteration owns}}
    graph.prop.set @last[%x] = %id : i64
    graph.yield
  }
}

// -----

// Push: the destination is written by one iteration per in-edge. A parent
// per edge is an error; a value of the destination alone is legal.
walk.graph @g "g.txt" format snap
graph.algorithm @parents on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %c0 = arith.constant 0 : i32
  graph.property @parent : i32 = %c0
  graph.property @self : i32 = %c0
  graph.edges label "link" attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    // expected-error@+2 {{plain write to 'parent' at the destination in parallel loop 'link' of algorithm 'parents' (push): several iterations may write different values to one vertex; use a reduction (min=, max=, +=, -=) or schedule the loop `parallel: serial`}}
    // expected-note@+1 {{a parallel plain write goes to the vertex its iteration owns}}
    graph.prop.set @parent[%dst] = %src : i32
    graph.prop.set @self[%dst] = %dst : i32
    graph.yield
  }
}

// -----

// The same loop run serially, or pulled (the destination is owned): legal.
// Pulled, a write at the source is the error.
walk.graph @g "g.txt" format snap
graph.algorithm @schedules on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %c0 = arith.constant 0 : i32
  graph.property @parent : i32 = %c0
  graph.property @child : i32 = %c0
  graph.edges attributes {schedule = #graph.schedule<direction = push, parallel = serial, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    graph.prop.set @parent[%dst] = %src : i32
    graph.yield
  }
  graph.edges label "up" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 64, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    graph.prop.set @parent[%dst] = %src : i32
    // expected-error@+2 {{plain write to 'child' at the source in parallel loop 'up' of algorithm 'schedules' (pull): several iterations may write different values to one vertex}}
    // expected-note@+1 {{a parallel plain write goes to the vertex its iteration owns}}
    graph.prop.set @child[%src] = %dst : i32
    graph.yield
  }
}

// -----

// A fixed value at the destination (visited[dst] = 1) is legal, and so is
// its guard `visited[dst] == 0`: an iteration that reads 0 writes 1, one
// that reads 1 skips; the result is the same, so no warning.
walk.graph @g "g.txt" format snap
graph.algorithm @visit on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %zero = arith.constant 0 : i64
  graph.property @visited : i64 = %zero
  %all = graph.frontier.all
  %next = graph.edges from %all label "mark" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
  ^bb0(%src: i32, %dst: i32):
    %d = graph.prop.get @visited[%dst] : i64
    %c0 = arith.constant 0 : i64
    %fresh = arith.cmpi eq, %d, %c0 : i64
    graph.yield %fresh : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    %one = arith.constant 1 : i64
    graph.prop.set @visited[%dst] = %one : i64
    graph.yield
  }
}

// -----

// The same write with a read of visited[dst] in the body (summed at the
// owned source): whether it reads 0 or 1 depends on timing, a warning.
walk.graph @g "g.txt" format snap
graph.algorithm @visitCount on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %zero = arith.constant 0 : i64
  graph.property @visited : i64 = %zero
  graph.property @seen : i64 = %zero
  %all = graph.frontier.all
  %next = graph.edges from %all label "mark" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    // expected-warning@+1 {{read of 'visited' at the destination in parallel loop 'mark' of algorithm 'visitCount' (push) may see another iteration's plain write to 'visited': the value read depends on timing; read 'visited' only at the vertex the iteration owns, or schedule the loop `parallel: serial`}}
    %d = graph.prop.get @visited[%dst] : i64
    graph.prop.reduce add @seen[%src], %d : i64
    %one = arith.constant 1 : i64
    // expected-note@+1 {{the plain write to 'visited'}}
    graph.prop.set @visited[%dst] = %one : i64
    graph.yield
  }
}

// -----

// BFS, direction-optimising: every vertex of the frontier has one depth
// (the source's 0, then each round's depth + 1), so every edge into a
// vertex writes the same depth. Legal, and its reads are covered.
// CHECK-LABEL: graph.algorithm @bfs
walk.graph @g "g.txt" format snap
graph.algorithm @bfs on @g attributes {param_names = ["source"], param_defaults = [0], outputs = [@depth]} {
^bb0(%source: i64):
  %m1 = arith.constant -1 : i64
  graph.property @depth : i64 = %m1
  %0 = graph.vertex_of %source
  %c0 = arith.constant 0 : i64
  graph.prop.set @depth[%0] = %c0 : i64
  %1 = graph.vertex_of %source
  %2 = graph.frontier.of [%1]
  %3 = scf.while (%f = %2) : (!graph.frontier) -> !graph.frontier {
    %n = graph.frontier.size %f : i64
    %z = arith.constant 0 : i64
    %more = arith.cmpi sgt, %n, %z : i64
    scf.condition(%more) %f : !graph.frontier
  } do {
  ^bb0(%f: !graph.frontier):
    %4 = graph.edges from %f label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = hybrid, parallel = dynamic, chunk = 32, frontier = auto, format = auto>} where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %k = arith.constant -1 : i64
      %unseen = arith.cmpi eq, %d, %k : i64
      graph.yield %unseen : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %ds = graph.prop.get @depth[%src] : i64
      %one = arith.constant 1 : i64
      %d1 = arith.addi %ds, %one : i64
      graph.prop.set @depth[%dst] = %d1 : i64
      graph.yield
    }
    scf.yield %4 : !graph.frontier
  }
}

// -----

// BFS writing a round counter (`depth[dst] = level`): a fixed value, so
// legal, and its guard `depth[dst] == -1` gets no warning: an iteration
// that reads -1 writes the level, one that reads the level skips.
// CHECK-LABEL: graph.algorithm @levels
walk.graph @g "g.txt" format snap
graph.algorithm @levels on @g attributes {param_names = ["source"], param_defaults = [0], outputs = [@depth]} {
^bb0(%source: i64):
  %m1 = arith.constant -1 : i64
  graph.property @depth : i64 = %m1
  %0 = graph.vertex_of %source
  %c0 = arith.constant 0 : i64
  graph.prop.set @depth[%0] = %c0 : i64
  %2 = graph.frontier.of [%0]
  %3:2 = scf.while (%f = %2, %l = %c0) : (!graph.frontier, i64) -> (!graph.frontier, i64) {
    %n = graph.frontier.size %f : i64
    %more = arith.cmpi sgt, %n, %c0 : i64
    scf.condition(%more) %f, %l : !graph.frontier, i64
  } do {
  ^bb0(%f: !graph.frontier, %l: i64):
    %one = arith.constant 1 : i64
    %next = arith.addi %l, %one : i64
    %4 = graph.edges from %f label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = hybrid, parallel = dynamic, chunk = 32, frontier = auto, format = auto>} where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %unseen = arith.cmpi eq, %d, %m1 : i64
      graph.yield %unseen : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      graph.prop.set @depth[%dst] = %next : i64
      graph.yield
    }
    scf.yield %4, %next : !graph.frontier, i64
  }
}

// -----

// BFS from every vertex at once: the frontier's depths differ, so the
// level-synchronous rule does not apply. (The reads of a property with an
// illegal write get no warning.)
walk.graph @g "g.txt" format snap
graph.algorithm @bfsAll on @g attributes {param_names = [], param_defaults = [], outputs = [@depth]} {
  %m1 = arith.constant -1 : i64
  graph.property @depth : i64 = %m1
  %all = graph.frontier.all
  %3 = scf.while (%f = %all) : (!graph.frontier) -> !graph.frontier {
    %n = graph.frontier.size %f : i64
    %z = arith.constant 0 : i64
    %more = arith.cmpi sgt, %n, %z : i64
    scf.condition(%more) %f : !graph.frontier
  } do {
  ^bb0(%f: !graph.frontier):
    %4 = graph.edges from %f label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %k = arith.constant -1 : i64
      %unseen = arith.cmpi eq, %d, %k : i64
      graph.yield %unseen : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %ds = graph.prop.get @depth[%src] : i64
      %one = arith.constant 1 : i64
      %d1 = arith.addi %ds, %one : i64
      // expected-error@+2 {{plain write to 'depth' at the destination in parallel loop 'expand' of algorithm 'bfsAll' (push): several iterations may write different values to one vertex}}
      // expected-note@+1 {{a parallel plain write goes to the vertex its iteration owns}}
      graph.prop.set @depth[%dst] = %d1 : i64
      graph.yield
    }
    scf.yield %4 : !graph.frontier
  }
}

// -----

// BFS whose source keeps the unvisited depth (no `depth[source] = 0`): the
// source may be written in the first round while its depth is read.
walk.graph @g "g.txt" format snap
graph.algorithm @bfsUnset on @g attributes {param_names = ["source"], param_defaults = [0], outputs = [@depth]} {
^bb0(%source: i64):
  %m1 = arith.constant -1 : i64
  graph.property @depth : i64 = %m1
  %1 = graph.vertex_of %source
  %2 = graph.frontier.of [%1]
  %4 = graph.edges from %2 label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
  ^bb0(%src: i32, %dst: i32):
    %d = graph.prop.get @depth[%dst] : i64
    %k = arith.constant -1 : i64
    %unseen = arith.cmpi eq, %d, %k : i64
    graph.yield %unseen : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    %ds = graph.prop.get @depth[%src] : i64
    %one = arith.constant 1 : i64
    %d1 = arith.addi %ds, %one : i64
    // expected-error@+2 {{plain write to 'depth' at the destination in parallel loop 'expand' of algorithm 'bfsUnset' (push)}}
    // expected-note@+1 {{a parallel plain write goes to the vertex its iteration owns}}
    graph.prop.set @depth[%dst] = %d1 : i64
    graph.yield
  }
}

// -----

// A BFS step that also records the parent: the loop writes more than the
// depth, so its result frontier is not one depth; parent is an error too.
walk.graph @g "g.txt" format snap
graph.algorithm @bfsParent on @g attributes {param_names = ["source"], param_defaults = [0], outputs = [@depth]} {
^bb0(%source: i64):
  %m1 = arith.constant -1 : i64
  %c0i = arith.constant 0 : i32
  graph.property @depth : i64 = %m1
  graph.property @parent : i32 = %c0i
  %1 = graph.vertex_of %source
  %c0 = arith.constant 0 : i64
  graph.prop.set @depth[%1] = %c0 : i64
  %2 = graph.frontier.of [%1]
  %4 = graph.edges from %2 label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
  ^bb0(%src: i32, %dst: i32):
    %d = graph.prop.get @depth[%dst] : i64
    %k = arith.constant -1 : i64
    %unseen = arith.cmpi eq, %d, %k : i64
    graph.yield %unseen : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    %ds = graph.prop.get @depth[%src] : i64
    %one = arith.constant 1 : i64
    %d1 = arith.addi %ds, %one : i64
    // expected-error@+3 {{plain write to 'depth' at the destination in parallel loop 'expand' of algorithm 'bfsParent' (push)}}
    // expected-note@+2 {{a parallel plain write goes to the vertex its iteration owns}}
    // expected-note@+1 {{one value per frontier (as BFS's depth) is known only for a loop that writes nothing but 'depth'}}
    graph.prop.set @depth[%dst] = %d1 : i64
    // expected-error@+2 {{plain write to 'parent' at the destination in parallel loop 'expand' of algorithm 'bfsParent' (push)}}
    // expected-note@+1 {{a parallel plain write goes to the vertex its iteration owns}}
    graph.prop.set @parent[%dst] = %src : i32
    graph.yield
  }
}

// -----

// A plain write at the owned vertex while other iterations reduce into the
// same property elsewhere.
walk.graph @g "g.txt" format snap
graph.algorithm @mixed on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %zero = arith.constant 0 : i64
  %c0 = arith.constant 0 : i32
  graph.property @count : i64 = %zero
  graph.property @comp : i32 = %c0
  graph.vertices label "tally" attributes {schedule = #graph.schedule<parallel = static>} do {
  ^bb0(%v: i32):
    // expected-error@+1 {{plain write to 'count' at the loop's vertex in parallel loop 'tally' of algorithm 'mixed' (vertices) while other iterations reduce into 'count' at vertices they do not own: the result depends on their order; update 'count' one way in this loop or schedule it `parallel: serial`}}
    graph.prop.set @count[%v] = %zero : i64
    %u = graph.prop.get @comp[%v] : i32
    %one = arith.constant 1 : i64
    // expected-note@+1 {{the reduction into 'count'}}
    graph.prop.reduce add @count[%u], %one : i64
    graph.yield
  }
}

// -----

// Pointer jumping: the write is at the loop's vertex, but the read at
// comp[v] may see another iteration's write (the value depends on timing).
walk.graph @g "g.txt" format snap
graph.algorithm @jump on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %c0 = arith.constant 0 : i32
  graph.property @comp : i32 = %c0
  graph.vertices label "jump" attributes {schedule = #graph.schedule<parallel = static>} do {
  ^bb0(%v: i32):
    %u = graph.prop.get @comp[%v] : i32
    // expected-warning@+1 {{read of 'comp' at a vertex other than the loop's vertex in parallel loop 'jump' of algorithm 'jump' (vertices) may see another iteration's plain write to 'comp': the value read depends on timing; read 'comp' only at the vertex the iteration owns, or schedule the loop `parallel: serial`}}
    %up = graph.prop.get @comp[%u] : i32
    // expected-note@+1 {{the plain write to 'comp'}}
    graph.prop.set @comp[%v] = %up : i32
    graph.yield
  }
}

// -----

// BFS whose rounds also reset depths in a vertices loop: a vertex of the
// frontier may get the unvisited depth back, so the rule does not apply.
walk.graph @g "g.txt" format snap
graph.algorithm @bfsReset on @g attributes {param_names = ["source"], param_defaults = [0], outputs = [@depth]} {
^bb0(%source: i64):
  %m1 = arith.constant -1 : i64
  graph.property @depth : i64 = %m1
  %0 = graph.vertex_of %source
  %c0 = arith.constant 0 : i64
  graph.prop.set @depth[%0] = %c0 : i64
  %2 = graph.frontier.of [%0]
  %3 = scf.while (%f = %2) : (!graph.frontier) -> !graph.frontier {
    %n = graph.frontier.size %f : i64
    %more = arith.cmpi sgt, %n, %c0 : i64
    scf.condition(%more) %f : !graph.frontier
  } do {
  ^bb0(%f: !graph.frontier):
    %4 = graph.edges from %f label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
    ^bb0(%src: i32, %dst: i32):
      %d = graph.prop.get @depth[%dst] : i64
      %unseen = arith.cmpi eq, %d, %m1 : i64
      graph.yield %unseen : i1
    } do {
    ^bb0(%src: i32, %dst: i32):
      %ds = graph.prop.get @depth[%src] : i64
      %one = arith.constant 1 : i64
      %d1 = arith.addi %ds, %one : i64
      // expected-error@+2 {{plain write to 'depth' at the destination in parallel loop 'expand' of algorithm 'bfsReset' (push)}}
      // expected-note@+1 {{a parallel plain write goes to the vertex its iteration owns}}
      graph.prop.set @depth[%dst] = %d1 : i64
      graph.yield
    }
    graph.vertices attributes {schedule = #graph.schedule<parallel = static>} do {
    ^bb0(%v: i32):
      graph.prop.set @depth[%v] = %m1 : i64
      graph.yield
    }
    scf.yield %4 : !graph.frontier
  }
}

// -----

// The source's depth is set, then a write that may be at the source sets
// the unvisited depth again: the source may be written in the first round.
walk.graph @g "g.txt" format snap
graph.algorithm @bfsOverwrite on @g attributes {param_names = ["source", "other"], param_defaults = [0, 1], outputs = [@depth]} {
^bb0(%source: i64, %other: i64):
  %m1 = arith.constant -1 : i64
  graph.property @depth : i64 = %m1
  %0 = graph.vertex_of %source
  %c0 = arith.constant 0 : i64
  graph.prop.set @depth[%0] = %c0 : i64
  %1 = graph.vertex_of %other
  graph.prop.set @depth[%1] = %m1 : i64
  %2 = graph.frontier.of [%0]
  %4 = graph.edges from %2 label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
  ^bb0(%src: i32, %dst: i32):
    %d = graph.prop.get @depth[%dst] : i64
    %unseen = arith.cmpi eq, %d, %m1 : i64
    graph.yield %unseen : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    %ds = graph.prop.get @depth[%src] : i64
    %one = arith.constant 1 : i64
    %d1 = arith.addi %ds, %one : i64
    // expected-error@+2 {{plain write to 'depth' at the destination in parallel loop 'expand' of algorithm 'bfsOverwrite' (push)}}
    // expected-note@+1 {{a parallel plain write goes to the vertex its iteration owns}}
    graph.prop.set @depth[%dst] = %d1 : i64
    graph.yield
  }
}

// -----

// BFS parents pushed: `where parent[dst] == -1 { parent[dst] max= src }`.
// The first reduction to arrive makes the others fail `where`, so which
// source wins depends on timing: a warning at the read (the reduction
// itself is legal).
walk.graph @g "g.txt" format snap
graph.algorithm @parents on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %none = arith.constant -1 : i64
  graph.property @parent : i64 = %none
  %all = graph.frontier.all
  %next = graph.edges from %all label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
  ^bb0(%src: i32, %dst: i32):
    // expected-warning@+1 {{read of 'parent' at the destination in parallel loop 'expand' of algorithm 'parents' (push) may see other iterations' reductions into 'parent' there: which iterations see which value depends on timing, and so does the result; schedule the loop so that it owns that vertex (`direction: pull` for the destination), guard on a property the loop does not update, or schedule it `parallel: serial`}}
    %p = graph.prop.get @parent[%dst] : i64
    %m1 = arith.constant -1 : i64
    %fresh = arith.cmpi eq, %p, %m1 : i64
    graph.yield %fresh : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    %s = arith.extui %src : i32 to i64
    // expected-note@+1 {{the reduction into 'parent'}}
    graph.prop.reduce max @parent[%dst], %s : i64
    graph.yield
  }
}

// -----

// The same pulled: the iteration owns its destination and reads only its
// own reductions there (in-edges in order): nothing to report.
walk.graph @g "g.txt" format snap
graph.algorithm @parents on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %none = arith.constant -1 : i64
  graph.property @parent : i64 = %none
  %all = graph.frontier.all
  %next = graph.edges from %all label "expand" -> !graph.frontier attributes {schedule = #graph.schedule<direction = pull, parallel = static, frontier = auto, format = auto>} where {
  ^bb0(%src: i32, %dst: i32):
    %p = graph.prop.get @parent[%dst] : i64
    %m1 = arith.constant -1 : i64
    %fresh = arith.cmpi eq, %p, %m1 : i64
    graph.yield %fresh : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    %s = arith.extui %src : i32 to i64
    graph.prop.reduce max @parent[%dst], %s : i64
    graph.yield
  }
}

// -----

// A relaxation's filter, `dist[src] + 1 < dist[dst]` before `dist[dst]
// min= dist[src] + 1` (either way round, `<=` and `!=` too), only skips
// reductions that change nothing: no warning. The opposite comparison,
// and a filter on a sum, do change the result: warnings.
walk.graph @g "g.txt" format snap
graph.algorithm @relax on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %inf = arith.constant 1.0e30 : f64
  graph.property @dist : f64 = %inf
  %zero = arith.constant 0 : i64
  graph.property @tries : i64 = %zero
  %all = graph.frontier.all
  %a = graph.edges from %all label "below" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
  ^bb0(%src: i32, %dst: i32):
    %ds = graph.prop.get @dist[%src] : f64
    %one = arith.constant 1.0 : f64
    %cand = arith.addf %ds, %one : f64
    %dd = graph.prop.get @dist[%dst] : f64
    %better = arith.cmpf olt, %cand, %dd : f64
    graph.yield %better : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    %ds = graph.prop.get @dist[%src] : f64
    %one = arith.constant 1.0 : f64
    %cand = arith.addf %ds, %one : f64
    graph.prop.reduce min @dist[%dst], %cand : f64
    graph.yield
  }
  %b = graph.edges from %all label "mirrored" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
  ^bb0(%src: i32, %dst: i32):
    %dd = graph.prop.get @dist[%dst] : f64
    %ds = graph.prop.get @dist[%src] : f64
    %one = arith.constant 1.0 : f64
    %cand = arith.addf %ds, %one : f64
    %better = arith.cmpf une, %dd, %cand : f64
    graph.yield %better : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    %ds = graph.prop.get @dist[%src] : f64
    %one = arith.constant 1.0 : f64
    %cand = arith.addf %ds, %one : f64
    graph.prop.reduce min @dist[%dst], %cand : f64
    graph.yield
  }
  %c = graph.edges from %all label "worse" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
  ^bb0(%src: i32, %dst: i32):
    %ds = graph.prop.get @dist[%src] : f64
    %one = arith.constant 1.0 : f64
    %cand = arith.addf %ds, %one : f64
    // expected-warning@+1 {{read of 'dist' at the destination in parallel loop 'worse' of algorithm 'relax' (push) may see other iterations' reductions into 'dist' there}}
    %dd = graph.prop.get @dist[%dst] : f64
    %worse = arith.cmpf ogt, %cand, %dd : f64
    graph.yield %worse : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    %ds = graph.prop.get @dist[%src] : f64
    %one = arith.constant 1.0 : f64
    %cand = arith.addf %ds, %one : f64
    // expected-note@+1 {{the reduction into 'dist'}}
    graph.prop.reduce min @dist[%dst], %cand : f64
    graph.yield
  }
  %d = graph.edges from %all label "count" -> !graph.frontier attributes {schedule = #graph.schedule<direction = push, parallel = static, frontier = auto, format = auto>} where {
  ^bb0(%src: i32, %dst: i32):
    // expected-warning@+1 {{read of 'tries' at the destination in parallel loop 'count' of algorithm 'relax' (push) may see other iterations' reductions into 'tries' there}}
    %t = graph.prop.get @tries[%dst] : i64
    %two = arith.constant 2 : i64
    %few = arith.cmpi slt, %t, %two : i64
    graph.yield %few : i1
  } do {
  ^bb0(%src: i32, %dst: i32):
    %one = arith.constant 1 : i64
    // expected-note@+1 {{the reduction into 'tries'}}
    graph.prop.reduce add @tries[%dst], %one : i64
    graph.yield
  }
}

// -----

// compare_swap is an atomic write: legal at any vertex of a parallel loop,
// beside reductions into the same property, and the reads of the property
// it swaps get no warning (a union-find link).
// CHECK-LABEL: graph.algorithm @link
// CHECK:         graph.compare_swap @comp[%{{.*}}], %{{.*}}, %{{.*}} : i32, i32
walk.graph @g "g.txt" format snap
graph.algorithm @link on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %c0 = arith.constant 0 : i32
  graph.property @comp : i32 = %c0
  graph.edges label "link" attributes {schedule = #graph.schedule<direction = pull, parallel = dynamic, chunk = 256, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    %p = graph.prop.get @comp[%src] : i32
    %q = graph.prop.get @comp[%p] : i32
    %ok = graph.compare_swap @comp[%p], %p, %dst : i32, i32
    graph.prop.reduce min @comp[%q], %dst : i32
    graph.yield
  }
}

// -----

// A plain write of a property the loop swaps races with the swaps, at the
// owned vertex too.
walk.graph @g "g.txt" format snap
graph.algorithm @mixed on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %c0 = arith.constant 0 : i32
  graph.property @comp : i32 = %c0
  graph.edges label "link" attributes {schedule = #graph.schedule<direction = pull, parallel = static, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    %p = graph.prop.get @comp[%src] : i32
    // expected-note@+1 {{the compare_swap of 'comp'}}
    %ok = graph.compare_swap @comp[%p], %p, %dst : i32, i32
    // expected-error@+1 {{plain write to 'comp' at the destination in parallel loop 'link' of algorithm 'mixed' (pull) while other iterations compare_swap 'comp': the write is not atomic with their swaps; update 'comp' with compare_swap only in this loop or schedule it `parallel: serial`}}
    graph.prop.set @comp[%dst] = %p : i32
    graph.yield
  }
}

// -----

// Serial: nothing to race with.
// CHECK-LABEL: graph.algorithm @serial
walk.graph @g "g.txt" format snap
graph.algorithm @serial on @g attributes {param_names = [], param_defaults = [], outputs = []} {
  %c0 = arith.constant 0 : i32
  graph.property @comp : i32 = %c0
  graph.edges label "link" attributes {schedule = #graph.schedule<direction = pull, parallel = serial, frontier = auto, format = auto>} do {
  ^bb0(%src: i32, %dst: i32):
    %p = graph.prop.get @comp[%src] : i32
    %ok = graph.compare_swap @comp[%p], %p, %dst : i32, i32
    graph.prop.set @comp[%dst] = %p : i32
    graph.yield
  }
}
