//! The walk behind [`inspect`](super::inspect): what a VAST document's elements mean (a few counters and the
//! state of the `<Ad>` and `<Linear>` being read; nothing per element is kept), driven by either tokenizer —
//! [`scan`](super::scan) (the fast path) or [`events`](super::events) (quick-xml's event stream). Both call the
//! same handlers in the same order with the same offsets, so they report the same [`VastInfo`].

use std::borrow::Cow;

use super::{VastInfo, Warning, XmlError, duration, version_supported};
use crate::location::Location;

/// Where the root element is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Root {
    NotYet,
    Open,
    Closed,
}

/// The local names the walk gives a meaning to (VAST 4.2 §3); every other element is [`Tag::Other`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Tag {
    Vast,
    Ad,
    InLine,
    Wrapper,
    Impression,
    Error,
    VastAdTagUri,
    Linear,
    Duration,
    MediaFile,
    /// `<Extensions>` (of an `<InLine>` or `<Wrapper>`) or `<CreativeExtensions>`: opaque, whatever they hold
    /// means nothing to the walk (VAST 4.2 §3.18, §3.7.3).
    Extensions,
    Other,
}

impl Tag {
    /// The tag of an element's local name (case-sensitive, as XML is): by length first, then the bytes.
    #[inline(always)]
    pub(super) fn of(local: &[u8]) -> Tag {
        match local.len() {
            2 if local == b"Ad" => Tag::Ad,
            4 if local == b"VAST" => Tag::Vast,
            5 if local == b"Error" => Tag::Error,
            6 if local == b"InLine" => Tag::InLine,
            6 if local == b"Linear" => Tag::Linear,
            7 if local == b"Wrapper" => Tag::Wrapper,
            8 if local == b"Duration" => Tag::Duration,
            9 if local == b"MediaFile" => Tag::MediaFile,
            10 if local == b"Impression" => Tag::Impression,
            10 if local == b"Extensions" => Tag::Extensions,
            18 if local == b"CreativeExtensions" => Tag::Extensions,
            12 if local == b"VASTAdTagURI" => Tag::VastAdTagUri,
            _ => Tag::Other,
        }
    }
}

/// True when an attribute named `name` (as written) holds a `<MediaFile>`'s type: `type`, unprefixed
/// (`xsi:type` is another attribute). Compared at a fixed length, as [`Tag::of`] compares names. One rule for
/// both tokenizers.
#[inline(always)]
pub(super) fn is_media_type(name: &[u8]) -> bool {
    matches!(name, [b't', b'y', b'p', b'e'])
}

/// The `<Ad>` being read (a child of the root).
struct Ad {
    first: bool,
    /// Byte offset of its `<Ad`.
    at: usize,
    inline: bool,
    wrapper: bool,
    impressions: usize,
    tag_uri: bool,
}

/// The `<Linear>` being read.
struct Linear {
    depth: usize,
    at: usize,
    media_files: usize,
    duration: bool,
    /// The first `<Linear>` of the first `<Ad>`: its duration goes into the info.
    reported: bool,
}

/// Text being collected: the content of a `<Duration>` or `<VASTAdTagURI>`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Capture {
    None,
    Duration { depth: usize, at: usize },
    TagUri { depth: usize },
}

pub(super) struct Walk<'a> {
    markup: &'a str,
    /// Length of the leading whitespace and byte-order mark skipped.
    base: usize,
    info: VastInfo<'a>,
    /// Elements open now.
    pub(super) depth: usize,
    pub(super) root: Root,
    ad: Option<Ad>,
    linear: Option<Linear>,
    /// A `<Linear>` of the first `<Ad>` has been read.
    first_linear_seen: bool,
    capture: Capture,
    /// The depths whose end means something beyond the first two: the capture's, the `<Linear>`'s and the
    /// opaque extension's (0 for none), kept with `capture`, `linear` and `opaque` so that [`end`](Self::end)
    /// decides with three compares.
    watch: [usize; 3],
    /// The depth of the content of the `<Extensions>` or `<CreativeExtensions>` element being read (0 for
    /// none): elements in it mean nothing (a `<Linear>`, `<MediaFile>` or `<VASTAdTagURI>` of an extension is
    /// not the ad's).
    opaque: usize,
    /// The non-blank text pieces of the capture, joined.
    captured: Option<Cow<'a, str>>,
}

