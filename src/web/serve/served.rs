//! A route of the table attached to what answers it: its handler and the
//! operations the OpenAPI document describes it by. Each handler module
//! lists its own routes (`SERVED`, beside the handlers); the router and the
//! OpenAPI document are both built from those lists
//! ([`crate::web::SERVED`]), so a route is added in the table
//! ([`crate::web::routes`]) and beside its handler, nowhere else.

use axum::routing::MethodRouter;
use utoipa::openapi::{Components, OpenApi};

use super::state::AppState;
use crate::web::routes::Route;

/// One route of the table, served.
pub(crate) struct Served {
    /// Its entry in the table: template and policy.
    pub route: &'static Route,
    /// What answers it, by method.
    pub handler: fn(&AppState) -> MethodRouter<AppState>,
    /// Its operations in the OpenAPI document (none for a route the
    /// document does not describe: an alias, a missing part).
    pub described: &'static [Describe],
}

impl Served {
    /// `route`, answered by `handler`, described by `described`.
    pub(crate) const fn new(
        route: &'static Route,
        handler: fn(&AppState) -> MethodRouter<AppState>,
        described: &'static [Describe],
    ) -> Self {
        Served {
            route,
            handler,
            described,
        }
    }
}

/// Adds one operation to the document, and the schemas it names.
pub(crate) type Describe = fn(&mut OpenApi);

/// The operation `#[utoipa::path]` derived for a handler (its struct
/// `__path_NAME`) with its `tag`, added under the path it names, and the
/// schemas its parameters, bodies and answers name: what utoipa's
/// `#[openapi(paths(...))]` does for each handler it lists (through the
/// same hidden traits that derive and `utoipa-axum` read).
pub(crate) fn describe<P>(doc: &mut OpenApi)
where
    P: utoipa::Path + utoipa::__dev::SchemaReferences + for<'t> utoipa::__dev::Tags<'t>,
{
    let mut schemas = Vec::new();
    P::schemas(&mut schemas);
    let components = doc.components.get_or_insert_with(Components::new);
    components.schemas.extend(schemas);
    let mut operation = P::operation();
    let tags = P::tags();
    if !tags.is_empty() {
        operation.tags = Some(tags.into_iter().map(str::to_owned).collect());
    }
    doc.paths
        .add_path_operation(P::path(), P::methods(), operation);
}
