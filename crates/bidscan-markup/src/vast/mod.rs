//! VAST (video ad) markup, read as a stream over the decoded markup: no DOM, no allocation per element.
//!
//! [`inspect`] reports what an exchange checks before it lets a video bid into the auction (IAB Tech Lab VAST
//! 2.0–4.3): the version, how many `<Ad>`s, whether the first one is a `<Wrapper>` and where it points, the
//! first `<Linear>`'s `<Duration>`, its media files and their types, and the impression and error URLs.
//! Namespaces are ignored (elements are matched by local name, case-sensitively as XML is).
//!
//! Well-formedness (XML 1.0 §2.1) is checked as the stream goes: mismatched or unclosed tags, unknown entity or
//! character references, a bare `&`, `<` in an attribute value, several root elements, text outside the root,
//! truncation, an attribute given twice in one tag. The first violation stops the walk: [`VastInfo::error`] says
//! what and where, and the counts are those of the part before it.
//!
//! Two tokenizers drive one walk (`walk.rs`, what the elements mean): `scan.rs`, our own `memchr` pass, reads
//! well-formed documents (the traffic) and reports the common violations (truncation, bare `&`, mismatched
//! tags…) exactly as quick-xml would; on anything else it gives up, and then `events.rs`, quick-xml's event
//! stream, reads the document again and reports the violation with quick-xml's message and place. The fast path
//! exists because quick-xml's reader and attribute iterator were most of the inspection's cost (ARCHITECTURE.md,
//! `crates/bidscan-markup`).

mod bytes;
mod duration;
mod events;
mod media;
mod scan;
mod walk;

use std::borrow::Cow;

pub use duration::parse as parse_duration;
pub use media::{MAX_MEDIA_TYPES, MediaTypes, mime_matches};

use crate::location::Location;

/// What [`inspect`] found in a VAST document.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct VastInfo<'a> {
    /// The root's `version` attribute as written (`"4.2"`), `None` when absent.
    pub version: Option<&'a str>,
    /// `error.is_none()`: the markup is well-formed XML.
    pub well_formed: bool,
    /// `<Ad>` children of the root.
    pub ads: usize,
    /// The first `<Ad>` holds a `<Wrapper>` (its creative is at [`wrapper_uri`](Self::wrapper_uri)).
    pub wrapper: bool,
    /// The first `<Ad>`'s `<VASTAdTagURI>`, trimmed (VAST 4.2 §3.19.1); borrowed unless it holds references.
    pub wrapper_uri: Option<Cow<'a, str>>,
    /// The first `<Linear>`'s `<Duration>` in the first `<Ad>`, in seconds; `None` when absent or unreadable.
    pub duration_secs: Option<f64>,
    /// `<MediaFile>` elements in the first `<Ad>`.
    pub media_files: usize,
    /// The distinct `type`s of those `<MediaFile>`s, and how many have none ([`MediaTypes`]).
    pub media_types: MediaTypes<'a>,
    /// `<Impression>` elements in the whole document.
    pub impressions: usize,
    /// `<Error>` elements (error-tracking URLs) in the whole document.
    pub error_urls: usize,
    /// The first well-formedness violation; `None` for well-formed markup.
    pub error: Option<XmlError>,
    /// Allowed but suspect content, the first place of each kind.
    pub warnings: Warnings,
}

/// A well-formedness violation: what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlError {
    /// Where in the markup (line and column as an editor shows them).
    pub at: Location,
    /// One sentence, e.g. `expected </Linear>, found </Creative>`.
    pub message: Cow<'static, str>,
}

/// Kinds of VAST warnings: content that is well-formed XML but will not play as sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Warning {
    /// An `<Ad>` without `<Impression>` (required in `<InLine>` and `<Wrapper>`, VAST 4.2 §3.4.1, §3.19).
    NoImpression,
    /// A `<Wrapper>` without a non-empty `<VASTAdTagURI>` (required, VAST 4.2 §3.19.1): nothing to unwrap.
    WrapperWithoutUri,
    /// An `<InLine>` `<Linear>` without `<MediaFile>` (VAST 4.2 §3.9.5: at least one): nothing to play.
    LinearWithoutMediaFile,
    /// A `<Linear>`'s `<Duration>` missing or not `HH:MM:SS[.mmm]` (required, VAST 4.2 §3.9.1).
    BadDuration,
    /// The root's `version` is absent or outside 2.0–4.3 (the versions IAB Tech Lab publishes).
    BadVersion,
    /// The root element is not `<VAST>`.
    NotVast,
}

