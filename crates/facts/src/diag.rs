//! Helpers for error messages that quote user input and must stay on one line.

use std::borrow::Cow;

/// `s` with control characters escaped (`\n` → `\\n`), so a message quoting user input
/// stays on one line.
pub fn one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.chars().map(|c| if c.is_control() { c.escape_default().collect() } else { c.to_string() }).collect())
}

/// A JSON object key as a JSON pointer token (RFC 6901: `~` → `~0`, `/` → `~1`), on one line.
pub fn pointer_token(key: &str) -> String {
    one_line(&key.replace('~', "~0").replace('/', "~1")).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(one_line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(one_line("plain"), "plain");
        assert_eq!(pointer_token("a/b~c\n"), "a~1b~0c\\n");
    }
}
