//! Markup inspection through the real server: the summary's `adm` objects, `?inspect=none`, the markup issues
//! and `bidscan_adm_total`.

use crate::common;

use common::*;

#[tokio::test]
async fn adm_objects_issues_and_the_adm_metric() {
    let server = start(config()).await;
    let doc = corpus_file("vast_020k.json");
    let (code, v) = json(server.post("/decode?view=summary", &[], doc.clone()).await).await;
    assert_eq!(code, 200, "{v}");
    let adm = &v["summary"]["bids"][0]["adm"];
    assert_eq!(adm["kind"], "vast", "{adm}");
    assert_eq!(
        (&adm["version"], &adm["well_formed"], &adm["ads"]),
        (&"4.2".into(), &true.into(), &1.into()),
        "{adm}"
    );
    assert_eq!(
        (&adm["wrapper"], &adm["duration_secs"], &adm["media_files"]),
        (&false.into(), &30.0.into(), &1.into())
    );

    let (code, v) = json(server.post("/decode?inspect=none", &[], doc).await).await;
    assert_eq!(code, 200, "{v}");
    let adm = v["summary"]["bids"][0]["adm"].as_object().unwrap().clone();
    assert_eq!(adm.keys().collect::<Vec<_>>(), ["bytes", "kind"], "{adm:?}"); // serde_json sorts keys

    let broken = r#"{"id":"r","seatbid":[{"bid":[{"id":"b","impid":"1","price":1,"crid":"c","adm":"<VAST version=\"4.0\"><Ad>"},
        {"id":"c","impid":"1","price":1,"crid":"c","mtype":4,"adm":"{\"ver\":\"1.2\",\"link\":{}}"}]}]}"#;
    let (code, v) = json(
        server
            .post("/decode", &[], broken.as_bytes().to_vec())
            .await,
    )
    .await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["issues"][0]["path"], "/seatbid/0/bid/0/adm", "{v}");
    assert_eq!(v["issues"][0]["code"], "vast_malformed", "{v}");
    assert_eq!(v["summary"]["bids"][1]["adm"]["kind"], "native");
    assert_eq!(v["summary"]["bids"][1]["adm"]["well_formed"], true);

    let (code, v) = json(
        server
            .post("/decode?inspect=everything", &[], b"{}".to_vec())
            .await,
    )
    .await;
    assert_eq!(
        (code, &v["error"]["code"]),
        (400, &"invalid_query".into()),
        "{v}"
    );

    let m = server.metrics().await;
    assert_eq!(
        value(&m, r#"bidscan_adm_total{kind="vast",well_formed="true"}"#),
        1.0,
        "inspect=none is not counted"
    );
    assert_eq!(
        value(&m, r#"bidscan_adm_total{kind="vast",well_formed="false"}"#),
        1.0
    );
    assert_eq!(
        value(&m, r#"bidscan_adm_total{kind="native",well_formed="true"}"#),
        1.0
    );
    assert_eq!(
        value(
            &m,
            r#"bidscan_validation_issues_total{code="vast_malformed",severity="error"}"#
        ),
        1.0
    );
}
