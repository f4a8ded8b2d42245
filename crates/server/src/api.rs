//! The routes: each handler hands its request (a `warrant` facade type, whose OpenAPI schema
//! derives from it) to the facade's use case and returns its JSON, the CLI's JSON.
//!
//! The request envelope is checked by its type (a wrong shape is 400 with the JSON pointer);
//! what it carries is checked by the library (an invalid graph, an unknown pack, a bad record
//! is 422 with the pointer into the request).

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{JsonBody, Work};

/// Registers every route (and so its OpenAPI path) on `router`.
pub fn register(router: OpenApiRouter<AppState>) -> OpenApiRouter<AppState> {
    router
        .routes(routes!(validate))
        .routes(routes!(extract))
        .routes(routes!(policy_eval))
        .routes(routes!(check))
        .routes(routes!(ingest))
        .routes(routes!(search))
        .routes(routes!(compile))
        .routes(routes!(ask))
        .routes(routes!(research))
        .routes(routes!(research_run))
        .routes(routes!(packs))
        .routes(routes!(openapi_json))
        .routes(routes!(metrics))
        .routes(routes!(healthz))
        .routes(routes!(readyz))
}

// ---------------------------------------------------------------------------------------
// Shared request parts

use warrant::check::CheckRequest;

/// A JSON response from a value that serialises (the CLI's `--format json` output).
fn json_response<T: Serialize>(v: &T) -> ApiResult<Response> {
    let body = serde_json::to_vec(v).map_err(|e| ApiError::internal(format!("cannot serialise the response: {e}")))?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

// ---------------------------------------------------------------------------------------
// POST /v1/validate

use warrant::validate::ValidateRequest;

/// Validate an artefact: its kind, errors and warnings by JSON pointer. `valid: false` is a
/// successful validation (200) of an invalid document.
#[utoipa::path(post, path = "/v1/validate", tag = "artefacts", request_body = ValidateRequest,
    responses(
        (status = 200, description = "The report, as `warrant validate --format json`: `{file, kind, valid, errors, warnings}`", body = warrant::validate::FileReport),
        (status = 400, description = "Bad JSON or request shape", body = ErrorBody),
        (status = 422, description = "An unusable previous version", body = ErrorBody),
    ))]
async fn validate(work: Work, JsonBody(req): JsonBody<ValidateRequest>) -> ApiResult<Response> {
    work.run(move || json_response(&warrant::validate::validate(&req)?)).await?
}

// ---------------------------------------------------------------------------------------
// POST /v1/extract

use warrant::extract::ExtractRequest;

/// Turn a model output into a PredicateGraph.
#[utoipa::path(post, path = "/v1/extract", tag = "artefacts", request_body = ExtractRequest,
    responses(
        (status = 200, description = "The PredicateGraph 1.0.0, as `warrant extract`", body = warrant::extract::PredicateGraph),
        (status = 400, description = "Bad JSON or request shape", body = ErrorBody),
        (status = 422, description = "An unreadable answer or malformed tools", body = ErrorBody),
    ))]
async fn extract(State(state): State<AppState>, work: Work, JsonBody(req): JsonBody<ExtractRequest>) -> ApiResult<Response> {
    let max = state.config().max_body;
    work.run(move || {
        let (graph, diagnostics) = warrant::extract::extract(&req, max)?;
        for d in &diagnostics {
            tracing::debug!(target: "warrant::extract", "{d}");
        }
        json_response(&graph)
    })
    .await?
}

// ---------------------------------------------------------------------------------------
// POST /v1/policy/eval

use warrant::policy::PolicyEvalRequest;

/// Evaluate policy packs over a PredicateGraph (or an answer extracted into one).
#[utoipa::path(post, path = "/v1/policy/eval", tag = "policies", request_body = PolicyEvalRequest,
    responses(
        (status = 200, description = "The run result, as `warrant policy eval --format json`: `{output_id, passed, strict, packs, diagnostics, …}`", body = warrant::policy::RunResult),
        (status = 400, description = "Bad JSON or request shape", body = ErrorBody),
        (status = 422, description = "An invalid graph, an unknown or invalid pack, malformed tools or rubrics", body = ErrorBody),
    ))]
