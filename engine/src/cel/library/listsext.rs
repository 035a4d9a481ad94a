//! cel-go's lists extension (`ext/lists.go`, version 3 from compatibility 1.34): slice,
//! flatten, sort, the `sortBy` macro (over `@sortByAssociatedKeys`), `lists.range`,
//! reverse, distinct.

use crate::cel::library::lists::{compare, is_comparable};
use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::Type;
use crate::cel::value::{equal, EvalError, EvalResult, List, Val};
use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, ListExpr, LiteralValue};
use cel::parser::{Macro, MacroExprHelper};
use cel::ParseError;
use std::cmp::Ordering;

/// The comparable types of `sort` / `@sortByAssociatedKeys`, with cel-go's type names
/// (which make the overload ids).
const SORT_IDS: [(&str, &str, fn() -> Type); 8] = [
    ("list_int_sort", "list_int_sortByAssociatedKeys", || {
        Type::Int
    }),
    ("list_uint_sort", "list_uint_sortByAssociatedKeys", || {
        Type::Uint
    }),
    (
        "list_double_sort",
        "list_double_sortByAssociatedKeys",
        || Type::Double,
    ),
    ("list_bool_sort", "list_bool_sortByAssociatedKeys", || {
        Type::Bool
    }),
    (
        "list_google.protobuf.Duration_sort",
        "list_google.protobuf.Duration_sortByAssociatedKeys",
        || Type::Duration,
    ),
    (
        "list_google.protobuf.Timestamp_sort",
        "list_google.protobuf.Timestamp_sortByAssociatedKeys",
        || Type::Timestamp,
    ),
    (
        "list_string_sort",
        "list_string_sortByAssociatedKeys",
        || Type::String,
    ),
    ("list_bytes_sort", "list_bytes_sortByAssociatedKeys", || {
        Type::Bytes
    }),
];

/// The variable `sortBy` binds its target to.
const SORT_BY_INPUT: &str = "@__sortBy_input__";
/// The hidden function `sortBy` expands to.
const SORT_BY_KEYS: &str = "@sortByAssociatedKeys";

/// The most elements a flatten may produce: lists sharing sublists can describe far more
/// elements than they cost to build.
const MAX_FLATTEN: usize = 1 << 22;

fn present(opts: &EnvOptions) -> bool {
    opts.compat_minor >= 34
}

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if !present(opts) {
        return Vec::new();
    }
    let t = || Type::param("T");
    let list_t = || Type::list(t());
    let mut sort = Vec::new();
    let mut sort_by = Vec::new();
    for (sort_id, by_id, u) in SORT_IDS {
        sort.push(Overload::member(
            sort_id,
            vec![Type::list(u())],
            Type::list(u()),
            list_sort,
        ));
        sort_by.push(Overload::member(
            by_id,
            vec![list_t(), Type::list(u())],
            list_t(),
            sort_by_associated_keys,
        ));
    }
    vec![
        Function::new(
            "slice",
            vec![Overload::member(
                "list_slice",
                vec![list_t(), Type::Int, Type::Int],
                list_t(),
                list_slice,
            )],
        ),
        Function::new(
            "flatten",
            vec![
                Overload::member(
                    "list_flatten",
                    vec![Type::list(list_t())],
                    list_t(),
                    list_flatten,
                ),
                Overload::member(
                    "list_flatten_int",
                    vec![Type::list(Type::Dyn), Type::Int],
                    Type::list(Type::Dyn),
                    list_flatten_depth,
                ),
            ],
        ),
        Function::new("sort", sort),
        Function::new(SORT_BY_KEYS, sort_by),
        Function::new(
            "lists.range",
            vec![Overload::global(
                "lists_range",
                vec![Type::Int],
                Type::list(Type::Int),
                lists_range,
            )],
        ),
        Function::new(
            "reverse",
            vec![Overload::member(
                "list_reverse",
                vec![list_t()],
                list_t(),
                list_reverse,
            )],
        ),
        Function::new(
            "distinct",
            vec![Overload::member(
                "list_distinct",
                vec![list_t()],
                list_t(),
                list_distinct,
            )],
        ),
    ]
}

