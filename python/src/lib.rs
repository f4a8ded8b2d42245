//! `warrant._native`: the library's use cases for Python. A thin shell like the CLI and the
//! server: requests arrive as the same JSON `POST /v1/check` takes (built by the Python
//! package from Python values), reports leave as the library's own objects, and an error is a
//! `NativeError(kind, message, file, line, pointer, problems)` that the package raises as its typed
//! exception. The GIL is released while checking; a panic never crosses into Python.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use warrant::batch::isolated;
use warrant::check::ItemError as Failed;
use warrant::check::{CheckRequest, Session, SourceFiles};
use warrant::inputs::AnswerInput;
use warrant::{Env, Error};

pyo3::create_exception!(
    _native,
    NativeError,
    PyException,
    "A use case failed: args are (kind, message, file, line, pointer, problems as JSON)."
);

/// The Python exception for a use case's error.
fn raise(e: Error) -> PyErr {
    let kind = serde_json::to_value(e.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let problems = serde_json::to_string(&e.problems).unwrap_or_else(|_| "[]".into());
    NativeError::new_err((kind, e.message, e.location.file, e.location.line, e.location.pointer, problems))
}

/// The request's JSON (the Python package builds it, so a failure here is a value Python
/// could not express as the request expects).
fn parse_request(json: &str) -> Result<CheckRequest, Error> {
    serde_json::from_str(json).map_err(|e| Error::input(format!("invalid request: {e}")))
}

/// The environment: the store at `store` (which must exist), else the one the CLI would find
/// (`$WARRANT_STORE`, `./.warrant`) when no sources are given.
fn env_for(store: Option<&str>, has_sources: bool) -> Result<Env, Error> {
    match store {
        Some(dir) => Env::open_store(std::path::Path::new(dir), &format!("store {dir}")),
        None if has_sources => Ok(Env::new()),
        None => Env::discover(),
    }
}

/// A prepared session for `request`: its sources, the files at `source_paths`, or a store.
fn session(
    request: &CheckRequest,
    source_paths: Vec<String>,
    max_source_bytes: u64,
    store: Option<&str>,
) -> Result<Session, Error> {
    let has_sources = request.sources.is_some() || !source_paths.is_empty();
    let env = env_for(store, has_sources)?;
    let files = SourceFiles { paths: source_paths, max_bytes: max_source_bytes };
    let session = Session::new(&env, request, Some(&files))?;
    Ok(match store {
        // A PostgreSQL URL's password never reaches a report.
        Some(dir) => session.naming_store(warrant_store::redact(&format!("store {dir}"))),
        None => session,
    })
}

/// Sessions over inline sources, most recently used last: checking many answers against the
/// same sources reads them once (their store, facts and corpus), not on every call. Files and
/// stores are not cached, since they can change between calls.
static SESSIONS: Mutex<Vec<(String, Arc<Session>)>> = Mutex::new(Vec::new());
const CACHED_SESSIONS: usize = 8;

/// The session for `req`, from the cache when a request with the same `key` (its JSON without
/// what differs per answer) was seen recently.
fn cached_session(key: String, req: &CheckRequest) -> Result<Arc<Session>, Error> {
    let mut cache = SESSIONS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(i) = cache.iter().position(|(k, _)| *k == key) {
        let hit = cache.remove(i);
        let s = Arc::clone(&hit.1);
        cache.push(hit);
        return Ok(s);
    }
    drop(cache);
    let s = Arc::new(session(req, Vec::new(), 0, None)?);
    let mut cache = SESSIONS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if cache.len() >= CACHED_SESSIONS {
        cache.remove(0);
    }
    cache.push((key, Arc::clone(&s)));
    Ok(s)
}

/// A check's report, as the library made it.
#[pyclass(module = "warrant._native", frozen)]
struct Report(warrant::Report);

#[pymethods]
impl Report {
    /// The gate: `allow`, `review` or `block`.
    #[getter]
    fn gate(&self) -> &'static str {
        match self.0.gate {
            warrant::Gate::Allow => "allow",
            warrant::Gate::Review => "review",
            warrant::Gate::Block => "block",
        }
    }

    /// The report as compact JSON (the body `POST /v1/check` returns).
    fn json(&self) -> PyResult<String> {
        serde_json::to_string(&self.0).map_err(|e| raise(Error::internal(format!("cannot serialise: {e}"))))
    }

    /// The report as `warrant check --format json` prints it (pretty, with a final newline).
    fn pretty(&self) -> PyResult<String> {
        serde_json::to_string_pretty(&self.0)
            .map(|s| s + "\n")
            .map_err(|e| raise(Error::internal(format!("cannot serialise: {e}"))))
    }

    /// The text report (`--format text`).
    fn text(&self) -> String {
        warrant_check::text::render(&self.0)
    }

    /// The self-contained HTML page (`--format html`).
    fn html(&self) -> String {
        warrant_check::html::render(&self.0)
    }

    /// The Agent Evidence pack, as pretty JSON, with `created_at` (an ISO-8601 date-time).
    fn evidence_pack(&self, created_at: &str) -> PyResult<String> {
        let pack = warrant_check::evidence_pack(&self.0, created_at)
            .map_err(|e| raise(Error::input_at("/created_at", format!("evidence pack: {e}"))))?;
        serde_json::to_string_pretty(&pack).map_err(|e| raise(Error::internal(format!("cannot serialise: {e}"))))
    }
}

