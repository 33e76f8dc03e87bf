//! Reading a rates source once ([`Fetcher::fetch`]): a file, or a GET of an `http://` / `https://` URL (hyper's
//! client; rustls with ring and the system's CA certificates for HTTPS; redirects are not followed), bounded by
//! `validate.rates_timeout_secs` for the whole read and `validate.rates_max_bytes` for the body, then parsed as
//! Prebid Server's currency file:
//!
//! ```json
//! {"dataAsOf": "2018-09-12", "generatedAt": "2018-09-12T12:00:00Z",
//!  "conversions": {"USD": {"EUR": 0.87, "GBP": 0.77}, "EUR": {"USD": 1.15}}}
//! ```
//!
//! `conversions` is required and not empty (1 `FROM` = rate `TO`, as `[validate.rates]`); its codes are
//! upper-cased and checked as the configured rates are (`Rates::check`). `dataAsOf` is a date (`YYYY-MM-DD`) or
//! an RFC 3339 date-time; other members are ignored. Every failure has a [`FetchError::label`], the `result`
//! of `bidscan_rates_fetches_total`.

use std::time::Duration;

use bidscan_openrtb::rules::Rates;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::header;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::{Connect, HttpConnector};
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use tokio::io::AsyncReadExt;

use super::config::{SourceConfig, SourceLocation};

/// Every `result` label of `bidscan_rates_fetches_total`.
pub const RESULTS: [&str; 6] = ["ok", "http_error", "timeout", "too_large", "invalid", "io"];

/// Why a fetch failed.
#[derive(Debug, PartialEq, Eq)]
pub enum FetchError {
    /// The server answered with a status other than 2xx (a redirect included).
    Http(u16),
    /// The whole fetch took longer than `validate.rates_timeout_secs`.
    Timeout,
    /// The body is longer than `validate.rates_max_bytes`.
    TooLarge(usize),
    /// Not a currency file: not JSON, no `conversions`, a code or rate `Rates::check` refuses, a bad `dataAsOf`.
    Invalid(String),
    /// The file could not be read, the connection or TLS failed.
    Io(String),
}

impl FetchError {
    /// The `result` label of `bidscan_rates_fetches_total` (one of [`RESULTS`]).
    pub fn label(&self) -> &'static str {
        match self {
            FetchError::Http(_) => "http_error",
            FetchError::Timeout => "timeout",
            FetchError::TooLarge(_) => "too_large",
            FetchError::Invalid(_) => "invalid",
            FetchError::Io(_) => "io",
        }
    }
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Http(status) => write!(f, "HTTP status {status}"),
            FetchError::Timeout => f.write_str("timed out"),
            FetchError::TooLarge(max) => write!(f, "larger than {max} bytes"),
            FetchError::Invalid(why) => write!(f, "not a currency file: {why}"),
            FetchError::Io(why) => f.write_str(why),
        }
    }
}

/// A currency file, read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct CurrencyFile {
    /// `conversions`, codes upper-cased.
    pub rates: Rates,
    /// `dataAsOf` as Unix seconds (a date is its midnight UTC), when given.
    pub data_as_of: Option<i64>,
}

/// How a source is read: a file, or a URL over its client.
#[derive(Clone)]
enum Transport {
    File(std::path::PathBuf),
    Http(Client<HttpConnector, Empty<Bytes>>, hyper::Uri),
    Https(
        Client<hyper_rustls::HttpsConnector<HttpConnector>, Empty<Bytes>>,
        hyper::Uri,
    ),
    /// HTTPS without CA certificates (none found on the system): every fetch fails with this reason.
    NoRoots(String),
}

/// Reads one source with one set of limits; made once per source setting, reused for every fetch.
#[derive(Clone)]
pub struct Fetcher {
    location: SourceLocation,
    transport: Transport,
    timeout: Duration,
    max_bytes: usize,
}

impl Fetcher {
    /// A fetcher of `location` under `config`'s timeout and size limit.
    pub fn new(location: SourceLocation, config: &SourceConfig) -> Fetcher {
        let transport = match &location {
            SourceLocation::File(path) => Transport::File(path.clone()),
            SourceLocation::Url(uri) if uri.scheme_str() == Some("https") => {
                match hyper_rustls::HttpsConnectorBuilder::new().with_native_roots() {
                    Ok(builder) => Transport::Https(
                        Client::builder(TokioExecutor::new())
                            .build(builder.https_only().enable_http1().build()),
                        uri.clone(),
                    ),
                    Err(e) => Transport::NoRoots(format!("no CA certificates: {e}")),
                }
            }
            SourceLocation::Url(uri) => Transport::Http(
                Client::builder(TokioExecutor::new()).build_http(),
                uri.clone(),
            ),
        };
        Fetcher {
            location,
            transport,
            timeout: config.timeout(),
            max_bytes: config.rates_max_bytes,
        }
    }

