//! What the rules decide per bid ([`Verdict`], [`BidStatus`]) and where their findings go ([`Findings`],
//! bounded like decode's issues).

use serde::Serialize;

use super::policy::Action;
use super::table::Rule;
use crate::checks::MAX_ISSUES;
use crate::checks::issue::{Issue, Severity, Unlisted};
use crate::model::inline::{InlineItem, InlineVec};

/// Accepted or rejected. Serializes as `"accepted"` or `"rejected"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BidStatus {
    /// No enforced rule rejects the bid.
    Accepted,
    /// An enforced rule rejects the bid.
    Rejected,
}

/// What happened to one bid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Verdict {
    /// Accepted or rejected.
    pub status: BidStatus,
    /// The first enforced rule that rejects the bid (`None` when accepted).
    pub rule: Option<Rule>,
}

impl crate::model::inline::sealed::Sealed for Verdict {}

impl InlineItem for Verdict {
    const UNUSED: Self = Verdict {
        status: BidStatus::Accepted,
        rule: None,
    };
}

/// The verdicts of a response's bids: up to [`VERDICTS_INLINE`] without an allocation (most responses hold a
/// few bids).
pub type Verdicts = InlineVec<Verdict, VERDICTS_INLINE>;

/// The verdicts a [`Verdicts`] holds inline (2 bytes each).
pub const VERDICTS_INLINE: usize = 8;

/// The status codes of a response's issues ([`Validated::statuscodes`](super::Validated::statuscodes)): up to
/// [`STATUSCODES_INLINE`] without an allocation.
pub type StatusCodes = InlineVec<Option<u16>, STATUSCODES_INLINE>;

/// The status codes a [`StatusCodes`] holds inline (4 bytes each).
pub const STATUSCODES_INLINE: usize = 8;

impl Verdict {
    /// The seat-non-bid status code of [`rule`](Self::rule); `None` when accepted.
    pub fn statuscode(&self) -> Option<u16> {
        self.rule.map(Rule::statuscode)
    }
}

/// Where the rules' findings go, bounded by [`MAX_ISSUES`] like decode's.
pub(crate) struct Findings<'f> {
    pub(super) issues: &'f mut Vec<Issue>,
    pub(super) statuscodes: &'f mut StatusCodes,
    pub(super) left_out: usize,
    /// The findings left out, by code and severity.
    pub(super) unlisted: &'f mut Unlisted,
}

impl Findings<'_> {
    pub(super) fn push(&mut self, issue: Issue, statuscode: Option<u16>) {
        if self.issues.len() >= MAX_ISSUES {
            self.left_out += 1;
            self.unlisted.add(issue.code, issue.severity);
            return;
        }
        self.issues.push(issue);
        self.statuscodes.push(statuscode);
    }

    /// Reports a finding of `rule` at `path` under `action` (never `Skip`).
    pub(super) fn rule(
        &mut self,
        rule: Rule,
        action: Action,
        path: String,
        code: &'static str,
        message: String,
    ) {
        let severity = if action == Action::Enforce {
            Severity::Error
        } else {
            Severity::Warning
        };
        let issue = Issue {
            path,
            code,
            severity,
            message: message.into(),
        };
        self.push(issue, Some(rule.statuscode()));
    }
}

/// Ends the list with the count of findings left out (in the `issues_truncated` warning decode wrote, if any).
pub(super) fn note_left_out(
    issues: &mut Vec<Issue>,
    statuscodes: &mut StatusCodes,
    left_out: usize,
) {
    let text =
        format!("{left_out} validation findings not listed (at most {MAX_ISSUES} per document)");
    match issues.last_mut() {
        Some(last) if last.code == "issues_truncated" => {
            last.message = format!("{}; {text}", last.message).into();
        }
        _ => {
            issues.push(Issue {
                path: String::new(),
                code: "issues_truncated",
                severity: Severity::Warning,
                message: text.into(),
            });
            statuscodes.push(None);
        }
    }
}
