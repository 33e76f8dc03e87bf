//! The gate's state against real servers on 127.0.0.1: policy profiles (`?profile=`), the rates source (a real
//! HTTP server in the test, and a file), and `SIGHUP` reloads of the real binary.
//!
//! The floor rule's own outcome for a floor without a rate is the rules' business; these tests assert what the
//! rates state decides: `below_floor` only when a rate makes the conversion possible, `floor_rate_missing`
//! when none does, and the metrics.

use crate::common;
use crate::hostile_common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

/// A `/validate` envelope: one banner imp with a floor of `floor` `floorcur`, and one USD bid per price.
fn pair(floor: f64, floorcur: &str, prices: &[f64]) -> Vec<u8> {
    let bids: Vec<String> = prices
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                r#"{{"id":"b{i}","impid":"1","price":{p},"crid":"c","mtype":1,"w":300,"h":250,"adm":"<img src=\"https://x.example/a.png\">"}}"#
            )
        })
        .collect();
    format!(
        r#"{{"request":{{"id":"r1","imp":[{{"id":"1","bidfloor":{floor},"bidfloorcur":"{floorcur}","secure":1,"banner":{{"format":[{{"w":300,"h":250}}]}}}}]}},
            "response":{{"id":"r1","cur":"USD","seatbid":[{{"seat":"s1","bid":[{}]}}]}}}}"#,
        bids.join(",")
    )
    .replace('\n', "")
    .into_bytes()
}

/// Per bid of an answer: its status and the codes of the issues at or under it.
fn verdicts(v: &Value) -> Vec<(String, Vec<String>)> {
    let issues = v["issues"].as_array().cloned().unwrap_or_default();
    v["summary"]["bids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let path = b["path"].as_str().unwrap();
            let codes = issues
                .iter()
                .filter(|i| {
                    let p = i["path"].as_str().unwrap_or("");
                    p == path || p.starts_with(&format!("{path}/"))
                })
                .map(|i| i["code"].as_str().unwrap().to_owned())
                .collect();
            (b["status"].as_str().unwrap().to_owned(), codes)
        })
        .collect()
}

/// POSTs `body` to `path` (with its query) on `base`, expecting 200; the verdicts.
async fn judge(
    client: &reqwest::Client,
    base: &str,
    path: &str,
    body: Vec<u8>,
) -> Vec<(String, Vec<String>)> {
    let res = client
        .post(format!("{base}{path}"))
        .body(body)
        .send()
        .await
        .unwrap();
    let (status, v) = json(res).await;
    assert_eq!(status, 200, "{v}");
    verdicts(&v)
}

fn has(verdict: &(String, Vec<String>), code: &str) -> bool {
    verdict.1.iter().any(|c| c == code)
}