async fn policy_eval(
    State(state): State<AppState>,
    work: Work,
    JsonBody(req): JsonBody<PolicyEvalRequest>,
) -> ApiResult<Response> {
    let max = state.config().max_body;
    work.run(move || json_response(&warrant::policy::eval(&req, max)?)).await?
}

// ---------------------------------------------------------------------------------------
// POST /v1/check

/// Check answers against sources: every claim verified with quoted evidence, the policy
/// verdicts, one gate.
#[utoipa::path(post, path = "/v1/check", tag = "check", request_body = CheckRequest,
    responses(
        (status = 200, description = "One answer: the report, as `warrant check --format json` (`{output_id, gate, gate_reasons, claims, policies, graph}`). A batch: `CheckBatchResponse`.", body = warrant::check::CheckResponse),
        (status = 400, description = "Bad JSON or request shape", body = ErrorBody),
        (status = 422, description = "An empty or unreadable answer, an unknown or invalid pack, malformed tools", body = ErrorBody),
    ))]
async fn check(State(state): State<AppState>, work: Work, JsonBody(req): JsonBody<CheckRequest>) -> ApiResult<Response> {
    let max = state.config().max_body;
    // The server configures no model: checks are deterministic.
    let env = state.env();
    work.run(move || json_response(&warrant::check::check(&env, &req, max)?)).await?
}

// ---------------------------------------------------------------------------------------
// POST /v1/ingest

use warrant::ingest::IngestRequest;

/// Ingest documents into the store: all of them or, if any is bad, none.
#[utoipa::path(post, path = "/v1/ingest", tag = "store", request_body = IngestRequest,
    responses(
        (status = 200, description = "The summary, as `warrant ingest --format json`: `{documents, chunks, facts, rejected_facts, …}`", body = warrant::ingest::IngestSummary),
        (status = 400, description = "Bad JSON or request shape", body = ErrorBody),
        (status = 422, description = "A bad record or fact (every one listed in `details.errors`); nothing was written", body = ErrorBody),
    ))]
async fn ingest(State(state): State<AppState>, work: Work, JsonBody(req): JsonBody<IngestRequest>) -> ApiResult<Response> {
    let env = state.env();
    work.run(move || json_response(&warrant::ingest::ingest(&env, &req)?)).await?
}

// ---------------------------------------------------------------------------------------
// POST /v1/search

use warrant::search::SearchRequest;

/// The store's top chunks for a query, by BM25.
#[utoipa::path(post, path = "/v1/search", tag = "store", request_body = SearchRequest,
    responses(
        (status = 200, description = "Hits, as `warrant search --format json`: `[{chunkId, docId, score, index, start, end, text}]`", body = Vec<warrant::search::SearchHit>),
        (status = 400, description = "Bad JSON or request shape", body = ErrorBody),
        (status = 422, description = "A query or limit the store refuses", body = ErrorBody),
    ))]
async fn search(State(state): State<AppState>, work: Work, JsonBody(req): JsonBody<SearchRequest>) -> ApiResult<Response> {
    let env = state.env();
    work.run(move || json_response(&warrant::search::search(&env, &req)?)).await?
}

// ---------------------------------------------------------------------------------------
// POST /v1/ask

use warrant::ask::AskRequest;

/// Answer a question from the store: supported, conflicting or unsupported, with the chain
/// of facts behind the verdict.
#[utoipa::path(post, path = "/v1/ask", tag = "store", request_body = AskRequest,
    responses(
        (status = 200, description = "The answer contract, as `warrant ask --format json`: `{text, verdict, chunksUsed, factChain, supportScores, conflicts, plan, diagnostics}`", body = warrant::ask::Answer),
        (status = 400, description = "Bad JSON or request shape", body = ErrorBody),
        (status = 422, description = "A malformed plan, a goal naming an unknown predicate, an empty question", body = ErrorBody),
    ))]
async fn ask(State(state): State<AppState>, work: Work, JsonBody(req): JsonBody<AskRequest>) -> ApiResult<Response> {
    let env = state.env();
    work.run(move || json_response(&warrant::ask::ask(&env, &req)?)).await?
}

