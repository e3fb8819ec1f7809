//! Replays with tokens an identity provider signed (RS256, verified with its JWKS) on a
//! server of their own, to set the verification's cost against the HS256 replay's.

use std::time::{Duration, Instant};

use tests::{ALL_PERMISSIONS, Api, IdentityProvider, Service, ServiceOptions, valid_claims};

use crate::report::Scenario;
use crate::scenarios::{Bench, Target};

pub(crate) fn replay(bench: &Bench, options: &ServiceOptions) -> Scenario {
    let idp = IdentityProvider::start();
    let mut options = options.clone();
    options.auth_secret = None;
    options.env.extend(idp.env());
    options.log_file = options
        .log_file
        .map(|log| log.with_file_name("rs256-server.log"));
    let service = Service::start(&options);
    let api = Api::new(service.base_url());
    let deadline = Instant::now() + Duration::from_secs(30);
    while api.get("/readyz", None).status != 200 {
        assert!(
            Instant::now() < deadline,
            "the RS256 server never got its keys"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let token = idp.mint("rs256", &valid_claims(1, 1, ALL_PERMISSIONS));
    let target = Target {
        base: service.base_url(),
        bearer: &token,
        pid: service.pid(),
    };
    bench.replay_on("replay-rs256", &target, false)
}
