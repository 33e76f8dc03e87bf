//! `bidscan health [--url URL] [--ca FILE] [--cert FILE --key FILE]`: a health probe for images without a shell
//! or curl (distroless).
//!
//! One HTTP/1.1 `GET`, `Connection: close`, over a plain TCP connection or, for `https://`, over TLS (rustls with
//! ring, ALPN `http/1.1`; the server's certificate verified against `--ca` or the system's CA certificates; a
//! client certificate presented with `--cert` and `--key`); only the status line is read. Exit 0 on a 2xx
//! status, 1 on anything else (other status, refused connection, failed handshake, timeout, garbage), 2 for a
//! URL that is not `http(s)://host[:port][/path]` or TLS files that do not load.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use axum::http::Uri;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use super::args::{EXIT_USAGE, HealthArgs};

/// The probe's URL when none is given: `/healthz` at the configured `server.ops_listen`, else `server.listen`
/// (the compiled-in default and the `BIDSCAN__` environment, as `serve` reads them without `--config`), over
/// loopback when the server listens on every address; `https://` when `[server.tls]` is on, then to `localhost`
/// for loopback (the name a certificate is likelier to hold than an address). A configuration that does not load
/// is an error, as for `serve` (probing the default port instead could pass on another server's answer).
fn default_url() -> Result<String, String> {
    let server = crate::config::Config::load(None)
        .map(|c| c.server)
        .map_err(|e| format!("the configuration (for the port to probe; or give --url): {e}"))?;
    let listen = server.ops_listen.unwrap_or(server.listen);
    let tls = server.tls.is_enabled();
    let ip = match listen.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    Ok(if tls && ip.is_loopback() {
        format!("https://localhost:{}/healthz", listen.port())
    } else {
        let scheme = if tls { "https" } else { "http" };
        format!("{scheme}://{}/healthz", SocketAddr::new(ip, listen.port()))
    })
}

