//! The media types of a VAST ad's `<MediaFile>`s ([`MediaTypes`]) and how a type is compared with one a bid
//! request offers ([`mime_matches`]).

use std::borrow::Cow;

/// Distinct media types a [`MediaTypes`] keeps; past that it only records that there were more.
pub const MAX_MEDIA_TYPES: usize = 4;

/// The distinct `type` attribute values (MIME types, required on a `<MediaFile>`, VAST 4.2 §3.9.5) of the
/// `<MediaFile>` elements counted in [`VastInfo::media_files`](super::VastInfo::media_files): the first `<Ad>`'s,
/// never those inside an opaque `<Extensions>` or `<CreativeExtensions>`.
///
/// Each value is read as an XML parser reads it (references decoded), surrounding ASCII whitespace trimmed, and,
/// like [`VastInfo::wrapper_uri`](super::VastInfo::wrapper_uri), borrowed from the markup unless it holds a
/// character or entity reference (then decoded into an owned string). Values are compared byte for byte to drop
/// duplicates (`video/mp4` and `video/MP4` are two entries; [`mime_matches`] treats them alike). Fixed size, no
/// allocation for borrowed values: the first [`MAX_MEDIA_TYPES`] distinct values are kept in document order, and
/// [`more`](Self::more) says whether another one was met. A `<MediaFile>` without a `type` attribute, or with a
/// blank one, is counted in [`untyped`](Self::untyped) and keeps nothing. Only the unprefixed `type` attribute
/// is read (`xsi:type` is another attribute).
///
/// The `video_format` decision (OpenRTB 2.6 §3.2.7 `mimes`) reads it as:
///
/// ```
/// use bidscan_markup::vast::{self, mime_matches};
///
/// let info = vast::inspect(
///     r#"<VAST version="4.2"><Ad><InLine><Creatives><Creative><Linear><MediaFiles>
///        <MediaFile type="video/webm">a</MediaFile><MediaFile type="video/MP4; codecs=&quot;avc1&quot;">b</MediaFile>
///        </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"#,
/// );
/// let mimes = ["video/mp4", "video/ogg"];
/// let types = &info.media_types;
/// let playable = types.any(|t| mimes.iter().any(|m| mime_matches(m, t)));
/// // Undecided when a type was not kept (`more()`), and nothing to judge without `<MediaFile>` (a `<Wrapper>`).
/// let rejected = info.media_files > 0 && !playable && !types.more();
/// assert!(playable && !rejected);
/// assert_eq!(types.iter().collect::<Vec<_>>(), ["video/webm", "video/MP4; codecs=\"avc1\""]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MediaTypes<'a> {
    /// The first distinct values in document order: `types[..len]`; the slots past `len` stay empty
    /// (`Cow::default()`, no allocation), so the derived equality compares only what was read.
    types: [Cow<'a, str>; MAX_MEDIA_TYPES],
    /// Slots used, at most [`MAX_MEDIA_TYPES`].
    len: u8,
    /// A value other than every kept one was met with every slot used.
    more: bool,
    /// `<MediaFile>`s without a `type` attribute or with a blank one.
    untyped: usize,
}

impl<'a> MediaTypes<'a> {
    /// Records one `<MediaFile>`'s type (decoded and trimmed; `None` when it has no `type` attribute).
    pub(super) fn add(&mut self, media_type: Option<Cow<'a, str>>) {
        let Some(media_type) = media_type.filter(|t| !t.is_empty()) else {
            self.untyped += 1;
            return;
        };
        if self.iter().any(|kept| kept == media_type) {
            return;
        }
        match self.types.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = media_type;
                self.len += 1;
            }
            None => self.more = true,
        }
    }

    /// The kept types, in the order of their first `<MediaFile>`.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.types.iter().take(self.len()).map(|t| &**t)
    }

    /// True when `f` holds for a kept type (false for none kept). When [`more`](Self::more) is true a type that
    /// is not kept may hold too: false is then no answer for the whole ad.
    pub fn any(&self, f: impl FnMut(&str) -> bool) -> bool {
        self.iter().any(f)
    }

    /// How many types are kept (0 to [`MAX_MEDIA_TYPES`]).
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// True when no type is kept: no `<MediaFile>`, or none with a type.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when the `<MediaFile>`s have more than [`MAX_MEDIA_TYPES`] distinct types: those past the first
    /// [`MAX_MEDIA_TYPES`] are not kept.
    pub fn more(&self) -> bool {
        self.more
    }

    /// How many of the counted `<MediaFile>`s have no `type` attribute, or a blank one (ASCII whitespace only
    /// once its references are decoded).
    pub fn untyped(&self) -> usize {
        self.untyped
    }

    /// The same types, owned: for a caller that keeps them past the markup's lifetime.
    pub fn into_owned(self) -> MediaTypes<'static> {
        MediaTypes {
            types: self.types.map(|t| Cow::Owned(t.into_owned())),
            len: self.len,
            more: self.more,
            untyped: self.untyped,
        }
    }
}

