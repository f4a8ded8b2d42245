//! Picking the best few of many scored items (retrieval's last step).

/// The ids of the `limit` highest scores, best first; equal scores by smaller id first. One
/// pass, keeping only the best `limit` so far in a sorted list: meant for small limits
/// (retrieval keeps a handful of thousands), as each kept item costs up to `limit` moves.
pub fn top(scored: impl IntoIterator<Item = (f64, u32)>, limit: usize) -> Vec<u32> {
    if limit == 0 {
        return Vec::new();
    }
    // Sorted best first; `before(a, b)`: a ranks above b.
    let before = |a: &(f64, u32), b: &(f64, u32)| a.0 > b.0 || (a.0 == b.0 && a.1 < b.1);
    let mut best: Vec<(f64, u32)> = Vec::with_capacity(limit.min(64) + 1);
    for item in scored {
        if best.len() == limit && !before(&item, &best[limit - 1]) {
            continue;
        }
        let at = best.iter().position(|b| before(&item, b)).unwrap_or(best.len());
        best.insert(at, item);
        best.truncate(limit);
    }
    best.into_iter().map(|(_, id)| id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn best_first_ties_by_id() {
        assert_eq!(top([(1.0, 4), (3.0, 9), (1.0, 2), (2.0, 7)], 3), vec![9, 7, 2]);
        assert!(top([(1.0, 1)], 0).is_empty());
        assert_eq!(top([(1.0, 1)], 5), vec![1]);
        assert_eq!(top([(1.0, 1), (2.0, 0)], usize::MAX), vec![0, 1]);
    }

    proptest! {
        #[test]
        fn agrees_with_a_full_sort(scores in proptest::collection::vec(0u8..6, 0..60), limit in 0usize..10) {
            let items: Vec<(f64, u32)> = scores.iter().enumerate().map(|(i, s)| (f64::from(*s), i as u32)).rev().collect();
            let mut sorted = items.clone();
            sorted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let want: Vec<u32> = sorted.into_iter().take(limit).map(|(_, i)| i).collect();
            prop_assert_eq!(top(items, limit), want);
        }
    }
}