/// Checks one answer: `request` is the JSON of `POST /v1/check` with `answer`.
#[pyfunction]
#[pyo3(signature = (request, source_paths, max_source_bytes, store=None))]
fn check(
    py: Python<'_>,
    request: &str,
    source_paths: Vec<String>,
    max_source_bytes: u64,
    store: Option<String>,
) -> PyResult<Report> {
    let report = py.detach(|| {
        isolated(|| {
            // Read once; what differs per answer is taken out, and the rest is the cache key.
            let mut v: serde_json::Value =
                serde_json::from_str(request).map_err(|e| Error::input(format!("invalid request: {e}")))?;
            let mut take = |k: &str| v.as_object_mut().and_then(|m| m.remove(k));
            let (answer, output_id) = (take("answer"), take("output_id"));
            let key = v.to_string();
            let req: CheckRequest = serde_json::from_value(v).map_err(|e| Error::input(format!("invalid request: {e}")))?;
            let answer: AnswerInput =
                serde_json::from_value(answer.ok_or_else(|| Error::input_at("/answer", "expected an answer"))?)
                    .map_err(|e| Error::input_at("/answer", format!("invalid request: /answer: {e}")))?;
            let output_id: Option<String> = serde_json::from_value(output_id.unwrap_or_default())
                .map_err(|e| Error::input(format!("invalid request: {e}")))?;
            let s = if source_paths.is_empty() && store.is_none() && req.sources.is_some() {
                cached_session(key, &req)?
            } else {
                Arc::new(session(&req, source_paths, max_source_bytes, store.as_deref())?)
            };
            s.check_answer(&answer, None, output_id)
        })
    });
    report.map(Report).map_err(raise)
}

/// One batch entry: a report, or why the item has none.
#[pyclass(module = "warrant._native", frozen, get_all)]
struct ItemError {
    /// The item's id as JSON (`null` when it could not be read).
    id: String,
    /// What is wrong.
    message: String,
    /// The item's position in the batch.
    index: usize,
}