/// The parser macros this library adds: `sortBy`.
pub fn macros(opts: &EnvOptions) -> Vec<Macro> {
    if !present(opts) {
        return Vec::new();
    }
    vec![Macro::receiver("sortBy", 2, sort_by_macro)]
}

/// Expands `target.sortBy(e, key)` as cel-go does, into the equivalent of
/// `cel.bind(@__sortBy_input__, target,
///   @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))`.
fn sort_by_macro(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Result<Option<IdedExpr>, ParseError> {
    let Some(list) = target.take() else {
        return Err(helper.new_error(0, "sortBy requires a target"));
    };
    if !matches!(
        list.expr,
        Expr::List(_) | Expr::Select(_) | Expr::Ident(_) | Expr::Comprehension(_) | Expr::Call(_)
    ) {
        return Err(helper.new_error(
            list.id,
            "sortBy can only be applied to a list, identifier, comprehension, call or select expression",
        ));
    }
    if args.len() != 2 {
        return Err(helper.new_error(list.id, "sortBy requires two arguments"));
    }
    let key = args.pop().unwrap_or_default();
    let var = args.pop().unwrap_or_default();
    let var_name = match var.expr {
        Expr::Ident(name) => name,
        _ => return Err(helper.new_error(var.id, "argument is not an identifier")),
    };
    if var_name == "@result" || var_name == "__result__" {
        return Err(helper.new_error(var.id, "iteration variable overwrites accumulator variable"));
    }
    let input = |h: &mut MacroExprHelper<'_>| h.next_expr(Expr::Ident(SORT_BY_INPUT.to_string()));
    // The key list: `@__sortBy_input__.map(e, key)`, as the map macro expands it.
    let map_range = input(helper);
    let map_init = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let map_cond = helper.next_expr(Expr::Literal(LiteralValue::Boolean(true.into())));
    let accu = helper.next_expr(Expr::Ident("@result".to_string()));
    let key_list = helper.next_expr(Expr::List(ListExpr::new(vec![key])));
    let map_step = helper.next_expr(Expr::Call(CallExpr {
        func_name: "_+_".to_string(),
        target: None,
        args: vec![accu, key_list],
    }));
    let map_result = helper.next_expr(Expr::Ident("@result".to_string()));
    let keys = helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: map_range,
        iter_var: var_name,
        iter_var2: None,
        accu_var: "@result".to_string(),
        accu_init: map_init,
        loop_cond: map_cond,
        loop_step: map_step,
        result: map_result,
    })));
    let receiver = input(helper);
    let sorted = helper.next_expr(Expr::Call(CallExpr {
        func_name: SORT_BY_KEYS.to_string(),
        target: Some(Box::new(receiver)),
        args: vec![keys],
    }));
    let bind_range = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let bind_cond = helper.next_expr(Expr::Literal(LiteralValue::Boolean(false.into())));
    let bind_step = input(helper);
    Ok(Some(helper.next_expr(Expr::Comprehension(Box::new(
        ComprehensionExpr {
            iter_range: bind_range,
            iter_var: "#unused".to_string(),
            iter_var2: None,
            accu_var: SORT_BY_INPUT.to_string(),
            accu_init: list,
            loop_cond: bind_cond,
            loop_step: bind_step,
            result: sorted,
        },
    )))))
}

