//! Tool calls against their schemas (issue 18): `policy eval` of a graph with 10 tool calls
//! against 50 tool definitions, after the schemas are compiled (target: < 50 µs per graph).
//!
//! - `file`: the tools come from `--tools` (the engine's registry), as `policy eval` runs.
//! - `context`: the tools travel in the graph's `context.tool_schemas`, as `check` runs.
//! - `core_only`: `core.tool-use.v1` alone, the figure before the schema pack (with the tools
//!   from `--tools`, and in the graph's context).
//! - `failing`: every call has defects, so diagnostics are formatted.
//! - `compile_one_tool`: normalising and compiling one new tool schema (a cache miss).
//!
//! On Unix the evaluation benchmarks run twice: in wall time, and (`…/cpu`) in the
//! benchmark thread's CPU time, which other processes on a shared machine do not inflate.

#![allow(clippy::unwrap_used)] // benchmark setup

use std::hint::black_box;

use criterion::measurement::Measurement;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use warrant_cpl::{Engine, Pack, ToolOrigin, ToolRegistry, packs};
use warrant_graph::{PredicateGraph, Span, ToolCall};

/// Tool `i`: a few top-level parameters of every kind, a nested object with an enum, and an
/// array of objects.
fn tool(i: usize) -> Value {
    json!({"type": "function", "function": {"name": format!("tool_{i:02}"), "description": format!("Tool number {i}."),
    "parameters": {"type": "object", "additionalProperties": false, "required": ["id", "query"], "properties": {
        "id": {"type": "integer", "minimum": 1, "maximum": 100000},
        "query": {"type": "string", "minLength": 1, "maxLength": 200},
        "mode": {"type": "string", "enum": ["fast", "exact", "fuzzy"]},
        "ratio": {"type": "number", "exclusiveMinimum": 0},
        "dry_run": {"type": "boolean"},
        "email": {"type": "string", "format": "email"},
        "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{3}$"},
        "filters": {"type": "object", "additionalProperties": false, "properties": {
            "status": {"type": "string", "enum": ["open", "closed", "pending"]},
            "since": {"type": "string", "format": "date"},
            "limit": {"type": "integer", "minimum": 1}}},
        "items": {"type": "array", "items": {"type": "object", "required": ["sku"], "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}}},
        "target": {"oneOf": [{"type": "string"}, {"type": "object", "required": ["lat", "lon"]}]}
    }}}})
}

fn good_args(i: usize) -> Value {
    json!({"id": i + 1, "query": format!("find order {i}"), "mode": "exact", "ratio": 0.5, "dry_run": false,
           "email": "ops@example.com", "code": "ABC-123",
           "filters": {"status": "open", "since": "2024-05-01", "limit": 20},
           "items": [{"sku": "A-1", "qty": 2}, {"sku": "B-2"}], "target": {"lat": 48.8, "lon": 2.3}})
}

fn bad_args(i: usize) -> Value {
    json!({"id": "7", "query": "", "mode": "slow", "ratio": 0, "email": "nope", "code": "abc",
           "filters": {"status": "lost", "since": "2024-13-01", "limit": 0}, "items": [{"qty": 0}],
           "target": 5, "extra": i})
}

fn graph(tools: &[Value], args: fn(usize) -> Value, in_context: bool) -> PredicateGraph {
    let mut g = PredicateGraph::empty("bench", "");
    g.tool_calls = (0..10)
        .map(|k| {
            let i = k * 5; // ten different tools out of fifty
            ToolCall {
                id: format!("tc{}", k + 1),
                name: format!("tool_{i:02}"),
                arguments: args(i).as_object().unwrap().clone(),
                span: Span::new(0, 0),
            }
        })
        .collect();
    let names: Vec<String> = (0..tools.len()).map(|i| format!("tool_{i:02}")).collect();
    let mut ctx = json!({"tools_available": names});
    if in_context {
        ctx["tool_schemas"] = Value::Array(tools.to_vec());
    }
    g.context = ctx.as_object().cloned();
    g
}

struct Setup {
    tools: Vec<Value>,
    both: Vec<Pack>,
    core: Vec<Pack>,
    with_file: Engine,
    without: Engine,
}

fn setup() -> Setup {
    let tools: Vec<Value> = (0..50).map(tool).collect();
    let registry = ToolRegistry::from_json(&Value::Array(tools.clone()), ToolOrigin::File).unwrap();
    Setup {
        both: packs::TOOL_CALL_PACKS.iter().map(|id| packs::builtin(id).unwrap().unwrap().clone()).collect(),
        core: vec![packs::builtin("core.tool-use.v1").unwrap().unwrap().clone()],
        with_file: Engine { tools: registry, ..Engine::default() },
        without: Engine::default(),
        tools,
    }
}

/// The evaluation benchmarks, under `suffix` (`""` for wall time, `"/cpu"` for CPU time).
fn evaluations<M: Measurement + 'static>(c: &mut Criterion<M>, suffix: &str) {
    let Setup { tools, both, core, with_file, without } = setup();
    let g = graph(&tools, good_args, false);
    let r = with_file.evaluate(&both, &g).unwrap();
    assert!(r.passed && r.violations().next().is_none(), "{:?}", r.violations().map(|v| &v.2.message).collect::<Vec<_>>());
    c.bench_function(&format!("tool_schema/file_10_calls_50_tools{suffix}"), |b| {
        b.iter(|| with_file.evaluate(black_box(&both), black_box(&g)).unwrap())
    });
    c.bench_function(&format!("tool_schema/core_only_10_calls_50_tools{suffix}"), |b| {
        b.iter(|| with_file.evaluate(black_box(&core), black_box(&g)).unwrap())
    });

    let gc = graph(&tools, good_args, true);
    assert!(without.evaluate(&both, &gc).unwrap().passed);
    c.bench_function(&format!("tool_schema/core_only_context_10_calls_50_tools{suffix}"), |b| {
        b.iter(|| without.evaluate(black_box(&core), black_box(&gc)).unwrap())
    });
    c.bench_function(&format!("tool_schema/context_10_calls_50_tools{suffix}"), |b| {
        b.iter(|| without.evaluate(black_box(&both), black_box(&gc)).unwrap())
    });

    let bad = graph(&tools, bad_args, false);
    let r = with_file.evaluate(&both, &bad).unwrap();
    let diags: usize = r.violations().filter(|v| v.0 == "warrant.tool-schema.v1").map(|v| v.2.diagnostics.len()).sum();
    assert_eq!(diags, 10 * 13, "every defect of every call is reported");
    c.bench_function(&format!("tool_schema/failing_10_calls_50_tools{suffix}"), |b| {
        b.iter(|| with_file.evaluate(black_box(&both), black_box(&bad)).unwrap())
    });
}

