//! Order-preserving data parallelism on a persistent pool of worker threads (rayon).
//!
//! Every helper returns exactly what the sequential loop would: work is split into blocks by
//! index, and the blocks' results are put back in index order before anything is returned.
//! Callers merge the results sequentially, so the output never depends on the number of
//! threads or on scheduling.
//!
//! The number of threads is a per-thread setting ([`with_threads`]); outside it (unit tests,
//! direct calls of a stage) everything runs on the calling thread. On a pool's workers it is
//! the pool's size, so a stage that works section by section can still split a large
//! section's items. Pools are kept for the life of the process (one per size asked for): their
//! threads, and the memory their allocator caches hold, are reused from one stage and one
//! compile to the next instead of being created and torn down by every parallel loop.

use std::cell::Cell;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

thread_local! {
    /// Set by [`with_threads`]; 0 when unset.
    static THREADS: Cell<usize> = const { Cell::new(0) };
}

/// The pools made so far, by size.
static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());

/// The pool of `n` threads (made on first use). `None` when the operating system refuses to
/// start threads: the helpers then run on the calling thread.
fn pool(n: usize) -> Option<Arc<rayon::ThreadPool>> {
    let mut pools = POOLS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, p)) = pools.iter().find(|(k, _)| *k == n) {
        return Some(Arc::clone(p));
    }
    let p = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(n).thread_name(|i| format!("warrant-ckf-{i}")).build().ok()?);
    pools.push((n, Arc::clone(&p)));
    Some(p)
}

/// Runs `f` on the pool of `n` threads (or here when already on one of its workers, or when
/// no pool can be made).
fn on_pool<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_thread_index().is_some() && rayon::current_num_threads() == n {
        return f();
    }
    match pool(n) {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// The threads available to this process (at least 1), for `threads == 0` ("auto").
pub fn available() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Runs `f` with the stage helpers allowed `n` threads (`0` = [`available`]).
pub fn with_threads<R>(n: usize, f: impl FnOnce() -> R) -> R {
    let n = if n == 0 { available() } else { n };
    let old = THREADS.with(|t| t.replace(n.max(1)));
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREADS.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(old);
    f()
}

/// Runs all of `f` on the pool of `n` threads (`0` = [`available`]), sequential parts included,
/// or on the calling thread when `n` is 1. The calling thread only waits: a compile then keeps
/// `n` busy threads, not `n` pool threads plus the caller competing for `n` cores whenever the
/// work between two parallel stages runs.
pub fn on_threads<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
    let n = if n == 0 { available() } else { n };
    if n <= 1 {
        return with_threads(1, f);
    }
    // On a pool worker, the helpers use the pool's size (see [`threads`]).
    on_pool(n, || with_threads(n, f))
}

/// The threads the helpers may use here: as set by [`with_threads`], else the pool's size on
/// a pool worker, else 1.
pub fn threads() -> usize {
    match THREADS.with(Cell::get) {
        0 if rayon::current_thread_index().is_some() => rayon::current_num_threads(),
        0 => 1,
        n => n,
    }
}

/// `items.iter().map(f).collect()`, in blocks of `grain` items over the allowed threads.
pub fn map<T: Sync, R: Send>(items: &[T], grain: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let grain = grain.max(1);
    let n = threads();
    if n.min(items.len().div_ceil(grain)) <= 1 {
        return items.iter().map(f).collect();
    }
    let parts: Vec<Vec<R>> =
        on_pool(n, || items.par_chunks(grain).map(|block| block.iter().map(&f).collect::<Vec<R>>()).collect());
    let mut out = Vec::with_capacity(items.len());
    for p in parts {
        out.extend(p);
    }
    out
}

/// `items.iter_mut().for_each(f)`, in blocks of `grain` items over the allowed threads.
pub fn for_each_mut<T: Send>(items: &mut [T], grain: usize, f: impl Fn(&mut T) + Sync) {
    let grain = grain.max(1);
    let n = threads();
    if n.min(items.len().div_ceil(grain)) <= 1 {
        items.iter_mut().for_each(f);
        return;
    }
    on_pool(n, || items.par_chunks_mut(grain).for_each(|block| block.iter_mut().for_each(&f)));
}

/// `items.into_iter().map(f).collect()` for a few uneven tasks (sections): the costliest
/// (by `cost`) are started first, results in the original order.
pub fn map_owned<T: Send, R: Send>(items: Vec<T>, cost: impl Fn(&T) -> usize, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let n = threads();
    if n.min(items.len()) <= 1 {
        return items.into_iter().map(f).collect();
    }
    let mut tasks: Vec<(usize, T)> = items.into_iter().enumerate().collect();
    tasks.sort_by_key(|(k, t)| (std::cmp::Reverse(cost(t)), *k));
    let len = tasks.len();
    // One task per split, so that a worker takes the next costliest task when it is free.
    let mut parts: Vec<(usize, R)> = on_pool(n, || tasks.into_par_iter().with_max_len(1).map(|(k, t)| (k, f(t))).collect());
    debug_assert_eq!(parts.len(), len);
    parts.sort_unstable_by_key(|(k, _)| *k);
    parts.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_their_order_whatever_the_threads() {
        let xs: Vec<u64> = (0..10_000).collect();
        let want: Vec<u64> = xs.iter().map(|x| x * x + 1).collect();
        for n in [1, 2, 3, 8] {
            let got = with_threads(n, || map(&xs, 7, |x| x * x + 1));
            assert_eq!(got, want, "{n} threads");
            let mut ys = xs.clone();
            with_threads(n, || for_each_mut(&mut ys, 13, |x| *x = *x * *x + 1));
            assert_eq!(ys, want, "{n} threads");
            let owned = with_threads(n, || map_owned(xs.clone(), |x| (*x % 17) as usize, |x| x * x + 1));
            assert_eq!(owned, want, "{n} threads");
        }
        assert_eq!(threads(), 1, "the setting is restored");
    }

    #[test]
    fn with_threads_zero_means_available() {
        assert_eq!(with_threads(0, threads), available());
        assert_eq!(with_threads(3, threads), 3);
    }
}
