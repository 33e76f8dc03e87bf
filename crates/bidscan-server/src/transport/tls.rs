//! Serving TLS: the `[server.tls]` settings ([`TlsConfig`]), the rustls server configurations they make
//! ([`Certificates`]), a holder that a reload swaps ([`Tls`]), the handshake under a deadline with its failure
//! classified ([`Tls::accept`], [`HandshakeError`]) and the two TLS metrics ([`TlsMetrics`]).
//!
//! - **Protocol**: TLS 1.3 and TLS 1.2 (rustls speaks nothing older: a TLS 1.1 or 1.0 client gets a
//!   `handshake_failure` alert, as rustls requires the `signature_algorithms` extension those clients do not send,
//!   or `protocol_version` if it sends one; counted as `protocol` either way), ALPN `h2` and `http/1.1` (a client offering neither is refused; one offering no
//!   ALPN at all gets HTTP/1.1 or h2 by the connection preface), rustls' ring provider — the rates source's
//!   client uses the same one.
//! - **Client certificates**: with `client_ca`, the main listener requires a client certificate that chains to one
//!   of its certificates (RFC 5280 path validation by webpki, client-auth EKU; X.509 v3 only, so a v1 certificate
//!   is `bad_client_cert`); the handshake fails without one.
//!   The operational listener (`server.ops_listen`) is served the same certificate and never asks for one, so
//!   Kubernetes probes and Prometheus reach `/healthz`, `/readyz` and `/metrics` there.
//! - **Reload**: [`Tls::reload`] reads the files again and swaps the configurations whole; a connection keeps the
//!   configuration it was accepted with (its session, its certificate) until it closes; a failed reload keeps
//!   the old ones and returns why. Each load has its own session cache, so a session made under the old
//!   configuration is not resumed under the new one (a changed `client_ca` applies to every new connection).
//!
//! No file is read after [`Tls::load`] and [`Tls::reload`]; a handshake reads only memory.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arc_swap::ArcSwap;
use prometheus::core::{Collector, Desc};
use prometheus::proto::MetricFamily;
use prometheus::{IntCounter, IntCounterVec, Opts, Registry};
use rustls::RootCertStore;
use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use serde::{Deserialize, Deserializer, Serialize};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;

/// The ALPN protocols offered, in the server's order of preference (RFC 7301): `h2`, then `http/1.1`.
pub const ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// `[server.tls]`: PEM files. TLS is off unless `cert` and `key` are set; the default is off. An empty string
/// counts as unset, so `BIDSCAN__SERVER__TLS__CERT=` turns TLS off again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TlsConfig {
    /// `server.tls.cert`: the certificate chain, end-entity certificate first, PEM `CERTIFICATE` blocks.
    #[serde(deserialize_with = "empty_as_none")]
    pub cert: Option<PathBuf>,
    /// `server.tls.key`: the private key of the chain's first certificate, PEM (`PRIVATE KEY` — PKCS#8 —,
    /// `RSA PRIVATE KEY` or `EC PRIVATE KEY`); the first key block of the file is used.
    #[serde(deserialize_with = "empty_as_none")]
    pub key: Option<PathBuf>,
    /// `server.tls.client_ca`: CA certificates (PEM `CERTIFICATE` blocks); when set, a client must present a
    /// certificate issued under one of them to be served on the main listener.
    #[serde(deserialize_with = "empty_as_none")]
    pub client_ca: Option<PathBuf>,
}

impl TlsConfig {
    /// Whether TLS is on: `cert` is set (then [`check`](Self::check) requires `key`).
    pub fn is_enabled(&self) -> bool {
        self.cert.is_some()
    }

    /// Whether client certificates are required on the main listener.
    pub fn requires_client_cert(&self) -> bool {
        self.client_ca.is_some()
    }

