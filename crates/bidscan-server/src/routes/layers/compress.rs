//! Answer compression: tower-http's `Compression` (gzip, deflate, br, zstd, chosen from the request's
//! `Accept-Encoding` with its q-values, RFC 9110 §12.5.3; `Vary: accept-encoding` added), for answers of at least
//! [`COMPRESS_ABOVE`] bytes (tower-http's `SizeAbove` compresses from its size up), at the fastest level.
//!
//! - [`answer`]: the same service over one finished answer, for the document routes' [`crate::routes::pipeline`],
//!   which has no tower stack to put a layer in. It is called only for answers of at least that size whose request has an
//!   `Accept-Encoding`, so a no-bid pays one length compare; the compressed body is boxed (one allocation, beside
//!   the compressor's own).
//!
//! An `Accept-Encoding` that leaves no coding at all (`identity;q=0` or `*;q=0` and none of the four codings
//! accepted) is ignored, as nginx ignores it: the answer goes out with its own status and no coding. (tower-http's
//! layer answers such a request 406 *with the decoded answer as its body*, whatever the answer's status was.)
//! [`answer`] checks it first.
//!
//! The operational routes' answers are finished `Bytes` ([`crate::routes::ops`]): [`preferred`] chooses their
//! coding as tower-http's compressor would and [`Coding::encode`] compresses them at once, so that an answer nobody
//! reads holds its bytes and no compressor state.
//!
//! Not on `/decode/batch` and `/validate/batch`: a compressor holds output back until its window fills, which
//! would delay each streamed answer line.

use std::convert::Infallible;

use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, header};
use std::io::Write;

use tower::ServiceExt;
use tower_http::CompressionLevel;
use tower_http::compression::Compression;
use tower_http::compression::predicate::SizeAbove;

/// Answers shorter than this many bytes are sent as they are (nginx's `gzip_min_length` is 20; 1 KiB keeps the
/// no-bid and small error answers, which gain nothing from compression, off the compressor).
pub const COMPRESS_ABOVE: u64 = 1024;

/// Whether the `Accept-Encoding` value `accept` refuses the identity (`identity;q=0`, or `*;q=0` with no
/// `identity` entry) and accepts none of gzip, deflate, br and zstd (RFC 9110 §12.5.3).
pub fn accepts_nothing(accept: &[u8]) -> bool {
    let Ok(accept) = std::str::from_utf8(accept) else {
        return false;
    };
    let (mut identity, mut star, mut coding) = (None, None, false);
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        match name.as_str() {
            "identity" => identity = Some(q),
            "*" => star = Some(q),
            "gzip" | "x-gzip" | "deflate" | "br" | "zstd" if q > 0.0 => coding = true,
            _ => {}
        }
    }
    let identity_refused = identity.or(star) == Some(0.0);
    identity_refused && !coding && star.is_none_or(|q| q == 0.0)
}

/// Whether an answer of `len` bytes is long enough to be compressed.
pub fn compressible(len: usize) -> bool {
    len as u64 >= COMPRESS_ABOVE
}

/// `res` as tower-http's compression layer would send it to a client whose request carried `accept` as its
/// `Accept-Encoding`: compressed with the coding `accept` prefers when the body has at least [`COMPRESS_ABOVE`]
/// bytes (with `Vary: accept-encoding` also when no coding is taken), otherwise unchanged (then without `Vary`, as
/// the layer). An `accept` that accepts nothing ([`accepts_nothing`]) is dropped first.
pub async fn answer(accept: HeaderValue, res: Response<Body>) -> Response<Body> {
    let mut req = Request::new(());
    if !accepts_nothing(accept.as_bytes()) {
        req.headers_mut().insert(header::ACCEPT_ENCODING, accept);
    }
    // Called once, by `oneshot`.
    let mut res = Some(res);
    let inner = tower::service_fn(move |_: Request<()>| {
        std::future::ready(Ok::<_, Infallible>(res.take().unwrap_or_default()))
    });
    let compressed = Compression::new(inner)
        .quality(CompressionLevel::Fastest)
        .compress_when(SizeAbove::new(COMPRESS_ABOVE));
    match compressed.oneshot(req).await {
        Ok(res) => res.map(Body::new),
        Err(never) => match never {},
    }
}

/// A content coding of an answer (RFC 9110 §8.4.1), in tower-http's order of preference among equal q-values
/// (last wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Coding {
    /// `deflate`: the zlib format (RFC 1950), as tower-http sends it.
    Deflate,
    /// `gzip` (RFC 1952).
    Gzip,
    /// `br` (RFC 7932).
    Br,
    /// `zstd` (RFC 8878).
    Zstd,
}

