//! Text primitives shared by every Warrant crate.
//!
//! - [`span`]: Unicode scalar-value (char) spans and their conversion to byte offsets. Every
//!   span Warrant emits or reads is a char span; strings are only ever sliced through here.
//! - [`number`]: exact decimal numbers (arbitrary-precision rationals parsed from source text),
//!   rounding, and formatting.
//! - [`segment`]: paragraphs and sentences; [`words`]: word tokens and number words.
//! - [`quantity`]: numbers, money, percentages, durations and units in prose, normalised;
//!   [`date`]: dates and times in prose.
//! - [`io`]: reading files, pipes and lines with a byte ceiling enforced while reading.
//! - [`bm25`]: BM25 ranking over in-memory posting lists; [`stopwords`]: the named stopword
//!   lists; [`normalize`]: NFC, whitespace collapsing and diacritic folding; [`pattern`]:
//!   compiling fixed regular expressions.
#![warn(missing_docs)]

pub mod arith;
pub mod bm25;
pub mod date;
pub mod fasthash;
pub mod hash;
pub mod io;
pub mod normalize;
pub mod number;
pub mod pattern;
pub mod quantity;
pub mod rank;
pub mod segment;
pub mod span;
pub mod stopwords;
pub mod words;

pub use number::{Decimal, ParseDecimalError};
pub use span::{CharSpan, OffsetMap, char_len, char_to_byte, clamp_slice};