    /// Where this fetcher reads.
    pub fn location(&self) -> &SourceLocation {
        &self.location
    }

    /// Reads and parses the source once, within the timeout and the size limit.
    ///
    /// # Errors
    /// See [`FetchError`].
    pub async fn fetch(&self) -> Result<CurrencyFile, FetchError> {
        let body = tokio::time::timeout(self.timeout, self.read())
            .await
            .map_err(|_| FetchError::Timeout)??;
        parse(&body)
    }

    async fn read(&self) -> Result<Vec<u8>, FetchError> {
        match &self.transport {
            Transport::File(path) => read_file(path, self.max_bytes).await,
            Transport::Http(client, uri) => get(client, uri.clone(), self.max_bytes).await,
            Transport::Https(client, uri) => get(client, uri.clone(), self.max_bytes).await,
            Transport::NoRoots(why) => Err(FetchError::Io(why.clone())),
        }
    }
}

async fn read_file(path: &std::path::Path, max: usize) -> Result<Vec<u8>, FetchError> {
    let io = |e: std::io::Error| FetchError::Io(format!("{}: {e}", path.display()));
    // Only a regular file: opening a FIFO (or a device) blocks a thread of the runtime's blocking pool until a
    // writer comes, past the read's timeout, and holds the process at exit.
    let meta = tokio::fs::metadata(path).await.map_err(io)?;
    if !meta.is_file() {
        return Err(FetchError::Io(format!(
            "{}: not a regular file",
            path.display()
        )));
    }
    let file = tokio::fs::File::open(path).await.map_err(io)?;
    let mut body = Vec::new();
    file.take(max as u64 + 1)
        .read_to_end(&mut body)
        .await
        .map_err(io)?;
    if body.len() > max {
        return Err(FetchError::TooLarge(max));
    }
    Ok(body)
}

async fn get<C>(
    client: &Client<C, Empty<Bytes>>,
    uri: hyper::Uri,
    max: usize,
) -> Result<Vec<u8>, FetchError>
where
    C: Connect + Clone + Send + Sync + 'static,
{
    let request = hyper::Request::get(uri)
        .header(header::ACCEPT, "application/json")
        .header(
            header::USER_AGENT,
            concat!("bidscan/", env!("CARGO_PKG_VERSION")),
        )
        .body(Empty::new())
        .map_err(|e| FetchError::Io(e.to_string()))?;
    let response = client.request(request).await.map_err(|e| {
        // The source of a connect error says what failed (refused, TLS, DNS).
        let cause = std::error::Error::source(&e).map_or_else(String::new, |s| format!(": {s}"));
        FetchError::Io(format!("{e}{cause}"))
    })?;
    if !response.status().is_success() {
        return Err(FetchError::Http(response.status().as_u16()));
    }
    let declared = response
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(FetchError::TooLarge(max));
    }
    let mut body = response.into_body();
    let mut out = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| FetchError::Io(e.to_string()))?;
        if let Ok(data) = frame.into_data() {
            if out.len() + data.len() > max {
                return Err(FetchError::TooLarge(max));
            }
            out.extend_from_slice(&data);
        }
    }
    Ok(out)
}

/// The members of a currency file that are read.
#[derive(Deserialize)]
struct Raw {
    #[serde(rename = "dataAsOf")]
    data_as_of: Option<String>,
    conversions: Option<Rates>,
}

/// `body` as a currency file (see the module docs).
///
/// # Errors
/// [`FetchError::Invalid`] saying why.
pub fn parse(body: &[u8]) -> Result<CurrencyFile, FetchError> {
    let raw: Raw = serde_json::from_slice(body).map_err(|e| FetchError::Invalid(e.to_string()))?;
    let rates = raw
        .conversions
        .ok_or_else(|| FetchError::Invalid("no conversions".into()))?
        .with_upper_case_codes();
    if rates.is_empty() {
        return Err(FetchError::Invalid("conversions holds no rate".into()));
    }
    rates
        .check()
        .map_err(|e| FetchError::Invalid(e.replacen("validate.rates", "conversions", 1)))?;
    let data_as_of = match raw.data_as_of {
        None => None,
        Some(text) => Some(unix_seconds(&text).ok_or_else(|| {
            FetchError::Invalid(format!(
                "dataAsOf {text:?} is not a date or an RFC 3339 date-time"
            ))
        })?),
    };
    Ok(CurrencyFile { rates, data_as_of })
}

