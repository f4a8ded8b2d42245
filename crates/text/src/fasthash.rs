//! Small, fast, non-cryptographic hashers with fixed seeds (the same behaviour in every run).
//!
//! - [`FastMap`] / [`FastSet`] and [`TextMap`] / [`TextSet`]: foldhash with a fixed seed. It
//!   hashes several bytes per step where FNV takes one (word sets on the verifier's hot paths
//!   spent 5 % of a check in FNV). A fixed seed keeps runs reproducible; it does not resist
//!   crafted collisions, so bound the input size where that matters. The two names say what
//!   the keys are: trusted program data (gazetteers, stop-word lists) or text from documents.
//! - [`Fnv`]: FNV-1a, for hashes that are part of the output (stable ids), which must never
//!   change with a dependency.

use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

/// FNV-1a, 64-bit.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A `HashSet` for program data (foldhash, fixed seed).
pub type FastSet<T> = HashSet<T, foldhash::fast::FixedState>;
/// A `HashMap` for program data (foldhash, fixed seed).
pub type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// A `HashSet` for document-text keys (foldhash, fixed seed).
pub type TextSet<T> = HashSet<T, foldhash::fast::FixedState>;
/// A `HashMap` for document-text keys (foldhash, fixed seed).
pub type TextMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_and_maps_work() {
        let s: FastSet<&str> = ["a", "bb"].into_iter().collect();
        assert!(s.contains("bb") && !s.contains("c"));
        let m: FastMap<&str, u8> = [("x", 1)].into_iter().collect();
        assert_eq!(m.get("x"), Some(&1));
        let t: TextMap<String, u8> = [("a long key taken from a document".to_string(), 2)].into_iter().collect();
        assert_eq!(t.get("a long key taken from a document"), Some(&2));
        let ts: TextSet<&str> = ["x"].into_iter().collect();
        assert!(ts.contains("x"));
    }
}
