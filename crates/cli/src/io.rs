//! Reading inputs and writing files: the library's helpers, whose errors become exit code 2.

pub use warrant::io::{Limit, Lines, display_name, read_text, read_text_within, write_atomic};
