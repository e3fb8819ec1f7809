"""Schemathesis hooks for tests/tests/http/openapi.rs.

A listing's cursor is opaque: the document can give its alphabet, not which strings the
server made, so a generated cursor is refused (400 invalid_query at /cursor) however valid
it looks. That failure of the positive-data check is dropped too, and only when /cursor is
the only parameter the server named.

JSON Schema counts 1.0 as an integer; the service refuses it as not a JSON integer
(docs/http-api.md, "Request bodies"), and no schema can say so. This drops exactly that
failure of the positive-data check: a 400 whose every error is "must be a JSON integer"
at a member the generated body holds as a float with no fraction. Every other rejection of
schema-valid data still fails the run.
"""

import json

import schemathesis


def _integral_float_members(body, problem):
    errors = problem.get("errors") or []
    if not errors or not isinstance(body, dict):
        return False
    for error in errors:
        if error.get("reason") != "must be a JSON integer":
            return False
        value = body.get(error.get("pointer", "").lstrip("/"))
        if not (isinstance(value, float) and value.is_integer()):
            return False
    return True


def _made_up_cursor(problem):
    errors = problem.get("errors") or []
    return (
        problem.get("code") == "invalid_query"
        and bool(errors)
        and all(error.get("pointer") == "/cursor" for error in errors)
    )


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if failure.code != "ST202" or response.status_code != 400:
        return True
    try:
        problem = json.loads(response.content)
    except ValueError:
        return True
    return not (_integral_float_members(case.body, problem) or _made_up_cursor(problem))
