// RUN: sluice-opt --walk-bounds %s -split-input-file | FileCheck %s
// Running it twice replaces the regions: same result.
// RUN: sluice-opt --walk-bounds %s -split-input-file | sluice-opt --walk-bounds -split-input-file | FileCheck %s

// A constant weight: every edge weighs 1, the sum is the degree.
// CHECK-LABEL: walk.walk @constant
// CHECK-SAME:    weight_class = #walk<weight_class constant>
// CHECK-NOT:     may_be_zero
// CHECK:       } upper_bound {
// CHECK-NEXT:  ^bb0(%{{.*}}: i32):
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    walk.yield %[[ONE]] : f64
// CHECK:       } sum_upper_bound {
// CHECK-NEXT:  ^bb0(%[[CUR:.*]]: i32):
// CHECK-NEXT:    %[[D:.*]] = walk.degree %[[CUR]] : i64
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[D]] : i64 to f64
// CHECK-NEXT:    walk.yield %[[F]] : f64
walk.graph @g "g.txt" format snap
walk.walk @constant on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %c = arith.constant 1.0 : f64
    walk.yield %c : f64
  }

// -----

// A parameter: the same for every edge; it may be zero (or negative), so
// both bounds are max(k, 0) (a weight <= 0 counts as 0).
// CHECK-LABEL: walk.walk @parameter
// CHECK-SAME:    may_be_zero
// CHECK-SAME:    weight_class = #walk<weight_class parameter>
// CHECK:       } upper_bound {
// CHECK-NEXT:  ^bb0(%{{.*}}: i32):
// CHECK-NEXT:    %[[K:.*]] = walk.param "k"[0] : i64
// CHECK-NEXT:    %[[KF:.*]] = arith.sitofp %[[K]] : i64 to f64
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[UB:.*]] = arith.maximumf %[[KF]], %[[Z]] : f64
// CHECK-NEXT:    walk.yield %[[UB]] : f64
// CHECK:       } lower_bound {
// CHECK:         %[[M:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:    walk.yield %[[M]] : f64
walk.graph @g "g.txt" format snap
walk.walk @parameter on @g attributes {order = 1 : i64, param_names = ["k"], param_types = [i64], param_defaults = [3], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %k = walk.param "k"[0] : i64
    %f = arith.sitofp %k : i64 to f64
    walk.yield %f : f64
  }

// -----

// A static edge field (alias-able): reciprocated edges weigh 2w. Bounds:
// [weight_min(cur), weight_max(cur) * 2]; sum in [W, 2 W] with W =
// weight_sum(cur).
// CHECK-LABEL: walk.walk @static
// CHECK-SAME:    weight_class = #walk<weight_class static>
// CHECK:       } upper_bound {
// CHECK-NEXT:  ^bb0(%[[CUR:.*]]: i32):
// CHECK-NEXT:    %[[MAX:.*]] = walk.weight_max %[[CUR]] : f64
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    %[[R:.*]] = arith.mulf %[[MAX]], %[[TWO]] : f64
// CHECK-NEXT:    walk.yield %[[R]] : f64
// CHECK:       } lower_bound {
// CHECK-NEXT:  ^bb0(%[[CUR:.*]]: i32):
// CHECK-NEXT:    %[[MIN:.*]] = walk.weight_min %[[CUR]] : f64
// CHECK-NEXT:    walk.yield %[[MIN]] : f64
// CHECK:       } sum_upper_bound {
// CHECK:         walk.weight_sum
// CHECK:         arith.mulf
// CHECK:       } sum_lower_bound {
// CHECK-NEXT:  ^bb0(%[[CUR:.*]]: i32):
// CHECK-NEXT:    %[[S:.*]] = walk.weight_sum %[[CUR]] : f64
// CHECK-NEXT:    walk.yield %[[S]] : f64
walk.graph @g "g.txt" format snap
walk.walk @static on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %back = walk.has_edge %next, %cur
    %two = arith.constant 2.0 : f64
    %w2 = arith.mulf %w, %two : f64
    %r = arith.select %back, %w2, %w : f64
    walk.yield %r : f64
  }