/// A violation found by the walk itself (the tokenizer reports the others): byte offset and message.
pub(super) type Violation = (usize, Cow<'static, str>);

impl<'a> Walk<'a> {
    /// Leading ASCII whitespace and byte-order marks, skipped before the document (offsets still count from
    /// the start of the markup): their length.
    pub(super) fn base(markup: &str) -> usize {
        let body = markup.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '\u{feff}');
        markup.len() - body.len()
    }

    pub(super) fn new(markup: &'a str, base: usize) -> Walk<'a> {
        Walk {
            markup,
            base,
            info: VastInfo::default(),
            depth: 0,
            root: Root::NotYet,
            ad: None,
            linear: None,
            first_linear_seen: false,
            capture: Capture::None,
            watch: [0, 0, 0],
            opaque: 0,
            captured: None,
        }
    }

    pub(super) fn finish(mut self, result: Result<(), Violation>) -> VastInfo<'a> {
        match result {
            Ok(()) => self.info.well_formed = true,
            Err((at, message)) => {
                self.info.error = Some(XmlError {
                    at: Location::of(self.markup, at),
                    message,
                });
            }
        }
        self.info
    }

    /// Where the document starts (after [`base`](Self::base)); an XML declaration is allowed only there.
    pub(super) fn start_offset(&self) -> usize {
        self.base
    }

    /// True when element content at the current depth is being collected (a `<Duration>` or
    /// `<VASTAdTagURI>`): only then do text pieces matter.
    #[inline(always)]
    pub(super) fn capturing(&self) -> bool {
        match self.capture {
            Capture::None => false,
            Capture::Duration { depth, .. } | Capture::TagUri { depth } => depth == self.depth,
        }
    }

    /// A CDATA section at `at` with content `text`.
    pub(super) fn cdata(&mut self, text: Cow<'a, str>, at: usize) -> Result<(), Violation> {
        if self.root != Root::Open {
            return Err((at, "CDATA section outside the root element".into()));
        }
        self.piece(text);
        Ok(())
    }

    /// A reference `&name;` at `at` in text.
    pub(super) fn reference(&mut self, name: &str, at: usize) -> Result<(), Violation> {
        let Some(c) = reference(name) else {
            return Err((
                at,
                format!("unknown entity or bad character reference &{name};").into(),
            ));
        };
        if self.root != Root::Open {
            return Err((at, "reference outside the root element".into()));
        }
        if self.capturing() {
            let mut buf = [0u8; 4];
            self.piece(Cow::Owned(c.encode_utf8(&mut buf).to_owned()));
        }
        Ok(())
    }

    /// The end of the document at `at`.
    pub(super) fn eof(&self, at: usize) -> Result<(), Violation> {
        match self.root {
            Root::NotYet => Err((at, "no root element".into())),
            Root::Open => Err((
                at,
                format!(
                    "the document ends inside {} open element(s) (truncated?)",
                    self.depth
                )
                .into(),
            )),
            Root::Closed => Ok(()),
        }
    }

    /// Character data at `at` (between markup and references).
    pub(super) fn text(&mut self, text: Cow<'a, str>, at: usize) -> Result<(), Violation> {
        if self.root == Root::Open {
            self.piece(text);
        } else if let Some(first) = text.bytes().position(|b| !b.is_ascii_whitespace()) {
            return Err((at + first, "text outside the root element".into()));
        }
        Ok(())
    }

    /// A piece of element content: kept when it belongs to the capture and is not blank.
    fn piece(&mut self, piece: Cow<'a, str>) {
        let depth = match self.capture {
            Capture::None => return,
            Capture::Duration { depth, .. } | Capture::TagUri { depth } => depth,
        };
        if self.depth != depth || piece.bytes().all(|b| b.is_ascii_whitespace()) {
            return;
        }
        match &mut self.captured {
            None => self.captured = Some(piece),
            Some(text) => text.to_mut().push_str(&piece),
        }
    }

    /// A start tag at `at` with local name `tag` and `value`, as written: for the root its `version`
    /// attribute, below it its `type` ([`is_media_type`], read only for a `<MediaFile>`). Opens the element (the
    /// caller calls [`end`](Self::end) for an empty one).
    #[inline(always)]
    pub(super) fn open(
        &mut self,
        tag: Tag,
        value: Option<&'a str>,
        at: usize,
    ) -> Result<(), Violation> {
        // Most elements mean nothing to the walk: only the depth changes.
        if tag != Tag::Other || self.depth == 0 {
            self.start(tag, value, at)?;
        }
        self.depth += 1;
        Ok(())
    }

    /// Opens an element the walk gives no meaning to (any but [`Tag`]'s names, below the root) without a call:
    /// true when `tag` is one; otherwise nothing changes and the caller calls [`open`](Self::open).
    #[inline(always)]
    pub(super) fn open_plain(&mut self, tag: Tag) -> bool {
        let plain = tag == Tag::Other && self.depth != 0;
        self.depth += usize::from(plain);
        plain
    }

    #[inline(never)]
    fn start(&mut self, tag: Tag, value: Option<&'a str>, at: usize) -> Result<(), Violation> {
        match (self.depth, self.root) {
            (0, Root::Closed) => return Err((at, "a second root element".into())),
            (0, _) => {
                self.root = Root::Open;
                if tag != Tag::Vast {
                    self.info.warnings.add(Warning::NotVast, at);
                }
                self.info.version = value;
                if !value.is_some_and(|v| version_supported(&decoded(v))) {
                    self.info.warnings.add(Warning::BadVersion, at);
                }
                return Ok(());
            }
            (1, _) if tag == Tag::Ad => {
                self.info.ads += 1;
                self.ad = Some(Ad {
                    first: self.info.ads == 1,
                    at,
                    inline: false,
                    wrapper: false,
                    impressions: 0,
                    tag_uri: false,
                });
                return Ok(());
            }
            _ => {}
        }
        if self.opaque != 0 {
            return Ok(());
        }
        match tag {
            Tag::Extensions => {
                self.opaque = self.depth + 1;
                self.watch[2] = self.opaque;
                return Ok(());
            }
            Tag::Impression => self.info.impressions += 1,
            Tag::Error => self.info.error_urls += 1,
            _ => {}
        }
        let Some(ad) = &mut self.ad else {
            return Ok(());
        };
        match tag {
            Tag::InLine if self.depth == 2 => ad.inline = true,
            Tag::Wrapper if self.depth == 2 => {
                ad.wrapper = true;
                self.info.wrapper |= ad.first;
            }
            Tag::Impression => ad.impressions += 1,
            // A child of the `<Wrapper>` (VAST 4.2 §3.19.1); elsewhere it means nothing.
            Tag::VastAdTagUri if ad.wrapper && self.depth == 3 => {
                self.begin_capture(Capture::TagUri {
                    depth: self.depth + 1,
                })
            }
            Tag::Linear => {
                self.watch[1] = self.depth + 1;
                self.linear = Some(Linear {
                    depth: self.depth + 1,
                    at,
                    media_files: 0,
                    duration: false,
                    reported: ad.first && !self.first_linear_seen,
                });
                self.first_linear_seen |= ad.first;
            }
            Tag::Duration if self.linear.as_ref().is_some_and(|l| l.depth == self.depth) => {
                self.begin_capture(Capture::Duration {
                    depth: self.depth + 1,
                    at,
                });
            }
            Tag::MediaFile => {
                if ad.first {
                    self.info.media_files += 1;
                    self.info.media_types.add(value.map(media_type));
                }
                if let Some(linear) = &mut self.linear {
                    linear.media_files += 1;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn begin_capture(&mut self, capture: Capture) {
        self.watch[0] = match capture {
            Capture::None => 0,
            Capture::Duration { depth, .. } | Capture::TagUri { depth } => depth,
        };
        self.capture = capture;
        self.captured = None;
    }

    /// Closes the element open at `self.depth` (the tokenizer has checked the end tag's name).
    #[inline(always)]
    pub(super) fn end(&mut self) {
        let depth = self.depth;
        self.depth -= 1;
        // Below the `<Ad>`, only the end of a capture or of the `<Linear>` being read means anything.
        if depth > 2 && !self.watch.contains(&depth) {
            return;
        }
        self.close(depth);
    }

    #[inline(never)]
    fn close(&mut self, depth: usize) {
        match self.capture {
            Capture::Duration {
                depth: d,
                at: start,
            } if d == depth => self.end_duration(start),
            Capture::TagUri { depth: d } if d == depth => {
                let uri = self.captured.take().map(|u| trim(u));
                if let Some(ad) = &mut self.ad {
                    ad.tag_uri |= uri.as_ref().is_some_and(|u| !u.is_empty());
                    if ad.first && self.info.wrapper_uri.is_none() {
                        self.info.wrapper_uri = uri;
                    }
                }
                self.end_capture();
            }
            _ => {}
        }
        if self.linear.as_ref().is_some_and(|l| l.depth == depth) {
            self.end_linear();
        }
        if self.opaque == depth {
            self.opaque = 0;
            self.watch[2] = 0;
        }
        if depth == 2 {
            self.end_ad();
        }
        if depth == 1 {
            self.root = Root::Closed;
        }
    }

    fn end_duration(&mut self, start: usize) {
        let seconds = self.captured.take().as_deref().and_then(duration::parse);
        if let Some(linear) = &mut self.linear {
            linear.duration = true;
            if seconds.is_none() {
                self.info.warnings.add(Warning::BadDuration, start);
            }
            if linear.reported && self.info.duration_secs.is_none() {
                self.info.duration_secs = seconds;
            }
        }
        self.end_capture();
    }

    fn end_capture(&mut self) {
        self.capture = Capture::None;
        self.watch[0] = 0;
    }

    fn end_linear(&mut self) {
        self.watch[1] = 0;
        let Some(linear) = self.linear.take() else {
            return;
        };
        let inline = self.ad.as_ref().is_some_and(|ad| ad.inline);
        if inline && linear.media_files == 0 {
            self.info
                .warnings
                .add(Warning::LinearWithoutMediaFile, linear.at);
        }
        if inline && !linear.duration {
            self.info.warnings.add(Warning::BadDuration, linear.at);
        }
    }

    fn end_ad(&mut self) {
        let Some(ad) = self.ad.take() else { return };
        if (ad.inline || ad.wrapper) && ad.impressions == 0 {
            self.info.warnings.add(Warning::NoImpression, ad.at);
        }
        if ad.wrapper && !ad.tag_uri {
            self.info.warnings.add(Warning::WrapperWithoutUri, ad.at);
        }
    }
}

fn trim(text: Cow<'_, str>) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(t) => Cow::Borrowed(t.trim()),
        Cow::Owned(t) if t.trim().len() == t.len() => Cow::Owned(t),
        Cow::Owned(t) => Cow::Owned(t.trim().to_owned()),
    }
}

/// A `<MediaFile>`'s `type` as [`MediaTypes`](super::MediaTypes) keeps it: its references decoded, ASCII
/// whitespace trimmed; borrowed when it holds no reference.
fn media_type(value: &str) -> Cow<'_, str> {
    match decoded(value) {
        Cow::Borrowed(t) => Cow::Borrowed(t.trim_ascii()),
        Cow::Owned(t) if t.trim_ascii().len() == t.len() => Cow::Owned(t),
        Cow::Owned(t) => Cow::Owned(t.trim_ascii().to_owned()),
    }
}

/// True when a comment's content (between `<!--` and `-->`) is allowed: no `--` in it and no `-` last (XML 1.0
/// §2.5). One rule for both tokenizers.
pub(super) fn comment_allowed(content: &[u8]) -> bool {
    content.last() != Some(&b'-') && memchr::memmem::find(content, b"--").is_none()
}

/// An attribute value as the XML parser reads it: its references decoded (`4&#46;2` is `4.2`); one already
/// checked by [`check_value`], so every reference is well-formed.
fn decoded(value: &str) -> Cow<'_, str> {
    if !value.bytes().any(|b| b == b'&') {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        match after
            .find(';')
            .and_then(|semi| Some((semi, reference(&after[..semi])?)))
        {
            Some((semi, c)) => {
                out.push(c);
                rest = &after[semi + 1..];
            }
            None => return Cow::Borrowed(value),
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// An attribute value: no `<` and only well-formed references (XML 1.0 §3.1 `AttValue`).
pub(super) fn check_value(value: &[u8]) -> Result<(), &'static str> {
    if memchr::memchr(b'<', value).is_some() {
        return Err("'<' in an attribute value");
    }
    let mut rest = value;
    while let Some(amp) = memchr::memchr(b'&', rest) {
        rest = &rest[amp + 1..];
        let semi = memchr::memchr(b';', rest).ok_or("'&' without ';' in an attribute value")?;
        let name = std::str::from_utf8(&rest[..semi]).map_err(|_| "bad reference")?;
        reference(name).ok_or("unknown entity or bad character reference in an attribute value")?;
        rest = &rest[semi + 1..];
    }
    Ok(())
}

/// The character a reference (`lt`, `#60`, `#x3C`: the text between `&` and `;`) stands for: the five
/// predefined entities (XML 1.0 §4.6) and character references to a legal `Char` (§4.1, §2.2).
pub(super) fn reference(name: &str) -> Option<char> {
    let code = match name {
        "lt" => return Some('<'),
        "gt" => return Some('>'),
        "amp" => return Some('&'),
        "apos" => return Some('\''),
        "quot" => return Some('"'),
        _ => {
            let digits = name.strip_prefix('#')?;
            let (digits, radix) = match digits.strip_prefix('x') {
                Some(hex) => (hex, 16),
                None => (digits, 10),
            };
            if digits.is_empty()
                || digits.len() > 8
                || !digits.bytes().all(|b| b.is_ascii_alphanumeric())
            {
                return None;
            }
            u32::from_str_radix(digits, radix).ok()?
        }
    };
    let legal =
        matches!(code, 0x9 | 0xA | 0xD | 0x20..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF);
    legal.then(|| char::from_u32(code)).flatten()
}

#[cfg(test)]
mod tests {
    use super::reference;

    #[test]
    fn references() {
        assert_eq!(reference("amp"), Some('&'));
        assert_eq!(reference("#60"), Some('<'));
        assert_eq!(reference("#x3C"), Some('<'));
        assert_eq!(reference("#x1F600"), Some('😀'));
        for bad in [
            "nbsp", "#", "#x", "#0", "#xD800", "#x110000", "#-1", "#+5", "AMP", "",
        ] {
            assert_eq!(reference(bad), None, "{bad}");
        }
    }
}
