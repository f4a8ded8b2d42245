//! Small, fast, non-cryptographic hashers with fixed seeds (the same behaviour in every run).
//!
//! - [`FastMap`] / [`FastSet`]: FNV-1a, for static word sets looked up on hot paths (short keys
//!   that are trusted program data: gazetteers, stop-word lists).
//! - [`TextMap`] / [`TextSet`]: foldhash with a fixed seed, for keys taken from documents
//!   (excerpts, handles, tokens): it hashes several bytes per step where FNV takes one, which
//!   matters for keys of 100+ bytes. A fixed seed keeps runs reproducible; like FNV it does not
//!   resist crafted collisions, so bound the input size where that matters.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

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

/// A `HashSet` with FNV hashing.
pub type FastSet<T> = HashSet<T, BuildHasherDefault<Fnv>>;
/// A `HashMap` with FNV hashing.
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

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