/// `YYYY-MM-DD` (midnight UTC) or an RFC 3339 date-time (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`) as Unix
/// seconds; `None` for anything else.
pub fn unix_seconds(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = b.get(range)?;
        digits
            .iter()
            .all(u8::is_ascii_digit)
            .then(|| digits.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&month) || !(1..=days_in_month(year, month)).contains(&day) {
        return None;
    }
    let date = days_from_civil(year, month, day) * 86_400;
    if b.len() == 10 {
        return Some(date);
    }
    if !matches!(b[10], b'T' | b't' | b' ') || b.len() < 20 || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &b[19..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let digits = frac.iter().take_while(|d| d.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let two = |a: u8, b: u8| {
                (a.is_ascii_digit() && b.is_ascii_digit())
                    .then(|| i64::from(a - b'0') * 10 + i64::from(b - b'0'))
            };
            let (h, m) = (two(*h1, *h2)?, two(*m1, *m2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let minutes = h * 60 + m;
            if *sign == b'+' {
                minutes * 60
            } else {
                -minutes * 60
            }
        }
        _ => return None,
    };
    Some(date + hour * 3600 + minute * 60 + second - offset)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {

    #[tokio::test]
    async fn a_source_path_that_is_not_a_regular_file_is_refused_at_once() {
        let dir = std::env::temp_dir().join(format!("bidscan-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("rates.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        // Opening a FIFO for reading blocks until a writer comes: refused before it is opened.
        let read =
            tokio::time::timeout(std::time::Duration::from_secs(5), read_file(&fifo, 1 << 20))
                .await
                .expect("refused without blocking");
        match read {
            Err(FetchError::Io(why)) => assert!(why.contains("not a regular file"), "{why}"),
            other => panic!("{other:?}"),
        }
        match read_file(&dir, 1 << 20).await {
            Err(FetchError::Io(why)) => assert!(why.contains("not a regular file"), "{why}"),
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    use super::*;

    #[test]
    fn dates_and_date_times() {
        assert_eq!(unix_seconds("1970-01-01"), Some(0));
        assert_eq!(unix_seconds("2018-09-12"), Some(1_536_710_400));
        assert_eq!(unix_seconds("2000-02-29"), Some(951_782_400));
        assert_eq!(unix_seconds("2018-09-12T12:00:00Z"), Some(1_536_753_600));
        assert_eq!(
            unix_seconds("2018-09-12T12:00:00.585Z"),
            Some(1_536_753_600)
        );
        assert_eq!(
            unix_seconds("2018-09-12T14:00:00+02:00"),
            Some(1_536_753_600)
        );
        for bad in [
            "",
            "2018-9-12",
            "2018-02-30",
            "2019-02-29",
            "2018-13-01",
            "12/09/2018",
            "2018-09-12T12:00",
            "2018-09-12T12:00:00",
            "2018-09-12T25:00:00Z",
            "2018-09-12x",
        ] {
            assert_eq!(unix_seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn currency_files() {
        let file = parse(
            br#"{"dataAsOf":"2018-09-12","generatedAt":"2018-09-12T12:00:00Z","conversions":{"USD":{"eur":0.87}}}"#,
        )
        .unwrap();
        assert_eq!(file.rates.convert(100.0, "USD", "EUR"), Some(87.0));
        assert_eq!(file.data_as_of, Some(1_536_710_400));
        for (bad, says) in [
            (&b"nope"[..], "expected"),
            (br#"{"dataAsOf":"2018-09-12"}"#, "no conversions"),
            (br#"{"conversions":{}}"#, "no rate"),
            (br#"{"conversions":{"USD":{"EURO":1}}}"#, "ISO 4217"),
            (br#"{"conversions":{"USD":{"EUR":-1}}}"#, "positive"),
            (
                br#"{"dataAsOf":"yesterday","conversions":{"USD":{"EUR":1}}}"#,
                "dataAsOf",
            ),
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.label(), "invalid");
            assert!(e.to_string().contains(says), "{e}");
        }
    }
}
