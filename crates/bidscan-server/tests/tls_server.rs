//! TLS on a real server (`serve_with`, and `bidscan serve` for the start-up error): certificates made here by
//! rcgen; curl (`--cacert`, HTTP/1.1 and `--http2`) and Rust clients (hyper over tokio-rustls, and reqwest with
//! rustls; h1 and h2)
//! against `/decode`; client certificates required on `server.listen`, not on `server.ops_listen`; a certificate
//! reload under load; the TLS metrics in a real scrape; handshakes that time out or are not TLS, and
//! `server.ops_listen` while draining.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bidscan_server::{Loader, Reloads};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::net::TcpStream;

use crate::common;

/// A CA made for one test.
struct Ca(CertifiedIssuer<'static, KeyPair>);

/// A certificate's PEM, its key's PEM and its DER.
struct Leaf {
    pem: String,
    key: String,
    der: CertificateDer<'static>,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        Ca(CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap())
    }

    fn leaf(&self, name: &str, usage: ExtendedKeyUsagePurpose) -> Leaf {
        let mut params = CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![usage];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.0).unwrap();
        Leaf {
            pem: cert.pem(),
            key: key.serialize_pem(),
            der: cert.der().clone(),
        }
    }
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    // Written aside and renamed, so a reload never reads half a file.
    let tmp = dir.join(format!("{name}.tmp"));
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    path
}

/// A free loopback port (bound, then released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// curl's `%{http_code} %{http_version}`, or its exit status when it failed.
async fn curl(args: Vec<String>) -> Result<String, i32> {
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("curl")
            .args([
                "-sS",
                "--max-time",
                "20",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code} %{http_version}",
            ])
            .args(args)
            .output()
            .expect("curl runs")
    })
    .await
    .unwrap();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(out.status.code().unwrap_or(-1))
    }
}

/// A rustls client trusting `ca`, presenting `identity`, offering `alpn`.
fn client(ca: &Ca, identity: Option<&Leaf>, alpn: &[u8]) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.0.der().clone()).unwrap();
    let builder = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots);
    let mut config = match identity {
        Some(leaf) => builder
            .with_client_auth_cert(
                vec![leaf.der.clone()],
                PrivateKeyDer::from_pem_slice(leaf.key.as_bytes()).unwrap(),
            )
            .unwrap(),
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![alpn.to_vec()];
    Arc::new(config)
}

/// One `POST path` with `body` on a new TLS connection (HTTP/2 when the config offers `h2`): the status and the
/// server certificate the connection saw.
async fn post(
    addr: SocketAddr,
    config: Arc<rustls::ClientConfig>,
    path: &str,
    body: &[u8],
) -> Result<(u16, CertificateDer<'static>), String> {
    let h2 = config.alpn_protocols == [b"h2".to_vec()];
    post_speaking(addr, config, path, body, h2).await
}

