//! Compiling the fixed regular expressions the crates hold in statics.

use std::sync::{Arc, OnceLock};

use regex::Regex;

/// `p` compiled. The patterns passed here are literals in the source: one that does not
/// compile is a build defect, which the first test to use it reports (with the pattern).
pub fn compile(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("regex {p}: {e}"))
}

/// A regex compiled the first time it is used. Compiling is most of a short check's time, so
/// patterns that a set (or a word filter) tries first are compiled on their own only when
/// their captures are wanted.
#[derive(Debug, Clone)]
pub struct LazyRegex {
    source: String,
    build: fn(&str) -> Regex,
    /// Shared by clones: compiled once, by whichever clone is used first.
    compiled: Arc<OnceLock<Regex>>,
}

impl LazyRegex {
    /// `source`, to be compiled by `build` on first use (a pattern that cannot fail: a
    /// literal of ours, or one already compiled once).
    pub fn new(source: impl Into<String>, build: fn(&str) -> Regex) -> Self {
        LazyRegex { source: source.into(), build, compiled: Arc::new(OnceLock::new()) }
    }

    /// A regex compiled already (as a user's pattern is, to report its errors up front).
    pub fn ready(regex: Regex, build: fn(&str) -> Regex) -> Self {
        LazyRegex { source: regex.as_str().to_string(), build, compiled: Arc::new(OnceLock::from(regex)) }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The compiled regex.
    pub fn get(&self) -> &Regex {
        self.compiled.get_or_init(|| (self.build)(&self.source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lazy_regex_compiles_on_first_use_and_keeps_its_source() {
        let lazy = LazyRegex::new(r"(?P<n>\d+) ms", compile);
        assert_eq!(lazy.as_str(), r"(?P<n>\d+) ms");
        assert!(lazy.compiled.get().is_none());
        assert_eq!(&lazy.get().captures("took 40 ms").unwrap()["n"], "40");
        let ready = LazyRegex::ready(compile("a+"), compile);
        assert!(ready.clone().compiled.get().is_some() && ready.get().is_match("caa"));
        // Clones share the compiled regex: one made before the first use sees it compiled.
        let later = LazyRegex::new("b+", compile);
        let copy = later.clone();
        assert!(later.get().is_match("abb"));
        assert!(copy.compiled.get().is_some_and(|r| std::ptr::eq(r, later.get())));
    }
}
