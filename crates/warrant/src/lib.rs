//! Warrant, as a library: one module per use case, each a function from a plain serde request
//! to a response or a typed [`Error`]. The command line (`warrant-cli`), the HTTP server
//! (`warrant-server`) and the Python package are shells over these functions: they map their
//! arguments, JSON bodies or Python values to the same requests, and an [`Error`] to an exit
//! code, an HTTP status or an exception, so the same request gives the same JSON everywhere.
//!
//! What lives here rather than in a shell: finding the store ([`Env::discover`]), resolving
//! packs, tools and vocabularies ([`inputs`]), reading inputs with their limits ([`io`]),
//! scheduling batches and isolating a panic to its item ([`batch`]).
//!
//! ```
//! use warrant::check::{CheckRequest, CheckResponse, check};
//! use warrant::inputs::{AnswerInput, SourceInput};
//!
//! let req = CheckRequest {
//!     answer: Some(AnswerInput::Text("Paris is the capital of France.".into())),
//!     sources: Some(vec![SourceInput { id: "atlas".into(), text: "Paris is the capital of France.".into(), version: None, title: None }]),
//!     ..CheckRequest::default()
//! };
//! let CheckResponse::Report(report) = check(&warrant::Env::new(), &req, 1 << 20)? else { unreachable!() };
//! assert_eq!(report.summary.supported, 1);
//! # Ok::<(), warrant::Error>(())
//! ```

#![warn(missing_docs)]

pub mod ask;
pub mod batch;
pub mod check;
pub mod compile;
mod env;
mod error;
pub mod extract;
pub mod facts;
pub mod ingest;
pub mod inputs;
pub mod io;
pub mod policy;
pub mod research;
pub mod search;
pub mod validate;

pub use env::{DEFAULT_STORE_DIR, Env, STORE_ENV, runs_dir, store_dir};
pub use error::{Error, ErrorKind, Location, Problem, Result};
pub use warrant_check::{Gate, Report, Summary};