    /// The settings' consistency, without reading a file: `cert` and `key` both set or both unset, and
    /// `client_ca` only with them.
    ///
    /// # Errors
    /// [`TlsError::Incomplete`] naming what is missing.
    pub fn check(&self) -> Result<(), TlsError> {
        match (&self.cert, &self.key, &self.client_ca) {
            (Some(_), None, _) => Err(TlsError::Incomplete(
                "server.tls.cert is set but server.tls.key is not",
            )),
            (None, Some(_), _) => Err(TlsError::Incomplete(
                "server.tls.key is set but server.tls.cert is not",
            )),
            (None, None, Some(_)) => Err(TlsError::Incomplete(
                "server.tls.client_ca is set but server.tls.cert and server.tls.key are not",
            )),
            _ => Ok(()),
        }
    }
}

/// Reads an optional value from a string, an empty string being `None` (TOML has no null, and the default
/// config file writes every key). For `server.tls.*` paths and `server.ops_listen`.
///
/// # Errors
/// The value's own parse error, as a serde custom error.
pub fn empty_as_none<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: std::str::FromStr,
    T::Err: fmt::Display,
{
    let text = Option::<String>::deserialize(deserializer)?;
    match text.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => text.parse().map(Some).map_err(serde::de::Error::custom),
    }
}

/// Why the TLS settings cannot be served. Each message names the key, the file and what is wrong with it;
/// `bidscan serve` exits with status 2 on one at start, and a reload that meets one keeps the running
/// certificates.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// The keys are not set together (see [`TlsConfig::check`]).
    #[error("{0}")]
    Incomplete(&'static str),
    /// A file cannot be read.
    #[error("{key} {}: cannot be read: {source}", path.display())]
    Unreadable {
        /// The key naming the file (`server.tls.cert`, …).
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// The read's error.
        source: io::Error,
    },
    /// A file is not valid PEM (a block without its end line, bad base64).
    #[error("{key} {}: not valid PEM: {detail}", path.display())]
    NotPem {
        /// The key naming the file.
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// The PEM parser's message.
        detail: String,
    },
    /// `server.tls.cert` holds no `CERTIFICATE` block.
    #[error("server.tls.cert {}: no certificate in it (expected PEM CERTIFICATE blocks)", path.display())]
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// `server.tls.cert`'s first certificate is not an X.509 certificate.
    #[error("server.tls.cert {}: not a valid X.509 certificate: {detail}", path.display())]
    BadCertificate {
        /// The file.
        path: PathBuf,
        /// What the parser found.
        detail: String,
    },
    /// `server.tls.cert`'s first certificate is outside its validity period now (RFC 5280 §4.1.2.5): expired, or
    /// not yet valid. Serving it would fail every client that checks dates, so it is refused.
    #[error("server.tls.cert {}: {detail}", path.display())]
    OutsideValidity {
        /// The file.
        path: PathBuf,
        /// Which bound is passed, with the date.
        detail: String,
    },
    /// `server.tls.key` holds no private key block.
    #[error(
        "server.tls.key {}: no private key in it (expected a PEM PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block)",
        path.display()
    )]
    NoKey {
        /// The file.
        path: PathBuf,
    },
    /// `server.tls.key` holds a key rustls cannot sign with (an unsupported algorithm or curve, a corrupt key).
    #[error("server.tls.key {}: not a usable private key: {detail}", path.display())]
    BadKey {
        /// The file.
        path: PathBuf,
        /// rustls' message.
        detail: String,
    },
    /// The key is not the private key of the certificate's public key.
    #[error(
        "server.tls.key {} does not match the certificate in server.tls.cert {}",
        key.display(),
        cert.display()
    )]
    KeyMismatch {
        /// The certificate file.
        cert: PathBuf,
        /// The key file.
        key: PathBuf,
    },
    /// rustls refuses the configuration (TLS 1.2 or 1.3 missing from its provider: a build without them).
    #[error("server.tls: the TLS library refuses the configuration: {0}")]
    Provider(String),
    /// `server.tls.client_ca` holds no CA certificate webpki accepts as a trust anchor.
    #[error("server.tls.client_ca {}: {detail}", path.display())]
    BadClientCa {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
}

