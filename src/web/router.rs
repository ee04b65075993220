//! The whole service as one tower service: the hot route beside axum's
//! router, every route of the table ([`super::routes`]) mapped to its handler,
//! all behind the common layer ([`super::common`]).

use axum::Router;
use axum::routing::{get, post};

use super::common::CommonLayer;
use super::routes;
use super::state::{AppState, Limits};
use super::{asn, assets, batch, discovery, field, hot, mcp, metrics, openapi, pages};

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
    for (route, handler) in [
        (&routes::ROOT, get(pages::root)),
        (&routes::HEALTHZ, get(pages::healthz)),
        (&routes::API_ME, get(pages::api_me)),
        (&routes::API_IP_BATCH, post(batch::api_ip_batch)),
        (&routes::API_IP_MISSING, get(pages::api_ip_missing)),
        (&routes::API_IP_FIELD_MISSING, get(pages::api_ip_missing)),
        (&routes::API_IP, get(pages::api_ip)),
        (&routes::API_ME_FIELD, get(field::api_me_field)),
        (&routes::API_IP_FIELD, get(field::api_ip_field)),
        (&routes::API_ASN_MISSING, get(asn::api_asn_missing)),
        (&routes::API_ASN_CSV, get(asn::api_asn_csv)),
        (&routes::API_ASN, get(asn::api_asn)),
        (&routes::DOCS, get(openapi::docs_page)),
        (&routes::DOCS_TRY, get(openapi::try_it::try_it)),
        (&routes::OPENAPI, get(openapi::openapi_json)),
        (&routes::OPENAPI_ALIAS, get(openapi::openapi_alias)),
        (&routes::LLMS_TXT, get(openapi::llms_txt)),
        (&routes::API_CATALOG, get(discovery::api_catalog)),
        (&routes::SERVER_CARD, get(discovery::server_card)),
        (&routes::SERVER_CARD_ALIAS, get(discovery::server_card)),
        (&routes::SKILLS_INDEX, get(discovery::skills_index)),
        (&routes::SKILL_MD, get(discovery::skill_md)),
        (&routes::MCP, mcp::route(&state).get(discovery::mcp_get)),
        (&routes::METRICS, get(metrics::metrics)),
        (&routes::ASSETS, get(assets::asset)),
        (&routes::ASN_PAGE, get(asn::asn_page)),
        (&routes::ADDRESS, get(pages::address_page)),
    ] {
        router = router.route(route.template, handler);
    }
    router
        .fallback(pages::not_found)
        .method_not_allowed_fallback(pages::method_not_allowed)
        .layer(common)
        .with_state(state)
}