/// Runs `bidscan health`.
pub fn run(args: &HealthArgs) -> ExitCode {
    let url = match args.url.clone().map_or_else(default_url, Ok) {
        Ok(url) => url,
        Err(e) => {
            eprintln!("bidscan: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let target = match Target::parse(&url) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("bidscan: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let tls = match (target.tls, &args.ca, &args.cert) {
        (false, None, None) => None,
        (false, _, _) => {
            eprintln!("bidscan: --ca, --cert and --key need an https:// URL");
            return ExitCode::from(EXIT_USAGE);
        }
        (true, ca, cert) => {
            let identity = cert.as_deref().zip(args.key.as_deref());
            match client_config(ca.as_deref(), identity) {
                Ok(config) => Some(config),
                Err(e) => {
                    eprintln!("bidscan: {e}");
                    return ExitCode::from(EXIT_USAGE);
                }
            }
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bidscan: {e}");
            return ExitCode::FAILURE;
        }
    };
    let timeout = Duration::from_secs(args.timeout_secs);
    // The timer must be created inside the runtime.
    match runtime.block_on(async { tokio::time::timeout(timeout, probe(&target, tls)).await }) {
        Ok(Ok(status)) if (200..300).contains(&status) => {
            println!("{url} {status}");
            ExitCode::SUCCESS
        }
        Ok(Ok(status)) => {
            eprintln!("bidscan: {url} answered {status}");
            ExitCode::FAILURE
        }
        Ok(Err(e)) => {
            eprintln!("bidscan: {url}: {e}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!("bidscan: {url}: no answer within {}s", args.timeout_secs);
            ExitCode::FAILURE
        }
    }
}

/// Where to connect and what to ask for.
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    /// `host:port` to connect to.
    pub authority: String,
    /// Host header value.
    pub host: String,
    /// Path and query.
    pub path: String,
    /// Whether the URL is `https://`.
    pub tls: bool,
}

impl Target {
    /// Parses `http://host[:port][/path]` (port 80 by default) or `https://…` (port 443 by default).
    ///
    /// # Errors
    /// A URL that does not parse, is neither `http` nor `https`, or has no host.
    pub fn parse(url: &str) -> Result<Target, String> {
        let uri: Uri = url.parse().map_err(|e| format!("bad URL {url:?}: {e}"))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => {
                return Err(format!(
                    "bad URL {url:?}: only http:// and https:// are supported"
                ));
            }
        };
        let host = uri
            .host()
            .ok_or_else(|| format!("bad URL {url:?}: no host"))?;
        // `http::Uri` keeps an authority whose port is past 65535 (or is port 0) but gives no port for it.
        let after_host = uri.authority().map_or("", |a| {
            a.as_str()
                .rsplit_once(']')
                .map_or(a.as_str(), |(_, rest)| rest)
        });
        let port = match uri.port_u16() {
            Some(0) => return Err(format!("bad URL {url:?}: the port is not 1-65535")),
            Some(port) => port,
            None if after_host.contains(':') => {
                return Err(format!("bad URL {url:?}: the port is not 1-65535"));
            }
            None if tls => 443,
            None => 80,
        };
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        Ok(Target {
            authority: format!("{host}:{port}"),
            host: uri.authority().map_or(host, |a| a.as_str()).to_owned(),
            path: if path.is_empty() {
                "/".to_owned()
            } else {
                path.to_owned()
            },
            tls,
        })
    }
}

/// The TLS client of an `https://` probe: the server verified against the CA certificates of `ca` (default:
/// the system's), `identity` (certificate chain and key files) presented when given.
///
/// # Errors
/// A file that cannot be read or holds no certificate or key, a CA certificate that is not usable, a key that
/// does not match its certificate; each message names the option and the file.
pub fn client_config(
    ca: Option<&Path>,
    identity: Option<(&Path, &Path)>,
) -> Result<Arc<rustls::ClientConfig>, String> {
    let certs = |option: &str, path: &Path| -> Result<Vec<CertificateDer<'static>>, String> {
        let pem = std::fs::read(path).map_err(|e| format!("{option} {}: {e}", path.display()))?;
        let certs = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{option} {}: not valid PEM: {e}", path.display()))?;
        if certs.is_empty() {
            return Err(format!("{option} {}: no certificate in it", path.display()));
        }
        Ok(certs)
    };
    let mut roots = rustls::RootCertStore::empty();
    match ca {
        Some(path) => {
            for cert in certs("--ca", path)? {
                roots
                    .add(cert)
                    .map_err(|e| format!("--ca {}: {e}", path.display()))?;
            }
        }
        None => {
            roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots);
    let mut config = match identity {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => {
            let chain = certs("--cert", cert)?;
            let pem = std::fs::read(key).map_err(|e| format!("--key {}: {e}", key.display()))?;
            let key_der = PrivateKeyDer::from_pem_slice(&pem)
                .map_err(|e| format!("--key {}: no usable private key: {e}", key.display()))?;
            builder.with_client_auth_cert(chain, key_der).map_err(|e| {
                format!("--cert {} and --key {}: {e}", cert.display(), key.display())
            })?
        }
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Sends the request (over TLS with `tls`) and returns the status code of the answer.
async fn probe(target: &Target, tls: Option<Arc<rustls::ClientConfig>>) -> std::io::Result<u16> {
    let tcp = TcpStream::connect(&target.authority).await?;
    match tls {
        None => exchange(tcp, target).await,
        Some(config) => {
            let host = target
                .host
                .rsplit_once(':')
                .map_or(target.host.as_str(), |(h, p)| {
                    if p.chars().all(|c| c.is_ascii_digit()) {
                        h
                    } else {
                        target.host.as_str()
                    }
                });
            let name = ServerName::try_from(
                host.trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_owned(),
            )
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
            let stream = tokio_rustls::TlsConnector::from(config)
                .connect(name, tcp)
                .await?;
            exchange(stream, target).await
        }
    }
}

/// One `GET` on `stream`; the status code of its answer.
async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    target: &Target,
) -> std::io::Result<u16> {
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: bidscan-health\r\nConnection: close\r\n\r\n",
        target.path, target.host
    );
    stream.write_all(request.as_bytes()).await?;
    stream.flush().await?;
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).await?;
    parse_status(&line).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not an HTTP status line: {:?}", line.trim_end()),
        )
    })
}

/// The status code of an HTTP/1.x status line.
fn parse_status(line: &str) -> Option<u16> {
    let mut parts = line.split_ascii_whitespace();
    parts.next().filter(|v| v.starts_with("HTTP/1."))?;
    parts.next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_urls() {
        let t = Target::parse("http://127.0.0.1:8080/healthz").unwrap();
        assert_eq!(t.authority, "127.0.0.1:8080");
        assert_eq!(t.path, "/healthz");
        assert_eq!(
            Target::parse("http://example").unwrap().authority,
            "example:80"
        );
        let t = Target::parse("https://x/healthz").unwrap();
        assert_eq!((t.authority.as_str(), t.tls), ("x:443", true));
        assert!(Target::parse("ftp://x/healthz").is_err());
        for bad in [
            "http://127.0.0.1:99999/healthz",
            "http://127.0.0.1:0/",
            "http://[::1]:70000/",
        ] {
            let e = Target::parse(bad).unwrap_err();
            assert!(e.contains("port is not 1-65535"), "{bad}: {e}");
        }
        assert_eq!(
            Target::parse("http://[::1]/").unwrap().authority,
            "[::1]:80"
        );
        assert!(Target::parse("not a url").is_err());
    }

    #[test]
    fn parses_status_lines() {
        assert_eq!(parse_status("HTTP/1.1 200 OK\r\n"), Some(200));
        assert_eq!(
            parse_status("HTTP/1.0 503 Service Unavailable\r\n"),
            Some(503)
        );
        assert_eq!(parse_status("SSH-2.0-OpenSSH\r\n"), None);
    }
}
