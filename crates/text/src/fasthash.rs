//! A small, fast, non-cryptographic hasher (FNV-1a) for static word sets looked up on hot
//! paths. Keys are trusted program data (gazetteers, stop-word lists), so hash flooding is not
//! a concern there; never use it for maps keyed by untrusted input.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_and_maps_work() {
        let s: FastSet<&str> = ["a", "bb"].into_iter().collect();
        assert!(s.contains("bb") && !s.contains("c"));
        let m: FastMap<&str, u8> = [("x", 1)].into_iter().collect();
        assert_eq!(m.get("x"), Some(&1));
    }
}