/// Checks many answers: `request` holds the shared settings (sources, packs, tools), `items`
/// the JSON of each item (`{"id", "answer", "question"?, "sources"?, "tools"?}`). Returns a
/// report or an [`ItemError`] per item, in order; `workers` threads (default: every core).
#[pyfunction]
#[pyo3(signature = (request, items, source_paths, max_source_bytes, store=None, workers=None))]
fn check_batch(
    py: Python<'_>,
    request: &str,
    items: Vec<String>,
    source_paths: Vec<String>,
    max_source_bytes: u64,
    store: Option<String>,
    workers: Option<usize>,
) -> PyResult<Vec<Py<PyAny>>> {
    let results = py
        .detach(|| {
            isolated(|| {
                let req = parse_request(request)?;
                let s = session(&req, source_paths, max_source_bytes, store.as_deref())?;
                // An item that is not JSON is that item's error; the others are checked.
                let mut values = Vec::with_capacity(items.len());
                let mut unreadable = Vec::with_capacity(items.len());
                for item in &items {
                    match serde_json::from_str(item) {
                        Ok(v) => {
                            values.push(v);
                            unreadable.push(None);
                        }
                        Err(e) => unreadable.push(Some(format!("invalid JSON: {e}"))),
                    }
                }
                let threads = workers.unwrap_or_else(warrant::batch::workers);
                let mut checked = s.check_items_on(&values, threads).into_iter();
                Ok(unreadable
                    .into_iter()
                    .map(|why| match why {
                        None => checked
                            .next()
                            .unwrap_or_else(|| Err(Failed { id: serde_json::Value::Null, message: "not checked".into() })),
                        Some(message) => Err(Failed { id: serde_json::Value::Null, message }),
                    })
                    .collect::<Vec<_>>())
            })
        })
        .map_err(raise)?;
    results
        .into_iter()
        .enumerate()
        .map(|(index, r)| match r {
            Ok(report) => Ok(Py::new(py, Report(report))?.into_any()),
            Err(e) => Ok(Py::new(py, ItemError { id: e.id.to_string(), message: e.message, index })?.into_any()),
        })
        .collect()
}

/// Extracts a model output into a PredicateGraph: `request` is the JSON of `POST /v1/extract`.
/// Returns the graph's JSON and the extractor's diagnostics.
#[pyfunction]
fn extract(py: Python<'_>, request: &str, max_bytes: usize) -> PyResult<(String, Vec<String>)> {
    py.detach(|| {
        isolated(|| {
            let req: warrant::extract::ExtractRequest =
                serde_json::from_str(request).map_err(|e| Error::input(format!("invalid request: {e}")))?;
            let (graph, diagnostics) = warrant::extract::extract(&req, max_bytes)?;
            let json = serde_json::to_string(&graph).map_err(|e| Error::internal(format!("cannot serialise: {e}")))?;
            Ok((json, diagnostics))
        })
    })
    .map_err(raise)
}

/// A knowledge store: a folder on disk (made by `warrant ingest`, or here), or a PostgreSQL
/// database (`postgres://…`, migrated by `warrant store migrate`).
#[pyclass(module = "warrant._native", frozen)]
struct Store {
    env: Env,
    /// Where it is, as it may be shown (a URL's password redacted).
    location: String,
}

/// `f`'s result as JSON text.
fn json_of<T: serde::Serialize>(v: &T) -> Result<String, Error> {
    serde_json::to_string(v).map_err(|e| Error::internal(format!("cannot serialise: {e}")))
}

/// Serves one request: `request` (JSON) is read as `Req`, handed to `f` with the GIL released
/// and a panic isolated, and the response returned as JSON text.
fn serve<Req: serde::de::DeserializeOwned, Resp: serde::Serialize>(
    py: Python<'_>,
    request: &str,
    f: impl FnOnce(Req) -> Result<Resp, Error> + Send,
) -> PyResult<String> {
    py.detach(|| {
        isolated(|| {
            let req: Req = serde_json::from_str(request).map_err(|e| Error::input(format!("invalid request: {e}")))?;
            json_of(&f(req)?)
        })
    })
    .map_err(raise)
}

/// Validates an artefact (`POST /v1/validate`'s JSON); the report as JSON.
#[pyfunction]
fn validate(py: Python<'_>, request: &str) -> PyResult<String> {
    serve(py, request, |req| warrant::validate::validate(&req))
}

/// Evaluates policy packs (`POST /v1/policy/eval`'s JSON); the run result as JSON.
#[pyfunction]
fn policy_eval(py: Python<'_>, request: &str, max_bytes: usize) -> PyResult<String> {
    serve(py, request, |req| warrant::policy::eval(&req, max_bytes))
}