impl Warning {
    /// Every kind, in the order [`Warnings::iter`] reports them.
    pub const ALL: [Warning; 6] = [
        Warning::BadVersion,
        Warning::NotVast,
        Warning::NoImpression,
        Warning::WrapperWithoutUri,
        Warning::LinearWithoutMediaFile,
        Warning::BadDuration,
    ];

    /// Stable snake_case issue code, e.g. `vast_no_impression`.
    pub fn code(self) -> &'static str {
        match self {
            Warning::NoImpression => "vast_no_impression",
            Warning::WrapperWithoutUri => "vast_wrapper_without_uri",
            Warning::LinearWithoutMediaFile => "vast_linear_without_media_file",
            Warning::BadDuration => "vast_bad_duration",
            Warning::BadVersion => "vast_bad_version",
            Warning::NotVast => "vast_not_vast_root",
        }
    }

    /// One sentence with its source.
    pub fn message(self) -> &'static str {
        match self {
            Warning::NoImpression => "an Ad has no Impression (VAST 4.2 §3.4.1: required)",
            Warning::WrapperWithoutUri => {
                "a Wrapper has no VASTAdTagURI (VAST 4.2 §3.19.1: required); nothing to unwrap"
            }
            Warning::LinearWithoutMediaFile => {
                "an InLine Linear has no MediaFile (VAST 4.2 §3.9.5); nothing to play"
            }
            Warning::BadDuration => {
                "a Linear's Duration is missing or not HH:MM:SS[.mmm] (VAST 4.2 §3.9.1)"
            }
            Warning::BadVersion => "the VAST version is absent or outside 2.0–4.3",
            Warning::NotVast => "the root element is not VAST",
        }
    }

    fn index(self) -> usize {
        Warning::ALL.iter().position(|w| *w == self).unwrap_or(0)
    }
}

/// The warnings of one document: for each [`Warning`] kind, the byte offset of its first occurrence. Fixed
/// size, no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Warnings([Option<usize>; 6]);

impl Warnings {
    /// Records `warning` at `byte` unless one of its kind is already recorded.
    pub fn add(&mut self, warning: Warning, byte: usize) {
        self.0[warning.index()].get_or_insert(byte);
    }

    /// Byte offset of the first `warning`, if any.
    pub fn first(&self, warning: Warning) -> Option<usize> {
        self.0[warning.index()]
    }

    /// Each warning kind present, with the byte offset of its first occurrence, in [`Warning::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Warning, usize)> + '_ {
        Warning::ALL
            .iter()
            .filter_map(|&w| self.first(w).map(|at| (w, at)))
    }

    /// True when there is no warning.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }
}

/// Inspects VAST markup. Leading whitespace and a byte-order mark are skipped (offsets still count from the
/// start of `markup`). Never panics. A well-formed document is read in one pass by [`scan`], allocating
/// nothing but a `Duration` or wrapper URI split into pieces or holding references, a media type holding
/// references (and an error message for the violations it reports); any other document is read again by
/// [`inspect_with_quick_xml`], which reports the violation (and allocates what quick-xml's reader keeps for the
/// open elements' names).
pub fn inspect(markup: &str) -> VastInfo<'_> {
    scan(markup).unwrap_or_else(|| inspect_with_quick_xml(markup))
}

/// The fast path alone: `Some` (the same [`VastInfo`] as [`inspect_with_quick_xml`]) for a well-formed document
/// within the fast path's subset (no DOCTYPE, nesting up to 32 elements, quoted attribute values) and for one
/// whose first violation it reports itself (truncation, references in text, end tags, roots, text outside the
/// root); `None` for every other document. Public for the differential tests
/// and the fuzz target.
pub fn scan(markup: &str) -> Option<VastInfo<'_>> {
    scan::run(markup)
}