fn list_arg<'a>(args: &[Val<'a>], i: usize) -> Result<Vec<Val<'a>>, EvalError> {
    match args.get(i) {
        Some(Val::List(l)) => l.try_items(),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn int_arg(args: &[Val], i: usize) -> Result<i64, EvalError> {
    match args.get(i) {
        Some(Val::Int(n)) => Ok(*n),
        _ => Err(EvalError::no_such_overload()),
    }
}

/// `list.slice(start, end)`.
fn list_slice<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let (start, end) = (int_arg(args, 1)?, int_arg(args, 2)?);
    let len = match args.first() {
        Some(Val::List(l)) => l.len() as i64,
        _ => return Err(EvalError::no_such_overload()),
    };
    if start < 0 || end < 0 {
        return Err(EvalError::new(format!(
            "cannot slice({}, {}), negative indexes not supported",
            start, end
        )));
    }
    if start > end {
        return Err(EvalError::new(format!(
            "cannot slice({}, {}), start index must be less than or equal to end index",
            start, end
        )));
    }
    if len < end {
        return Err(EvalError::new(format!(
            "cannot slice({}, {}), list is length {}",
            start, end, len
        )));
    }
    let Some(Val::List(l)) = args.first() else {
        return Err(EvalError::no_such_overload());
    };
    let mut out = Vec::with_capacity((end - start) as usize);
    for i in start as usize..end as usize {
        match l.get(i) {
            Some(v) => out.push(v?),
            None => return Err(EvalError::new(format!("index out of range: {}", i))),
        }
    }
    Ok(Val::list(out))
}

/// cel-go's printed type of a runtime value (`%v` of `ref.Val.Type()`).
fn runtime_type(v: &Val) -> String {
    match v {
        Val::Type(_) => "type".into(),
        other => other.type_of().to_string(),
    }
}

/// The Go type name in the message of a failed `ref.Val` → `types.Int` assertion.
fn go_val_type(v: &Val) -> &'static str {
    match v {
        Val::Null => "types.Null",
        Val::Bool(_) => "types.Bool",
        Val::Int(_) => "types.Int",
        Val::Uint(_) => "types.Uint",
        Val::Double(_) => "types.Double",
        Val::String(_) => "types.String",
        Val::Bytes(_) => "types.Bytes",
        Val::Duration(_) => "types.Duration",
        Val::Timestamp(_) => "types.Timestamp",
        Val::List(_) => "*types.baseList",
        Val::Map(_) => "*types.baseMap",
        Val::Optional(_) => "*types.Optional",
        Val::Type(_) => "*types.Type",
        Val::Opaque(_) => "ref.Val",
    }
}

/// `list.flatten()`: one level.
fn list_flatten<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    match args.first() {
        Some(Val::List(l)) => flatten(l, 1),
        Some(other) => Err(EvalError::no_such_overload_for(format!(
            "{}.flatten()",
            runtime_type(other)
        ))),
        None => Err(EvalError::no_such_overload()),
    }
}

/// `list.flatten(depth)`.
fn list_flatten_depth<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let (Some(target), Some(depth)) = (args.first(), args.get(1)) else {
        return Err(EvalError::no_such_overload());
    };
    let Val::List(l) = target else {
        return Err(EvalError::no_such_overload_for(format!(
            "{}.flatten({})",
            runtime_type(target),
            runtime_type(depth)
        )));
    };
    match depth {
        Val::Int(d) => flatten(l, *d),
        // cel-go asserts the type without checking: the panic is reported as an internal error.
        other => Err(EvalError::new(format!(
            "internal error: interface conversion: ref.Val is {}, not types.Int",
            go_val_type(other)
        ))),
    }
}

/// Splices nested lists in, `depth` levels deep (iteratively: nesting may be deep).
fn flatten<'a>(list: &List<'a>, depth: i64) -> EvalResult<'a> {
    if depth < 0 {
        return Err(EvalError::new("level must be non-negative"));
    }
    let mut out: Vec<Val<'a>> = Vec::new();
    // Each frame: the list, the next index, the depth left for its elements.
    let mut stack: Vec<(List<'a>, usize, i64)> = vec![(list.clone(), 0, depth)];
    while let Some((l, i, d)) = stack.pop() {
        let Some(item) = l.get(i) else { continue };
        let item = item?;
        stack.push((l, i + 1, d));
        match item {
            Val::List(inner) if d > 0 => stack.push((inner, 0, d - 1)),
            v => {
                if out.len() >= MAX_FLATTEN {
                    return Err(EvalError::cost_limit());
                }
                out.push(v);
            }
        }
    }
    Ok(Val::list(out))
}

