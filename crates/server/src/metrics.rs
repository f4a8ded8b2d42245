//! Prometheus metrics: request counts by route, method and status, latency histograms by
//! route, requests in flight, and the store's size.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

/// Upper bounds of the latency buckets, in seconds.
pub const BUCKETS: [f64; 14] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

#[derive(Default)]
struct Route {
    /// (method, status) → count.
    counts: BTreeMap<(String, u16), u64>,
    /// Observations per bucket (not cumulative), plus one for `+Inf`.
    buckets: [u64; BUCKETS.len() + 1],
    sum: f64,
    count: u64,
}

/// The server's counters.
#[derive(Default)]
pub struct Metrics {
    routes: Mutex<BTreeMap<String, Route>>,
    in_flight: AtomicI64,
}

/// What the store holds, for the gauges.
#[derive(Debug, Clone, Copy, Default)]
pub struct StoreGauges {
    /// Bytes on disk (database and WAL).
    pub bytes: u64,
    /// Documents.
    pub documents: u64,
    /// Chunks.
    pub chunks: u64,
    /// Facts.
    pub facts: u64,
}

fn escape(label: &str) -> String {
    label.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

impl Metrics {
    /// A request started.
    pub fn start(&self) {
        self.in_flight.fetch_add(1, Ordering::Relaxed);
    }

    /// A request ended.
    pub fn finish(&self, route: &str, method: &str, status: u16, elapsed: Duration) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        let secs = elapsed.as_secs_f64();
        let bucket = BUCKETS.iter().position(|b| secs <= *b).unwrap_or(BUCKETS.len());
        let mut routes = self.routes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let r = routes.entry(route.to_string()).or_default();
        *r.counts.entry((method.to_string(), status)).or_default() += 1;
        r.buckets[bucket] += 1;
        r.sum += secs;
        r.count += 1;
    }

    /// The Prometheus text exposition (format 0.0.4).
    pub fn render(&self, store: Option<StoreGauges>) -> String {
        let routes = self.routes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut out = String::new();
        out.push_str("# HELP warrant_http_requests_total HTTP requests by route, method and status.\n");
        out.push_str("# TYPE warrant_http_requests_total counter\n");
        for (route, r) in routes.iter() {
            for ((method, status), n) in &r.counts {
                let _ = writeln!(
                    out,
                    "warrant_http_requests_total{{route=\"{}\",method=\"{method}\",status=\"{status}\"}} {n}",
                    escape(route)
                );
            }
        }
        out.push_str("# HELP warrant_http_request_duration_seconds Time to answer a request, by route.\n");
        out.push_str("# TYPE warrant_http_request_duration_seconds histogram\n");
        for (route, r) in routes.iter() {
            let route = escape(route);
            let mut cumulative = 0;
            for (i, b) in BUCKETS.iter().enumerate() {
                cumulative += r.buckets[i];
                let _ =
                    writeln!(out, "warrant_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{b}\"}} {cumulative}");
            }
            let _ = writeln!(out, "warrant_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}", r.count);
            let _ = writeln!(out, "warrant_http_request_duration_seconds_sum{{route=\"{route}\"}} {}", r.sum);
            let _ = writeln!(out, "warrant_http_request_duration_seconds_count{{route=\"{route}\"}} {}", r.count);
        }
        out.push_str("# HELP warrant_http_requests_in_flight Requests being handled.\n");
        out.push_str("# TYPE warrant_http_requests_in_flight gauge\n");
        let _ = writeln!(out, "warrant_http_requests_in_flight {}", self.in_flight.load(Ordering::Relaxed));
        if let Some(s) = store {
            for (name, help, v) in [
                ("warrant_store_bytes", "Size of the store on disk (database and WAL), in bytes.", s.bytes),
                ("warrant_store_documents", "Documents in the store.", s.documents),
                ("warrant_store_chunks", "Chunks in the store.", s.chunks),
                ("warrant_store_facts", "Facts in the store.", s.facts),
            ] {
                let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative_and_counts_per_status() {
        let m = Metrics::default();
        for (ms, status) in [(1, 200), (3, 200), (700, 422)] {
            m.start();
            m.finish("/v1/check", "POST", status, Duration::from_millis(ms));
        }
        let text = m.render(Some(StoreGauges { bytes: 10, documents: 1, chunks: 2, facts: 3 }));
        assert!(text.contains("warrant_http_requests_total{route=\"/v1/check\",method=\"POST\",status=\"200\"} 2\n"));
        assert!(text.contains("warrant_http_requests_total{route=\"/v1/check\",method=\"POST\",status=\"422\"} 1\n"));
        assert!(text.contains("warrant_http_request_duration_seconds_bucket{route=\"/v1/check\",le=\"0.001\"} 1\n"));
        assert!(text.contains("warrant_http_request_duration_seconds_bucket{route=\"/v1/check\",le=\"0.005\"} 2\n"));
        assert!(text.contains("warrant_http_request_duration_seconds_bucket{route=\"/v1/check\",le=\"+Inf\"} 3\n"));
        assert!(text.contains("warrant_http_requests_in_flight 0\n"));
        assert!(text.contains("warrant_store_chunks 2\n"));
    }
}