// ---------------------------------------------------------------------------------------
// POST /v1/research, GET /v1/research/{run_id}

use warrant::research::ResearchRequest;

/// Research a topic over the store's knowledge graph; the run is recorded in the store's run
/// log (`research.sqlite`, kept 24 h) under its `run_id`.
#[utoipa::path(post, path = "/v1/research", tag = "store", request_body = ResearchRequest,
    responses(
        (status = 200, description = "The SearchResult, as `warrant research --format json`: `{synthesis, evidence, decomp_trace, tokens_used, iterations, run_id, sufficient?}`", body = warrant::research::ResearchResult),
        (status = 400, description = "Bad JSON or request shape", body = ErrorBody),
        (status = 422, description = "An empty topic, an unknown or malformed hint, a bad `now`", body = ErrorBody),
    ))]
async fn research(State(state): State<AppState>, work: Work, JsonBody(req): JsonBody<ResearchRequest>) -> ApiResult<Response> {
    let env = state.env();
    work.run(move || json_response(&warrant::research::research(&env, &req)?)).await?
}

/// A recorded research run (as `warrant research --show RUN_ID --format json`): its intent,
/// every payload version, its status triples and its result.
#[utoipa::path(get, path = "/v1/research/{run_id}", tag = "store",
    params(("run_id" = String, Path, description = "The run id (`rg_` and 8 hex digits)")),
    responses(
        (status = 200, description = "The run record", body = warrant::research::RunRecord),
        (status = 404, description = "No such run (runs are kept 24 h)", body = ErrorBody),
    ))]
async fn research_run(
    State(state): State<AppState>,
    work: Work,
    axum::extract::Path(run_id): axum::extract::Path<String>,
) -> ApiResult<Response> {
    let env = state.env();
    work.run(move || match warrant::research::run(&env, &run_id)? {
        Some(record) => json_response(&record),
        None => Err(ApiError::missing(format!("no research run {run_id:?} (runs are kept 24 h)"))),
    })
    .await?
}

// ---------------------------------------------------------------------------------------
// POST /v1/compile

use warrant::compile::CompileRequest;

/// Compile sources into a CKF knowledge package.
#[utoipa::path(post, path = "/v1/compile", tag = "artefacts", request_body = CompileRequest,
    responses(
        (status = 200, description = "The package, as `warrant compile --format json`", body = CkfPackage),
        (status = 400, description = "Bad JSON or request shape", body = ErrorBody),
        (status = 422, description = "Unreadable sources, or nothing to compile", body = ErrorBody),
    ))]
async fn compile(State(state): State<AppState>, work: Work, JsonBody(req): JsonBody<CompileRequest>) -> ApiResult<Response> {
    let max = state.config().max_body;
    work.run(move || {
        let text = warrant::compile::compile(&req, max)?;
        Ok(([(header::CONTENT_TYPE, "application/json")], text).into_response())
    })
    .await?
}

