//! Inspecting each bid's `adm` with bidscan-markup: which inspector applies, the findings as issues at
//! `/seatbid/i/bid/j/adm`, and the summary's `adm` object.
//!
//! | code | severity | rule | source |
//! |---|---|---|---|
//! | `vast_malformed` | error | the VAST markup is not well-formed XML (message gives line and column) | XML 1.0 §2.1 |
//! | `vast_bad_version` | warning | the root's `version` is absent or outside 2.0–4.3 | IAB Tech Lab VAST 2.0–4.3 |
//! | `vast_not_vast_root` | warning | the root element is not `<VAST>` | VAST 4.2 §3.1 |
//! | `vast_no_impression` | warning | an `<Ad>`'s `<InLine>`/`<Wrapper>` has no `<Impression>` | VAST 4.2 §3.4.1 |
//! | `vast_wrapper_without_uri` | warning | a `<Wrapper>` has no non-empty `<VASTAdTagURI>` | VAST 4.2 §3.19.1 |
//! | `vast_linear_without_media_file` | warning | an inline `<Linear>` has no `<MediaFile>` | VAST 4.2 §3.9.5 |
//! | `vast_bad_duration` | warning | a `<Linear>`'s `<Duration>` is missing or not `HH:MM:SS[.mmm]` | VAST 4.2 §3.9.1 |
//! | `vast_duration_mismatch` | warning | the first `<Linear>`'s duration differs from `bid.dur` by 1 s or more | OpenRTB 2.6 §4.2.3 `dur`: "duration of the video or audio creative in seconds" |
//! | `native_malformed` | error | the native JSON is not valid JSON, or not in the Native 1.2 response's shape (message gives the byte offset) | Native 1.2 §5 |
//! | `native_missing_link` | warning | the native response has no `link` | Native 1.2 §5.1: `link` required |

use std::borrow::Cow;

use bidscan_markup::Inspector;
use bidscan_markup::html::HtmlInfo;
use bidscan_markup::native::NativeInfo;
use bidscan_markup::vast::VastInfo;
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::checks::issue::{Issue, Severity};
use crate::checks::paths::{self, Object};
use crate::model::adm::{Adm, AdmKind};
use crate::model::bid::Bid;
use crate::model::lists::MarkupType;
use crate::model::response::BidResponse;

/// What inspecting one bid's `adm` found.
#[derive(Clone, Debug, PartialEq)]
pub enum Markup<'a> {
    /// VAST markup (sniffed `<VAST` or `<?xml`). Boxed: a `VastInfo` (its media types kept inline) is several
    /// times the other variants, and every bid's `Markup` is moved into `Decoded::markup`, while few bids are VAST.
    Vast(Box<VastInfo<'a>>),
    /// Native markup: `mtype` 4, an object `adm`, or a string starting with `{`.
    Native(NativeInfo<'a>),
    /// Any other markup.
    Html(HtmlInfo),
    /// No markup (absent or empty `adm`).
    None,
}

impl Markup<'_> {
    /// `"vast"`, `"native"`, `"html"` or `"none"`.
    pub fn kind(&self) -> AdmKind {
        match self {
            Markup::Vast(_) => AdmKind::Vast,
            Markup::Native(_) => AdmKind::Native,
            Markup::Html(_) => AdmKind::Html,
            Markup::None => AdmKind::None,
        }
    }

    /// False for VAST that is not well-formed XML and native that is not a native response; true otherwise
    /// (HTML is not checked for well-formedness).
    pub fn well_formed(&self) -> bool {
        match self {
            Markup::Vast(v) => v.well_formed,
            Markup::Native(n) => n.well_formed,
            Markup::Html(_) | Markup::None => true,
        }
    }
}

/// Which inspector a bid's markup goes to: `mtype` 4 (native, OpenRTB 2.6 §4.2.3) or an object `adm` is native
/// whatever it looks like; otherwise [`AdmKind::sniff`].
fn kind_of(bid: &Bid<'_>) -> AdmKind {
    match &bid.adm {
        None => AdmKind::None,
        Some(adm) if adm.is_empty() => AdmKind::None,
        Some(_) if bid.mtype == Some(MarkupType::NATIVE) => AdmKind::Native,
        Some(adm) => adm.kind(),
    }
}

