//! The whole service as one tower service: the hot route beside axum's
//! router, every route of the table ([`super::routes`]) with the handler its
//! module attached to it ([`crate::web::serve::served`], listed in [`crate::web::SERVED`]),
//! all behind the common layer ([`super::common`]).

use axum::Router;

use super::common::CommonLayer;
use super::routes;
use super::{address, hot, openapi};
use crate::web::serve::state::{AppState, Limits};

/// The whole service: every route, each behind the common layer.
pub fn app(state: AppState, limits: &Limits) -> hot::Routes {
    let common = CommonLayer::new(state.clone(), limits);
    let api_ip = common.for_finishing_route(&routes::API_IP, hot::ApiIp::new(state.clone()));
    let rate_limited = state.limiter.is_some() && routes::API_IP.limited;
    hot::Routes::new(api_ip, router(state, common), rate_limited)
}

/// All routes, through axum's router.
fn router(state: AppState, common: CommonLayer) -> Router {
    debug_assert_eq!(routes::shadowed(routes::ALL), None, "a route hides another");
    let mut router = Router::new();
    for served in openapi::all_served() {
        router = router.route(served.route.template, (served.handler)(&state));
    }
    router
        .fallback(address::not_found)
        .method_not_allowed_fallback(address::method_not_allowed)
        .layer(common)
        .with_state(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The router serves the table: every route once (the last one, any
    /// other path, by its fallback), nothing else; the
    /// OpenAPI document describes each documented route under its own
    /// template, and no other.
    #[test]
    fn every_route_of_the_table_is_served_once_and_described_as_it_says() {
        let served: Vec<_> = openapi::all_served().collect();
        // The fallback answers every other path, whatever the method.
        for route in routes::ALL.iter().filter(|r| **r != &routes::PAGE_UNKNOWN) {
            let n = served.iter().filter(|s| s.route == *route).count();
            assert_eq!(n, 1, "{} is served {n} times", route.template);
        }
        for s in &served {
            let template = s.route.template;
            assert!(
                routes::ALL.contains(&s.route),
                "{template} is served but not in routes::ALL"
            );
            assert_eq!(s.route.documented, !s.described.is_empty(), "{template}");
            for describe in s.described {
                let mut doc = utoipa::openapi::OpenApi::default();
                describe(&mut doc);
                let described: Vec<_> = doc.paths.paths.keys().collect();
                assert_eq!(described, [template], "{template}'s operation");
            }
        }
    }
}