/// One load of the TLS files: the two server configurations and the certificate's expiry.
#[derive(Debug)]
pub struct Certificates {
    /// For `server.listen`: the certificate, ALPN [`ALPN`], TLS 1.2 and 1.3, client certificates required and
    /// verified when `client_ca` is set.
    pub main: Arc<ServerConfig>,
    /// For `server.ops_listen`: the same certificate, never asking for a client certificate.
    pub ops: Arc<ServerConfig>,
    /// The end-entity certificate's `notAfter`, in Unix seconds.
    pub not_after: i64,
}

impl Certificates {
    /// Reads and checks the files of `config` and builds the server configurations.
    ///
    /// # Errors
    /// A [`TlsError`] naming the first problem met: the settings incomplete, a file unreadable or not PEM, no
    /// certificate, a certificate that does not parse, no key, a key rustls cannot use, a key that does not match
    /// the certificate, a `client_ca` without a usable CA certificate.
    pub fn load(config: &TlsConfig) -> Result<Self, TlsError> {
        config.check()?;
        let (Some(cert_path), Some(key_path)) = (&config.cert, &config.key) else {
            return Err(TlsError::Incomplete(
                "server.tls.cert and server.tls.key are not set",
            ));
        };
        let provider = provider();
        let chain = read_certs("server.tls.cert", cert_path)?;
        let Some(first) = chain.first() else {
            return Err(TlsError::NoCertificate {
                path: cert_path.clone(),
            });
        };
        let (not_before, not_after) =
            validity(first).map_err(|detail| TlsError::BadCertificate {
                path: cert_path.clone(),
                detail,
            })?;
        let now = unix_seconds(SystemTime::now());
        let outside = if now > not_after {
            Some(format!(
                "the certificate expired at {} (notAfter)",
                date(not_after)
            ))
        } else if now < not_before {
            Some(format!(
                "the certificate is not valid before {} (notBefore)",
                date(not_before)
            ))
        } else {
            None
        };
        if let Some(detail) = outside {
            return Err(TlsError::OutsideValidity {
                path: cert_path.clone(),
                detail,
            });
        }
        let key = read_key(key_path)?;
        let signing_key =
            provider
                .key_provider
                .load_private_key(key)
                .map_err(|e| TlsError::BadKey {
                    path: key_path.clone(),
                    detail: e.to_string(),
                })?;
        let certified = rustls::sign::CertifiedKey::new(chain, signing_key);
        match certified.keys_match() {
            Ok(()) | Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::Unknown)) => {}
            Err(rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch)) => {
                return Err(TlsError::KeyMismatch {
                    cert: cert_path.clone(),
                    key: key_path.clone(),
                });
            }
            Err(e) => {
                return Err(TlsError::BadCertificate {
                    path: cert_path.clone(),
                    detail: e.to_string(),
                });
            }
        }
        let certified = Arc::new(certified);
        let verifier = match &config.client_ca {
            None => WebPkiClientVerifier::no_client_auth(),
            Some(ca_path) => client_verifier(ca_path, &provider)?,
        };
        let main = server_config(&provider, verifier, &certified)?;
        let ops = server_config(
            &provider,
            WebPkiClientVerifier::no_client_auth(),
            &certified,
        )?;
        Ok(Self {
            main,
            ops,
            not_after,
        })
    }
}

/// The crypto provider: rustls' ring.
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A server configuration serving `certified`, TLS 1.3 and 1.2, ALPN [`ALPN`].
fn server_config(
    provider: &Arc<CryptoProvider>,
    verifier: Arc<dyn rustls::server::danger::ClientCertVerifier>,
    certified: &Arc<rustls::sign::CertifiedKey>,
) -> Result<Arc<ServerConfig>, TlsError> {
    let mut config = ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| TlsError::Provider(e.to_string()))?
        .with_client_cert_verifier(verifier)
        .with_cert_resolver(Arc::new(Single(certified.clone())));
    config.alpn_protocols = ALPN.iter().map(|p| p.to_vec()).collect();
    Ok(Arc::new(config))
}