// -----

// History-dependent (node2vec): the bound divides by p and q, so it holds
// when p > 0 and q > 0; the regions check that and yield +inf (upper) or 0
// (lower) otherwise.
// CHECK-LABEL: walk.walk @node2vec
// CHECK-SAME:    assumptions = ["p > 0", "q > 0"]
// CHECK-SAME:    depends_on = ["prev"]
// CHECK-NOT:     may_be_zero
// CHECK-SAME:    weight_class = #walk<weight_class dynamic>
// CHECK:       } upper_bound {
// CHECK-NEXT:  ^bb0(%[[CUR:.*]]: i32):
// CHECK-NEXT:    %[[MAX:.*]] = walk.weight_max %[[CUR]] : f64
// CHECK:         %[[P:.*]] = walk.param "p"[0] : f64
// CHECK:         arith.divf %{{.*}}, %[[P]] : f64
// CHECK:         %[[Q:.*]] = walk.param "q"[1] : f64
// CHECK:         arith.divf %{{.*}}, %[[Q]] : f64
// CHECK:         arith.maximumf
// CHECK:         %[[B:.*]] = arith.mulf %[[MAX]], %{{.*}} : f64
// CHECK:         %[[OKP:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f64
// CHECK:         %[[OKQ:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f64
// CHECK:         %[[OK:.*]] = arith.andi %[[OKP]], %[[OKQ]] : i1
// CHECK:         %[[INF:.*]] = arith.constant 0x7FF0000000000000 : f64
// CHECK:         %[[R:.*]] = arith.select %[[OK]], %[[B]], %[[INF]] : f64
// CHECK-NEXT:    walk.yield %[[R]] : f64
// CHECK:       } lower_bound {
// CHECK:         walk.weight_min
// CHECK:         arith.minimumf
// CHECK:         arith.select
// CHECK:       } sum_upper_bound {
// CHECK:         walk.weight_sum
// CHECK:       } sum_lower_bound {
// CHECK:         walk.weight_sum
walk.graph @g "g.txt" format snap undirected
walk.walk @node2vec on @g attributes {order = 2 : i64, param_names = ["p", "q"], param_types = [f64, f64], param_defaults = [2.0, 0.5], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %back = arith.cmpi eq, %next, %prev : i32
    %r = scf.if %back -> f64 {
      %p = walk.param "p"[0] : f64
      %a = arith.divf %w, %p : f64
      scf.yield %a : f64
    } else {
      %near = walk.has_edge %prev, %next
      %b = scf.if %near -> f64 {
        scf.yield %w : f64
      } else {
        %q = walk.param "q"[1] : f64
        %c = arith.divf %w, %q : f64
        scf.yield %c : f64
      }
      scf.yield %b : f64
    }
    walk.yield %r : f64
  }

// -----

// Possibly zero (metapath-like, depends on state): bounds [0, max w].
// CHECK-LABEL: walk.walk @typed
// CHECK-SAME:    depends_on = ["state"]
// CHECK-SAME:    may_be_zero
// CHECK-SAME:    weight_class = #walk<weight_class dynamic>
// CHECK:       } upper_bound {
// CHECK-NEXT:  ^bb0(%[[CUR:.*]]: i32):
// CHECK-NEXT:    %[[MAX:.*]] = walk.weight_max %[[CUR]] : f64
// CHECK-NEXT:    walk.yield %[[MAX]] : f64
// CHECK:       } lower_bound {
// CHECK-NEXT:  ^bb0(%{{.*}}: i32):
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    walk.yield %[[Z]] : f64
// CHECK:       } sum_upper_bound {
// CHECK-NEXT:  ^bb0(%[[CUR:.*]]: i32):
// CHECK-NEXT:    %[[S:.*]] = walk.weight_sum %[[CUR]] : f64
// CHECK-NEXT:    walk.yield %[[S]] : f64
walk.graph @g "g.txt" format snap {labels = "g.labels"}
walk.walk @typed on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = ["want"], state_types = [i64]}
  init {
    %z = arith.constant 0 : i64
    walk.yield %z : i64
  }
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %want = walk.state.get "want"[0] : i64
    %l = walk.label %next : i64
    %ok = arith.cmpi eq, %l, %want : i64
    %zero = arith.constant 0.0 : f64
    %r = arith.select %ok, %w, %zero : f64
    walk.yield %r : f64
  }

