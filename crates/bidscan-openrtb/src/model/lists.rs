//! Open integer code lists used by the bid response (OpenRTB 2.6 §5 defers most lists to AdCOM 1.0).
//!
//! Each list is a newtype over `i64` with a `pub const` per known value. Values outside the list (vendor codes
//! such as 500+, values added to a list after this crate was written, or plain mistakes) are kept as sent: a code
//! list never makes decoding fail. Use [`name`](CreativeAttribute::name) to tell known values from others.

use serde::Serialize;

macro_rules! code_list {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$cmeta:meta])* $konst:ident = $value:literal => $label:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl $name {
            $( $(#[$cmeta])* #[doc = concat!("`", stringify!($value), "`: ", $label, ".")]
               pub const $konst: Self = Self($value); )*

            /// The list's label for a known value, `None` for a value outside the list (kept as sent).
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( $value => Some($label), )*
                    _ => None,
                }
            }
        }

        impl From<i64> for $name {
            fn from(value: i64) -> Self {
                Self(value)
            }
        }

        impl From<$name> for i64 {
            fn from(value: $name) -> i64 {
                value.0
            }
        }
    };
}

code_list! {
    /// `BidResponse.nbr`: reason for not bidding. OpenRTB 2.6 §4.2.1 refers to "List: No-Bid Reason Codes" in
    /// OpenRTB 3.0; 500+ are exchange-specific.
    NoBidReason {
        UNKNOWN_ERROR = 0 => "Unknown Error",
        TECHNICAL_ERROR = 1 => "Technical Error",
        INVALID_REQUEST = 2 => "Invalid Request",
        KNOWN_WEB_CRAWLER = 3 => "Known Web Crawler",
        SUSPECTED_NON_HUMAN_TRAFFIC = 4 => "Suspected Non-Human Traffic",
        CLOUD_DATA_CENTER_OR_PROXY_IP = 5 => "Cloud, Data Center, or Proxy IP",
        UNSUPPORTED_DEVICE = 6 => "Unsupported Device",
        BLOCKED_PUBLISHER_OR_SITE = 7 => "Blocked Publisher or Site",
        UNMATCHED_USER = 8 => "Unmatched User",
        DAILY_USER_CAP_MET = 9 => "Daily User Cap Met",
        DAILY_DOMAIN_CAP_MET = 10 => "Daily Domain Cap Met",
        ADS_TXT_AUTHORIZATION_UNAVAILABLE = 11 => "Ads.txt Authorization Unavailable",
        ADS_TXT_AUTHORIZATION_VIOLATION = 12 => "Ads.txt Authorization Violation",
        ADS_CERT_AUTHENTICATION_UNAVAILABLE = 13 => "Ads.cert Authentication Unavailable",
        ADS_CERT_AUTHENTICATION_VIOLATION = 14 => "Ads.cert Authentication Violation",
        INSUFFICIENT_AUCTION_TIME = 15 => "Insufficient Auction Time",
        INCOMPLETE_SUPPLY_CHAIN = 16 => "Incomplete SupplyChain",
        BLOCKED_SUPPLY_CHAIN_NODE = 17 => "Blocked SupplyChain Node",
    }
}

code_list! {
    /// `Bid.attr`: attributes describing the creative. AdCOM 1.0 "List: Creative Attributes" (OpenRTB 2.6 §4.2.3).
    CreativeAttribute {
        AUDIO_AUTO_PLAY = 1 => "Audio Ad (Autoplay)",
        AUDIO_USER_INITIATED = 2 => "Audio Ad (User Initiated)",
        EXPANDABLE_AUTOMATIC = 3 => "Expandable (Automatic)",
        EXPANDABLE_CLICK = 4 => "Expandable (User Initiated - Click)",
        EXPANDABLE_ROLLOVER = 5 => "Expandable (User Initiated - Rollover)",
        IN_BANNER_VIDEO_AUTO_PLAY = 6 => "In-Banner Video Ad (Autoplay)",
        IN_BANNER_VIDEO_USER_INITIATED = 7 => "In-Banner Video Ad (User Initiated)",
        POP = 8 => "Pop (e.g., Over, Under, or Upon Exit)",
        PROVOCATIVE = 9 => "Provocative or Suggestive Imagery",
        EXTREME_ANIMATION = 10 => "Shaky, Flashing, Flickering, Extreme Animation, Smileys",
        SURVEYS = 11 => "Surveys",
        TEXT_ONLY = 12 => "Text Only",
        USER_INTERACTIVE = 13 => "User Interactive (e.g., Embedded Games)",
        WINDOWS_DIALOG = 14 => "Windows Dialog or Alert Style",
        AUDIO_ON_OFF_BUTTON = 15 => "Has Audio On/Off Button",
        SKIP_BUTTON = 16 => "Ad Provides Skip Button",
        ADOBE_FLASH = 17 => "Adobe Flash",
    }
}

