//! Answer compression: tower-http's `Compression` (gzip, deflate, br, zstd, chosen from the request's
//! `Accept-Encoding` with its q-values, RFC 9110 §12.5.3; `Vary: accept-encoding` added), for answers of at least
//! [`COMPRESS_ABOVE`] bytes (tower-http's `SizeAbove` compresses from its size up), at the fastest level.
//!
//! - [`layer`]: on the router's `/metrics` and `/openapi.json`.
//! - [`answer`]: the same service over one finished answer, for the document routes' [`crate::routes::pipeline`],
//!   which has no tower stack to put a layer in. It is called only for answers of at least that size whose request has an
//!   `Accept-Encoding`, so a no-bid pays one length compare; the compressed body is boxed (one allocation, beside
//!   the compressor's own).
//!
//! An `Accept-Encoding` that leaves no coding at all (`identity;q=0` or `*;q=0` and none of the four codings
//! accepted) is ignored, as nginx ignores it: the answer goes out with its own status and no coding. (tower-http's
//! layer answers such a request 406 *with the decoded answer as its body*, whatever the answer's status was.)
//! [`layer`] drops the header before the compressor sees it; [`answer`] checks it first.
//!
//! Not on `/decode/batch` and `/validate/batch`: a compressor holds output back until its window fills, which
//! would delay each streamed answer line.

use std::convert::Infallible;

use axum::body::Body;
use axum::http::{HeaderValue, Request, Response, header};
use tower::ServiceExt;
use tower::util::MapRequestLayer;
use tower_http::CompressionLevel;
use tower_http::compression::predicate::SizeAbove;
use tower_http::compression::{Compression, CompressionLayer};

/// Answers shorter than this many bytes are sent as they are (nginx's `gzip_min_length` is 20; 1 KiB keeps the
/// no-bid and small error answers, which gain nothing from compression, off the compressor).
pub const COMPRESS_ABOVE: u64 = 1024;

/// The compression layer of the routes named in the module docs (outermost first: the unsatisfiable
/// `Accept-Encoding` dropped, then tower-http's compressor).
pub fn layer() -> (DropUnsatisfiable, CompressionLayer<SizeAbove>) {
    let compressor = CompressionLayer::new()
        .quality(CompressionLevel::Fastest)
        .compress_when(SizeAbove::new(COMPRESS_ABOVE));
    (MapRequestLayer::new(drop_unsatisfiable), compressor)
}

/// The layer of `drop_unsatisfiable` (the request without an `Accept-Encoding` that accepts nothing).
pub type DropUnsatisfiable = MapRequestLayer<fn(Request<Body>) -> Request<Body>>;

/// `req` without its `Accept-Encoding` when that header accepts no coding at all (see the module docs).
fn drop_unsatisfiable(mut req: Request<Body>) -> Request<Body> {
    if req
        .headers()
        .get(header::ACCEPT_ENCODING)
        .is_some_and(|v| accepts_nothing(v.as_bytes()))
    {
        req.headers_mut().remove(header::ACCEPT_ENCODING);
    }
    req
}

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

/// Whether an answer of `len` bytes is long enough for [`layer`] to compress it.
pub fn compressible(len: usize) -> bool {
    len as u64 >= COMPRESS_ABOVE
}

/// `res` as [`layer`] would send it to a client whose request carried `accept` as its `Accept-Encoding`: compressed
/// with the coding `accept` prefers when the body has at least [`COMPRESS_ABOVE`] bytes (with `Vary:
/// accept-encoding` also when no coding is taken), otherwise unchanged (then without `Vary`, as the layer). An
/// `accept` that accepts nothing ([`accepts_nothing`]) is dropped first, as the router drops it before its layer.
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
}
