//! SHA-256 helpers: source and span hashes, and the short content hashes that break id
//! collisions (§3.2).

pub use warrant_text::hash::sha256_hex;

#[cfg(test)]
mod tests {
    #[test]
    fn known_digest() {
        assert_eq!(super::sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