/// A CKF knowledge package (protocol `ckf-1.0`). A placeholder: [`ckf_schemas`] replaces it
/// with `schemas/ckf-package-1.0.schema.json`, the schema the package is validated against.
#[derive(ToSchema)]
pub struct CkfPackage(#[allow(dead_code)] serde_json::Map<String, serde_json::Value>);

/// The CKF package schema as components: the root as `CkfPackage`, each definition `x_y` as
/// `CkfXY` (the package is written by its own encoder, so its schema is the hand-written one,
/// not derived). `None` if utoipa cannot represent it exactly (the OpenAPI tests fail then).
pub fn ckf_schemas() -> Option<Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::Schema>)>> {
    use serde_json::Value;
    fn name(def: &str) -> String {
        let mut out = String::from("Ckf");
        for part in def.split('_') {
            let mut c = part.chars();
            if let Some(first) = c.next() {
                out.extend(first.to_uppercase());
                out.push_str(c.as_str());
            }
        }
        out
    }
    fn rewrite(v: &mut Value) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get_mut("$ref")
                    && let Some(def) = r.strip_prefix("#/definitions/")
                {
                    *r = format!("#/components/schemas/{}", name(def));
                }
                m.values_mut().for_each(rewrite);
                // utoipa needs the type of an object schema (these describe only objects).
                if m.contains_key("properties") && !m.contains_key("type") {
                    m.insert("type".into(), Value::from("object"));
                }
                // utoipa's schema has allOf or properties, not both: the same constraint as an
                // allOf of the parts.
                if m.contains_key("allOf") && m.keys().any(|k| k != "allOf" && k != "description") {
                    let description = m.remove("description");
                    let Some(Value::Array(mut parts)) = m.remove("allOf") else { return };
                    parts.push(Value::Object(std::mem::take(m)));
                    m.insert("allOf".into(), Value::Array(parts));
                    if let Some(d) = description {
                        m.insert("description".into(), d);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(rewrite),
            _ => {}
        }
    }
    let mut root: Value = serde_json::from_str(warrant::compile::PACKAGE_SCHEMA).ok()?;
    rewrite(&mut root);
    let m = root.as_object_mut()?;
    let defs = m.remove("definitions")?;
    for k in ["$schema", "$id"] {
        m.remove(k);
    }
    let mut out = vec![("CkfPackage".to_string(), root)];
    out.extend(defs.as_object()?.iter().map(|(k, v)| (name(k), v.clone())));
    out.into_iter()
        .map(|(k, v)| {
            let schema: utoipa::openapi::RefOr<utoipa::openapi::Schema> = serde_json::from_value(v.clone()).ok()?;
            // Exactly: nothing utoipa does not model may be dropped on the way.
            (serde_json::to_value(&schema).ok()? == v).then_some((k, schema))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// GET routes

/// An OpenAPI 3.1 document (<https://spec.openapis.org/oas/v3.1.0>): this one.
#[derive(ToSchema)]
pub struct OpenApiDocument(#[allow(dead_code)] serde_json::Map<String, serde_json::Value>);

/// The built-in policy packs.
#[utoipa::path(get, path = "/v1/packs", tag = "policies",
    responses((status = 200, description = "As `warrant policy packs --format json`: `[{pack_id, name, version, description, policies}]`", body = Vec<warrant_cpl::packs::PackListing>)))]
async fn packs() -> ApiResult<Response> {
    json_response(&warrant::policy::packs_listing()?)
}

/// This document.
#[utoipa::path(get, path = "/v1/openapi.json", tag = "service",
    responses((status = 200, description = "The OpenAPI 3.1 document of every route", body = OpenApiDocument)))]
async fn openapi_json(State(state): State<AppState>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], state.openapi_json().to_string()).into_response()
}

/// Prometheus metrics: request counts and latency histograms per route, requests in flight,
/// the store's size.
#[utoipa::path(get, path = "/metrics", tag = "service",
    responses((status = 200, description = "Prometheus text format 0.0.4", body = String, content_type = "text/plain")))]
async fn metrics(State(state): State<AppState>) -> Response {
    let gauges = tokio::task::spawn_blocking({
        let state = state.clone();
        move || state.store_gauges()
    })
    .await
    .ok()
    .flatten();
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], state.metrics().render(gauges)).into_response()
}

/// Health and readiness.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Status {
    /// `ok` (alive) or `ready`.
    pub status: String,
}

/// Liveness: the process answers (no token needed).
#[utoipa::path(get, path = "/healthz", tag = "service", security(()),
    responses((status = 200, description = "Alive", body = Status)))]
async fn healthz() -> Json<Status> {
    Json(Status { status: "ok".into() })
}

/// Readiness: the store is open and the server is not shutting down (no token needed).
#[utoipa::path(get, path = "/readyz", tag = "service", security(()),
    responses(
        (status = 200, description = "Ready", body = Status),
        (status = 503, description = "Shutting down", body = ErrorBody),
    ))]
async fn readyz(State(state): State<AppState>) -> Response {
    if state.ready() {
        (StatusCode::OK, Json(Status { status: "ready".into() })).into_response()
    } else {
        ApiError::not_ready("shutting down").into_response()
    }
}
