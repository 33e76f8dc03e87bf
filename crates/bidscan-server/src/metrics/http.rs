//! The HTTP-layer metrics: [`HttpMetrics`], the handles of `bidscan_http_requests_total{route,status}` and
//! `bidscan_http_request_duration_seconds{route}` per route template, resolved once, which
//! [`crate::routes::layers::track::TrackLayer`] (the router) and [`crate::routes::pipeline`] (`POST /decode`) count into.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::http::StatusCode;
use prometheus::{Histogram, IntCounter};

use super::registry::Metrics;

/// Status codes whose `bidscan_http_requests_total` series a [`RouteMetrics`] keeps a handle to once first used
/// (every status the service answers by itself); other codes go through the label lookup each time.
const COMMON_STATUSES: [u16; 11] = [200, 400, 404, 405, 408, 413, 415, 422, 431, 500, 503];

/// The HTTP metrics of one route template, with each series' handle resolved on first use, so that counting a
/// request does not hash label values. Series are created exactly when the label lookup would create them (on
/// the first request with that route and status), so the exposition is the same.
pub struct RouteMetrics {
    route: &'static str,
    duration: OnceLock<Histogram>,
    requests: [OnceLock<IntCounter>; COMMON_STATUSES.len()],
}

impl RouteMetrics {
    fn new(route: &'static str) -> RouteMetrics {
        RouteMetrics {
            route,
            duration: OnceLock::new(),
            requests: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    /// Counts one request answered with `status` after `elapsed`.
    fn observe(&self, m: &Metrics, status: StatusCode, elapsed: Duration) {
        self.duration
            .get_or_init(|| m.http_duration.with_label_values(&[self.route]))
            .observe(elapsed.as_secs_f64());
        match COMMON_STATUSES.iter().position(|&s| s == status.as_u16()) {
            Some(i) => self.requests[i]
                .get_or_init(|| {
                    m.http_requests
                        .with_label_values(&[self.route, status.as_str()])
                })
                .inc(),
            None => m
                .http_requests
                .with_label_values(&[self.route, status.as_str()])
                .inc(),
        }
    }
}

/// `bidscan_http_requests_total{route,status}` and `bidscan_http_request_duration_seconds{route}` for a fixed set
/// of route templates plus `"unmatched"` (no route matched). A template outside the set is still counted, under
/// its own name, through the label lookup.
pub struct HttpMetrics {
    metrics: Arc<Metrics>,
    routes: Vec<RouteMetrics>,
    unmatched: RouteMetrics,
}

impl HttpMetrics {
    /// Handles for `routes` (route templates such as `/decode`) in `metrics`.
    pub fn new(metrics: Arc<Metrics>, routes: &[&'static str]) -> HttpMetrics {
        HttpMetrics {
            metrics,
            routes: routes.iter().map(|r| RouteMetrics::new(r)).collect(),
            unmatched: RouteMetrics::new("unmatched"),
        }
    }

    /// Counts one request to `route` (its template, `None` when no route matched).
    pub fn observe(&self, route: Option<&str>, status: StatusCode, elapsed: Duration) {
        let m = &self.metrics;
        let Some(route) = route else {
            return self.unmatched.observe(m, status, elapsed);
        };
        match self.routes.iter().find(|r| r.route == route) {
            Some(r) => r.observe(m, status, elapsed),
            None => {
                m.http_duration
                    .with_label_values(&[route])
                    .observe(elapsed.as_secs_f64());
                m.http_requests
                    .with_label_values(&[route, status.as_str()])
                    .inc();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_metrics_count_the_series_the_label_lookup_would() {
        let m = Arc::new(Metrics::new().unwrap());
        let http = HttpMetrics::new(m.clone(), &["/decode", "/decode/batch"]);
        let ms = Duration::from_millis(1);
        http.observe(Some("/decode"), StatusCode::OK, ms);
        http.observe(Some("/decode"), StatusCode::OK, ms);
        http.observe(Some("/decode"), StatusCode::IM_A_TEAPOT, ms);
        http.observe(Some("/other"), StatusCode::OK, ms);
        http.observe(None, StatusCode::NOT_FOUND, ms);
        let text = m.render().unwrap();
        assert!(
            !text.contains("route=\"/decode/batch\""),
            "no series before the first request"
        );
        let count =
            |route: &str, status: &str| m.http_requests.with_label_values(&[route, status]).get();
        assert_eq!(count("/decode", "200"), 2);
        assert_eq!(count("/decode", "418"), 1);
        assert_eq!(count("/other", "200"), 1);
        assert_eq!(count("unmatched", "404"), 1);
        let samples = |route: &str| {
            m.http_duration
                .with_label_values(&[route])
                .get_sample_count()
        };
        assert_eq!(samples("/decode"), 3);
        assert_eq!(samples("/other"), 1);
        assert_eq!(samples("unmatched"), 1);
    }
}
