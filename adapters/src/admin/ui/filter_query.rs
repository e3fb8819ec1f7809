//! A filter form's query string as the admin API's strict parsers take it.

/// The parameters a filter form sends, without the empty ones (a field left blank means
/// "any", where the API's strict parser refuses an empty value).
pub(super) fn filled(query: &str, except: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(query.as_bytes())
        .filter(|(name, value)| !value.is_empty() && name != except)
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect()
}

pub(super) fn encoded(pairs: &[(String, String)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}