/// Serves one certificate whatever the client asks for (SNI included).
#[derive(Debug)]
struct Single(Arc<rustls::sign::CertifiedKey>);

impl rustls::server::ResolvesServerCert for Single {
    fn resolve(
        &self,
        _hello: rustls::server::ClientHello<'_>,
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// The verifier of client certificates issued under the CAs of `path`.
fn client_verifier(
    path: &Path,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<dyn rustls::server::danger::ClientCertVerifier>, TlsError> {
    let bad = |detail: String| TlsError::BadClientCa {
        path: path.to_path_buf(),
        detail,
    };
    let certs = read_certs("server.tls.client_ca", path)?;
    if certs.is_empty() {
        return Err(bad(
            "no certificate in it (expected PEM CERTIFICATE blocks)".into(),
        ));
    }
    let mut roots = RootCertStore::empty();
    for (i, cert) in certs.into_iter().enumerate() {
        roots
            .add(cert)
            .map_err(|e| bad(format!("certificate {} is not a usable CA: {e}", i + 1)))?;
    }
    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| bad(e.to_string()))
}

/// Reads a file for `key`.
fn read(key: &'static str, path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Unreadable {
        key,
        path: path.to_path_buf(),
        source,
    })
}

/// The `CERTIFICATE` blocks of the file (other blocks skipped).
fn read_certs(key: &'static str, path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let pem = read(key, path)?;
    CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::NotPem {
            key,
            path: path.to_path_buf(),
            detail: e.to_string(),
        })
}

/// The first private key block of `server.tls.key`.
fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    let pem = read("server.tls.key", path)?;
    match PrivateKeyDer::from_pem_slice(&pem) {
        Ok(key) => Ok(key),
        Err(rustls::pki_types::pem::Error::NoItemsFound) => Err(TlsError::NoKey {
            path: path.to_path_buf(),
        }),
        Err(e) => Err(TlsError::NotPem {
            key: "server.tls.key",
            path: path.to_path_buf(),
            detail: e.to_string(),
        }),
    }
}

/// A certificate's `notBefore` and `notAfter` in Unix seconds (RFC 5280 §4.1.2.5).
fn validity(cert: &CertificateDer<'_>) -> Result<(i64, i64), String> {
    let (_, parsed) = x509_parser::parse_x509_certificate(cert).map_err(|e| e.to_string())?;
    let validity = parsed.validity();
    Ok((
        validity.not_before.timestamp(),
        validity.not_after.timestamp(),
    ))
}

/// `at` (Unix seconds) as a date, for messages.
fn date(at: i64) -> String {
    x509_parser::time::ASN1Time::from_timestamp(at)
        .map_or_else(|_| format!("{at} (Unix seconds)"), |t| t.to_string())
}

/// `now` in Unix seconds (negative before 1970).
fn unix_seconds(now: SystemTime) -> i64 {
    match now.duration_since(UNIX_EPOCH) {
        Ok(since) => i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
        Err(before) => i64::try_from(before.duration().as_secs()).map_or(i64::MIN, |s| -s),
    }
}

/// The running TLS configuration: [`Certificates`] behind an [`ArcSwap`], read with one atomic load per
/// accepted connection and swapped whole by [`reload`](Self::reload).
#[derive(Debug)]
pub struct Tls {
    current: ArcSwap<Certificates>,
}

impl Tls {
    /// Loads `config`'s files ([`Certificates::load`]).
    ///
    /// # Errors
    /// The [`TlsError`] of the load.
    pub fn load(config: &TlsConfig) -> Result<Self, TlsError> {
        Ok(Self {
            current: ArcSwap::from_pointee(Certificates::load(config)?),
        })
    }

