//! What an operation's action form carries: the action (for a resolve, its outcome and the
//! provider's id), and the state and generation of the operation as the page that drew
//! the form showed it, so a change made since is told apart from the one the operator saw
//! (`docs/admin.md#the-on-call-page`). One form, one reading and one description for
//! resolve, retry and cancel.

use domain::{Generation, OperationState, OperatorAction, ProviderId, Resolution};
use maud::{Markup, html};

use super::sign_in::field;

/// An action as the operator asked for it, against the operation as shown.
#[derive(Debug)]
pub(super) struct Asked {
    pub(super) action: OperatorAction,
    pub(super) shown_state: OperationState,
    pub(super) shown_generation: Generation,
}

/// The last segment of an action's address: `/admin/operations/{id}/{segment}`.
pub(super) fn segment(action: &OperatorAction) -> &'static str {
    match action {
        OperatorAction::Resolve(_) => "resolve",
        OperatorAction::Retry => "retry",
        OperatorAction::Cancel => "cancel",
    }
}

/// Why a form was not understood.
pub(super) fn bad_form(segment: &str) -> &'static str {
    if segment == "resolve" {
        "Choose succeeded with the provider's id (1 to 128 characters of A-Z a-z 0-9 - _), \
         or declined without one."
    } else {
        "The form did not carry the operation's state and generation as the page showed them."
    }
}

/// The fields of a form body or a query string, for the action named by `segment`.
pub(super) fn asked(segment: &str, fields: &[u8]) -> Option<Asked> {
    let action = match segment {
        "resolve" => {
            let id = field(fields, "providerId").unwrap_or_default();
            OperatorAction::Resolve(match field(fields, "outcome")?.as_str() {
                "succeeded" => Resolution::Succeeded(ProviderId::parse(id.trim()).ok()?),
                "declined" if id.trim().is_empty() => Resolution::Declined,
                _ => return None,
            })
        }
        "retry" => OperatorAction::Retry,
        "cancel" => OperatorAction::Cancel,
        _ => return None,
    };
    let shown_state = OperationState::from_api(&field(fields, "state")?).ok()?;
    let shown_generation = field(fields, "generation")?
        .parse()
        .ok()
        .map(Generation::new)?;
    Some(Asked {
        action,
        shown_state,
        shown_generation,
    })
}

impl Asked {
    /// The same request as hidden fields, for the confirmation's form.
    pub(super) fn hidden(&self) -> Markup {
        html! {
            @if let OperatorAction::Resolve(resolution) = &self.action {
                @let (outcome, id) = match resolution {
                    Resolution::Succeeded(id) => ("succeeded", id.as_str()),
                    Resolution::Declined => ("declined", ""),
                };
                input type="hidden" name="outcome" value=(outcome);
                input type="hidden" name="providerId" value=(id);
            }
            (shown(self.shown_state, self.shown_generation))
        }
    }
}

fn shown(state: OperationState, generation: Generation) -> Markup {
    html! {
        input type="hidden" name="state" value=(state.as_api());
        input type="hidden" name="generation" value=(generation.get());
    }
}

/// What the action will do, said on its confirmation; `member` names the provider's id in
/// the operation's kind (`providerChargeId` for a capture).
pub(super) fn effect(action: &OperatorAction, member: &str) -> Markup {
    match action {
        OperatorAction::Resolve(Resolution::Succeeded(provider_id)) => html! {
            p.effect { "resolved as succeeded, with " code { (member) } " " code { (provider_id.as_str()) }
                ": its result is recorded with that id, as the provider charged it." }
        },
        OperatorAction::Resolve(Resolution::Declined) => html! {
            p.effect { "resolved as declined: it ends without a result, and its order may be worked again." }
        },
        OperatorAction::Retry => html! {
            p.effect { "retried: back to pending, attempts to 0, due now, under the same downstream key, so a charge the provider already made is found, not made twice. A worker then carries it out." }
        },
        OperatorAction::Cancel => html! {
            p.effect { "cancelled: it ends before a worker carries it out, and its order may be worked again. A charge the provider already made is not reversed." }
        },
    }
}

/// The forms on an operation's page for the actions `offered`: each leads to its
/// confirmation, which changes nothing.
pub(super) fn forms(
    id: &str,
    state: OperationState,
    generation: Generation,
    offered: &[OperatorAction],
    member: &str,
) -> Markup {
    html! {
        @for action in offered {
            @let to = format!("/admin/operations/{id}/{}", segment(action));
            @match action {
                OperatorAction::Resolve(_) => form.resolve method="get" action=(to) {
                    fieldset {
                        legend { "Resolve, after checking the provider" }
                        label { input type="radio" name="outcome" value="succeeded" required;
                            " succeeded, with " code { (member) } }
                        input type="text" name="providerId" autocomplete="off"
                            aria-label="the provider's id";
                        label { input type="radio" name="outcome" value="declined"; " declined" }
                        (shown(state, generation))
                        button type="submit" { "Resolve…" }
                    }
                },
                OperatorAction::Retry => form.retry method="get" action=(to) {
                    fieldset {
                        legend { "Run it again under its own key" }
                        (shown(state, generation))
                        button type="submit" { "Retry…" }
                    }
                },
                OperatorAction::Cancel => form.cancel method="get" action=(to) {
                    fieldset {
                        legend { "Stop it before a worker carries it out" }
                        (shown(state, generation))
                        button type="submit" { "Cancel operation…" }
                    }
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(segment: &str, fields: &str) -> Option<(OperatorAction, OperationState, u64)> {
        asked(segment, fields.as_bytes())
            .map(|a| (a.action, a.shown_state, a.shown_generation.get()))
    }

    #[test]
    fn a_form_is_read_whole_or_not_at_all() {
        assert_eq!(
            read(
                "resolve",
                "outcome=succeeded&providerId=ch_1&state=needs_review&generation=3"
            ),
            Some((
                OperatorAction::Resolve(Resolution::Succeeded(ProviderId::parse("ch_1").unwrap())),
                OperationState::NeedsReview,
                3
            ))
        );
        assert_eq!(
            read("retry", "state=needs_review&generation=3"),
            Some((OperatorAction::Retry, OperationState::NeedsReview, 3))
        );
        assert_eq!(
            read("cancel", "state=pending&generation=0"),
            Some((OperatorAction::Cancel, OperationState::Pending, 0))
        );
        for (segment, bad) in [
            (
                "resolve",
                "outcome=succeeded&providerId=&state=needs_review&generation=3",
            ),
            (
                "resolve",
                "outcome=declined&providerId=ch_1&state=needs_review&generation=3",
            ),
            ("resolve", "outcome=maybe&state=needs_review&generation=3"),
            ("resolve", "outcome=declined&state=needs_review"),
            ("resolve", "outcome=declined&state=asleep&generation=3"),
            (
                "resolve",
                "outcome=declined&outcome=succeeded&state=needs_review&generation=3",
            ),
            ("retry", "state=needs_review"),
            ("cancel", "generation=1"),
            ("cancel", "state=pending&generation=1&generation=2"),
            ("delete", "state=pending&generation=1"),
        ] {
            assert!(asked(segment, bad.as_bytes()).is_none(), "{segment} {bad}");
        }
    }
}