/// `lists.range(n)`: `[0, 1, ..., n-1]` (empty for `n <= 0`).
fn lists_range<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let n = int_arg(args, 0)?;
    // The call costs at least n: beyond the per-call limit it could never complete.
    if n > crate::cel::config::PER_CALL_LIMIT as i64 {
        return Err(EvalError::cost_limit());
    }
    Ok(Val::list((0..n.max(0)).map(Val::Int).collect()))
}

fn list_reverse<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let mut items = list_arg(args, 0)?;
    items.reverse();
    Ok(Val::list(items))
}

/// `list.distinct()`: the first of each set of equal elements, in order.
fn list_distinct<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let items = list_arg(args, 0)?;
    // Quadratic; its cost (2·n²) is over the per-call limit before the work gets large.
    let n = items.len() as u64;
    if n.saturating_mul(n).saturating_mul(2) > crate::cel::config::PER_CALL_LIMIT {
        return Err(EvalError::cost_limit());
    }
    let mut unique: Vec<Val<'a>> = Vec::with_capacity(items.len());
    for v in items {
        if !unique.iter().any(|u| equal(&v, u)) {
            unique.push(v);
        }
    }
    Ok(Val::list(unique))
}

/// `list.sort()`.
fn list_sort<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let items = list_arg(args, 0)?;
    sort_by_keys(items.clone(), &items)
}

/// `list.@sortByAssociatedKeys(keys)`.
fn sort_by_associated_keys<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let items = list_arg(args, 0)?;
    let keys = list_arg(args, 1)?;
    sort_by_keys(items, &keys)
}

