//! `bidscan_server::tls`: certificates and CAs made here by rcgen, written to PEM files, loaded by `Tls`, and
//! served over real TCP on 127.0.0.1 to tokio-rustls clients (and, for what rustls cannot send, raw bytes).

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bidscan_server::tls::{ALPN, FailureReason, Tls, TlsConfig, TlsError, TlsMetrics};
use rcgen::{
    BasicConstraints, Certificate, CertificateParams, CertifiedIssuer, DnType,
    ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, ProtocolVersion, RootCertStore, SupportedProtocolVersion};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

/// A CA made for one test.
struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A certificate and its key, as made by a [`Ca`].
struct Leaf {
    cert: Certificate,
    key: KeyPair,
}

impl Ca {
    fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        Self {
            issuer: CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap(),
        }
    }

    /// A server certificate for `localhost`.
    fn server(&self, name: &str) -> Leaf {
        self.leaf(name, ExtendedKeyUsagePurpose::ServerAuth, None)
    }

    /// A client certificate.
    fn client(&self, name: &str) -> Leaf {
        self.leaf(name, ExtendedKeyUsagePurpose::ClientAuth, None)
    }

    fn leaf(
        &self,
        name: &str,
        usage: ExtendedKeyUsagePurpose,
        not_after: Option<(i32, u8, u8)>,
    ) -> Leaf {
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![usage];
        if let Some((y, m, d)) = not_after {
            params.not_after = rcgen::date_time_ymd(y, m, d);
        }
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Leaf { cert, key }
    }

    fn der(&self) -> CertificateDer<'static> {
        self.issuer.der().clone()
    }
}

/// PEM files in a temporary directory.
struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `server.tls` for `leaf` (its cert and key written as `{tag}.crt`, `{tag}.key`), with `client_ca`.
    fn config(&self, tag: &str, leaf: &Leaf, client_ca: Option<&Ca>) -> TlsConfig {
        TlsConfig {
            cert: Some(self.write(&format!("{tag}.crt"), &leaf.cert.pem())),
            key: Some(self.write(&format!("{tag}.key"), &leaf.key.serialize_pem())),
            client_ca: client_ca.map(|ca| self.write(&format!("{tag}-ca.crt"), &ca.issuer.pem())),
        }
    }
}

/// What the test server saw of one connection: the negotiated ALPN protocol, or why the handshake failed.
type Seen = Result<Option<Vec<u8>>, FailureReason>;