    /// Reads `config`'s files again and, when they load, serves them to every connection accepted from now on.
    /// Connections already accepted keep the configuration (and session) they have.
    ///
    /// # Errors
    /// The [`TlsError`] of the load; the running certificates are then kept.
    pub fn reload(&self, config: &TlsConfig) -> Result<(), TlsError> {
        let next = Certificates::load(config)?;
        self.current.store(Arc::new(next));
        Ok(())
    }

    /// The certificates served now.
    pub fn current(&self) -> Arc<Certificates> {
        self.current.load_full()
    }

    /// Seconds from `now` until the served certificate's `notAfter`; negative once it has expired.
    pub fn expiry_seconds(&self, now: SystemTime) -> i64 {
        self.current
            .load()
            .not_after
            .saturating_sub(unix_seconds(now))
    }

    /// The TLS handshake of a connection accepted on the main listener, within `timeout` (the caller passes what
    /// is left of `server.header_read_timeout_secs`, which counts from the accept).
    ///
    /// # Errors
    /// A [`HandshakeError`] with its [`FailureReason`]; the connection is then dropped by the caller.
    pub async fn accept<IO>(
        &self,
        io: IO,
        timeout: Duration,
    ) -> Result<TlsStream<IO>, HandshakeError>
    where
        IO: AsyncRead + AsyncWrite + Unpin,
    {
        let config = self.current.load().main.clone();
        handshake(TlsAcceptor::from(config), io, timeout).await
    }

    /// As [`accept`](Self::accept), for the operational listener: no client certificate asked for.
    ///
    /// # Errors
    /// As [`accept`](Self::accept).
    pub async fn accept_ops<IO>(
        &self,
        io: IO,
        timeout: Duration,
    ) -> Result<TlsStream<IO>, HandshakeError>
    where
        IO: AsyncRead + AsyncWrite + Unpin,
    {
        let config = self.current.load().ops.clone();
        handshake(TlsAcceptor::from(config), io, timeout).await
    }
}

/// `acceptor`'s handshake on `io`, failed as [`FailureReason::Timeout`] past `timeout`.
async fn handshake<IO>(
    acceptor: TlsAcceptor,
    io: IO,
    timeout: Duration,
) -> Result<TlsStream<IO>, HandshakeError>
where
    IO: AsyncRead + AsyncWrite + Unpin,
{
    match tokio::time::timeout(timeout, acceptor.accept(io)).await {
        Ok(Ok(stream)) => Ok(stream),
        Ok(Err(error)) => Err(HandshakeError {
            reason: FailureReason::of(&error),
            error: Some(error),
        }),
        Err(_) => Err(HandshakeError {
            reason: FailureReason::Timeout,
            error: None,
        }),
    }
}

/// Why a handshake failed: the `reason` label of `bidscan_tls_handshake_failures_total`, a fixed set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailureReason {
    /// Not done within the time left of `server.header_read_timeout_secs`.
    Timeout,
    /// The client closed or reset the connection during the handshake (also a TCP health check).
    Closed,
    /// The first bytes are not a TLS record (cleartext HTTP sent to the TLS port).
    NotTls,
    /// No client certificate where `server.tls.client_ca` requires one.
    NoClientCert,
    /// A client certificate that does not verify: another CA, expired, not for client authentication.
    BadClientCert,
    /// The client sent an alert: it refused the server's certificate, most often.
    ClientAlert,
    /// Anything else TLS refuses: an old version (TLS 1.1 and older), no common cipher suite or ALPN protocol,
    /// a malformed or unexpected message.
    Protocol,
    /// Another I/O error of the socket.
    Io,
}

impl FailureReason {
    /// Every reason, in the order of their labels' series.
    pub const ALL: [Self; 8] = [
        Self::Timeout,
        Self::Closed,
        Self::NotTls,
        Self::NoClientCert,
        Self::BadClientCert,
        Self::ClientAlert,
        Self::Protocol,
        Self::Io,
    ];