// -----

// Unbounded: exp(w * w * label(next)). No upper bound regions; the lower
// bound is 0.
// CHECK-LABEL: walk.walk @expo
// CHECK-SAME:    may_be_zero
// CHECK-SAME:    unbounded
// CHECK-SAME:    weight_class = #walk<weight_class static>
// CHECK-NOT:   upper_bound
// CHECK:       } lower_bound {
// CHECK-NOT:   upper_bound
// CHECK:       } sum_lower_bound {
// CHECK-NOT:   upper_bound
walk.graph @g "g.txt" format snap {labels = "g.labels"}
walk.walk @expo on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %l = walk.label %next : i64
    %lf = arith.sitofp %l : i64 to f64
    %ww = arith.mulf %w, %w : f64
    %x = arith.mulf %ww, %lf : f64
    %e = math.exp %x : f64
    walk.yield %e : f64
  }

// -----

// random() as a factor in [0, 1]: dynamic but bounded by [0, max w].
// CHECK-LABEL: walk.walk @jitter
// CHECK-SAME:    depends_on = ["random"]
// CHECK-SAME:    may_be_zero
// CHECK-SAME:    weight_class = #walk<weight_class dynamic>
// CHECK:       } upper_bound {
// CHECK-NEXT:  ^bb0(%[[CUR:.*]]: i32):
// CHECK-NEXT:    %[[MAX:.*]] = walk.weight_max %[[CUR]] : f64
// CHECK-NEXT:    walk.yield %[[MAX]] : f64
walk.graph @g "g.txt" format snap
walk.walk @jitter on @g attributes {order = 1 : i64, param_names = [], param_types = [], param_defaults = [], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %r = walk.random : f64
    %x = arith.mulf %w, %r : f64
    walk.yield %x : f64
  }

// -----

// Second-order PageRank: bounds from the 1/degree terms; degree(prev) >= 1
// (prev has the edge prev -> cur).
// CHECK-LABEL: walk.walk @ppr2
// CHECK-SAME:    depends_on = ["prev"]
// CHECK-SAME:    may_be_zero
// CHECK-SAME:    weight_class = #walk<weight_class dynamic>
// CHECK:       } upper_bound {
// CHECK-NEXT:  ^bb0(%[[CUR:.*]]: i32):
// CHECK:         walk.param "alpha"[0] : f64
// CHECK:         arith.subf
// CHECK:         walk.degree %[[CUR]] : i64
// CHECK:         arith.divf
// CHECK:         walk.param "alpha"[0] : f64
// CHECK:         arith.maximumf
// CHECK:         %[[S:.*]] = arith.addf
// CHECK:         %[[R:.*]] = arith.maximumf %[[S]], %{{.*}} : f64
// CHECK-NEXT:    walk.yield %[[R]] : f64
walk.graph @g "g.txt" format snap
walk.walk @ppr2 on @g attributes {order = 2 : i64, param_names = ["alpha"], param_types = [f64], param_defaults = [0.2], state_names = [], state_types = []}
  weight {
  ^bb0(%prev: i32, %cur: i32, %next: i32, %edge: i64, %w: f64):
    %one = arith.constant 1.0 : f64
    %alpha = walk.param "alpha"[0] : f64
    %rest = arith.subf %one, %alpha : f64
    %dc = walk.degree %cur : i64
    %dcf = arith.sitofp %dc : i64 to f64
    %first = arith.divf %rest, %dcf : f64
    %common = walk.has_edge %prev, %next
    %r = scf.if %common -> f64 {
      %dp = walk.degree %prev : i64
      %dpf = arith.sitofp %dp : i64 to f64
      %second = arith.divf %alpha, %dpf : f64
      %s = arith.addf %first, %second : f64
      scf.yield %s : f64
    } else {
      scf.yield %first : f64
    }
    walk.yield %r : f64
  }
