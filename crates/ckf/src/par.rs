//! Order-preserving data parallelism on scoped threads (no dependency, no global pool).
//!
//! Every helper returns exactly what the sequential loop would: work is claimed in blocks by
//! index, each block's results are kept with its index, and the blocks are put back in index
//! order before anything is returned. Callers merge the results sequentially, so the output
//! never depends on the number of threads or on scheduling.
//!
//! The number of threads is a per-thread setting ([`with_threads`]); outside it (unit tests,
//! direct calls of a stage) everything runs on the calling thread. Worker threads inherit it,
//! so a stage that works section by section can still split a large section's items.

use std::cell::Cell;
use std::sync::Mutex;

thread_local! {
    static THREADS: Cell<usize> = const { Cell::new(1) };
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

/// The threads the helpers may use here.
pub fn threads() -> usize {
    THREADS.with(Cell::get)
}

/// `items.iter().map(f).collect()`, in blocks of `grain` items over the allowed threads.
pub fn map<T: Sync, R: Send>(items: &[T], grain: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let grain = grain.max(1);
    let n = threads().min(items.len().div_ceil(grain));
    if n <= 1 {
        return items.iter().map(f).collect();
    }
    let blocks = Mutex::new(items.chunks(grain).enumerate());
    let work = || {
        let mut done: Vec<(usize, Vec<R>)> = Vec::new();
        loop {
            let next = blocks.lock().map_or(None, |mut b| b.next());
            let Some((k, block)) = next else { break };
            done.push((k, block.iter().map(&f).collect()));
        }
        done
    };
    let mut parts = std::thread::scope(|s| {
        let handles: Vec<_> = (1..n).map(|_| s.spawn(|| with_threads(n, work))).collect();
        let mut parts = work();
        for h in handles {
            match h.join() {
                Ok(p) => parts.extend(p),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
        parts
    });
    parts.sort_unstable_by_key(|(k, _)| *k);
    parts.into_iter().flat_map(|(_, v)| v).collect()
}

/// `items.iter_mut().for_each(f)`, in blocks of `grain` items over the allowed threads.
pub fn for_each_mut<T: Send>(items: &mut [T], grain: usize, f: impl Fn(&mut T) + Sync) {
    let grain = grain.max(1);
    let n = threads().min(items.len().div_ceil(grain));
    if n <= 1 {
        items.iter_mut().for_each(f);
        return;
    }
    let blocks = Mutex::new(items.chunks_mut(grain));
    let work = || {
        loop {
            let next = blocks.lock().map_or(None, |mut b| b.next());
            let Some(block) = next else { break };
            block.iter_mut().for_each(&f);
        }
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..n).map(|_| s.spawn(|| with_threads(n, work))).collect();
        work();
        for h in handles {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
}

/// `items.into_iter().map(f).collect()` for a few uneven tasks (sections): one task at a time,
/// the costliest first (by `cost`), results in the original order.
pub fn map_owned<T: Send, R: Send>(items: Vec<T>, cost: impl Fn(&T) -> usize, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let n = threads().min(items.len());
    if n <= 1 {
        return items.into_iter().map(f).collect();
    }
    let mut tasks: Vec<(usize, T)> = items.into_iter().enumerate().collect();
    tasks.sort_by_key(|(k, t)| (std::cmp::Reverse(cost(t)), *k));
    let len = tasks.len();
    let queue = Mutex::new(tasks.into_iter());
    let work = || {
        let mut done: Vec<(usize, R)> = Vec::new();
        loop {
            let next = queue.lock().map_or(None, |mut q| q.next());
            let Some((k, t)) = next else { break };
            done.push((k, f(t)));
        }
        done
    };
    let mut parts = std::thread::scope(|s| {
        let handles: Vec<_> = (1..n).map(|_| s.spawn(|| with_threads(n, work))).collect();
        let mut parts = work();
        for h in handles {
            match h.join() {
                Ok(p) => parts.extend(p),
                Err(e) => std::panic::resume_unwind(e),
            }
        }
        parts
    });
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