/// Inspects every bid's markup in document order: one [`Markup`] per bid in `out`, findings appended to
/// `issues`.
pub(crate) fn inspect<'a>(
    response: &BidResponse<'a>,
    inspector: &mut Inspector,
    out: &mut Vec<Markup<'a>>,
    issues: &mut Vec<Issue>,
) {
    for (si, seat) in response.seatbid.iter().enumerate() {
        for (bi, bid) in seat.bid.iter().enumerate() {
            let markup = inspect_bid(bid, inspector);
            findings(response, Object::Bid(si, bi), bid, &markup, issues);
            out.push(markup);
        }
    }
}

fn inspect_bid<'a>(bid: &Bid<'a>, inspector: &mut Inspector) -> Markup<'a> {
    let Some(adm) = &bid.adm else {
        return Markup::None;
    };
    match (kind_of(bid), adm) {
        (AdmKind::None, _) => Markup::None,
        (AdmKind::Native, Adm::Object(object)) => Markup::Native(
            inspector.native_with(|buf| serde_json::to_writer(buf, object).unwrap_or_default()),
        ),
        // A borrowed string keeps the input's lifetime; an owned one (only from other deserializers) cannot be
        // borrowed past this call, so its findings are owned too.
        (kind, Adm::Markup(Cow::Borrowed(text))) => inspect_text(kind, text, inspector),
        (kind, Adm::Markup(Cow::Owned(text))) => owned(inspect_text(kind, text, inspector)),
        (_, Adm::Object(_)) => Markup::None,
    }
}

fn inspect_text<'t>(kind: AdmKind, text: &'t str, inspector: &mut Inspector) -> Markup<'t> {
    match kind {
        AdmKind::Vast => Markup::Vast(Box::new(inspector.vast(text))),
        AdmKind::Native => Markup::Native(inspector.native(text)),
        AdmKind::Html => Markup::Html(bidscan_markup::html::inspect(text)),
        AdmKind::None => Markup::None,
    }
}

fn owned(markup: Markup<'_>) -> Markup<'static> {
    let own = |c: Option<Cow<'_, str>>| c.map(|c| Cow::Owned(c.into_owned()));
    match markup {
        Markup::Vast(v) => Markup::Vast(Box::new(VastInfo {
            // A version that cannot be borrowed is dropped: owned `adm` strings only come from serde_json.
            version: None,
            well_formed: v.well_formed,
            ads: v.ads,
            wrapper: v.wrapper,
            wrapper_uri: own(v.wrapper_uri),
            duration_secs: v.duration_secs,
            media_files: v.media_files,
            media_types: v.media_types.into_owned(),
            impressions: v.impressions,
            error_urls: v.error_urls,
            error: v.error,
            warnings: v.warnings,
        })),
        Markup::Native(n) => Markup::Native(NativeInfo {
            ver: own(n.ver),
            well_formed: n.well_formed,
            assets: n.assets,
            link: n.link,
            trackers: n.trackers,
            legacy_root: n.legacy_root,
            error: n.error,
        }),
        Markup::Html(h) => Markup::Html(h),
        Markup::None => Markup::None,
    }
}

fn findings(
    response: &BidResponse<'_>,
    object: Object,
    bid: &Bid<'_>,
    markup: &Markup<'_>,
    issues: &mut Vec<Issue>,
) {
    let mut push = |code: &'static str, severity: Severity, message: String| {
        issues.push(Issue {
            path: paths::field(response, object, "adm"),
            code,
            severity,
            message: Cow::Owned(message),
        });
    };
    match markup {
        Markup::Vast(v) => {
            if let Some(e) = &v.error {
                let message = format!(
                    "VAST is not well-formed XML at line {}, column {}: {}",
                    e.at.line, e.at.column, e.message
                );
                push("vast_malformed", Severity::Error, message);
            }
            let text = bid.adm.as_ref().and_then(Adm::as_markup).unwrap_or("");
            for (warning, at) in v.warnings.iter() {
                let at = bidscan_markup::Location::of(text, at);
                let message = format!(
                    "{} (line {}, column {})",
                    warning.message(),
                    at.line,
                    at.column
                );
                push(warning.code(), Severity::Warning, message);
            }
            if let (Some(secs), Some(dur)) = (v.duration_secs, bid.dur)
                && (secs - dur as f64).abs() >= 1.0
            {
                let message = format!("VAST Duration is {secs} s but bid.dur is {dur} s");
                push("vast_duration_mismatch", Severity::Warning, message);
            }
        }
        Markup::Native(n) => {
            if let Some(e) = &n.error {
                let message = format!(
                    "native markup is not a native response at byte {} of the inner JSON: {}",
                    e.byte, e.message
                );
                push("native_malformed", Severity::Error, message);
            } else if !n.link {
                let message =
                    "the native response has no link (Native 1.2 §5.1: required)".to_owned();
                push("native_missing_link", Severity::Warning, message);
            }
        }
        Markup::Html(_) | Markup::None => {}
    }
}