/// A TLS echo server on 127.0.0.1: each connection's handshake by `Tls::accept` (or `accept_ops`) within
/// `timeout`, its outcome sent on the channel, then every byte echoed until EOF.
async fn serve(
    tls: Arc<Tls>,
    ops: bool,
    timeout: Duration,
) -> (SocketAddr, mpsc::UnboundedReceiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (tls, tx) = (tls.clone(), tx.clone());
            tokio::spawn(async move {
                let accepted = if ops {
                    tls.accept_ops(tcp, timeout).await
                } else {
                    tls.accept(tcp, timeout).await
                };
                let mut stream = match accepted {
                    Ok(stream) => stream,
                    Err(e) => {
                        let _ = tx.send(Err(e.reason));
                        return;
                    }
                };
                let _ = tx.send(Ok(stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec)));
                let mut buf = [0u8; 1024];
                loop {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => {
                            if stream.write_all(&buf[..n]).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            });
        }
    });
    (addr, rx)
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A client trusting `ca`, offering `versions` and `alpn`, presenting `identity` when given.
fn client(
    ca: &Ca,
    versions: &[&'static SupportedProtocolVersion],
    alpn: &[&[u8]],
    identity: Option<&Leaf>,
) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots.add(ca.der()).unwrap();
    let builder = ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(versions)
        .unwrap()
        .with_root_certificates(roots);
    let mut config = match identity {
        Some(leaf) => builder
            .with_client_auth_cert(
                vec![leaf.cert.der().clone()],
                PrivateKeyDer::try_from(leaf.key.serialize_der()).unwrap(),
            )
            .unwrap(),
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Arc::new(config)
}

const BOTH: &[&SupportedProtocolVersion] = &[&rustls::version::TLS13, &rustls::version::TLS12];

async fn connect(addr: SocketAddr, config: Arc<ClientConfig>) -> io::Result<TlsStream<TcpStream>> {
    let tcp = TcpStream::connect(addr).await?;
    let name = ServerName::try_from("localhost").unwrap();
    TlsConnector::from(config).connect(name, tcp).await
}

/// Sends `ping` and reads the echo back (within 5 s).
async fn ping(stream: &mut TlsStream<TcpStream>) -> io::Result<()> {
    tokio::time::timeout(Duration::from_secs(5), async {
        stream.write_all(b"ping").await?;
        stream.flush().await?;
        let mut back = [0u8; 4];
        stream.read_exact(&mut back).await?;
        assert_eq!(&back, b"ping");
        Ok(())
    })
    .await
    .unwrap_or_else(|_| Err(io::Error::other("no echo within 5 s")))
}

/// The next outcome the server reports (within 5 s).
async fn seen(rx: &mut mpsc::UnboundedReceiver<Seen>) -> Seen {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("the server saw no connection within 5 s")
        .unwrap()
}

const TIMEOUT: Duration = Duration::from_secs(5);

#[tokio::test]
async fn alpn_h2_and_http11_are_negotiated_over_tls13_and_tls12() {
    let ca = Ca::new("bidscan test CA");
    let files = Files::new();
    let tls = Arc::new(Tls::load(&files.config("server", &ca.server("server"), None)).unwrap());
    let (addr, mut rx) = serve(tls, false, TIMEOUT).await;
    let versions: [(&'static SupportedProtocolVersion, ProtocolVersion); 2] = [
        (&rustls::version::TLS13, ProtocolVersion::TLSv1_3),
        (&rustls::version::TLS12, ProtocolVersion::TLSv1_2),
    ];
    for (version, expected_version) in versions {
        for (offered, expected) in [
            (&ALPN[..], Some(&b"h2"[..])),
            (&[&b"http/1.1"[..]][..], Some(&b"http/1.1"[..])),
            (&[&b"h2"[..]][..], Some(&b"h2"[..])),
            (&[][..], None),
        ] {
            let mut stream = connect(addr, client(&ca, &[version], offered, None))
                .await
                .unwrap();
            let conn = stream.get_ref().1;
            assert_eq!(conn.alpn_protocol(), expected, "offered {offered:?}");
            assert_eq!(conn.protocol_version(), Some(expected_version));
            assert_eq!(seen(&mut rx).await, Ok(expected.map(<[u8]>::to_vec)));
            ping(&mut stream).await.unwrap();
        }
    }
    // A client offering only protocols the server does not speak is refused (RFC 7301 §3.2).
    let refused = connect(addr, client(&ca, BOTH, &[b"h3"], None)).await;
    assert!(refused.is_err());
    assert_eq!(seen(&mut rx).await, Err(FailureReason::Protocol));
    // A client that does not trust the server's certificate says so with an alert.
    let stranger = Ca::new("another CA");
    assert!(
        connect(addr, client(&stranger, BOTH, &ALPN, None))
            .await
            .is_err()
    );
    assert_eq!(seen(&mut rx).await, Err(FailureReason::ClientAlert));
}

/// A TLS 1.1 ClientHello (no `supported_versions` extension), which rustls clients cannot send. With
/// `sigalgs` it carries a `signature_algorithms` extension, so that rustls gets as far as the version check;
/// without, it is what real TLS 1.1 clients send (`openssl s_client -tls1_1`: the extension is TLS 1.2's), which
/// rustls refuses earlier, with a `handshake_failure` alert.
fn tls11_client_hello(sigalgs: bool) -> Vec<u8> {
    let mut hello = vec![0x03, 0x02]; // client_version TLS 1.1
    hello.extend_from_slice(&[7; 32]); // random
    hello.push(0); // session id
    hello.extend_from_slice(&[0x00, 0x04, 0xc0, 0x13, 0x00, 0x2f]); // two TLS 1.1 cipher suites
    hello.extend_from_slice(&[0x01, 0x00]); // compression: null
    if sigalgs {
        // extensions: signature_algorithms [ecdsa_secp256r1_sha256]
        hello.extend_from_slice(&[0x00, 0x08, 0x00, 0x0d, 0x00, 0x04, 0x00, 0x02, 0x04, 0x03]);
    }
    let mut handshake = vec![0x01, 0x00];
    handshake.extend_from_slice(&u16::try_from(hello.len()).unwrap().to_be_bytes());
    handshake.extend_from_slice(&hello);
    let mut record = vec![0x16, 0x03, 0x02];
    record.extend_from_slice(&u16::try_from(handshake.len()).unwrap().to_be_bytes());
    record.extend_from_slice(&handshake);
    record
}

#[tokio::test]
async fn tls11_is_refused_with_an_alert_and_cleartext_is_not_tls() {
    let ca = Ca::new("bidscan test CA");
    let files = Files::new();
    let tls = Arc::new(Tls::load(&files.config("server", &ca.server("server"), None)).unwrap());
    let (addr, mut rx) = serve(tls, false, TIMEOUT).await;

    // One alert record, level fatal (2): handshake_failure (40) for a real TLS 1.1 client's hello,
    // protocol_version (70) for one with `signature_algorithms` (RFC 5246 §7.2); `protocol` either way.
    for (sigalgs, alert) in [(false, 40), (true, 70)] {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        tcp.write_all(&tls11_client_hello(sigalgs)).await.unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(TIMEOUT, tcp.read_to_end(&mut answer))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(answer.first(), Some(&0x15), "{answer:?}");
        assert_eq!(&answer[answer.len() - 2..], &[2, alert], "{answer:?}");
        assert_eq!(seen(&mut rx).await, Err(FailureReason::Protocol));
    }

    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    assert_eq!(seen(&mut rx).await, Err(FailureReason::NotTls));

    // A connection closed before its handshake ends (a TCP health check).
    drop(TcpStream::connect(addr).await.unwrap());
    assert_eq!(seen(&mut rx).await, Err(FailureReason::Closed));
}

#[tokio::test]
async fn client_certificates_are_required_and_verified_when_client_ca_is_set() {
    let ca = Ca::new("bidscan test CA");
    let clients = Ca::new("bidscan clients CA");
    let other = Ca::new("another CA");
    let files = Files::new();
    let config = files.config("server", &ca.server("server"), Some(&clients));
    let tls = Arc::new(Tls::load(&config).unwrap());
    let (addr, mut rx) = serve(tls.clone(), false, TIMEOUT).await;

    for version in BOTH {
        // No certificate: refused. Over TLS 1.3 the client's side of the handshake ends before the server has
        // judged its certificate, so the refusal shows as the first exchange failing.
        let refused = match connect(addr, client(&ca, &[*version], &ALPN, None)).await {
            Ok(mut stream) => ping(&mut stream).await.is_err(),
            Err(_) => true,
        };
        assert!(refused, "{version:?}: served without a client certificate");
        assert_eq!(seen(&mut rx).await, Err(FailureReason::NoClientCert));

        // A certificate from another CA: refused.
        let stranger = other.client("stranger");
        let refused = match connect(addr, client(&ca, &[*version], &ALPN, Some(&stranger))).await {
            Ok(mut stream) => ping(&mut stream).await.is_err(),
            Err(_) => true,
        };
        assert!(refused, "{version:?}: served with another CA's certificate");
        assert_eq!(seen(&mut rx).await, Err(FailureReason::BadClientCert));

        // One from the configured CA: served, and the server sees it.
        let good = clients.client("exchange");
        let mut stream = connect(addr, client(&ca, &[*version], &ALPN, Some(&good)))
            .await
            .unwrap();
        assert_eq!(seen(&mut rx).await, Ok(Some(b"h2".to_vec())));
        ping(&mut stream).await.unwrap();
    }

    // The operational listener's configuration asks for no client certificate.
    let (ops_addr, mut ops_rx) = serve(tls, true, TIMEOUT).await;
    let mut stream = connect(ops_addr, client(&ca, BOTH, &[b"http/1.1"], None))
        .await
        .unwrap();
    assert_eq!(seen(&mut ops_rx).await, Ok(Some(b"http/1.1".to_vec())));
    ping(&mut stream).await.unwrap();
}

#[tokio::test]
async fn reload_swaps_certificates_for_new_connections_and_keeps_them_on_failure() {
    let ca = Ca::new("bidscan test CA");
    let files = Files::new();
    let first = ca.server("first");
    let second = ca.server("second");
    let tls = Arc::new(Tls::load(&files.config("first", &first, None)).unwrap());
    let (addr, mut rx) = serve(tls.clone(), false, TIMEOUT).await;
    let served =
        |stream: &TlsStream<TcpStream>| stream.get_ref().1.peer_certificates().unwrap()[0].clone();

    let mut old = connect(addr, client(&ca, BOTH, &ALPN, None)).await.unwrap();
    seen(&mut rx).await.unwrap();
    assert_eq!(&served(&old), first.cert.der());

    tls.reload(&files.config("second", &second, None)).unwrap();
    let mut new = connect(addr, client(&ca, BOTH, &ALPN, None)).await.unwrap();
    seen(&mut rx).await.unwrap();
    assert_eq!(&served(&new), second.cert.der());
    // The connection accepted before the reload keeps its session.
    ping(&mut old).await.unwrap();
    ping(&mut new).await.unwrap();

    // A reload whose key does not match its certificate fails and keeps the second certificate.
    let mut broken = files.config("third", &ca.server("third"), None);
    broken.key = files.config("fourth", &ca.server("fourth"), None).key;
    let error = tls.reload(&broken).unwrap_err();
    assert!(matches!(error, TlsError::KeyMismatch { .. }), "{error}");
    // So does one whose certificate has expired: it would fail every client that checks dates.
    let expired = ca.leaf(
        "expired",
        ExtendedKeyUsagePurpose::ServerAuth,
        Some((2020, 2, 1)),
    );
    let error = tls
        .reload(&files.config("expired", &expired, None))
        .unwrap_err();
    assert!(matches!(error, TlsError::OutsideValidity { .. }), "{error}");
    assert!(error.to_string().contains("expired"), "{error}");
    let mut after = connect(addr, client(&ca, BOTH, &ALPN, None)).await.unwrap();
    seen(&mut rx).await.unwrap();
    assert_eq!(&served(&after), second.cert.der());
    ping(&mut after).await.unwrap();
    ping(&mut old).await.unwrap();
}

#[tokio::test]
async fn a_handshake_that_does_not_finish_in_time_fails_as_timeout() {
    let ca = Ca::new("bidscan test CA");
    let files = Files::new();
    let tls = Arc::new(Tls::load(&files.config("server", &ca.server("server"), None)).unwrap());
    let (addr, mut rx) = serve(tls, false, Duration::from_millis(300)).await;
    for sent in [&b""[..], &tls11_client_hello(true)[..10]] {
        let started = Instant::now();
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        tcp.write_all(sent).await.unwrap();
        assert_eq!(seen(&mut rx).await, Err(FailureReason::Timeout));
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(300) && took < Duration::from_secs(3),
            "{took:?}"
        );
        // The server dropped the connection: the client reads EOF (or a reset).
        let mut rest = Vec::new();
        let read = tokio::time::timeout(TIMEOUT, tcp.read_to_end(&mut rest))
            .await
            .unwrap();
        assert!(read.is_err() || rest.is_empty(), "{rest:?}");
    }
}

#[test]
fn load_errors_name_the_file_and_what_is_wrong() {
    let ca = Ca::new("bidscan test CA");
    let files = Files::new();
    let good = files.config("good", &ca.server("good"), None);
    let cert = good.cert.clone().unwrap();
    let key = good.key.clone().unwrap();
    let with = |cert: &Path, key: &Path, client_ca: Option<&Path>| TlsConfig {
        cert: Some(cert.to_path_buf()),
        key: Some(key.to_path_buf()),
        client_ca: client_ca.map(Path::to_path_buf),
    };
    let message = |config: &TlsConfig| Tls::load(config).unwrap_err();

    let missing = files.dir.path().join("missing.pem");
    let error = message(&with(&missing, &key, None));
    assert!(matches!(error, TlsError::Unreadable { .. }), "{error}");
    assert!(
        error.to_string().starts_with(&format!(
            "server.tls.cert {}: cannot be read",
            missing.display()
        )),
        "{error}"
    );

    let error = message(&with(&key, &key, None));
    assert!(matches!(error, TlsError::NoCertificate { .. }), "{error}");
    assert!(
        error.to_string().contains(&key.display().to_string()),
        "{error}"
    );

    let error = message(&with(&cert, &cert, None));
    assert!(matches!(error, TlsError::NoKey { .. }), "{error}");
    assert!(
        error.to_string().starts_with(&format!(
            "server.tls.key {}: no private key",
            cert.display()
        )),
        "{error}"
    );

    let other_key = files
        .config("other", &ca.server("other"), None)
        .key
        .unwrap();
    let error = message(&with(&cert, &other_key, None));
    assert!(matches!(error, TlsError::KeyMismatch { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains(&other_key.display().to_string())
            && text.contains(&cert.display().to_string())
            && text.contains("does not match"),
        "{text}"
    );

    let garbage = files.write(
        "garbage.pem",
        "-----BEGIN CERTIFICATE-----\nnot base64 at all!\n",
    );
    let error = message(&with(&garbage, &key, None));
    assert!(
        matches!(
            error,
            TlsError::NotPem {
                key: "server.tls.cert",
                ..
            }
        ),
        "{error}"
    );

    let bad_key = files.write(
        "bad.key",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    );
    let error = message(&with(&cert, &bad_key, None));
    assert!(matches!(error, TlsError::BadKey { .. }), "{error}");

    // client_ca: a file without certificates, and a certificate that is no trust anchor.
    let error = message(&with(&cert, &key, Some(&key)));
    assert!(matches!(error, TlsError::BadClientCa { .. }), "{error}");
    assert!(
        error.to_string().starts_with(&format!(
            "server.tls.client_ca {}: no certificate",
            key.display()
        )),
        "{error}"
    );
    let not_der = files.write(
        "not-der.pem",
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    );
    let error = message(&with(&not_der, &key, None));
    assert!(matches!(error, TlsError::BadCertificate { .. }), "{error}");
    assert!(
        error.to_string().starts_with(&format!(
            "server.tls.cert {}: not a valid X.509 certificate",
            not_der.display()
        )),
        "{error}"
    );
    let error = message(&with(&cert, &key, Some(&not_der)));
    assert!(matches!(error, TlsError::BadClientCa { .. }), "{error}");

    let error = message(&TlsConfig {
        key: None,
        ..good.clone()
    });
    assert!(matches!(error, TlsError::Incomplete(_)), "{error}");
    assert_eq!(
        TlsConfig {
            cert: None,
            key: None,
            client_ca: Some(cert.clone())
        }
        .check()
        .unwrap_err()
        .to_string(),
        "server.tls.client_ca is set but server.tls.cert and server.tls.key are not"
    );
    assert!(TlsConfig::default().check().is_ok() && !TlsConfig::default().is_enabled());
}

#[test]
fn the_settings_read_from_toml_and_the_environment_with_empty_as_unset() {
    use figment::Figment;
    use figment::providers::{Format, Toml};
    let read = |text: &str| {
        Figment::from(Toml::string(text))
            .extract::<TlsConfig>()
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        read("cert = \"\"\nkey = \"\"\nclient_ca = \"\"").unwrap(),
        TlsConfig::default()
    );
    assert_eq!(read("").unwrap(), TlsConfig::default());
    let config = read("cert = \"/etc/bidscan/tls.crt\"\nkey = \"/etc/bidscan/tls.key\"").unwrap();
    assert_eq!(
        config.cert.as_deref(),
        Some(Path::new("/etc/bidscan/tls.crt"))
    );
    assert!(config.is_enabled() && !config.requires_client_cert());
    assert!(read("crt = \"x\"").is_err(), "an unknown key is refused");

    // `server.ops_listen` is read by the same helper: an address, or "" for none.
    #[derive(serde::Deserialize)]
    struct Server {
        #[serde(default, deserialize_with = "bidscan_server::tls::empty_as_none")]
        ops_listen: Option<SocketAddr>,
    }
    let ops = |text: &str| {
        Figment::from(Toml::string(text))
            .extract::<Server>()
            .map(|s| s.ops_listen)
            .map_err(|e| e.to_string())
    };
    assert_eq!(ops("ops_listen = \"\"").unwrap(), None);
    assert_eq!(ops("").unwrap(), None);
    assert_eq!(
        ops("ops_listen = \"0.0.0.0:8081\"").unwrap(),
        Some("0.0.0.0:8081".parse().unwrap())
    );
    assert!(ops("ops_listen = \"8081\"").is_err());
}

#[tokio::test]
async fn expiry_seconds_and_failures_are_metrics() {
    let ca = Ca::new("bidscan test CA");
    let files = Files::new();
    let leaf = ca.leaf(
        "server",
        ExtendedKeyUsagePurpose::ServerAuth,
        Some((2031, 1, 1)),
    );
    let not_after = rcgen::date_time_ymd(2031, 1, 1).unix_timestamp();
    let tls = Arc::new(Tls::load(&files.config("server", &leaf, None)).unwrap());
    let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    assert_eq!(tls.expiry_seconds(now), not_after - 1_800_000_000);
    assert_eq!(tls.current().not_after, not_after);
    let after = UNIX_EPOCH + Duration::from_secs(u64::try_from(not_after).unwrap() + 10);
    assert_eq!(tls.expiry_seconds(after), -10);

    let registry = prometheus::Registry::new();
    let metrics = TlsMetrics::register(&registry, tls.clone()).unwrap();
    metrics.failed(FailureReason::NoClientCert);
    metrics.failed(FailureReason::NoClientCert);
    metrics.failed(FailureReason::Timeout);
    let families = registry.gather();
    let family = |name: &str| {
        families
            .iter()
            .find(|f| f.name() == name)
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    let failures = family("bidscan_tls_handshake_failures_total");
    assert_eq!(
        failures.get_metric().len(),
        FailureReason::ALL.len(),
        "every reason a series"
    );
    let count = |label: &str| {
        failures
            .get_metric()
            .iter()
            .find(|m| m.get_label()[0].value() == label)
            .unwrap()
            .get_counter()
            .value()
    };
    assert_eq!(
        (count("no_client_cert"), count("timeout"), count("io")),
        (2.0, 1.0, 0.0)
    );
    let expiry = family("bidscan_tls_cert_expiry_seconds").get_metric()[0]
        .get_gauge()
        .value();
    let wall = not_after
        - i64::try_from(
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_secs(),
        )
        .unwrap();
    assert!(
        (expiry - wall as f64).abs() <= 5.0,
        "{expiry} against {wall}"
    );
}

/// A TLS server answering every request `200 OK` (after the handshake by `Tls::accept`).
async fn answer_ok(tls: Arc<Tls>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let tls = tls.clone();
            tokio::spawn(async move {
                let Ok(mut stream) = tls.accept(tcp, TIMEOUT).await else {
                    return;
                };
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .await;
                let _ = stream.shutdown().await;
            });
        }
    });
    addr
}

#[tokio::test]
async fn bidscan_health_speaks_tls_with_its_own_ca_and_client_certificate() {
    let ca = Ca::new("bidscan test CA");
    let clients = Ca::new("bidscan clients CA");
    let files = Files::new();
    let tls =
        Arc::new(Tls::load(&files.config("server", &ca.server("server"), Some(&clients))).unwrap());
    let addr = answer_ok(tls).await;
    let url = format!("https://localhost:{}/healthz", addr.port());
    let ca_file = files.write("ca.crt", &ca.issuer.pem());
    let other_ca = files.write("other-ca.crt", &Ca::new("another CA").issuer.pem());
    let client = clients.client("probe");
    let cert = files.write("probe.crt", &client.cert.pem());
    let key = files.write("probe.key", &client.key.serialize_pem());
    let path = |p: &PathBuf| p.display().to_string();
    let health = |args: Vec<String>| async move {
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_bidscan"))
                .arg("health")
                .args(args)
                .env_remove("RUST_LOG")
                .output()
                .unwrap()
        })
        .await
        .unwrap()
    };
    let args = |extra: &[&str]| {
        let mut all = vec!["--url".to_owned(), url.clone()];
        all.extend(extra.iter().map(|s| (*s).to_owned()));
        all
    };
    let ok = health(args(&[
        "--ca",
        &path(&ca_file),
        "--cert",
        &path(&cert),
        "--key",
        &path(&key),
    ]))
    .await;
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    // No client certificate: the server refuses the handshake.
    let refused = health(args(&["--ca", &path(&ca_file)])).await;
    assert_eq!(
        refused.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    // A CA that did not issue the server's certificate: the probe refuses the server.
    let untrusted = health(args(&[
        "--ca",
        &path(&other_ca),
        "--cert",
        &path(&cert),
        "--key",
        &path(&key),
    ]))
    .await;
    assert_eq!(untrusted.status.code(), Some(1));
    // Files that do not load are usage errors (exit 2), named.
    let missing = health(args(&["--ca", "/nonexistent/ca.crt"])).await;
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("--ca /nonexistent/ca.crt"));
    let swapped = health(args(&[
        "--ca",
        &path(&ca_file),
        "--cert",
        &path(&key),
        "--key",
        &path(&cert),
    ]))
    .await;
    assert_eq!(
        swapped.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&swapped.stderr)
    );
    // TLS options need an https:// URL.
    let plain = health(vec![
        "--url".into(),
        format!("http://{addr}/healthz"),
        "--ca".into(),
        path(&ca_file),
    ])
    .await;
    assert_eq!(plain.status.code(), Some(2));
}
