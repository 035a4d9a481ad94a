//! Work split over threads, for the tools that validate many objects or suites (`crdlab
//! validate --crds`, `crdlab test`). Compiled CRDs hold `Rc`s and are not `Send`, so the work
//! is cut into contiguous runs, one per thread: neighbouring items mostly share their CRD,
//! and each thread compiles what its run needs, once.

/// The machine's cores (1 when it cannot tell): how many threads the tools use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// `f` over `items` cut into at most `threads` contiguous runs of nearly equal length, one
/// result per run, in order. Each run but a lone one gets its own thread with a generous
/// stack (the walkers recurse, depth-bounded by the readers; a lone run stays on the
/// caller's thread). A panic in a thread is resumed here, so no result goes missing.
pub fn map_runs<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return vec![f(items)];
    }
    let run = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(run)
            .map(|part| {
                std::thread::Builder::new()
                    .stack_size(256 * 1024 * 1024)
                    .spawn_scoped(s, move || f(part))
                    .expect("a worker thread starts")
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    })
}

/// `f` over each of `items` on up to `threads` threads ([`map_runs`]), the results in order.
pub fn par_map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_runs(items, threads, |part| part.iter().map(&f).collect::<Vec<R>>()).into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_items_order_whatever_the_threads() {
        let items: Vec<usize> = (0..101).collect();
        for threads in [0, 1, 2, 3, 7, 200] {
            assert_eq!(par_map(&items, threads, |i| i * 2), items.iter().map(|i| i * 2).collect::<Vec<_>>());
            let runs = map_runs(&items, threads, |part| part.to_vec());
            assert!(runs.len() <= threads.max(1));
            assert_eq!(runs.concat(), items);
        }
        assert!(par_map(&[] as &[usize], 4, |i| *i).is_empty());
    }

    #[test]
    fn a_panic_in_a_thread_is_resumed() {
        let items: Vec<usize> = (0..10).collect();
        let r = std::panic::catch_unwind(|| map_runs(&items, 2, |part| assert!(!part.contains(&7), "seven")));
        let p = r.expect_err("the panic comes back");
        let text = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
        assert_eq!(text.as_deref(), Some("seven"));
    }
}
