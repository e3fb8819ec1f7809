//! `ADMIN_UI`: whether the on-call page is served under `/admin/`
//! (`docs/admin.md#the-on-call-page`). Off unless set to `1`, so a server that never asked
//! for it serves nothing new. `ADMIN_PUBLIC_ORIGIN`: where browsers open it, the origin its
//! forms must come from; unset, the address the server listens on (see `serve`).

use adapters::api::PublicOrigin;
use application::ErrorChain;

use crate::config::{ConfigError, Lookup, invalid, switch, text};

pub(crate) fn admin_ui(lookup: Lookup<'_>) -> Result<bool, ConfigError> {
    switch(lookup, "ADMIN_UI")
}

/// `None` when unset; read whether or not the page is on, so a bad value is never left
/// waiting for the day it is turned on.
pub(crate) fn admin_public_origin(lookup: Lookup<'_>) -> Result<Option<PublicOrigin>, ConfigError> {
    const VARIABLE: &str = "ADMIN_PUBLIC_ORIGIN";
    let Some(raw) = text(lookup, VARIABLE)? else {
        return Ok(None);
    };
    PublicOrigin::parse(&raw)
        .map(Some)
        .map_err(|error| invalid(VARIABLE, ErrorChain(&error).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_vars;

    #[test]
    fn off_unless_one() {
        assert_eq!(parse_vars(&[], admin_ui), Ok(false));
        assert_eq!(parse_vars(&[("ADMIN_UI", "")], admin_ui), Ok(false));
        assert_eq!(parse_vars(&[("ADMIN_UI", "0")], admin_ui), Ok(false));
        assert_eq!(parse_vars(&[("ADMIN_UI", "1")], admin_ui), Ok(true));
        let error = parse_vars(&[("ADMIN_UI", "yes")], admin_ui).unwrap_err();
        assert_eq!(error.variable, "ADMIN_UI");
    }

    #[test]
    fn the_public_origin_is_a_bare_origin_or_unset() {
        let read = |value| parse_vars(&[("ADMIN_PUBLIC_ORIGIN", value)], admin_public_origin);
        assert_eq!(parse_vars(&[], admin_public_origin).unwrap(), None);
        assert_eq!(read("").unwrap(), None);
        let origin = read("HTTPS://Oncall.Example:443/").unwrap().unwrap();
        assert_eq!(origin.to_string(), "https://oncall.example");
        for bad in [
            "oncall.example",
            "ftp://oncall.example",
            "https://oncall.example/admin",
            "https://oncall.example:70000",
        ] {
            let error = read(bad).unwrap_err();
            assert_eq!(error.variable, "ADMIN_PUBLIC_ORIGIN", "{bad}");
            assert!(!error.to_string().contains("oncall"), "{error}");
        }
    }
}
