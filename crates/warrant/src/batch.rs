//! Running many items: in parallel with the results in input order, a panic in one item
//! (a bug) that item's error, and memory bounded by reading block by block.

/// Runs one item's check so that a panic inside it (a bug) becomes that item's error instead
/// of ending the batch or the server's worker: the message names the panic, and the other
/// items are checked as usual.
pub fn guarded<R>(f: impl FnOnce() -> Result<R, String>) -> Result<R, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| Err(panic_message(panic.as_ref())))
}

/// [`guarded`] for a whole use case: a panic (a bug) becomes an internal [`crate::Error`], so
/// that no shell (least of all Python) sees a panic.
pub fn isolated<R>(f: impl FnOnce() -> crate::Result<R>) -> crate::Result<R> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|panic| Err(crate::Error::internal(panic_message(panic.as_ref()))))
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("internal error while checking this item (please report it): {what}")
}

/// `f` over every item on up to `workers` threads (at least one); the results in input order.
pub fn par_map<T: Sync, R: Send>(items: &[T], workers: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = workers.max(1);
    if workers == 1 || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    let per = items.len().div_ceil(workers).max(1);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items.chunks(per).map(|part| s.spawn(move || part.iter().map(f).collect::<Vec<R>>())).collect();
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            match h.join() {
                Ok(part) => out.extend(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}

/// Items per parallel block when reading a stream: output stays in input order and memory
/// holds one block.
pub const BLOCK: usize = 512;

/// Reads `next` block by block ([`BLOCK`] items at most), maps each block with `f` on up to
/// `workers` threads, and hands the results to `emit` in input order. `next` ends the stream
/// with `Ok(None)`; an error from `next` or `emit` stops it.
pub fn stream<T: Sync, R: Send, E>(
    mut next: impl FnMut() -> Result<Option<T>, E>,
    workers: usize,
    f: impl Fn(&T) -> R + Sync,
    mut emit: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    loop {
        let mut block = Vec::new();
        while block.len() < BLOCK {
            match next()? {
                Some(item) => block.push(item),
                None => break,
            }
        }
        if block.is_empty() {
            return Ok(());
        }
        for r in par_map(&block, workers, &f) {
            emit(r)?;
        }
    }
}

/// The threads a batch uses: every core.
pub fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_item_becomes_its_own_error() {
        let results: Vec<Result<u32, String>> =
            [1u32, 0, 3].iter().map(|&x| guarded(|| if x == 0 { panic!("poisoned") } else { Ok(x) })).collect();
        assert_eq!(results[0], Ok(1));
        assert_eq!(results[2], Ok(3));
        let err = results[1].as_ref().expect_err("the panic is an error");
        assert!(err.contains("internal error") && err.contains("poisoned"), "{err}");
        let e = isolated::<()>(|| panic!("boom")).expect_err("the panic is an error");
        assert_eq!(e.kind, crate::ErrorKind::Internal);
        assert!(e.message.contains("boom"), "{e}");
    }

    #[test]
    fn par_map_keeps_input_order() {
        let items: Vec<u32> = (0..100).collect();
        assert_eq!(par_map(&items, 3, |x| x * 2), items.iter().map(|x| x * 2).collect::<Vec<_>>());
        assert_eq!(par_map(&items[..0], 3, |x| *x), Vec::<u32>::new());
    }

    #[test]
    fn a_stream_comes_out_in_order_across_blocks() {
        let mut n = 0u32;
        let mut seen = Vec::new();
        let total = BLOCK as u32 * 2 + 7;
        let r: Result<(), ()> = stream(
            || {
                n += 1;
                Ok((n <= total).then_some(n))
            },
            3,
            |x| x * 10,
            |y| {
                seen.push(y);
                Ok(())
            },
        );
        assert_eq!(r, Ok(()));
        assert_eq!(seen, (1..=total).map(|x| x * 10).collect::<Vec<_>>());
    }
}