code_list! {
    /// `Bid.apis` and the deprecated `Bid.api`: API frameworks the markup needs. AdCOM 1.0 "List: API Frameworks"
    /// (OpenRTB 2.6 §4.2.3); 500+ are vendor-specific.
    ApiFramework {
        VPAID_1 = 1 => "VPAID 1.0",
        VPAID_2 = 2 => "VPAID 2.0",
        MRAID_1 = 3 => "MRAID 1.0",
        ORMMA = 4 => "ORMMA",
        MRAID_2 = 5 => "MRAID 2.0",
        MRAID_3 = 6 => "MRAID 3.0",
        OMID_1 = 7 => "OMID 1.0",
        SIMID_1_0 = 8 => "SIMID 1.0",
        SIMID_1_1 = 9 => "SIMID 1.1",
    }
}

code_list! {
    /// `Bid.cattax`: the taxonomy of `Bid.cat` (default 1 when absent, OpenRTB 2.6 §4.2.3). AdCOM 1.0
    /// "List: Category Taxonomies"; later additions and vendor taxonomies (500+) are kept as numbers.
    CategoryTaxonomy {
        CONTENT_1_0 = 1 => "IAB Tech Lab Content Category Taxonomy 1.0",
        CONTENT_2_0 = 2 => "IAB Tech Lab Content Category Taxonomy 2.0",
        AD_PRODUCT_1_0 = 3 => "IAB Tech Lab Ad Product Taxonomy 1.0",
        AUDIENCE_1_1 = 4 => "IAB Tech Lab Audience Taxonomy 1.1",
        CONTENT_2_1 = 5 => "IAB Tech Lab Content Taxonomy 2.1",
        CONTENT_2_2 = 6 => "IAB Tech Lab Content Taxonomy 2.2",
        CONTENT_3_0 = 7 => "IAB Tech Lab Content Taxonomy 3.0",
    }
}

code_list! {
    /// `Bid.protocol`: video/audio response protocol of the markup. AdCOM 1.0 "List: Creative Subtypes -
    /// Audio/Video" (OpenRTB 2.6 §4.2.3).
    Protocol {
        VAST_1_0 = 1 => "VAST 1.0",
        VAST_2_0 = 2 => "VAST 2.0",
        VAST_3_0 = 3 => "VAST 3.0",
        VAST_1_0_WRAPPER = 4 => "VAST 1.0 Wrapper",
        VAST_2_0_WRAPPER = 5 => "VAST 2.0 Wrapper",
        VAST_3_0_WRAPPER = 6 => "VAST 3.0 Wrapper",
        VAST_4_0 = 7 => "VAST 4.0",
        VAST_4_0_WRAPPER = 8 => "VAST 4.0 Wrapper",
        DAAST_1_0 = 9 => "DAAST 1.0",
        DAAST_1_0_WRAPPER = 10 => "DAAST 1.0 Wrapper",
        VAST_4_1 = 11 => "VAST 4.1",
        VAST_4_1_WRAPPER = 12 => "VAST 4.1 Wrapper",
        VAST_4_2 = 13 => "VAST 4.2",
        VAST_4_2_WRAPPER = 14 => "VAST 4.2 Wrapper",
        VAST_4_3 = 15 => "VAST 4.3",
        VAST_4_3_WRAPPER = 16 => "VAST 4.3 Wrapper",
    }
}

code_list! {
    /// `Bid.qagmediarating`: creative media rating per IQG guidelines. AdCOM 1.0 "List: Media Ratings"
    /// (OpenRTB 2.6 §4.2.3).
    MediaRating {
        ALL_AUDIENCES = 1 => "All Audiences",
        OVER_12 = 2 => "Everyone Over Age 12",
        MATURE = 3 => "Mature Audiences",
    }
}

code_list! {
    /// `Bid.mtype`: type of the creative markup. The values are listed inline in OpenRTB 2.6 §4.2.3; values
    /// outside 1–4 are kept and reported by validation (`invalid_mtype`).
    MarkupType {
        BANNER = 1 => "Banner",
        VIDEO = 2 => "Video",
        AUDIO = 3 => "Audio",
        NATIVE = 4 => "Native",
    }
}

code_list! {
    /// `Bid.slotinpod`: the pod position the bid is eligible for (default 0 when absent). AdCOM 1.0
    /// "List: Slot Position in Pod" (OpenRTB 2.6 §4.2.3).
    SlotPositionInPod {
        LAST = -1 => "Last",
        ANY = 0 => "Any",
        FIRST = 1 => "First",
        FIRST_OR_LAST = 2 => "First or Last",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_and_unknown_values() {
        assert_eq!(MarkupType::VIDEO, MarkupType(2));
        assert_eq!(MarkupType(2).name(), Some("Video"));
        assert_eq!(MarkupType(7).name(), None);
        assert_eq!(ApiFramework::from(501).0, 501);
        assert_eq!(SlotPositionInPod::LAST.name(), Some("Last"));
        assert_eq!(
            serde_json::to_string(&CreativeAttribute::SURVEYS).unwrap(),
            "11"
        );
    }
}
