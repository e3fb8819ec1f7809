//! `GET /problems/{code}`: what each problem `type` names, served at that URI
//! (`docs/http-api.md#problem-types`). The catalog is every problem the document lists: the
//! routes' shared ones and each operation's own refusals, gathered in `crate::api`'s list.

use std::collections::BTreeMap;

use actix_web::HttpResponse;
use actix_web::http::header::{CONTENT_SECURITY_POLICY, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS};
use actix_web::web::{Data, Path};
use maud::{DOCTYPE, Markup, html};

use crate::http::edge::problem::{Later, Problem};
use crate::http::edge::respond;

/// Each code's problems: one code may be said with several details (one per refusal).
#[derive(Debug, Default)]
pub(crate) struct ProblemTypes(BTreeMap<&'static str, Vec<Problem>>);

impl ProblemTypes {
    pub(crate) fn gathered(problems: impl IntoIterator<Item = Problem>) -> Self {
        let mut types: BTreeMap<&'static str, Vec<Problem>> = BTreeMap::new();
        for problem in problems {
            let said = types.entry(problem.code).or_default();
            if !said.iter().any(|known| known.detail == problem.detail) {
                said.push(problem);
            }
        }
        Self(types)
    }

    /// `None` when no problem has `code`.
    pub(crate) fn page(&self, code: &str) -> Option<Markup> {
        let said = self.0.get(code)?;
        let first = said.first()?;
        let may_succeed = said.iter().any(|p| p.later == Later::MaySucceed);
        Some(html! {
            (DOCTYPE)
            html lang="en" {
                head {
                    meta charset="utf-8";
                    title { "Problem: " (first.title) }
                }
                body {
                    h1 { (first.title) }
                    p { "Code " code { (first.code) } ", status " (first.status) "." }
                    @for problem in said {
                        p { (problem.detail) }
                    }
                    h2 { "The same request, with the same key" }
                    @if may_succeed {
                        p { "May succeed later: nothing that stands in the way was stored \
                             under the key. Send it again unchanged, with the same key (after \
                             Retry-After where it is given, or once the cause above is fixed)." }
                    } @else {
                        p { "Gets this answer again: change what the detail names first. \
                             A request that means something else needs a new key." }
                    }
                }
            }
        })
    }
}

#[utoipa::path(
    get,
    path = "/problems/{code}",
    tag = "operations",
    operation_id = "problemType",
    summary = "What a problem type means",
    description = "No token needed. The page a problem's `type` (`/problems/<code>`) names: \
        what the problem means, and whether the same request with the same key can succeed \
        later. Every code this document lists has one.",
    params(("code" = String, Path, description = "The problem's `code`.")),
    security(()),
    responses(
        (status = 200, description = "The problem type's description.", body = String, content_type = "text/html"),
        (status = 404, description = "No problem has this code.", body = crate::http::openapi::problem_schemas::NotFound, content_type = "application/problem+json"),
    ),
)]
// Generic like every route of the list (`crate::api`), which registers each alike.
#[allow(clippy::extra_unused_type_parameters)]
pub(crate) async fn problem_type<S, H>(
    code: Path<String>,
    types: Data<&'static ProblemTypes>,
) -> HttpResponse {
    match types.page(&code) {
        Some(page) => HttpResponse::Ok()
            .insert_header((CONTENT_TYPE, "text/html; charset=utf-8"))
            .insert_header((CONTENT_SECURITY_POLICY, "default-src 'none'"))
            .insert_header((X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .body(page.into_string()),
        None => respond::problem(&Problem::not_found()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_said_several_ways_has_one_page_with_each_detail() {
        let types = ProblemTypes::gathered([
            Problem::new(409, "not_now", "Not now", "First reason."),
            Problem::new(409, "not_now", "Not now", "Second reason."),
            Problem::new(409, "not_now", "Not now", "First reason."),
            Problem::internal(),
        ]);
        let page = types
            .page("not_now")
            .map(Markup::into_string)
            .unwrap_or_default();
        assert_eq!(page.matches("First reason.").count(), 1);
        assert!(page.contains("Second reason."));
        assert!(page.contains("Gets this answer again"));
        let internal = types
            .page("internal")
            .map(Markup::into_string)
            .unwrap_or_default();
        assert!(internal.contains("May succeed later"));
        assert!(types.page("no_such_code").is_none());
    }
}