/// How hard [`Coding::encode`] compresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    /// The fastest level, as tower-http's layer at `CompressionLevel::Fastest`: an answer made per request.
    Fastest,
    /// A high level, for an answer compressed once and served many times (gzip and deflate 9, br 9, zstd 19).
    Once,
}

impl Coding {
    /// Every coding, in the order of [`Coding::index`].
    pub const ALL: [Coding; 4] = [Coding::Deflate, Coding::Gzip, Coding::Br, Coding::Zstd];

    /// Its position in [`Coding::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The `Content-Encoding` value.
    pub fn header(self) -> HeaderValue {
        HeaderValue::from_static(match self {
            Coding::Deflate => "deflate",
            Coding::Gzip => "gzip",
            Coding::Br => "br",
            Coding::Zstd => "zstd",
        })
    }

    /// `data` compressed with this coding at `effort`, in one buffer (writing to a `Vec` cannot fail).
    pub fn encode(self, data: &[u8], effort: Effort) -> Vec<u8> {
        let once = effort == Effort::Once;
        let out = Vec::with_capacity(data.len() / 4 + 64);
        let level = flate2::Compression::new(if once { 9 } else { 1 });
        let encoded = match self {
            Coding::Gzip => {
                let mut w = flate2::write::GzEncoder::new(out, level);
                w.write_all(data).and_then(|()| w.finish())
            }
            Coding::Deflate => {
                let mut w = flate2::write::ZlibEncoder::new(out, level);
                w.write_all(data).and_then(|()| w.finish())
            }
            Coding::Br => {
                // A 4 KiB buffer and a 4 MiB window (lgwin 22), brotli's defaults.
                let mut w = brotli::CompressorWriter::new(out, 4096, if once { 9 } else { 0 }, 22);
                w.write_all(data).map(|()| w.into_inner())
            }
            Coding::Zstd => zstd::bulk::compress(data, if once { 19 } else { 1 }),
        };
        encoded.unwrap_or_default()
    }
}

/// The coding an answer gets for a request whose `Accept-Encoding` is `accept`, as tower-http's compressor chooses
/// it (RFC 9110 §12.5.3): the listed coding of the highest q-value (ties by [`Coding`]'s order; `*` gives its
/// q-value to the codings not listed), `None` when `identity` ranks above them or none is acceptable (then the
/// answer goes as it is: see the module docs).
pub fn preferred(accept: &[u8]) -> Option<Coding> {
    let accept = std::str::from_utf8(accept).ok()?;
    let mut listed: [Option<u16>; 4] = [None; 4];
    let (mut identity, mut star) = (None, None);
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim();
        let q = parts
            .find_map(|p| {
                let p = p.trim();
                p.strip_prefix("q=").or(p.strip_prefix("Q="))
            })
            .map_or(Some(1000), qvalue);
        let Some(q) = q else { continue };
        let coding = match name.to_ascii_lowercase().as_str() {
            "gzip" | "x-gzip" => Coding::Gzip,
            "deflate" => Coding::Deflate,
            "br" => Coding::Br,
            "zstd" => Coding::Zstd,
            "identity" => {
                identity = Some(q);
                continue;
            }
            "*" => {
                star = Some(q);
                continue;
            }
            _ => continue,
        };
        listed[coding.index()] = Some(q);
    }
    let (q, coding) = Coding::ALL
        .iter()
        .filter_map(|&c| listed[c.index()].or(star).map(|q| (q, c)))
        .filter(|&(q, _)| q > 0)
        .max()?;
    // Identity ranks below every coding at equal q-values (tower-http's order).
    (identity.is_none_or(|i| i <= q)).then_some(coding)
}