/// Compiles sources into a knowledge package (`POST /v1/compile`'s JSON); the package as JSON.
#[pyfunction]
fn compile(py: Python<'_>, request: &str, max_bytes: usize) -> PyResult<String> {
    py.detach(|| {
        isolated(|| {
            let req = serde_json::from_str(request).map_err(|e| Error::input(format!("invalid request: {e}")))?;
            warrant::compile::compile(&req, max_bytes)
        })
    })
    .map_err(raise)
}

#[pymethods]
impl Store {
    /// Opens the store at `path`: a folder, created when `create` and it does not exist; or a
    /// PostgreSQL URL, whose database must be migrated already (`create` does not migrate:
    /// the schema changes only when asked, with `warrant store migrate`). The PostgreSQL
    /// driver is reached only here, for such a URL.
    #[new]
    #[pyo3(signature = (path, create=true))]
    fn new(py: Python<'_>, path: &str, create: bool) -> PyResult<Self> {
        py.detach(|| {
            isolated(|| {
                let location = warrant_store::redact(path);
                let dir = std::path::Path::new(path);
                if warrant_store::is_postgres_url(path) {
                    // The store's errors name the URL, redacted.
                    return Ok(Store { env: Env::open_for_writing(dir)?, location });
                }
                let store =
                    if create { warrant_store::SqliteStore::open(dir) } else { warrant_store::SqliteStore::open_existing(dir) }
                        .map_err(|e| Error::store(e, Some(path)))?;
                Ok(Store { env: Env::new().with_store(Arc::new(store)).with_store_dir(dir), location })
            })
        })
        .map_err(raise)
    }

    /// Where the store is, as it may be shown (a URL's password redacted).
    #[getter]
    fn location(&self) -> &str {
        &self.location
    }

    /// Ingests records (`request` is the JSON of `POST /v1/ingest`); the summary as JSON.
    fn ingest(&self, py: Python<'_>, request: &str) -> PyResult<String> {
        serve(py, request, |req| warrant::ingest::ingest(&self.env, &req))
    }

    /// Reads files and folders and ingests them in one transaction; the summary as JSON.
    #[pyo3(signature = (paths, version=None, no_extract=false))]
    fn ingest_files(&self, py: Python<'_>, paths: Vec<String>, version: Option<String>, no_extract: bool) -> PyResult<String> {
        py.detach(|| {
            isolated(|| {
                let files = warrant::ingest::IngestFiles {
                    paths: paths.into_iter().map(Into::into).collect(),
                    facts: Vec::new(),
                    version,
                };
                json_of(&warrant::ingest::ingest_files(&self.env, &files, no_extract, 1200)?)
            })
        })
        .map_err(raise)
    }

    /// The top chunks for a query (`POST /v1/search`'s JSON); the hits as JSON.
    fn search(&self, py: Python<'_>, request: &str) -> PyResult<String> {
        serve(py, request, |req| warrant::search::search(&self.env, &req))
    }

    /// Researches a topic (`POST /v1/research`'s JSON); the result as JSON (the run is
    /// recorded beside the store).
    fn research(&self, py: Python<'_>, request: &str) -> PyResult<String> {
        serve(py, request, |req| warrant::research::research(&self.env, &req))
    }

    /// The facts a selection (`{subject?, predicate?, version?}`) names, as a JSON array.
    fn facts(&self, py: Python<'_>, request: &str) -> PyResult<String> {
        serve(py, request, |req| warrant::facts::list(&self.env, &req))
    }

    /// Answers a question (`POST /v1/ask`'s JSON); the answer contract as JSON.
    fn ask(&self, py: Python<'_>, request: &str) -> PyResult<String> {
        serve(py, request, |req| warrant::ask::ask(&self.env, &req))
    }
}

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    m.add_class::<Report>()?;
    m.add_class::<ItemError>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(check_batch, m)?)?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(policy_eval, m)?)?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_class::<Store>()?;
    Ok(())
}