/// The summary's `adm` object of one bid: `kind` and `bytes` always, then what inspection found (nothing more
/// when it was switched off). Shapes:
/// `{"kind":"vast","bytes":N,"version":"4.2","well_formed":true,"ads":N,"wrapper":false,"wrapper_uri":null,
/// "duration_secs":30.0,"media_files":N,"impressions":N,"error_urls":N}`,
/// `{"kind":"native","bytes":N,"well_formed":true,"ver":"1.2","assets":N,"link":true,"trackers":N}`,
/// `{"kind":"html","bytes":N,"secure":true,"scripts":N}`, `{"kind":"none","bytes":0}`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdmSummary<'s> {
    /// The markup kind (the inspected one when inspected, else sniffed).
    pub kind: AdmKind,
    /// Size in bytes: of the decoded string, or of an object `adm`'s canonical JSON text; 0 when absent.
    pub bytes: usize,
    /// What inspection found; `None` when it did not run.
    pub markup: Option<&'s Markup<'s>>,
}

impl<'s> AdmSummary<'s> {
    pub(crate) fn new(bid: &Bid<'_>, markup: Option<&'s Markup<'s>>) -> AdmSummary<'s> {
        AdmSummary {
            kind: markup.map_or_else(|| kind_of(bid), Markup::kind),
            bytes: bid.adm.as_ref().map_or(0, Adm::len_bytes),
            markup,
        }
    }
}

impl Serialize for AdmSummary<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", &self.kind)?;
        map.serialize_entry("bytes", &self.bytes)?;
        match self.markup {
            Some(Markup::Vast(v)) => {
                map.serialize_entry("version", &v.version)?;
                map.serialize_entry("well_formed", &v.well_formed)?;
                map.serialize_entry("ads", &v.ads)?;
                map.serialize_entry("wrapper", &v.wrapper)?;
                map.serialize_entry("wrapper_uri", &v.wrapper_uri)?;
                map.serialize_entry("duration_secs", &v.duration_secs)?;
                map.serialize_entry("media_files", &v.media_files)?;
                map.serialize_entry("impressions", &v.impressions)?;
                map.serialize_entry("error_urls", &v.error_urls)?;
            }
            Some(Markup::Native(n)) => {
                map.serialize_entry("well_formed", &n.well_formed)?;
                map.serialize_entry("ver", &n.ver)?;
                map.serialize_entry("assets", &n.assets)?;
                map.serialize_entry("link", &n.link)?;
                map.serialize_entry("trackers", &n.trackers)?;
            }
            Some(Markup::Html(h)) => {
                map.serialize_entry("secure", &h.secure)?;
                map.serialize_entry("scripts", &h.scripts)?;
            }
            Some(Markup::None) | None => {}
        }
        map.end()
    }
}