/// A q-value (`0`, `0.5`, `1.000`) in thousandths; `None` when it is not one (RFC 9110 §12.4.2).
fn qvalue(q: &str) -> Option<u16> {
    let q = q.trim();
    let (int, frac) = q.split_once('.').unwrap_or((q, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let thousandths = frac
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .fold(0u16, |n, b| n * 10 + u16::from(b - b'0'));
    match int {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn through(
        accept: &'static str,
        len: usize,
    ) -> (Option<String>, Option<String>, Vec<u8>) {
        let body = vec![b'a'; len];
        let res = answer(
            HeaderValue::from_static(accept),
            Response::new(Body::from(body)),
        )
        .await;
        let coding = res
            .headers()
            .get(header::CONTENT_ENCODING)
            .map(|v| v.to_str().unwrap().to_owned());
        let vary = res
            .headers()
            .get(header::VARY)
            .map(|v| v.to_str().unwrap().to_owned());
        let bytes = res.into_body().collect().await.unwrap().to_bytes().to_vec();
        (coding, vary, bytes)
    }

    #[tokio::test]
    async fn over_the_threshold_the_preferred_coding_is_used() {
        let (coding, vary, bytes) = through("gzip", 4096).await;
        assert_eq!(coding.as_deref(), Some("gzip"));
        assert!(vary.unwrap().contains("accept-encoding"));
        assert!(bytes.len() < 200, "{} bytes", bytes.len());
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut plain)
            .unwrap();
        assert_eq!(plain, vec![b'a'; 4096]);
        // q-values choose (RFC 9110 §12.5.3); q=0 is "not acceptable".
        assert_eq!(
            through("gzip;q=0.5, br", 4096).await.0.as_deref(),
            Some("br")
        );
        assert_eq!(
            through("zstd;q=0, gzip;q=0.1", 4096).await.0.as_deref(),
            Some("gzip")
        );
        assert_eq!(through("gzip;q=0", 4096).await.0, None);
        assert_eq!(through("identity", 4096).await.0, None);
    }

    /// An `Accept-Encoding` that accepts no coding at all is ignored: the answer as it is, not tower-http's 406.
    #[tokio::test]
    async fn an_encoding_header_that_accepts_nothing_is_ignored() {
        for nothing in [
            "identity;q=0",
            "*;q=0",
            "*;q=0, identity;q=0",
            "identity;q=0, gzip;q=0",
            "foo, identity;q=0",
        ] {
            assert!(accepts_nothing(nothing.as_bytes()), "{nothing}");
            let res = answer(
                HeaderValue::from_static(nothing),
                Response::new(Body::from(vec![b'a'; 4096])),
            )
            .await;
            assert_eq!(res.status(), 200, "{nothing}");
            assert!(
                res.headers().get(header::CONTENT_ENCODING).is_none(),
                "{nothing}"
            );
            // As the router's layer answers once the header is dropped: the answer varies by it.
            assert_eq!(res.headers()[header::VARY], "accept-encoding", "{nothing}");
        }
        for something in [
            "identity;q=0, gzip",
            "*;q=0, identity",
            "*",
            "gzip;q=0",
            "",
            "br;q=0.1, identity;q=0",
        ] {
            assert!(!accepts_nothing(something.as_bytes()), "{something}");
        }
        assert_eq!(
            through("identity;q=0, gzip", 4096).await.0.as_deref(),
            Some("gzip")
        );
    }

    #[tokio::test]
    async fn under_the_threshold_the_answer_is_unchanged() {
        let short = COMPRESS_ABOVE as usize - 1;
        let (coding, vary, bytes) = through("gzip", short).await;
        assert_eq!(coding, None);
        assert_eq!(vary, None);
        assert_eq!(bytes.len(), short);
        // From the threshold up it is compressed, as the pipeline's test assumes ([`compressible`]).
        assert_eq!(through("gzip", short + 1).await.0.as_deref(), Some("gzip"));
        assert!(compressible(short + 1) && !compressible(short));
    }

    /// The coding chosen for the operational routes is tower-http's choice (RFC 9110 §12.5.3), and each coding
    /// decodes back to the answer.
    #[tokio::test]
    async fn the_preferred_coding_is_the_layers_and_decodes_back() {
        for accept in [
            "gzip",
            "gzip;q=0.5, br",
            "zstd;q=0, gzip;q=0.1",
            "deflate, gzip",
            "br;q=0.2, zstd;q=0.2",
            "*",
            "*;q=0.5, gzip;q=0",
            "gzip;q=0",
            "identity",
            "identity, gzip;q=0.5",
            "x-gzip",
            "GZIP;Q=1.0",
            "gzip;q=2",
        ] {
            let (coding, _, _) = through(accept, 4096).await;
            assert_eq!(
                preferred(accept.as_bytes()).map(|c| c.header().to_str().unwrap().to_owned()),
                coding,
                "{accept}"
            );
        }
        let text: Vec<u8> = (0..20_000u32)
            .flat_map(|i| (i % 251).to_string().into_bytes())
            .collect();
        for coding in Coding::ALL {
            for effort in [Effort::Fastest, Effort::Once] {
                let coded = coding.encode(&text, effort);
                assert!(coded.len() < text.len(), "{coding:?}");
                let mut plain = Vec::new();
                let read = match coding {
                    Coding::Gzip => std::io::Read::read_to_end(
                        &mut flate2::read::GzDecoder::new(&coded[..]),
                        &mut plain,
                    ),
                    Coding::Deflate => std::io::Read::read_to_end(
                        &mut flate2::read::ZlibDecoder::new(&coded[..]),
                        &mut plain,
                    ),
                    Coding::Br => std::io::Read::read_to_end(
                        &mut brotli::Decompressor::new(&coded[..], 4096),
                        &mut plain,
                    ),
                    Coding::Zstd => zstd::stream::copy_decode(&coded[..], &mut plain).map(|()| 0),
                };
                read.unwrap();
                assert_eq!(plain, text, "{coding:?} {effort:?}");
            }
        }
    }
}
