//! The document the list makes: every route, its permission, its headers and problems.

use super::*;
use crate::http::edge::request_context::REQUEST_ID;
use crate::http::openapi::BEARER;

#[test]
fn the_document_is_openapi_3_1_with_every_route() {
    let document = openapi_document();
    assert!(document["openapi"].as_str().unwrap().starts_with("3.1"));
    for (path, method) in [
        ("/api/orders", "post"),
        ("/api/orders/{orderId}", "get"),
        ("/api/orders/{orderId}/payments", "post"),
        ("/api/operations/{operationId}", "get"),
        ("/healthz", "get"),
        ("/readyz", "get"),
        ("/metrics", "get"),
        ("/openapi.json", "get"),
    ] {
        let operation = &document["paths"][path][method];
        assert!(operation.is_object(), "{method} {path}");
        for (status, response) in operation["responses"].as_object().unwrap() {
            assert_eq!(
                response["headers"][REQUEST_ID]["required"], true,
                "{method} {path} {status}"
            );
        }
    }
}

#[test]
fn always_sent_headers_are_required_and_the_others_are_not() {
    let document = openapi_document();
    let create = &document["paths"]["/api/orders"]["post"]["responses"];
    assert_eq!(create["201"]["headers"]["Location"]["required"], true);
    assert!(create["201"]["headers"]["Idempotent-Replayed"]["required"].is_null());
    assert_eq!(
        create["401"]["headers"]["WWW-Authenticate"]["required"],
        true
    );
    assert!(create["409"]["headers"]["Retry-After"]["required"].is_null());
    assert_eq!(create["503"]["headers"]["Retry-After"]["required"], true);
    let capture = &document["paths"]["/api/orders/{orderId}/payments"]["post"]["responses"];
    assert_eq!(capture["202"]["headers"]["Location"]["required"], true);
}

#[test]
fn each_route_needs_its_permission_and_the_probes_no_token() {
    let document = openapi_document();
    let paths = &document["paths"];
    for (path, method, permission) in [
        ("/api/orders", "post", "orders:create"),
        ("/api/orders/{orderId}", "get", "orders:read"),
        ("/api/orders/{orderId}/payments", "post", "payments:create"),
        ("/api/operations/{operationId}", "get", "payments:read"),
        ("/api/admin/operations", "get", "admin:read"),
        ("/api/admin/operations/{operationId}", "get", "admin:read"),
        (
            "/api/admin/operations/{operationId}/resolve",
            "post",
            "admin:write",
        ),
        (
            "/api/admin/operations/{operationId}/retry",
            "post",
            "admin:write",
        ),
        (
            "/api/admin/operations/{operationId}/cancel",
            "post",
            "admin:write",
        ),
        ("/api/admin/idempotency-keys", "get", "admin:read"),
        ("/api/admin/idempotency-keys", "delete", "admin:write"),
        ("/api/admin/audit", "get", "admin:read"),
    ] {
        assert_eq!(
            paths[path][method]["security"],
            serde_json::json!([{ "bearer": [permission] }]),
            "{method} {path}"
        );
    }
    for path in ["/healthz", "/readyz", "/metrics", "/openapi.json"] {
        assert_eq!(
            paths[path]["get"]["security"],
            serde_json::json!([{}]),
            "{path}"
        );
    }
    let scheme = &document["components"]["securitySchemes"][BEARER];
    assert_eq!(scheme["scheme"], "bearer");
    assert_eq!(scheme["bearerFormat"], "JWT");
}

#[test]
fn an_operations_own_refusals_share_a_status_with_the_key_still_held() {
    let document = openapi_document();
    let schemas = &document["components"]["schemas"];
    let create = &document["paths"]["/api/orders"]["post"]["responses"]["409"];
    let name = create["content"]["application/problem+json"]["schema"]["$ref"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap();
    assert_eq!(
        schemas[name]["allOf"][1]["properties"]["code"]["enum"],
        serde_json::json!(["request_in_progress", "client_order_ref_conflict"])
    );
    let capture = &document["paths"]["/api/orders/{orderId}/payments"]["post"]["responses"];
    assert!(capture["404"].is_object());
    assert!(
        capture["409"]["description"]
            .as_str()
            .unwrap()
            .contains("payment_exists")
    );
}

#[test]
fn the_request_body_carries_its_limits() {
    let document = openapi_document();
    let body = &document["components"]["schemas"]["CreateOrderRequest"];
    assert_eq!(body["additionalProperties"], false);
    let mut required: Vec<&str> = body["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    required.sort_unstable();
    assert_eq!(required, ["clientOrderRef", "quantity", "sku"]);
    for member in ["clientOrderRef", "sku"] {
        let schema = &body["properties"][member];
        assert_eq!(schema["pattern"], "^[A-Za-z0-9_-]{1,64}$");
        assert_eq!(
            (&schema["minLength"], &schema["maxLength"]),
            (&1.into(), &64.into())
        );
    }
    assert_eq!(body["properties"]["quantity"]["minimum"], 1);
    assert_eq!(body["properties"]["quantity"]["maximum"], 100);
}

fn parameters(path: &str, method: &str) -> Vec<String> {
    let document = openapi_document();
    document["paths"][path][method]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}:{}",
                p["in"].as_str().unwrap(),
                p["name"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn each_route_documents_the_parameters_its_query_reads() {
    let mut listing = parameters("/api/admin/operations", "get");
    listing.sort();
    assert_eq!(
        listing,
        [
            "query:acceptedAfter",
            "query:acceptedBefore",
            "query:cursor",
            "query:limit",
            "query:state",
            "query:tenant",
            "query:type"
        ]
    );
    assert_eq!(
        parameters("/api/admin/audit", "get"),
        ["query:cursor", "query:limit"]
    );
    for method in ["get", "delete"] {
        assert_eq!(
            parameters("/api/admin/idempotency-keys", method),
            [
                "query:tenant",
                "query:actor",
                "query:operation",
                "query:key"
            ]
        );
    }
}

/// Every `code` enum of the document's schemas, with the `type` enum beside it.
fn documented_problem_types(value: &serde_json::Value, found: &mut Vec<(String, String)>) {
    match value {
        serde_json::Value::Object(map) => {
            if let (Some(codes), Some(types)) = (
                map.get("code").and_then(|c| c["enum"].as_array()),
                map.get("type").and_then(|t| t["enum"].as_array()),
            ) {
                assert_eq!(codes.len(), types.len(), "{map:?}");
                for (code, uri) in codes.iter().zip(types) {
                    found.push((
                        code.as_str().unwrap().to_owned(),
                        uri.as_str().unwrap().to_owned(),
                    ));
                }
            }
            map.values()
                .for_each(|inner| documented_problem_types(inner, found));
        }
        serde_json::Value::Array(items) => items
            .iter()
            .for_each(|inner| documented_problem_types(inner, found)),
        _ => {}
    }
}

#[test]
fn every_problem_type_the_document_lists_has_its_page() {
    let mut found = Vec::new();
    documented_problem_types(&openapi_document(), &mut found);
    assert!(found.len() > 20, "{found:?}");
    for (code, uri) in found {
        assert_eq!(uri, format!("/problems/{code}"));
        let page = PROBLEM_TYPES.page(&code).map(maud::Markup::into_string);
        assert!(
            page.is_some_and(|page| page.contains(&format!("<code>{code}</code>"))),
            "{code} has no page"
        );
    }
    assert!(
        openapi_document()["paths"]["/problems/{code}"]["get"].is_object(),
        "the pages are in the document"
    );
}