    /// The metric label: `timeout`, `closed`, `not_tls`, `no_client_cert`, `bad_client_cert`, `client_alert`,
    /// `protocol` or `io`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Timeout => "timeout",
            Self::Closed => "closed",
            Self::NotTls => "not_tls",
            Self::NoClientCert => "no_client_cert",
            Self::BadClientCert => "bad_client_cert",
            Self::ClientAlert => "client_alert",
            Self::Protocol => "protocol",
            Self::Io => "io",
        }
    }

    /// The reason of a handshake's error: tokio-rustls carries rustls' error inside the `io::Error`.
    fn of(error: &io::Error) -> Self {
        if let Some(tls) = error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        {
            return match tls {
                rustls::Error::NoCertificatesPresented => Self::NoClientCert,
                rustls::Error::InvalidCertificate(_) => Self::BadClientCert,
                rustls::Error::AlertReceived(_) => Self::ClientAlert,
                rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType) => {
                    Self::NotTls
                }
                _ => Self::Protocol,
            };
        }
        match error.kind() {
            io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe => Self::Closed,
            _ => Self::Io,
        }
    }
}

/// A failed handshake: its reason and, unless it timed out, the error met.
#[derive(Debug)]
pub struct HandshakeError {
    /// The reason, for the metric.
    pub reason: FailureReason,
    /// The error (none for a timeout), for the logs.
    pub error: Option<io::Error>,
}

impl fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.error {
            Some(error) => write!(f, "TLS handshake failed ({}): {error}", self.reason.label()),
            None => write!(f, "TLS handshake failed ({})", self.reason.label()),
        }
    }
}

impl std::error::Error for HandshakeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// The TLS metrics, registered on a server's registry: `bidscan_tls_handshake_failures_total{reason}` (every
/// [`FailureReason`] a series from the first scrape) and `bidscan_tls_cert_expiry_seconds`, the seconds until
/// the served certificate's `notAfter`, computed at each scrape.
pub struct TlsMetrics {
    failures: [IntCounter; FailureReason::ALL.len()],
}

impl TlsMetrics {
    /// Registers both metrics on `registry`, the expiry read from `tls` at each scrape.
    ///
    /// # Errors
    /// Prometheus' error when a metric of the same name is already registered.
    pub fn register(registry: &Registry, tls: Arc<Tls>) -> prometheus::Result<Self> {
        let vec = IntCounterVec::new(
            Opts::new(
                "bidscan_tls_handshake_failures_total",
                "TLS handshakes that failed, by reason",
            ),
            &["reason"],
        )?;
        registry.register(Box::new(vec.clone()))?;
        registry.register(Box::new(Expiry::new(tls)?))?;
        Ok(Self {
            failures: FailureReason::ALL.map(|r| vec.with_label_values(&[r.label()])),
        })
    }

    /// Counts one failed handshake.
    pub fn failed(&self, reason: FailureReason) {
        if let Some(i) = FailureReason::ALL.iter().position(|r| *r == reason) {
            self.failures[i].inc();
        }
    }
}

/// `bidscan_tls_cert_expiry_seconds`, a gauge computed when scraped.
struct Expiry {
    tls: Arc<Tls>,
    desc: Desc,
}

impl Expiry {
    const NAME: &'static str = "bidscan_tls_cert_expiry_seconds";
    const HELP: &'static str =
        "Seconds until the served TLS certificate's notAfter (negative once expired)";

    fn new(tls: Arc<Tls>) -> prometheus::Result<Self> {
        let desc = Desc::new(
            Self::NAME.into(),
            Self::HELP.into(),
            vec![],
            Default::default(),
        )?;
        Ok(Self { tls, desc })
    }
}

impl Collector for Expiry {
    fn desc(&self) -> Vec<&Desc> {
        vec![&self.desc]
    }

    fn collect(&self) -> Vec<MetricFamily> {
        let gauge = match prometheus::Gauge::new(Self::NAME, Self::HELP) {
            Ok(gauge) => gauge,
            Err(_) => return Vec::new(),
        };
        gauge.set(self.tls.expiry_seconds(SystemTime::now()) as f64);
        gauge.collect()
    }
}
