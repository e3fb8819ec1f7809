//! What a resolve form carries: the outcome, the provider's id, and the state and
//! generation of the operation as the page that drew the form showed it, so a change made
//! since is told apart from the one the operator saw.

use domain::{Generation, OperationState, ProviderId, Resolution};
use maud::{Markup, html};

use super::sign_in::field;

/// A resolution as the operator asked for it, against the operation as shown.
#[derive(Debug)]
pub(super) struct Asked {
    pub(super) resolution: Resolution,
    pub(super) shown_state: OperationState,
    pub(super) shown_generation: Generation,
}

/// Why a resolve form was not understood.
pub(super) const BAD_FORM: &str = "Choose succeeded with the provider's id (1 to 128 \
    characters of A-Z a-z 0-9 - _), or declined without one.";

/// The fields of a form body or a query string.
pub(super) fn asked(fields: &[u8]) -> Option<Asked> {
    let id = field(fields, "providerId").unwrap_or_default();
    let resolution = match field(fields, "outcome")?.as_str() {
        "succeeded" => Resolution::Succeeded(ProviderId::parse(id.trim()).ok()?),
        "declined" if id.trim().is_empty() => Resolution::Declined,
        _ => return None,
    };
    let shown_state = OperationState::from_api(&field(fields, "state")?).ok()?;
    let shown_generation = field(fields, "generation")?
        .parse()
        .ok()
        .map(Generation::new)?;
    Some(Asked {
        resolution,
        shown_state,
        shown_generation,
    })
}

impl Asked {
    /// The same request as hidden fields, for the confirmation's form.
    pub(super) fn hidden(&self) -> Markup {
        let (outcome, id) = match &self.resolution {
            Resolution::Succeeded(id) => ("succeeded", id.as_str()),
            Resolution::Declined => ("declined", ""),
        };
        html! {
            input type="hidden" name="outcome" value=(outcome);
            input type="hidden" name="providerId" value=(id);
            input type="hidden" name="state" value=(self.shown_state.as_api());
            input type="hidden" name="generation" value=(self.shown_generation.get());
        }
    }
}

/// The form on an operation's page: it leads to the confirmation, which changes nothing.
pub(super) fn form(
    id: &str,
    state: OperationState,
    generation: Generation,
    member: &str,
) -> Markup {
    html! {
        form.resolve method="get" action=(format!("/admin/operations/{id}/resolve")) {
            fieldset {
                legend { "Resolve, after checking the provider" }
                label { input type="radio" name="outcome" value="succeeded" required;
                    " succeeded, with " code { (member) } }
                input type="text" name="providerId" autocomplete="off"
                    aria-label="the provider's id";
                label { input type="radio" name="outcome" value="declined"; " declined" }
                input type="hidden" name="state" value=(state.as_api());
                input type="hidden" name="generation" value=(generation.get());
                button type="submit" { "Resolve…" }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_is_read_whole_or_not_at_all() {
        let read = asked(b"outcome=succeeded&providerId=ch_1&state=needs_review&generation=3");
        let read = read.map(|a| (a.resolution, a.shown_state, a.shown_generation.get()));
        assert_eq!(
            read,
            Some((
                Resolution::Succeeded(ProviderId::parse("ch_1").unwrap()),
                OperationState::NeedsReview,
                3
            ))
        );
        for bad in [
            "outcome=succeeded&providerId=&state=needs_review&generation=3",
            "outcome=declined&providerId=ch_1&state=needs_review&generation=3",
            "outcome=maybe&state=needs_review&generation=3",
            "outcome=declined&state=needs_review",
            "outcome=declined&state=asleep&generation=3",
            "outcome=declined&outcome=succeeded&state=needs_review&generation=3",
        ] {
            assert!(asked(bad.as_bytes()).is_none(), "{bad}");
        }
    }
}
