//! The docs page (`/docs`) before rendering: the OpenAPI document flattened
//! into operations, parameters and responses ([`super::super::openapi`]
//! builds it; [`super`] renders it four ways).

use serde::Serialize;

/// One operation of the API, for the docs page and llms.txt.
#[derive(Debug, Clone, Serialize)]
pub struct Operation {
    pub method: String,
    pub path: String,
    pub summary: String,
    pub description: String,
    pub parameters: Vec<Parameter>,
    pub responses: Vec<ResponseDoc>,
}

/// A parameter of an operation.
#[derive(Debug, Clone, Serialize)]
pub struct Parameter {
    pub name: String,
    pub location: String,
    pub required: bool,
    pub description: String,
}

/// A response of an operation.
#[derive(Debug, Clone, Serialize)]
pub struct ResponseDoc {
    pub status: String,
    pub description: String,
    pub media_types: Vec<String>,
}

/// The human API documentation: the OpenAPI document, flattened.
#[derive(Debug, Clone, Serialize)]
pub struct DocsPage {
    pub title: String,
    pub version: String,
    pub description: String,
    pub base_url: String,
    pub operations: Vec<Operation>,
    pub attribution: String,
}