/// [`post`] speaking HTTP/2 when `h2`, whatever ALPN chose.
async fn post_speaking(
    addr: SocketAddr,
    config: Arc<rustls::ClientConfig>,
    path: &str,
    body: &[u8],
    h2: bool,
) -> Result<(u16, CertificateDer<'static>), String> {
    let tcp = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let tls = tokio_rustls::TlsConnector::from(config)
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    let seen = tls.get_ref().1.peer_certificates().unwrap()[0]
        .clone()
        .into_owned();
    // HTTP/2 takes the authority from the URI, HTTP/1.1 from `Host`.
    let uri = if h2 {
        format!("https://localhost{path}")
    } else {
        path.to_owned()
    };
    let mut request = hyper::Request::post(uri)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::copy_from_slice(body)))
        .unwrap();
    if !h2 {
        request
            .headers_mut()
            .insert("host", hyper::header::HeaderValue::from_static("localhost"));
    }
    let io = TokioIo::new(tls);
    let response = if h2 {
        let (mut send, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        send.send_request(request)
            .await
            .map_err(|e| e.to_string())?
    } else {
        let (mut send, conn) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        send.send_request(request)
            .await
            .map_err(|e| e.to_string())?
    };
    let status = response.status().as_u16();
    response
        .into_body()
        .collect()
        .await
        .map_err(|e| e.to_string())?;
    Ok((status, seen))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_mtls_ops_listener_reload_under_load_and_metrics_on_a_real_server() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ca = Ca::new("bidscan test CA");
    let clients = Ca::new("bidscan clients CA");
    let stranger = Ca::new("another CA");
    let server = ca.leaf("server", ExtendedKeyUsagePurpose::ServerAuth);
    let good = clients.leaf("exchange", ExtendedKeyUsagePurpose::ClientAuth);
    let wrong = stranger.leaf("exchange", ExtendedKeyUsagePurpose::ClientAuth);
    let ca_file = write(d, "ca.crt", &ca.0.pem());
    let p = |path: &PathBuf| path.display().to_string();
    let (good_crt, good_key) = (
        write(d, "good.crt", &good.pem),
        write(d, "good.key", &good.key),
    );
    let (wrong_crt, wrong_key) = (
        write(d, "wrong.crt", &wrong.pem),
        write(d, "wrong.key", &wrong.key),
    );

    let mut config = common::config();
    config.server.tls.cert = Some(write(d, "tls.crt", &server.pem));
    config.server.tls.key = Some(write(d, "tls.key", &server.key));
    config.server.tls.client_ca = Some(write(d, "clients.crt", &clients.0.pem()));
    let ops_port = free_port();
    config.server.ops_listen = Some(format!("127.0.0.1:{ops_port}").parse().unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // What a reload reads: the start's configuration, changed below.
    let reread = Arc::new(std::sync::Mutex::new(config.clone()));
    let loader: Loader = Arc::new({
        let reread = reread.clone();
        move || Ok(reread.lock().unwrap().clone())
    });
    let (reload, reloads) = Reloads::channel(loader);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(bidscan_server::serve_with(
        config,
        listener,
        async move {
            let _ = stopped.await;
        },
        Some(reloads),
    ));

    let body = common::corpus_file("banner_go_004k.json");
    let body_file = write(d, "body.json", &String::from_utf8_lossy(&body));
    let decode = format!("https://localhost:{}/decode", addr.port());
    let with = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = vec![
            "--cacert".into(),
            p(&ca_file),
            "-H".into(),
            "content-type: application/json".into(),
            "--data-binary".into(),
            format!("@{}", p(&body_file)),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args.push(decode.clone());
        args
    };
    let (gc, gk) = (p(&good_crt), p(&good_key));
    // curl over HTTP/1.1 and HTTP/2 (ALPN), with the client certificate.
    assert_eq!(
        curl(with(&["--http1.1", "--cert", &gc, "--key", &gk])).await,
        Ok("200 1.1".to_owned())
    );
    assert_eq!(
        curl(with(&["--http2", "--cert", &gc, "--key", &gk])).await,
        Ok("200 2".to_owned())
    );
    // No client certificate, or one from another CA: refused in the handshake, no HTTP answer.
    assert!(curl(with(&["--http1.1"])).await.is_err());
    let (wc, wk) = (p(&wrong_crt), p(&wrong_key));
    assert!(
        curl(with(&["--http1.1", "--cert", &wc, "--key", &wk]))
            .await
            .is_err()
    );

    // The Rust client (hyper over tokio-rustls), h1 and h2.
    let h1 = client(&ca, Some(&good), b"http/1.1");
    let h2 = client(&ca, Some(&good), b"h2");
    let (status, seen) = post(addr, h1.clone(), "/decode", &body).await.unwrap();
    assert_eq!((status, &seen), (200, &server.der));
    assert_eq!(
        post(addr, h2.clone(), "/decode", &body).await.unwrap().0,
        200
    );
    assert!(
        post(addr, client(&ca, None, b"h2"), "/decode", &body)
            .await
            .is_err()
    );
    assert!(
        post(addr, client(&ca, Some(&wrong), b"h2"), "/decode", &body)
            .await
            .is_err()
    );
    // The protocol is the one ALPN chose: HTTP/1.1 after `h2`, or HTTP/2 after `http/1.1`, gets no answer.
    assert!(
        post_speaking(addr, h2_client(&ca, &good), "/decode", &body, false)
            .await
            .is_err()
    );
    assert!(
        post_speaking(
            addr,
            client(&ca, Some(&good), b"http/1.1"),
            "/decode",
            &body,
            true
        )
        .await
        .is_err()
    );

    // The operational routes on ops_listen, over TLS without a client certificate; no document route there.
    let ops = |path: &str| {
        vec![
            "--cacert".to_owned(),
            p(&ca_file),
            format!("https://localhost:{ops_port}{path}"),
        ]
    };
    assert_eq!(curl(ops("/healthz")).await, Ok("200 2".to_owned()));
    assert_eq!(curl(ops("/readyz")).await, Ok("200 2".to_owned()));
    let ops_client = client(&ca, None, b"http/1.1");
    let ops_addr: SocketAddr = format!("127.0.0.1:{ops_port}").parse().unwrap();
    assert_eq!(
        post(ops_addr, ops_client, "/decode", &body)
            .await
            .unwrap()
            .0,
        404
    );

    // A certificate reload under load: four tasks, each 40 requests on new connections, none failing; the
    // certificate is replaced (same CA, a new key) and the reload asked for part-way.
    let renewed = ca.leaf("server renewed", ExtendedKeyUsagePurpose::ServerAuth);
    let failed = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let mut load = Vec::new();
    for i in 0..4 {
        let (config, body, failed, done) = (
            if i % 2 == 0 { h1.clone() } else { h2.clone() },
            body.clone(),
            failed.clone(),
            done.clone(),
        );
        load.push(tokio::spawn(async move {
            for _ in 0..40 {
                match post(addr, config.clone(), "/decode", &body).await {
                    Ok((200, _)) => {}
                    other => {
                        eprintln!("failed: {other:?}");
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    while done.load(Ordering::Relaxed) < 40 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    write(d, "tls.key", &renewed.key);
    write(d, "tls.crt", &renewed.pem);
    reload.send(()).await.unwrap();
    for task in load {
        task.await.unwrap();
    }
    assert_eq!(
        failed.load(Ordering::Relaxed),
        0,
        "requests failed across the reload"
    );
    // New connections see the new certificate (the reload runs on the server's own task: wait for it).
    let mut seen = server.der.clone();
    for _ in 0..100 {
        seen = post(addr, h1.clone(), "/decode", &body).await.unwrap().1;
        if seen == renewed.der {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        seen, renewed.der,
        "a new connection still sees the old certificate"
    );

    // The TLS metrics in a real scrape (over the ops listener).
    let (_, text) = ops_scrape(&ca_file, ops_port).await;
    let expiry = common::value(&text, "bidscan_tls_cert_expiry_seconds");
    assert!(expiry > 86_400.0, "{expiry}");
    assert!(
        common::value(
            &text,
            "bidscan_tls_handshake_failures_total{reason=\"no_client_cert\"}"
        ) >= 2.0
    );
    assert!(
        common::value(
            &text,
            "bidscan_tls_handshake_failures_total{reason=\"bad_client_cert\"}"
        ) >= 2.0
    );
    assert_eq!(
        common::value(&text, "bidscan_config_reloads_total{result=\"ok\"}"),
        1.0
    );

    // A reload whose key does not match keeps the running certificate and counts an error.
    write(d, "tls.key", &server.key);
    reload.send(()).await.unwrap();
    let mut errors = 0.0;
    for _ in 0..100 {
        let out = curl(ops("/healthz")).await;
        assert_eq!(out, Ok("200 2".to_owned()));
        let (_, text) = ops_scrape(&ca_file, ops_port).await;
        errors =
            common::sample(&text, "bidscan_config_reloads_total{result=\"error\"}").unwrap_or(0.0);
        if errors >= 1.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(errors, 1.0);
    assert_eq!(
        post(addr, h1.clone(), "/decode", &body).await.unwrap(),
        (200, renewed.der.clone())
    );

    // Emptying `client_ca` is not applied by a reload: client certificates stay required.
    write(d, "tls.key", &renewed.key);
    reread.lock().unwrap().server.tls.client_ca = None;
    reload.send(()).await.unwrap();
    let mut oks = 0.0;
    for _ in 0..100 {
        let (_, text) = ops_scrape(&ca_file, ops_port).await;
        oks = common::value(&text, "bidscan_config_reloads_total{result=\"ok\"}");
        if oks >= 2.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(oks, 2.0);
    assert!(
        post(addr, client(&ca, None, b"h2"), "/decode", &body)
            .await
            .is_err()
    );
    assert_eq!(
        post(addr, h2.clone(), "/decode", &body).await.unwrap().0,
        200
    );

    let _ = stop.send(());
    task.await.unwrap().unwrap();
}

/// A client offering `h2` with `identity`.
fn h2_client(ca: &Ca, identity: &Leaf) -> Arc<rustls::ClientConfig> {
    client(ca, Some(identity), b"h2")
}

/// `/metrics` of the ops listener on `port`, by curl trusting `ca`: whether curl succeeded, and the text.
async fn ops_scrape(ca: &Path, port: u16) -> (bool, String) {
    let ca = ca.display().to_string();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("curl")
            .args(["-sS", "--cacert", &ca])
            .arg(format!("https://localhost:{port}/metrics"))
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// reqwest with rustls (ring as the process's provider, `common::client_builder`), trusting only the test's CA:
/// `/decode` over HTTP/1.1 and over HTTP/2 (ALPN) with a client certificate from `server.tls.client_ca`; without
/// one, or with one from another CA, the request fails in the handshake.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reqwest_with_rustls_over_h1_and_h2_with_client_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ca = Ca::new("bidscan test CA");
    let clients = Ca::new("bidscan clients CA");
    let stranger = Ca::new("another CA");
    let server = ca.leaf("server", ExtendedKeyUsagePurpose::ServerAuth);
    let good = clients.leaf("exchange", ExtendedKeyUsagePurpose::ClientAuth);
    let wrong = stranger.leaf("exchange", ExtendedKeyUsagePurpose::ClientAuth);
    let mut config = common::config();
    config.server.tls.cert = Some(write(d, "tls.crt", &server.pem));
    config.server.tls.key = Some(write(d, "tls.key", &server.key));
    config.server.tls.client_ca = Some(write(d, "clients.crt", &clients.0.pem()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(bidscan_server::serve(config, listener, async move {
        let _ = stopped.await;
    }));

    let root = reqwest::Certificate::from_pem(ca.0.pem().as_bytes()).unwrap();
    let client = |identity: Option<&Leaf>, h1: bool| {
        let mut b = common::client_builder()
            .tls_certs_only([root.clone()])
            .timeout(Duration::from_secs(10));
        if let Some(leaf) = identity {
            let pem = format!("{}{}", leaf.pem, leaf.key);
            b = b.identity(reqwest::Identity::from_pem(pem.as_bytes()).unwrap());
        }
        if h1 {
            b = b.http1_only();
        }
        b.build().unwrap()
    };
    let url = format!("https://localhost:{port}/decode");
    let body = common::corpus_file("banner_go_004k.json");
    let send = |c: reqwest::Client| {
        let (url, body) = (url.clone(), body.clone());
        async move {
            c.post(url)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
        }
    };
    for (h1, version) in [
        (true, reqwest::Version::HTTP_11),
        (false, reqwest::Version::HTTP_2),
    ] {
        let res = send(client(Some(&good), h1)).await.unwrap();
        assert_eq!((res.status().as_u16(), res.version()), (200, version));
        let answer: serde_json::Value =
            serde_json::from_slice(&res.bytes().await.unwrap()).unwrap();
        assert_eq!(answer["status"], "bid", "{answer}");
        let none = send(client(None, h1)).await;
        assert!(none.is_err(), "no client certificate: {none:?}");
        let other = send(client(Some(&wrong), h1)).await;
        assert!(other.is_err(), "a certificate from another CA: {other:?}");
    }
    stop.send(()).unwrap();
    task.await.unwrap().unwrap();
}

#[test]
fn bidscan_serve_exits_2_on_a_key_that_does_not_match_its_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("bidscan test CA");
    let server = ca.leaf("server", ExtendedKeyUsagePurpose::ServerAuth);
    let other = ca.leaf("other", ExtendedKeyUsagePurpose::ServerAuth);
    let cert = write(dir.path(), "tls.crt", &server.pem);
    let key = write(dir.path(), "tls.key", &other.key);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bidscan"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("BIDSCAN__SERVER__TLS__CERT", &cert)
        .env("BIDSCAN__SERVER__TLS__KEY", &key)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("does not match the certificate"),
        "{stderr}"
    );
}

/// Without client certificates: a client that connects and sends nothing, or half a ClientHello, is closed
/// within `server.header_read_timeout_secs` and counted as a `timeout`; plain HTTP on the TLS port is closed
/// without an HTTP answer and counted as `not_tls`; and `server.ops_listen` keeps answering, over TLS, while the
/// server drains (`/readyz` 503, `/healthz` and `/metrics` 200).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handshake_timeouts_not_tls_and_the_ops_listener_draining() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ca = Ca::new("bidscan test CA");
    let leaf = ca.leaf("server", ExtendedKeyUsagePurpose::ServerAuth);
    let mut config = common::config();
    config.server.tls.cert = Some(write(d, "tls.crt", &leaf.pem));
    config.server.tls.key = Some(write(d, "tls.key", &leaf.key));
    config.server.header_read_timeout_secs = 1;
    config.server.drain_grace_secs = 30;
    let ops_port = free_port();
    config.server.ops_listen = Some(format!("127.0.0.1:{ops_port}").parse().unwrap());
    let mut server = common::start(config).await;
    let port = server.base.rsplit(':').next().unwrap().to_owned();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let body = common::corpus_file("banner_go_004k.json");

    // The Rust client (hyper over tokio-rustls, no client certificate asked for here), h2 and h1.
    for alpn in [&b"h2"[..], b"http/1.1"] {
        let (status, seen) = post(addr, client(&ca, None, alpn), "/decode", &body)
            .await
            .unwrap();
        assert_eq!((status, &seen), (200, &leaf.der));
    }

    // Silent, and half a ClientHello (a handshake record announcing 512 bytes, 11 sent): closed by the server
    // within the 1 s timeout (EOF or a reset; 5 s is the test's own bound).
    let half_hello: &[u8] = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";
    for sent in [&b""[..], half_hello] {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        tcp.write_all(sent).await.unwrap();
        let began = std::time::Instant::now();
        let mut buf = [0u8; 64];
        let read = tokio::time::timeout(Duration::from_secs(5), tcp.read(&mut buf)).await;
        assert!(
            matches!(read, Ok(Ok(0)) | Ok(Err(_))),
            "not closed: {read:?}"
        );
        let waited = began.elapsed();
        assert!(waited >= Duration::from_millis(500), "{waited:?}");
    }
    // Plain HTTP on the TLS port.
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
        .await
        .unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut out)).await;
    assert!(
        !out.starts_with(b"HTTP/"),
        "{:?}",
        String::from_utf8_lossy(&out)
    );

    let ca_file = write(d, "ca.crt", &ca.0.pem());
    let ca_arg = ca_file.display().to_string();
    let ops = |path: &str| {
        vec![
            "--cacert".to_owned(),
            ca_arg.clone(),
            format!("https://localhost:{ops_port}{path}"),
        ]
    };
    let text = tokio::task::spawn_blocking({
        let args = ops("/metrics");
        move || {
            std::process::Command::new("curl")
                .arg("-sS")
                .args(args)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert_eq!(
        common::value(
            &text,
            "bidscan_tls_handshake_failures_total{reason=\"timeout\"}"
        ),
        2.0,
        "{text}"
    );
    assert_eq!(
        common::value(
            &text,
            "bidscan_tls_handshake_failures_total{reason=\"not_tls\"}"
        ),
        1.0
    );

    // Draining: the main listener still accepts during the grace period, and the ops listener answers.
    server.begin_shutdown();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(curl(ops("/readyz")).await, Ok("503 2".to_owned()));
    assert_eq!(curl(ops("/healthz")).await, Ok("200 2".to_owned()));
    assert_eq!(curl(ops("/metrics")).await, Ok("200 2".to_owned()));
}
