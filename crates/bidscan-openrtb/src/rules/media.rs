//! The slot a bid fills ([`Media`]), worked out so that leaving a member out never bypasses a slot's rules:
//! `mtype`, else Prebid's `ext.prebid.type`, else the imp's only slot, else what the markup is.

use crate::model::adm::{Adm, AdmKind};
use crate::model::bid::Bid;
use crate::model::lists::Protocol;
use crate::model::request::Imp;

/// The slot a bid fills.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Media {
    Banner,
    Video,
    Audio,
    Native,
}

impl Media {
    /// Every slot, in `mtype` order.
    pub(super) const ALL: [Media; 4] = [Media::Banner, Media::Video, Media::Audio, Media::Native];

    /// OpenRTB 2.6 §4.2.3 `mtype`: 1 banner, 2 video, 3 audio, 4 native.
    pub(super) fn of_mtype(mtype: i64) -> Option<Media> {
        Some(match mtype {
            1 => Media::Banner,
            2 => Media::Video,
            3 => Media::Audio,
            4 => Media::Native,
            _ => return None,
        })
    }

    /// Prebid Server's `bid.ext.prebid.type` (`"banner"`, `"video"`, `"audio"`, `"native"`).
    pub(super) fn of_name(name: &str) -> Option<Media> {
        Some(match name {
            "banner" => Media::Banner,
            "video" => Media::Video,
            "audio" => Media::Audio,
            "native" => Media::Native,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Media::Banner => "banner",
            Media::Video => "video",
            Media::Audio => "audio",
            Media::Native => "native",
        }
    }

    pub(super) fn offered(self, imp: &Imp<'_>) -> bool {
        match self {
            Media::Banner => imp.banner.is_some(),
            Media::Video => imp.video.is_some(),
            Media::Audio => imp.audio.is_some(),
            Media::Native => imp.native.is_some(),
        }
    }
}

/// What the markup itself says the bid is: VAST, native JSON, or `<`-led HTML; `None` for no markup or text that
/// is none of these (`"some-test-ad"`), which contradicts nothing.
pub(super) fn markup_media(adm: Option<&Adm<'_>>, imp: &Imp<'_>) -> Option<Media> {
    let adm = adm?;
    match adm.kind() {
        AdmKind::Vast if imp.video.is_none() && imp.audio.is_some() => Some(Media::Audio),
        AdmKind::Vast => Some(Media::Video),
        AdmKind::Native => Some(Media::Native),
        AdmKind::Html
            if adm
                .as_markup()
                .is_some_and(|t| t.trim_start().starts_with('<')) =>
        {
            Some(Media::Banner)
        }
        AdmKind::Html | AdmKind::None => None,
    }
}

/// The bid's media type: `mtype` when 1–4, else `declared` (the bid's `ext.prebid.type`), else the imp's only
/// slot, else `from_markup` (the markup's kind, [`markup_media`]); `None` when none tells.
pub(super) fn infer(
    bid: &Bid<'_>,
    declared: Option<Media>,
    from_markup: Option<Media>,
    imp: &Imp<'_>,
) -> Option<Media> {
    if let Some(m) = bid.mtype.and_then(|m| Media::of_mtype(m.0)) {
        return Some(m);
    }
    if declared.is_some() {
        return declared;
    }
    let mut offered = Media::ALL.into_iter().filter(|m| m.offered(imp));
    match (offered.next(), offered.next()) {
        (Some(only), None) => Some(only),
        _ => from_markup,
    }
}

/// How many of banner, video, audio and native the imp offers.
pub(super) fn offered_slots(imp: &Imp<'_>) -> usize {
    Media::ALL.into_iter().filter(|m| m.offered(imp)).count()
}

/// The AdCOM "Creative Subtypes - Audio/Video" code of VAST `version` (`"4.2"`), inline or wrapper: 1/4 VAST
/// 1.0, 2/5 2.0, 3/6 3.0, 7/8 4.0, 11/12 4.1, 13/14 4.2, 15/16 4.3 (AdCOM 1.0 List: Creative Subtypes). `None`
/// for a version that is none of these.
pub(super) fn vast_protocol(version: &str, wrapper: bool) -> Option<Protocol> {
    let version = version.trim();
    let (major, minor) = version.split_once('.').unwrap_or((version, "0"));
    // "4.2", "4.2.0", "4": the minor is the digits up to the next dot.
    let minor = minor.split('.').next().unwrap_or("0");
    let (inline, wrapped) = match (major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?) {
        (1, 0) => (1, 4),
        (2, 0) => (2, 5),
        (3, 0) => (3, 6),
        (4, 0) => (7, 8),
        (4, 1) => (11, 12),
        (4, 2) => (13, 14),
        (4, 3) => (15, 16),
        _ => return None,
    };
    Some(Protocol(if wrapper { wrapped } else { inline }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vast_versions_as_protocols() {
        assert_eq!(vast_protocol("4.2", false), Some(Protocol(13)));
        assert_eq!(vast_protocol("4.2", true), Some(Protocol(14)));
        assert_eq!(vast_protocol(" 3.0 ", false), Some(Protocol(3)));
        assert_eq!(vast_protocol("2", true), Some(Protocol(5)));
        assert_eq!(vast_protocol("4.0.1", false), Some(Protocol(7)));
        assert_eq!(vast_protocol("5.0", false), None);
        assert_eq!(vast_protocol("x", false), None);
    }
}
