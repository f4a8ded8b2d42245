//! Compiling the fixed regular expressions the crates hold in statics.

use regex::Regex;

/// `p` compiled. The patterns passed here are literals in the source: one that does not
/// compile is a build defect, which the first test to use it reports (with the pattern).
pub fn compile(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("regex {p}: {e}"))
}