/// True when the media type `offered` (e.g. one of a bid request's `imp.video.mimes`, OpenRTB 2.6 §3.2.7) and
/// `media_type` (e.g. a `<MediaFile>`'s `type`) name the same type: their `type/subtype` parts (before any `;`
/// and its parameters, surrounding ASCII whitespace trimmed) are equal in ASCII case-insensitive comparison (RFC 2045
/// §5.1: type, subtype and parameter names are case-insensitive), so `video/mp4; codecs="avc1"` matches
/// `video/MP4`. Parameters are ignored; wildcards (`video/*`) are not expanded; an empty type matches nothing.
pub fn mime_matches(offered: &str, media_type: &str) -> bool {
    let offered = essence(offered);
    !offered.is_empty() && offered.eq_ignore_ascii_case(essence(media_type))
}

/// A media type's `type/subtype`: the part before the first `;`, trimmed.
fn essence(media_type: &str) -> &str {
    media_type
        .split_once(';')
        .map_or(media_type, |(essence, _)| essence)
        .trim_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types<'a>(values: &[Option<&'a str>]) -> MediaTypes<'a> {
        let mut types = MediaTypes::default();
        for &value in values {
            types.add(value.map(Cow::Borrowed));
        }
        types
    }

    #[test]
    fn keeps_distinct_types_in_order() {
        let t = types(&[
            Some("video/mp4"),
            None,
            Some("video/webm"),
            Some("video/mp4"),
            Some(""),
            Some("video/MP4"),
        ]);
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            ["video/mp4", "video/webm", "video/MP4"]
        );
        assert_eq!((t.len(), t.more(), t.untyped()), (3, false, 2));
        assert!(t.any(|m| m == "video/webm"));
        assert!(!t.any(|m| m == "video/ogg"));
    }

    #[test]
    fn flags_types_past_the_kept_ones() {
        let full = ["a/1", "a/2", "a/3", "a/4"].map(Some);
        let t = types(&full);
        assert_eq!((t.len(), t.more()), (MAX_MEDIA_TYPES, false));
        // Repeating a kept one is no new type.
        let t = types(&[&full[..], &[Some("a/2"), Some("a/4")]].concat());
        assert_eq!((t.len(), t.more()), (MAX_MEDIA_TYPES, false));
        let t = types(&[&full[..], &[Some("a/5"), None]].concat());
        assert_eq!((t.len(), t.more(), t.untyped()), (MAX_MEDIA_TYPES, true, 1));
        assert!(!t.any(|m| m == "a/5"));
    }

    #[test]
    fn empty_and_owned() {
        let t = MediaTypes::default();
        assert!(t.is_empty() && !t.any(|_| true));
        assert_eq!((t.len(), t.more(), t.untyped()), (0, false, 0));
        let mut t = types(&[Some("video/mp4")]);
        t.add(Some(Cow::Owned("video/webm".to_owned())));
        let owned: MediaTypes<'static> = t.clone().into_owned();
        assert_eq!(owned, t);
    }

    #[test]
    fn mime_types_compare_case_insensitively_without_parameters() {
        for (a, b) in [
            ("video/mp4", "video/mp4"),
            ("video/mp4", "VIDEO/MP4"),
            ("video/mp4", "video/MP4; codecs=\"avc1\""),
            (" video/mp4 ", "video/mp4;"),
            ("video/mp4;codecs=a", "video/mp4 ; codecs=b"),
            ("application/x-mpegURL", "application/x-mpegurl"),
        ] {
            assert!(mime_matches(a, b), "{a} {b}");
            assert!(mime_matches(b, a), "{b} {a}");
        }
        for (a, b) in [
            ("video/mp4", "video/webm"),
            ("video/mp4", "video/mp4v"),
            ("video/*", "video/mp4"),
            ("video", "video/mp4"),
            ("", ""),
            (" ; x", "; x"),
            ("video/mp4", ""),
        ] {
            assert!(!mime_matches(a, b), "{a} {b}");
            assert!(!mime_matches(b, a), "{b} {a}");
        }
    }
}