fn same_type(a: &Val, b: &Val) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// cel-go's `sortListByAssociatedKeys`: the elements ordered by their keys with Go's
/// `sort.Slice` (not stable: equal keys end up as Go's pdqsort leaves them).
fn sort_by_keys<'a>(items: Vec<Val<'a>>, keys: &[Val<'a>]) -> EvalResult<'a> {
    if items.len() != keys.len() {
        return Err(EvalError::new(format!(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got {} and {} elements respectively",
            items.len(),
            keys.len()
        )));
    }
    let Some(first) = keys.first() else {
        return Ok(Val::list(items));
    };
    if !is_comparable(first) {
        return Err(EvalError::new("list elements must be comparable"));
    }
    if keys.iter().any(|k| !same_type(k, first)) {
        return Err(EvalError::new("list elements must have the same type"));
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    let mut less = |i: usize, j: usize| compare(&keys[i], &keys[j]) == Some(Ordering::Less);
    go_sort::slice(&mut order, &mut less);
    let mut slots: Vec<Option<Val<'a>>> = items.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for i in order {
        if let Some(v) = slots.get_mut(i).and_then(Option::take) {
            out.push(v);
        }
    }
    Ok(Val::list(out))
}

/// Go's `sort.Slice` (pattern-defeating quicksort, `sort/zsortfunc.go`), over a
/// permutation: `less` compares the elements the permutation entries name.
mod go_sort {
    #[derive(PartialEq, Clone, Copy)]
    enum Hint {
        Unknown,
        Increasing,
        Decreasing,
    }

    struct Data<'d, 'l> {
        v: &'d mut [usize],
        less: &'l mut dyn FnMut(usize, usize) -> bool,
    }

    impl Data<'_, '_> {
        fn less(&mut self, i: usize, j: usize) -> bool {
            let (a, b) = (self.v[i], self.v[j]);
            (self.less)(a, b)
        }
        fn swap(&mut self, i: usize, j: usize) {
            self.v.swap(i, j);
        }
    }

    /// Sorts `v` so that `less(v[i], v[j])` is false for every i > j.
    pub fn slice(v: &mut [usize], less: &mut dyn FnMut(usize, usize) -> bool) {
        let n = v.len();
        let limit = (usize::BITS - n.leading_zeros()) as usize;
        let mut d = Data { v, less };
        pdqsort(&mut d, 0, n, limit);
    }

    fn insertion_sort(d: &mut Data, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && d.less(j, j - 1) {
                d.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    fn sift_down(d: &mut Data, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                break;
            }
            if child + 1 < hi && d.less(first + child, first + child + 1) {
                child += 1;
            }
            if !d.less(first + root, first + child) {
                return;
            }
            d.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(d: &mut Data, a: usize, b: usize) {
        let first = a;
        let hi = b - a;
        if hi == 0 {
            return;
        }
        let mut i = (hi - 1) / 2;
        loop {
            sift_down(d, i, hi, first);
            if i == 0 {
                break;
            }
            i -= 1;
        }
        for i in (0..hi).rev() {
            d.swap(first, first + i);
            sift_down(d, 0, i, first);
        }
    }

    fn pdqsort(d: &mut Data, mut a: usize, mut b: usize, mut limit: usize) {
        const MAX_INSERTION: usize = 12;
        let mut was_balanced = true;
        let mut was_partitioned = true;
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                insertion_sort(d, a, b);
                return;
            }
            if limit == 0 {
                heap_sort(d, a, b);
                return;
            }
            if !was_balanced {
                break_patterns(d, a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = choose_pivot(d, a, b);
            if hint == Hint::Decreasing {
                reverse_range(d, a, b);
                pivot = (b - 1) - (pivot - a);
                hint = Hint::Increasing;
            }
            if was_balanced
                && was_partitioned
                && hint == Hint::Increasing
                && partial_insertion_sort(d, a, b)
            {
                return;
            }
            if a > 0 && !d.less(a - 1, pivot) {
                a = partition_equal(d, a, b, pivot);
                continue;
            }
            let (mid, already) = partition(d, a, b, pivot);
            was_partitioned = already;
            let (left, right) = (mid - a, b - mid);
            let threshold = length / 8;
            if left < right {
                was_balanced = left >= threshold;
                pdqsort(d, a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right >= threshold;
                pdqsort(d, mid + 1, b, limit);
                b = mid;
            }
        }
    }

    fn partition(d: &mut Data, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        d.swap(a, pivot);
        let (mut i, mut j) = (a as isize + 1, b as isize - 1);
        while i <= j && d.less(i as usize, a) {
            i += 1;
        }
        while i <= j && !d.less(j as usize, a) {
            j -= 1;
        }
        if i > j {
            d.swap(j as usize, a);
            return (j as usize, true);
        }
        d.swap(i as usize, j as usize);
        i += 1;
        j -= 1;
        loop {
            while i <= j && d.less(i as usize, a) {
                i += 1;
            }
            while i <= j && !d.less(j as usize, a) {
                j -= 1;
            }
            if i > j {
                break;
            }
            d.swap(i as usize, j as usize);
            i += 1;
            j -= 1;
        }
        d.swap(j as usize, a);
        (j as usize, false)
    }

    fn partition_equal(d: &mut Data, a: usize, b: usize, pivot: usize) -> usize {
        d.swap(a, pivot);
        let (mut i, mut j) = (a as isize + 1, b as isize - 1);
        loop {
            while i <= j && !d.less(a, i as usize) {
                i += 1;
            }
            while i <= j && d.less(a, j as usize) {
                j -= 1;
            }
            if i > j {
                break;
            }
            d.swap(i as usize, j as usize);
            i += 1;
            j -= 1;
        }
        i as usize
    }

    fn partial_insertion_sort(d: &mut Data, a: usize, b: usize) -> bool {
        const MAX_STEPS: usize = 5;
        const SHORTEST_SHIFTING: usize = 50;
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !d.less(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            d.swap(i, i - 1);
            if i - a >= 2 {
                let mut j = i - 1;
                while j >= 1 {
                    if !d.less(j, j - 1) {
                        break;
                    }
                    d.swap(j, j - 1);
                    j -= 1;
                }
            }
            if b - i >= 2 {
                let mut j = i + 1;
                while j < b {
                    if !d.less(j, j - 1) {
                        break;
                    }
                    d.swap(j, j - 1);
                    j += 1;
                }
            }
        }
        false
    }

    fn break_patterns(d: &mut Data, a: usize, b: usize) {
        let length = b - a;
        if length >= 8 {
            let mut random = length as u64;
            let modulus = 1u64 << (u64::BITS - (length as u64).leading_zeros());
            let start = a + (length / 4) * 2 - 1;
            for idx in start..=start + 2 {
                random ^= random << 13;
                random ^= random >> 7;
                random ^= random << 17;
                let mut other = (random & (modulus - 1)) as usize;
                if other >= length {
                    other -= length;
                }
                d.swap(idx, a + other);
            }
        }
    }

    fn choose_pivot(d: &mut Data, a: usize, b: usize) -> (usize, Hint) {
        const SHORTEST_NINTHER: usize = 50;
        const MAX_SWAPS: usize = 4 * 3;
        let l = b - a;
        let mut swaps = 0usize;
        let mut i = a + l / 4;
        let mut j = a + l / 4 * 2;
        let mut k = a + l / 4 * 3;
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = median(d, i - 1, i, i + 1, &mut swaps);
                j = median(d, j - 1, j, j + 1, &mut swaps);
                k = median(d, k - 1, k, k + 1, &mut swaps);
            }
            j = median(d, i, j, k, &mut swaps);
        }
        match swaps {
            0 => (j, Hint::Increasing),
            MAX_SWAPS => (j, Hint::Decreasing),
            _ => (j, Hint::Unknown),
        }
    }

    fn order2(d: &mut Data, a: usize, b: usize, swaps: &mut usize) -> (usize, usize) {
        if d.less(b, a) {
            *swaps += 1;
            (b, a)
        } else {
            (a, b)
        }
    }

    fn median(d: &mut Data, a: usize, b: usize, c: usize, swaps: &mut usize) -> usize {
        let (a, b) = order2(d, a, b, swaps);
        let (b, c) = order2(d, b, c, swaps);
        let _ = c;
        let (_a, b) = order2(d, a, b, swaps);
        b
    }

    fn reverse_range(d: &mut Data, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            d.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Val<'static> {
        Val::list(v.iter().map(|i| Val::Int(*i)).collect())
    }

    fn show(r: EvalResult) -> String {
        match r {
            Ok(v) => format!("{:?}", v),
            Err(e) => format!("error: {}", e),
        }
    }

    #[test]
    fn slices() {
        assert_eq!(
            show(list_slice(&[ints(&[1, 2, 3, 4]), Val::Int(1), Val::Int(3)])),
            "[2, 3]"
        );
        assert_eq!(
            show(list_slice(&[ints(&[1, 2, 3, 4]), Val::Int(0), Val::Int(0)])),
            "[]"
        );
        assert_eq!(
            show(list_slice(&[
                ints(&[1, 2, 3, 4]),
                Val::Int(0),
                Val::Int(10)
            ])),
            "error: cannot slice(0, 10), list is length 4"
        );
        assert_eq!(
            show(list_slice(&[
                ints(&[1, 2, 3, 4]),
                Val::Int(-5),
                Val::Int(10)
            ])),
            "error: cannot slice(-5, 10), negative indexes not supported"
        );
        assert_eq!(
            show(list_slice(&[ints(&[1, 2, 3, 4]), Val::Int(3), Val::Int(1)])),
            "error: cannot slice(3, 1), start index must be less than or equal to end index"
        );
    }

    #[test]
    fn flattens() {
        let nested = Val::list(vec![
            Val::Int(1),
            Val::list(vec![Val::Int(2), ints(&[3, 4])]),
        ]);
        assert_eq!(show(list_flatten(&[nested.clone()])), "[1, 2, [3, 4]]");
        assert_eq!(
            show(list_flatten_depth(&[nested.clone(), Val::Int(2)])),
            "[1, 2, 3, 4]"
        );
        assert_eq!(
            show(list_flatten_depth(&[nested.clone(), Val::Int(0)])),
            "[1, [2, [3, 4]]]"
        );
        assert_eq!(
            show(list_flatten_depth(&[nested, Val::Int(-1)])),
            "error: level must be non-negative"
        );
        assert_eq!(
            show(list_flatten_depth(&[ints(&[]), Val::str("1")])),
            "error: internal error: interface conversion: ref.Val is types.String, not types.Int"
        );
        assert_eq!(
            show(list_flatten(&[Val::map(vec![])])),
            "error: no such overload: map(dyn, dyn).flatten()"
        );
        assert_eq!(
            show(list_flatten_depth(&[Val::map(vec![]), Val::Int(0)])),
            "error: no such overload: map(dyn, dyn).flatten(int)"
        );
        // Deep nesting is handled without recursion.
        let mut deep = ints(&[7]);
        for _ in 0..10_000 {
            deep = Val::list(vec![deep]);
        }
        assert_eq!(show(list_flatten_depth(&[deep, Val::Int(i64::MAX)])), "[7]");
    }

    #[test]
    fn ranges_and_reverse() {
        assert_eq!(show(lists_range(&[Val::Int(3)])), "[0, 1, 2]");
        assert_eq!(show(lists_range(&[Val::Int(-3)])), "[]");
        assert_eq!(
            show(lists_range(&[Val::Int(i64::MAX)])),
            "error: operation cancelled: actual cost limit exceeded"
        );
        assert_eq!(show(list_reverse(&[ints(&[3, 2, 1])])), "[1, 2, 3]");
    }

    #[test]
    fn distincts() {
        assert_eq!(
            show(list_distinct(&[ints(&[-2, 5, -2, 1, 1, 5, -2, 1])])),
            "[-2, 5, 1]"
        );
        let mixed = Val::list(vec![
            Val::Int(1),
            Val::Double(1.0),
            Val::Uint(1),
            Val::str("1"),
        ]);
        assert_eq!(show(list_distinct(&[mixed])), "[1, \"1\"]");
        let big = Val::list((0..10_000).map(Val::Int).collect());
        assert_eq!(
            show(list_distinct(&[big])),
            "error: operation cancelled: actual cost limit exceeded"
        );
    }

    #[test]
    fn sorts() {
        assert_eq!(show(list_sort(&[ints(&[3, 1, 2])])), "[1, 2, 3]");
        let strs = Val::list(vec![Val::str("b"), Val::str("c"), Val::str("a")]);
        assert_eq!(show(list_sort(&[strs])), "[\"a\", \"b\", \"c\"]");
        let mixed = Val::list(vec![Val::Int(1), Val::str("b")]);
        assert_eq!(
            show(list_sort(&[mixed])),
            "error: list elements must have the same type"
        );
        let lists = Val::list(vec![ints(&[1])]);
        assert_eq!(
            show(list_sort(&[lists])),
            "error: list elements must be comparable"
        );
        let items = Val::list(vec![Val::str("foo"), Val::str("bar"), Val::str("baz")]);
        assert_eq!(
            show(sort_by_associated_keys(&[items, ints(&[3, 1, 2])])),
            "[\"bar\", \"baz\", \"foo\"]"
        );
        assert!(show(sort_by_associated_keys(&[ints(&[1]), ints(&[])]))
            .starts_with("error: @sortByAssociatedKeys()"));
        // Larger inputs go through the quicksort paths.
        let n = 500i64;
        let desc: Vec<i64> = (0..n).rev().collect();
        let asc: Vec<i64> = (0..n).collect();
        assert_eq!(show(list_sort(&[ints(&desc)])), show(Ok(ints(&asc))));
        let scrambled: Vec<i64> = (0..n).map(|i| (i * 7919) % 503 % 37).collect();
        let mut expect = scrambled.clone();
        expect.sort();
        assert_eq!(
            show(list_sort(&[ints(&scrambled)])),
            show(Ok(ints(&expect)))
        );
    }

    #[test]
    fn gated_on_1_34() {
        assert!(functions(&EnvOptions::for_version(33)).is_empty());
        assert!(macros(&EnvOptions::for_version(33)).is_empty());
        assert_eq!(macros(&EnvOptions::for_version(34)).len(), 1);
    }
}