fn wall(c: &mut Criterion) {
    evaluations(c, "");
    let mut n = 0u64;
    c.bench_function("tool_schema/compile_one_tool", |b| {
        b.iter_batched(
            || {
                // A new description makes new content: a cache miss, so a real compile.
                n += 1;
                let mut t = tool(0);
                t["function"]["parameters"]["properties"]["query"]["description"] = json!(format!("variant {n}"));
                Value::Array(vec![t])
            },
            |doc| ToolRegistry::from_json(black_box(&doc), ToolOrigin::File).unwrap(),
            BatchSize::SmallInput,
        )
    });
}

#[cfg(unix)]
mod cpu {
    use std::time::Duration;

    use criterion::measurement::{Measurement, ValueFormatter, WallTime};

    /// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`).
    pub struct ThreadCpu;

    fn now() -> Duration {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
    }

    impl Measurement for ThreadCpu {
        type Intermediate = Duration;
        type Value = Duration;
        fn start(&self) -> Duration {
            now()
        }
        fn end(&self, start: Duration) -> Duration {
            now().saturating_sub(start)
        }
        fn add(&self, a: &Duration, b: &Duration) -> Duration {
            *a + *b
        }
        fn zero(&self) -> Duration {
            Duration::ZERO
        }
        fn to_f64(&self, v: &Duration) -> f64 {
            v.as_nanos() as f64
        }
        fn formatter(&self) -> &dyn ValueFormatter {
            // Nanoseconds, printed as wall time prints them.
            static WALL: WallTime = WallTime;
            WALL.formatter()
        }
    }

    pub fn benches(c: &mut criterion::Criterion<ThreadCpu>) {
        super::evaluations(c, "/cpu");
    }
}

criterion_group!(wall_group, wall);
#[cfg(unix)]
criterion_group! {
    name = cpu_group;
    config = Criterion::default().with_measurement(cpu::ThreadCpu);
    targets = cpu::benches
}
#[cfg(unix)]
criterion_main!(wall_group, cpu_group);
#[cfg(not(unix))]
criterion_main!(wall_group);
