//! The bidder dimension over real servers on 127.0.0.1: `?bidder=` and `X-Bidder` on `/decode`, `/validate` and
//! the batch routes, `other` and `unknown`, the series budget under 10,000 distinct names, and `server.bidders`
//! reloaded by `SIGHUP` of the real binary.

use crate::common;
use crate::hostile_common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

/// Series of one `bidder` label value (docs/metrics.md, "Series budget").
const SERIES_PER_BIDDER: usize = 52;

const BANNER: &str = "corpus/real-fixtures-compact/aidem_exemplary-multi-imps-multi-bid.json";
const NOBID: &str = "corpus/real-fixtures-compact/targetVideo_supplemental-no_seatbid.json";

fn doc(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn outcome(text: &str, bidder: &str, outcome: &str) -> f64 {
    value(
        text,
        &format!("bidscan_bidder_outcomes_total{{bidder=\"{bidder}\",outcome=\"{outcome}\"}}"),
    )
}

/// Every `bidscan_bidder_*` sample line of a scrape.
fn bidder_series(text: &str) -> usize {
    text.lines()
        .filter(|l| l.starts_with("bidscan_bidder_"))
        .count()
}

fn with_bidders(names: &[&str]) -> bidscan_server::Config {
    let mut c = config();
    c.server.bidders = names.iter().map(|n| (*n).to_owned()).collect();
    c
}

#[tokio::test]
async fn requests_are_counted_under_their_bidder_other_or_unknown() {
    let server = start(with_bidders(&["acme", "beta"])).await;
    let banner = doc(BANNER);
    let nobid = doc(NOBID);
    let ok = |res: reqwest::Response| async move {
        assert_eq!(res.status(), 200);
        serde_json::from_slice::<Value>(&res.bytes().await.unwrap()).unwrap()
    };
    ok(server
        .post("/decode?bidder=acme", &[], banner.clone())
        .await)
    .await;
    ok(server
        .post("/decode?view=summary&bidder=acme", &[], nobid.clone())
        .await)
    .await;
    ok(server
        .post("/decode", &[("x-bidder", "beta")], banner.clone())
        .await)
    .await;
    // The query wins over the header.
    ok(server
        .post(
            "/decode?bidder=acme",
            &[("x-bidder", "beta")],
            banner.clone(),
        )
        .await)
    .await;
    // An unlisted name (in any spelling, percent-encoded too) is `other`; none, or an empty one, is `unknown`.
    ok(server
        .post("/decode?bidder=zeta", &[], banner.clone())
        .await)
    .await;
    ok(server
        .post("/decode?bidder=a%20b", &[], nobid.clone())
        .await)
    .await;
    ok(server
        .post("/decode", &[("x-bidder", "gamma")], nobid.clone())
        .await)
    .await;
    ok(server.post("/decode", &[], banner.clone()).await).await;
    ok(server.post("/decode?bidder=", &[], nobid.clone()).await).await;
    // A refusal counts under the bidder too.
    let res = server
        .post("/decode?bidder=beta", &[], b"{\"id\":".to_vec())
        .await;
    assert_eq!(res.status(), 400);

    // /validate: a bid for an imp the request does not have is rejected, under acme.
    let pair = br#"{"request":{"id":"r","imp":[{"id":"1","banner":{"w":300,"h":250}}]},"response":{"id":"r","cur":"USD","seatbid":[{"seat":"s","bid":[{"id":"b1","impid":"9","price":2.5,"crid":"c","adm":"<div></div>","w":300,"h":250}]}]}}"#;
    let v = ok(server
        .post("/validate?bidder=acme", &[], pair.to_vec())
        .await)
    .await;
    let code = v["seatnonbid"][0]["nonbid"][0]["statuscode"]
        .as_u64()
        .expect("a rejected bid");

    // The batch routes: the bidder of the whole batch.
    let mut lines = nobid.clone();
    lines.retain(|&b| b != b'\n');
    lines.push(b'\n');
    let res = server
        .post(
            "/decode/batch",
            &[
                ("x-bidder", "beta"),
                ("content-type", "application/x-ndjson"),
            ],
            [lines.clone(), lines].concat(),
        )
        .await;
    assert_eq!(res.status(), 200);
    res.text().await.unwrap();

    let (_, text) = server.get_text("/metrics").await;
    // Two banner documents and the pair.
    assert_eq!(outcome(&text, "acme", "bid"), 3.0);
    assert_eq!(outcome(&text, "acme", "nobid"), 1.0);
    assert_eq!(outcome(&text, "beta", "bid"), 1.0);
    assert_eq!(outcome(&text, "beta", "nobid"), 2.0);
    assert_eq!(outcome(&text, "beta", "malformed"), 1.0);
    assert_eq!(outcome(&text, "other", "bid"), 1.0);
    assert_eq!(outcome(&text, "other", "nobid"), 2.0);
    assert_eq!(outcome(&text, "unknown", "bid"), 1.0);
    assert_eq!(outcome(&text, "unknown", "nobid"), 1.0);
    assert_eq!(
        value(
            &text,
            &format!("bidscan_bidder_rejections_total{{bidder=\"acme\",statuscode=\"{code}\"}}")
        ),
        1.0
    );
    // Two banner documents and the pair's one bid, all USD.
    let banner_bids = bids(&banner);
    assert_eq!(
        value(&text, "bidscan_bidder_bid_price_usd_count{bidder=\"acme\"}"),
        (2 * banner_bids + 1) as f64
    );
    assert_eq!(
        value(
            &text,
            "bidscan_bidder_response_bytes_count{bidder=\"acme\"}"
        ),
        4.0
    );
    assert_eq!(
        value(
            &text,
            "bidscan_bidder_bid_price_unconverted_total{bidder=\"acme\"}"
        ),
        0.0
    );
    assert!(!text.contains("bidder=\"zeta\"") && !text.contains("bidder=\"gamma\""));
    // Issues by code stay unlabelled.
    assert!(
        text.lines()
            .filter(|l| l.starts_with("bidscan_validation_issues_total"))
            .all(|l| !l.contains("bidder"))
    );
    assert_eq!(bidder_series(&text), 4 * SERIES_PER_BIDDER);
    assert!(text.contains("bidscan_build_info{"), "build info");
}

/// A response holding an integer outside int32 (`exp` of an accepted bid: a `w` that large would be rejected, and a
/// rejected bid is left out of the auction's protobuf answer) cannot be answered as protobuf: `/decode`'s 422
/// `not_encodable` and an auction's part with `X-Bidscan-Error: not_encodable` each count once in
/// `bidscan_bidder_not_encodable_total` under their bidder; answered as JSON they count nothing. The outcome stays
/// the decode's.
#[tokio::test]
async fn answers_that_could_not_be_encoded_are_counted_under_their_bidder() {
    const HUGE: &str = r#"{"id":"r1","cur":"USD","seatbid":[{"bid":[{"id":"h1","impid":"1","price":1.5,"crid":"c","mtype":1,"w":300,"h":250,"exp":3000000000,"adm":"<div>x</div>"}]}]}"#;
    const REQUEST: &str = r#"{"id":"r1","imp":[{"id":"1","banner":{"w":300,"h":250}}]}"#;
    let server = start(with_bidders(&["acme"])).await;
    let count = |text: &str, bidder: &str| {
        value(
            text,
            &format!("bidscan_bidder_not_encodable_total{{bidder=\"{bidder}\"}}"),
        )
    };
    let pb = [("accept", "application/x-protobuf")];
    let text = server.metrics().await;
    assert_eq!(
        (count(&text, "acme"), count(&text, "other")),
        (0.0, 0.0),
        "present from the start"
    );

    // /decode: JSON answers it; protobuf cannot.
    let res = server.post("/decode?bidder=acme", &[], HUGE.into()).await;
    assert_eq!(res.status(), 200);
    let res = server.post("/decode?bidder=acme", &pb, HUGE.into()).await;
    assert_eq!(res.status(), 422);
    let v: Value = serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
    assert_eq!(v["error"]["code"], "not_encodable");
    let res = server.post("/decode", &pb, HUGE.into()).await;
    assert_eq!(res.status(), 422);
    let text = server.metrics().await;
    assert_eq!(count(&text, "acme"), 1.0);
    assert_eq!(count(&text, "unknown"), 1.0);
    assert_eq!(outcome(&text, "acme", "bid"), 2.0, "the decode's outcome");

    // The auction: `acme` and `zeta` (other) cannot be encoded, `fine` can.
    let fine = HUGE.replace("3000000000", "300");
    let mut body = Vec::new();
    for (name, content) in [
        ("request", REQUEST),
        ("acme", HUGE),
        ("zeta", HUGE),
        ("fine", &fine),
    ] {
        body.extend_from_slice(
            format!("--b\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{content}\r\n")
                .as_bytes(),
        );
    }
    body.extend_from_slice(b"--b--\r\n");
    let content_type = [("content-type", "multipart/form-data; boundary=b")];
    let res = server
        .post("/validate/auction", &content_type, body.clone())
        .await;
    assert_eq!(res.status(), 200);
    let text = server.metrics().await;
    assert_eq!(
        (count(&text, "acme"), count(&text, "other")),
        (1.0, 0.0),
        "JSON carries it"
    );
    let res = server
        .post("/validate/auction", &[content_type[0], pb[0]], body)
        .await;
    assert_eq!(res.status(), 200);
    let answer = res.bytes().await.unwrap();
    let errors = memchr::memmem::find_iter(&answer, b"X-Bidscan-Error: not_encodable").count();
    assert_eq!(errors, 2, "acme's and zeta's parts");
    let text = server.metrics().await;
    assert_eq!(count(&text, "acme"), 2.0);
    assert_eq!(count(&text, "other"), 1.0);
    assert_eq!(count(&text, "unknown"), 1.0);
}

/// Bids of a bid response.
fn bids(body: &[u8]) -> usize {
    let v: Value = serde_json::from_slice(body).unwrap();
    v["seatbid"].as_array().map_or(0, |s| {
        s.iter()
            .map(|s| s["bid"].as_array().map_or(0, Vec::len))
            .sum()
    })
}

#[tokio::test]
async fn ten_thousand_bidder_names_stay_within_the_series_budget() {
    let listed = ["acme", "beta", "gamma"];
    let server = start(with_bidders(&listed)).await;
    let budget = (listed.len() + 2) * SERIES_PER_BIDDER;
    let (_, text) = server.get_text("/metrics").await;
    assert_eq!(
        bidder_series(&text),
        budget,
        "every series exists from the start"
    );
    let nobid = doc(NOBID);
    let names = 10_000;
    let mut sent = 0;
    for chunk in (0..names).collect::<Vec<_>>().chunks(100) {
        let requests = chunk.iter().map(|i| {
            let (server, body) = (&server, nobid.clone());
            async move {
                let path = if i % 2 == 0 {
                    format!("/decode?bidder=bidder-{i}")
                } else {
                    "/decode".to_owned()
                };
                let name = format!("bidder-{i}");
                let mut headers = Vec::new();
                if i % 2 == 1 {
                    headers.push(("x-bidder", name.as_str()));
                }
                let res = server.post(&path, &headers, body).await;
                assert_eq!(res.status(), 200);
            }
        });
        futures_util::future::join_all(requests).await;
        sent += chunk.len();
    }
    let (_, text) = server.get_text("/metrics").await;
    assert!(
        bidder_series(&text) <= budget,
        "{} series over a budget of {budget}",
        bidder_series(&text)
    );
    assert_eq!(outcome(&text, "other", "nobid"), sent as f64);
}

#[tokio::test]
async fn sighup_reloads_the_bidders_kept() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bidscan.toml");
    std::fs::write(&file, "[server]\nbidders = [\"acme\"]\n").unwrap();
    let server = hostile_common::spawn_args(&["--config", file.to_str().unwrap()], &[]);
    let client = crate::common::client_builder().build().unwrap();
    let metrics = || async {
        client
            .get(server.url("/metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    let decode = |bidder: &'static str| {
        client
            .post(server.url(&format!("/decode?bidder={bidder}")))
            .body(doc(NOBID))
            .send()
    };
    assert_eq!(decode("acme").await.unwrap().status(), 200);
    assert_eq!(decode("beta").await.unwrap().status(), 200);
    let text = metrics().await;
    assert_eq!(outcome(&text, "acme", "nobid"), 1.0);
    assert_eq!(outcome(&text, "other", "nobid"), 1.0);

    std::fs::write(&file, "[server]\nbidders = [\"beta\", \"gamma\"]\n").unwrap();
    server.sighup();
    let deadline = Instant::now() + Duration::from_secs(10);
    let text = loop {
        let text = metrics().await;
        if sample(&text, "bidscan_config_reloads_total{result=\"ok\"}") == Some(1.0) {
            break text;
        }
        assert!(Instant::now() < deadline, "not reloaded: {text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!text.contains("bidder=\"acme\""), "acme's series removed");
    assert_eq!(outcome(&text, "gamma", "nobid"), 0.0);
    assert_eq!(bidder_series(&text), 4 * SERIES_PER_BIDDER);
    assert_eq!(decode("acme").await.unwrap().status(), 200);
    assert_eq!(decode("beta").await.unwrap().status(), 200);
    let text = metrics().await;
    assert_eq!(outcome(&text, "beta", "nobid"), 1.0);
    assert_eq!(outcome(&text, "other", "nobid"), 2.0);
    assert!(
        !server.logs().iter().any(|l| l.contains("needs a restart")),
        "server.bidders is applied live"
    );
}