/// Polls `check` every 50 ms until it holds, at most `within`.
async fn eventually<F, Fut>(within: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    while !check().await {
        assert!(Instant::now() < deadline, "not within {within:?}: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn config_from(toml: &str) -> bidscan_server::Config {
    use figment::providers::{Format, Toml};
    let mut c: bidscan_server::Config = bidscan_server::Config::figment(None)
        .merge(Toml::string(toml))
        .extract()
        .unwrap();
    c.validate().unwrap();
    c.server.listen = "127.0.0.1:0".parse().unwrap();
    c
}

#[tokio::test]
async fn profiles_pick_rules_rates_and_markup_and_an_unknown_one_is_400() {
    let server = start(config_from(
        r#"
        [validate.profiles.lenient]
        floor = "warn"
        [validate.profiles.yen.rates.USD]
        JPY = 150.0
        [validate.profiles.markup]
        nonbid_markup = true
        "#,
    ))
    .await;
    let (c, base) = (&server.client, server.base.as_str());
    // Base: a USD floor of 1.0 rejects 0.5; a JPY floor has no rate.
    let v = judge(c, base, "/validate", pair(1.0, "USD", &[0.5, 1.5])).await;
    assert_eq!(v[0].0, "rejected");
    assert!(has(&v[0], "below_floor") && v[1].0 == "accepted");
    let v = judge(c, base, "/validate", pair(150.0, "JPY", &[0.5])).await;
    assert!(
        has(&v[0], "floor_rate_missing") && !has(&v[0], "below_floor"),
        "{v:?}"
    );
    // One rule overridden: the floor only warns; the other rules keep the base's action (an insecure URL on a
    // secure imp still rejects).
    let v = judge(
        c,
        base,
        "/validate?profile=lenient",
        pair(1.0, "USD", &[0.5]),
    )
    .await;
    assert_eq!(v[0].0, "accepted", "{v:?}");
    assert!(has(&v[0], "below_floor"));
    let insecure = String::from_utf8(pair(1.0, "USD", &[2.0]))
        .unwrap()
        .replace("https://x.example", "http://x.example");
    let v = judge(c, base, "/validate?profile=lenient", insecure.into_bytes()).await;
    assert_eq!(v[0].0, "rejected", "{v:?}");
    assert!(has(&v[0], "insecure_markup"));
    // The profile's rates: 150 JPY = 1 USD.
    let v = judge(
        c,
        base,
        "/validate?profile=yen",
        pair(150.0, "JPY", &[0.5, 1.5]),
    )
    .await;
    assert!(has(&v[0], "below_floor") && v[0].0 == "rejected", "{v:?}");
    assert!(v[1].0 == "accepted" && v[1].1.is_empty(), "{v:?}");
    // nonbid_markup is the profile's too (its use in `seatnonbid` is the rules'): the profile is accepted and
    // judges with the base's rules.
    let v = judge(
        c,
        base,
        "/validate?profile=markup",
        pair(1.0, "USD", &[0.5]),
    )
    .await;
    assert!(has(&v[0], "below_floor") && v[0].0 == "rejected", "{v:?}");
    // An unknown profile: 400 before the body is judged, on both routes, also through the query parser.
    for path in [
        "/validate?profile=nope",
        "/validate?profile=",
        "/validate?profile=a%20b",
        "/validate/batch?profile=nope",
    ] {
        let (status, v) = json(server.post(path, &[], pair(1.0, "USD", &[0.5])).await).await;
        assert_eq!(status, 400, "{path}: {v}");
        assert_eq!(v["error"]["code"], "unknown_profile", "{path}: {v}");
    }
    // The batch route with a known profile judges every line under it.
    let mut batch = pair(1.0, "USD", &[0.5]);
    batch.push(b'\n');
    batch.extend(pair(1.0, "USD", &[0.5]));
    let res = server
        .post("/validate/batch?profile=lenient", &[], batch)
        .await;
    let text = res.text().await.unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    for line in &lines {
        assert_eq!(verdicts(line)[0].0, "accepted", "{line}");
    }
    // `/decode` ignores the parameter; the OpenAPI document offers the configured names.
    let res = server
        .post("/decode?profile=nope", &[], b"{}".to_vec())
        .await;
    assert_eq!(res.status().as_u16(), 200);
    let (_, doc) = server.get_text("/openapi.json").await;
    let doc: Value = serde_json::from_str(&doc).unwrap();
    let profile = doc["paths"]["/validate"]["post"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "profile")
        .cloned()
        .unwrap();
    assert_eq!(
        profile["schema"]["enum"],
        serde_json::json!(["lenient", "markup", "yen"])
    );
}

#[tokio::test]
async fn inspect_none_still_inspects_the_markup_on_validate() {
    let server = start(config()).await;
    let body = String::from_utf8(pair(1.0, "USD", &[2.0]))
        .unwrap()
        .replace(
            r#""mtype":1,"w":300,"h":250,"adm":"<img src=\"https://x.example/a.png\">""#,
            r#""mtype":2,"adm":"<VAST version=\"4.2\"><Ad><InLine></VAST>""#,
        )
        .replace(
            r#""banner":{"format":[{"w":300,"h":250}]}"#,
            r#""video":{"mimes":["video/mp4"]}"#,
        );
    for query in ["", "?inspect=none"] {
        let res = server
            .post(&format!("/validate{query}"), &[], body.clone().into_bytes())
            .await;
        let (status, v) = json(res).await;
        assert_eq!(status, 200, "{v}");
        // The finding reaches the rules whatever `inspect` says (with the creative rule's status code).
        let verdict = &verdicts(&v)[0];
        assert!(has(verdict, "vast_malformed"), "{query}: {v}");
        let issue = v["issues"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["code"] == "vast_malformed")
            .unwrap();
        assert_eq!(issue["statuscode"], 350, "{query}: {v}");
        let adm = &v["summary"]["bids"][0]["adm"];
        assert_eq!(adm["kind"], "vast");
        // inspect=none trims the summary's adm object to kind and size, as /decode answers it.
        assert_eq!(
            adm.get("well_formed").is_none(),
            query == "?inspect=none",
            "{adm}"
        );
    }
}

/// What the rates feed answers.
#[derive(Clone)]
enum Feed {
    Status(u16),
    Body(String),
    Slow(Duration),
}

fn currency_file(as_of: &str, usd_jpy: f64) -> String {
    format!(
        r#"{{"dataAsOf":"{as_of}","generatedAt":"{as_of}T12:00:00.000Z","conversions":{{"USD":{{"JPY":{usd_jpy},"EUR":0.5}},"EUR":{{"USD":2.0}}}}}}"#
    )
}

/// A currency-file server on 127.0.0.1 answering whatever `feed` holds; its URL.
async fn feed_server(feed: Arc<Mutex<Feed>>) -> String {
    use axum::response::IntoResponse;
    let app = axum::Router::new().route(
        "/latest.json",
        axum::routing::get(move || {
            let now = feed.lock().unwrap().clone();
            async move {
                match now {
                    Feed::Status(s) => axum::http::StatusCode::from_u16(s).unwrap().into_response(),
                    Feed::Body(body) => body.into_response(),
                    Feed::Slow(wait) => {
                        tokio::time::sleep(wait).await;
                        "{}".into_response()
                    }
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/latest.json")
}

fn count(text: &str, result: &str) -> f64 {
    value(
        text,
        &format!("bidscan_rates_fetches_total{{result=\"{result}\"}}"),
    )
}

#[tokio::test]
async fn rates_source_over_http_fails_refreshes_fails_again_and_goes_stale() {
    let feed = Arc::new(Mutex::new(Feed::Status(500)));
    let url = feed_server(feed.clone()).await;
    let server = start(config_from(&format!(
        "[validate]\nrates_source = \"{url}\"\nrates_refresh_secs = 1\nrates_timeout_secs = 1\nrates_max_age_secs = 6\n"
    )))
    .await;
    let (c, base) = (&server.client, server.base.clone());
    // The first fetch failed (awaited before serving): no rates, a JPY floor cannot be compared.
    let m = server.metrics().await;
    assert!(count(&m, "http_error") >= 1.0, "{m}");
    assert_eq!(count(&m, "ok"), 0.0);
    assert_eq!(value(&m, "bidscan_rates_age_seconds"), f64::INFINITY);
    let v = judge(c, &base, "/validate", pair(150.0, "JPY", &[0.8, 1.2])).await;
    assert!(
        v.iter()
            .all(|b| has(b, "floor_rate_missing") && !has(b, "below_floor")),
        "{v:?}"
    );

    // The source answers: 150 JPY = 1 USD, only the source's rate makes the conversion possible.
    *feed.lock().unwrap() = Feed::Body(currency_file("2018-09-12", 150.0));
    eventually(Duration::from_secs(5), "first good fetch", || async {
        count(&server.metrics().await, "ok") >= 1.0
    })
    .await;
    let v = judge(c, &base, "/validate", pair(150.0, "JPY", &[0.8, 1.2])).await;
    assert!(has(&v[0], "below_floor") && v[0].0 == "rejected", "{v:?}");
    assert!(v[1].1.is_empty() && v[1].0 == "accepted", "{v:?}");
    let m = server.metrics().await;
    assert_eq!(
        value(&m, "bidscan_rates_data_as_of_seconds"),
        1_536_710_400.0
    );
    assert!(value(&m, "bidscan_rates_age_seconds") < 2.0, "{m}");

    // Refreshed: 100 JPY = 1 USD, so 150 JPY = 1.5 USD and 1.2 is below.
    *feed.lock().unwrap() = Feed::Body(currency_file("2018-09-13", 100.0));
    eventually(Duration::from_secs(5), "the new rate in force", || async {
        let v = judge(c, &base, "/validate", pair(150.0, "JPY", &[1.2])).await;
        has(&v[0], "below_floor")
    })
    .await;
    assert_eq!(
        value(&server.metrics().await, "bidscan_rates_data_as_of_seconds"),
        1_536_796_800.0
    );

    // Failing again (a timeout, then a bad file): counted, the last good rates kept.
    *feed.lock().unwrap() = Feed::Slow(Duration::from_secs(3));
    eventually(Duration::from_secs(5), "a timed-out fetch", || async {
        count(&server.metrics().await, "timeout") >= 1.0
    })
    .await;
    *feed.lock().unwrap() = Feed::Body("{\"conversions\":{\"USD\":{\"JPY\":\"many\"}}}".into());
    eventually(Duration::from_secs(5), "an invalid file", || async {
        count(&server.metrics().await, "invalid") >= 1.0
    })
    .await;
    let v = judge(c, &base, "/validate", pair(150.0, "JPY", &[1.2, 1.6])).await;
    assert!(
        has(&v[0], "below_floor") && v[1].1.is_empty(),
        "kept: {v:?}"
    );

    // Stale: 6 s after the last good fetch the source's rates are dropped.
    eventually(Duration::from_secs(8), "stale rates dropped", || async {
        let v = judge(c, &base, "/validate", pair(150.0, "JPY", &[1.2])).await;
        has(&v[0], "floor_rate_missing") && !has(&v[0], "below_floor")
    })
    .await;
    assert!(value(&server.metrics().await, "bidscan_rates_age_seconds") >= 6.0);
}

#[tokio::test]
async fn rates_source_file_with_configured_rates_winning() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("latest.json");
    std::fs::write(&file, currency_file("2018-09-12", 100.0)).unwrap();
    let server = start(config_from(&format!(
        "[validate]\nrates_source = \"{}\"\nrates_refresh_secs = 1\nrates_max_bytes = 4096\n\
         [validate.rates.USD]\nJPY = 200.0\n",
        file.display()
    )))
    .await;
    let (c, base) = (&server.client, server.base.clone());
    // Read before serving. USD→JPY: the configured 200 wins over the file's 100 (150 JPY = 0.75 USD);
    // EUR: the file's rate alone (1 EUR = 2 USD).
    let v = judge(c, &base, "/validate", pair(150.0, "JPY", &[0.7, 0.8])).await;
    assert!(has(&v[0], "below_floor") && v[1].1.is_empty(), "{v:?}");
    let v = judge(c, &base, "/validate", pair(1.0, "EUR", &[1.9, 2.1])).await;
    assert!(has(&v[0], "below_floor") && v[1].1.is_empty(), "{v:?}");
    assert_eq!(count(&server.metrics().await, "ok"), 1.0);
    // Too large, then not a currency file: counted, the file's rates kept.
    std::fs::write(
        &file,
        format!("{}{}", currency_file("2018-09-12", 100.0), " ".repeat(5000)),
    )
    .unwrap();
    eventually(Duration::from_secs(5), "too large", || async {
        count(&server.metrics().await, "too_large") >= 1.0
    })
    .await;
    std::fs::write(&file, "not json").unwrap();
    eventually(Duration::from_secs(5), "invalid", || async {
        count(&server.metrics().await, "invalid") >= 1.0
    })
    .await;
    std::fs::remove_file(&file).unwrap();
    eventually(Duration::from_secs(5), "io", || async {
        count(&server.metrics().await, "io") >= 1.0
    })
    .await;
    let v = judge(c, &base, "/validate", pair(1.0, "EUR", &[1.9])).await;
    assert!(has(&v[0], "below_floor"), "kept: {v:?}");
}

/// The real binary with `--config FILE`, reloaded with SIGHUP.
#[tokio::test]
async fn sighup_reloads_the_policy_keeps_it_on_a_bad_file_and_names_restart_only_keys() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bidscan.toml");
    std::fs::write(&file, "[validate]\nfloor = \"enforce\"\n").unwrap();
    let server = hostile_common::spawn_args(&["--config", file.to_str().unwrap()], &[]);
    let client = crate::common::client_builder().build().unwrap();
    let base = server.base.clone();
    let metric = |text: &str, result: &str| {
        value(
            text,
            &format!("bidscan_config_reloads_total{{result=\"{result}\"}}"),
        )
    };
    let metrics = || async {
        client
            .get(format!("{base}/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let below = || pair(1.0, "USD", &[0.5]);
    assert_eq!(
        judge(&client, &base, "/validate", below()).await[0].0,
        "rejected"
    );

    // A new policy, a profile, and a key that needs a restart.
    std::fs::write(
        &file,
        "[server]\nmax_body_bytes = 1000000\n[validate]\nfloor = \"skip\"\n[validate.profiles.strict]\nfloor = \"enforce\"\n",
    )
    .unwrap();
    server.sighup();
    eventually(Duration::from_secs(10), "reloaded", || async {
        metric(&metrics().await, "ok") >= 1.0
    })
    .await;
    assert_eq!(
        judge(&client, &base, "/validate", below()).await[0].0,
        "accepted"
    );
    assert_eq!(
        judge(&client, &base, "/validate?profile=strict", below()).await[0].0,
        "rejected"
    );
    // The log line is read from the child's output by another thread: it may land after the counter moved.
    let served = &server;
    eventually(
        Duration::from_secs(10),
        "the restart-only key logged",
        move || async move {
            served
                .logs()
                .iter()
                .any(|l| l.contains("needs a restart") && l.contains("server.max_body_bytes"))
        },
    )
    .await;

    // A bad file: the running configuration stays, the error is counted and logged.
    std::fs::write(&file, "[validate]\nflor = \"enforce\"\n").unwrap();
    server.sighup();
    eventually(Duration::from_secs(10), "refused", || async {
        metric(&metrics().await, "error") >= 1.0
    })
    .await;
    assert_eq!(
        judge(&client, &base, "/validate", below()).await[0].0,
        "accepted"
    );
    assert_eq!(
        judge(&client, &base, "/validate?profile=strict", below()).await[0].0,
        "rejected"
    );
    eventually(
        Duration::from_secs(10),
        "the bad file logged",
        move || async move {
            served
                .logs()
                .iter()
                .any(|l| l.contains("not reloaded") && l.contains("flor"))
        },
    )
    .await;
    assert_eq!(metric(&metrics().await, "ok"), 1.0);

    // A reload that adds a rates source: read at once, its rates in force (150 JPY = 1.5 USD here), and a rule
    // the new file does not name back at its default.
    let rates = dir.path().join("latest.json");
    std::fs::write(&rates, currency_file("2018-09-12", 100.0)).unwrap();
    std::fs::write(
        &file,
        format!("[validate]\nrates_source = \"{}\"\n", rates.display()),
    )
    .unwrap();
    let jpy = || pair(150.0, "JPY", &[1.2]);
    // Until then the floor is skipped (the running policy); the new file leaves it at its default, enforce.
    let v = judge(&client, &base, "/validate", jpy()).await;
    assert!(v[0].1.is_empty(), "{v:?}");
    server.sighup();
    eventually(
        Duration::from_secs(10),
        "the source's rates in force",
        || async {
            has(
                &judge(&client, &base, "/validate", jpy()).await[0],
                "below_floor",
            )
        },
    )
    .await;
    assert_eq!(count(&metrics().await, "ok"), 1.0);
    assert_eq!(metric(&metrics().await, "ok"), 2.0);
}
