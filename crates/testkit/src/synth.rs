//! Deterministic synthetic data for benchmarks: a small generator and pseudo-words, so that
//! every run (and every machine) measures the same corpus.

/// xorshift64*: a small deterministic generator (not for anything but test data).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A uniform index below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A roughly Zipf-distributed index below `n` (small indices are frequent).
    pub fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

/// `n` distinct pronounceable pseudo-words of three syllables from `syllables`; past
/// `syllables.len()³` words, `marker` and a counter are appended to keep them distinct.
pub fn pseudo_words(n: usize, syllables: &[&str], marker: &str) -> Vec<String> {
    (0..n)
        .map(|mut i| {
            let mut w = String::new();
            for _ in 0..3 {
                w.push_str(syllables[i % syllables.len()]);
                i /= syllables.len();
            }
            if i > 0 {
                w.push_str(marker);
                w.push_str(&i.to_string());
            }
            w
        })
        .collect()
}