/// The exact path alone: quick-xml's event stream over the markup, every violation with quick-xml's message
/// and place. Allocates what quick-xml keeps for the open elements' names (growing with depth, not length).
pub fn inspect_with_quick_xml(markup: &str) -> VastInfo<'_> {
    events::run(markup)
}

/// True for a version in 2.0–4.3: `major.minor` in ASCII digits (`"4"` reads as 4.0).
pub fn version_supported(version: &str) -> bool {
    let v = version.trim();
    let (major, minor) = v.split_once('.').unwrap_or((v, "0"));
    let digits = |t: &str| !t.is_empty() && t.len() <= 3 && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(major) || !digits(minor) {
        return false;
    }
    match (major.parse::<u32>(), minor.parse::<u32>()) {
        (Ok(major), Ok(minor)) => (2..=4).contains(&major) && (major < 4 || minor <= 3),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INLINE: &str = r#"<?xml version="1.0"?>
<VAST version="4.2"><Ad id="1"><InLine><Impression><![CDATA[https://i/]]></Impression><Error>https://e/</Error>
<Creatives><Creative><Linear><Duration>00:00:15.250</Duration><MediaFiles>
<MediaFile type="video/mp4"><![CDATA[https://m/1.mp4]]></MediaFile><MediaFile type="video/webm">https://m/2.webm</MediaFile>
</MediaFiles></Linear></Creative></Creatives></InLine></Ad>
<Ad id="2"><Wrapper><Impression>https://i2/</Impression><VASTAdTagURI>https://w2/</VASTAdTagURI></Wrapper></Ad></VAST>"#;

    #[test]
    fn reads_an_inline_document() {
        let m = INLINE;
        let info = inspect(m);
        assert!(info.well_formed, "{:?}", info.error);
        assert_eq!(info.version, Some("4.2"));
        assert_eq!((info.ads, info.wrapper, info.wrapper_uri), (2, false, None));
        assert_eq!(info.duration_secs, Some(15.25));
        assert_eq!(
            (info.media_files, info.impressions, info.error_urls),
            (2, 2, 1)
        );
        let types: Vec<&str> = info.media_types.iter().collect();
        assert_eq!(types, ["video/mp4", "video/webm"]);
        // Borrowed from the markup.
        assert!(
            info.media_types
                .iter()
                .all(|t| m.as_bytes().as_ptr_range().contains(&t.as_ptr()))
        );
        assert!(info.warnings.is_empty(), "{:?}", info.warnings);
    }

    #[test]
    fn media_types_of_the_first_ads_media_files() {
        // Trimmed and decoded, single quotes, a prefixed element, `xsi:type` not read, duplicates dropped, a
        // missing and a blank type counted; a tag long enough for the word-by-word read; the `<Extensions>`
        // and the second `<Ad>` not read.
        let m = r#"<VAST version="4.2"><Ad><InLine><Impression/><Extensions><Extension><MediaFile type="ext/x">e</MediaFile>
</Extension></Extensions><Creatives><Creative><Linear><Duration>00:00:15</Duration><v:MediaFiles xmlns:v="v">
<MediaFile type=" video/mp4 ">a</MediaFile><v:MediaFile type='video/webm'/><MediaFile>c</MediaFile>
<MediaFile type="application/x&#45;mpegURL">d</MediaFile><MediaFile type="video/mp4"/><MediaFile type=" &#32;"/>
<MediaFile delivery="progressive" width="1920" height="1080" bitrate="4000" scalable="true" xsi:type="no/no" type="video/ogg"/>
</v:MediaFiles></Linear></Creative></Creatives></InLine></Ad>
<Ad><InLine><Impression/><Creatives><Creative><Linear><Duration>00:00:15</Duration><MediaFiles>
<MediaFile type="video/3gpp">x</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"#;
        for info in [inspect(m), inspect_with_quick_xml(m)] {
            assert!(info.well_formed, "{:?}", info.error);
            assert_eq!(info.media_files, 7);
            let t = &info.media_types;
            assert_eq!(
                t.iter().collect::<Vec<_>>(),
                [
                    "video/mp4",
                    "video/webm",
                    "application/x-mpegURL",
                    "video/ogg"
                ]
            );
            assert_eq!((t.more(), t.untyped()), (false, 2));
            // Borrowed but for the one holding a reference.
            let borrowed = t
                .iter()
                .map(|t| m.as_bytes().as_ptr_range().contains(&t.as_ptr()));
            assert_eq!(borrowed.collect::<Vec<_>>(), [true, true, false, true]);
            assert!(t.any(|t| mime_matches("application/X-MPEGURL", t)));
            assert!(!t.any(|t| t == "video/3gpp" || t == "ext/x" || t == "no/no"));
        }
        assert_eq!(scan(m).as_ref(), Some(&inspect_with_quick_xml(m)));
        // A fifth distinct type is flagged, not kept.
        let five = m.replace("type=\"video/mp4\"/>", "type=\"video/mpeg\"/>");
        for info in [inspect(&five), inspect_with_quick_xml(&five)] {
            assert_eq!(info.media_types.len(), MAX_MEDIA_TYPES);
            assert!(info.media_types.more());
            assert!(!info.media_types.any(|t| t == "video/ogg"));
        }
        // A root named `MediaFile` is no media file: its `type` is not read, its `version` is.
        let info = inspect("<MediaFile version=\"4.0\" type=\"video/mp4\"/>");
        assert_eq!((info.version, info.media_files), (Some("4.0"), 0));
        assert!(info.media_types.is_empty());
    }

    #[test]
    fn reads_a_wrapper_with_namespaces_and_references() {
        let m = " \n<v:VAST xmlns:v=\"http://www.iab.com/VAST\" version=\"3.0\"><v:Ad><v:Wrapper><v:Impression/>\
                 <v:VASTAdTagURI>\n https://t.example/vast?a=1&amp;b=&#50; </v:VASTAdTagURI></v:Wrapper></v:Ad></v:VAST>\n";
        let info = inspect(m);
        assert!(info.well_formed, "{:?}", info.error);
        assert_eq!(info.version, Some("3.0"));
        assert!(info.wrapper);
        assert_eq!(
            info.wrapper_uri.as_deref(),
            Some("https://t.example/vast?a=1&b=2")
        );
        assert_eq!(
            (info.ads, info.media_files, info.duration_secs),
            (1, 0, None)
        );
        assert!(info.warnings.is_empty(), "{:?}", info.warnings);
    }

    #[test]
    fn extensions_are_opaque_and_the_tag_uri_is_the_wrappers() {
        // An extension's `<Linear>`, `<MediaFile>`, `<Impression>`, `<Error>` and `<VASTAdTagURI>` are not the
        // ad's (a 45 s extension `Linear` before the real 15 s one is not the ad's duration).
        let inline = r#"<VAST version="4.2"><Ad><InLine><Impression>i</Impression><Extensions><Extension>
<Linear><Duration>00:00:45</Duration></Linear><MediaFile>x</MediaFile><Impression>j</Impression><Error>e</Error>
<VASTAdTagURI>https://ext</VASTAdTagURI></Extension></Extensions><VASTAdTagURI>https://inline</VASTAdTagURI>
<Creatives><Creative><CreativeExtensions><CreativeExtension><MediaFile>y</MediaFile></CreativeExtension>
</CreativeExtensions><Linear><Duration>00:00:15</Duration><MediaFiles><MediaFile>m</MediaFile></MediaFiles>
</Linear></Creative></Creatives></InLine></Ad></VAST>"#;
        let wrapper = r#"<VAST version="4.2"><Ad><Wrapper><Impression>i</Impression><Extensions><Extension>
<VASTAdTagURI>https://ext</VASTAdTagURI></Extension></Extensions><Extensions/>
<VASTAdTagURI>https://real</VASTAdTagURI><Creatives><Creative><Linear><TrackingEvents/></Linear></Creative>
</Creatives></Wrapper></Ad></VAST>"#;
        for info in [inspect(inline), inspect_with_quick_xml(inline)] {
            assert!(info.well_formed, "{:?}", info.error);
            assert_eq!(info.duration_secs, Some(15.0));
            assert_eq!(
                (info.media_files, info.impressions, info.error_urls),
                (1, 1, 0)
            );
            assert_eq!((info.wrapper, info.wrapper_uri), (false, None));
            assert!(info.warnings.is_empty(), "{:?}", info.warnings);
        }
        for info in [inspect(wrapper), inspect_with_quick_xml(wrapper)] {
            assert!(info.well_formed, "{:?}", info.error);
            assert!(info.wrapper);
            assert_eq!(info.wrapper_uri.as_deref(), Some("https://real"));
            assert!(info.warnings.is_empty(), "{:?}", info.warnings);
        }
    }

    #[test]
    fn warns_about_what_will_not_play() {
        let m = r#"<VAST version="5.1"><Ad><Wrapper></Wrapper></Ad><Ad><InLine><Impression>x</Impression><Creatives><Creative>
<Linear><Duration>0:15</Duration></Linear><Linear></Linear></Creative></Creatives></InLine></Ad></VAST>"#;
        let info = inspect(m);
        assert!(info.well_formed);
        let w = |k| info.warnings.first(k);
        assert_eq!(w(Warning::BadVersion), Some(0));
        assert_eq!(w(Warning::NoImpression), m.find("<Ad>"));
        assert_eq!(w(Warning::WrapperWithoutUri), m.find("<Ad>"));
        assert_eq!(w(Warning::LinearWithoutMediaFile), m.find("<Linear>"));
        assert_eq!(w(Warning::BadDuration), m.find("<Duration>"));
        assert_eq!(w(Warning::NotVast), None);
        assert_eq!(info.duration_secs, None);
        assert_eq!(info.warnings.iter().count(), 5);
        assert!(
            Warning::ALL
                .iter()
                .all(|w| w.code().starts_with("vast_") && !w.message().is_empty())
        );
    }

    #[test]
    fn reports_malformed_xml_with_line_and_column() {
        let cases: [(&str, &str, (usize, usize)); 8] = [
            (
                "<VAST version=\"4.0\">\n  <Ad></Adx>\n</VAST>",
                "mismatched",
                (2, 7),
            ),
            ("<VAST version=\"4.0\"><Ad>", "unclosed", (1, 25)),
            (
                "<VAST version=\"4.0\">\n<Ad>&bogus;</Ad></VAST>",
                "entity",
                (2, 5),
            ),
            ("<VAST/><VAST/>", "two roots", (1, 8)),
            ("<VAST/>\n x", "text after", (2, 2)),
            ("x<VAST/>", "text before", (1, 1)),
            (
                "<VAST version=\"4.0\"><Ad id=\"a<b\"/></VAST>",
                "< in attribute",
                (1, 21),
            ),
            ("", "empty", (1, 1)),
        ];
        for (m, what, (line, column)) in cases {
            let info = inspect(m);
            assert!(!info.well_formed, "{what}");
            let error = info.error.unwrap_or_else(|| panic!("{what}"));
            assert_eq!(
                (error.at.line, error.at.column),
                (line, column),
                "{what}: {}",
                error.message
            );
        }
    }

    #[test]
    fn a_version_written_with_references_is_read_decoded() {
        for m in [
            "<VAST version=\"4&#46;2\"/>",
            "<VAST version='&#52;.1'/>",
            "<VAST version=\"4&#x2E;0\"/>",
        ] {
            for info in [inspect(m), inspect_with_quick_xml(m)] {
                assert!(info.well_formed, "{m}");
                assert_eq!(info.warnings.first(Warning::BadVersion), None, "{m}");
            }
        }
        let info = inspect("<VAST version=\"5&#46;0\"/>");
        assert_eq!(info.warnings.first(Warning::BadVersion), Some(0));
    }

    #[test]
    fn versions_in_range() {
        for v in ["2.0", "3.0", "4.0", "4.1", "4.2", "4.3", "2", " 4.2 "] {
            assert!(version_supported(v), "{v}");
        }
        for v in ["1.0", "4.4", "5.0", "", "4.x", "+4.0", "4.", "1e1"] {
            assert!(!version_supported(v), "{v}");
        }
    }
}
