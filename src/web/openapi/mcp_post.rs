//! `POST /mcp` in the OpenAPI document, written out by hand rather than
//! derived: rmcp (not a handler of ours) reads the body. It states the
//! transport rules [`super::super::mcp::post`] applies, the JSON-RPC messages
//! it reads and every answer it can give.

use serde_json::json;

use crate::web::discovery;
use crate::web::mcp;
use crate::web::routes;
use crate::web::serve::served::{Served, describe};

/// `/mcp`: rmcp's `POST` (described here) and the server card on `GET`.
pub(crate) const SERVED: &[Served] = &[Served::new(
    &routes::MCP,
    |state| mcp::route(state).get(discovery::mcp_get),
    &[
        describe::<discovery::__path_mcp_get>,
        describe::<__path_mcp_post>,
    ],
)];

/// `POST /mcp` in the OpenAPI document: written out here rather than derived,
/// because rmcp (not a handler of ours) reads the body. It states the
/// transport rules [`super::super::mcp::post`] applies and every answer it can give.
pub(crate) fn describe_mcp_post(doc: &mut serde_json::Value) {
    let schemas = &mut doc["components"]["schemas"];
    for (name, schema) in mcp_message_schemas() {
        schemas[name] = schema;
    }
    schemas["JsonRpcAnswer"] = jsonrpc_answer_schema();
    schemas["JsonRpcError"] = jsonrpc_error_schema();
    schemas["JsonRpcErrorObject"] = jsonrpc_error_object_schema();
    let post = &mut doc["paths"]["/mcp"]["post"];
    // The limit answers (414, 429, 503) were added to the typed stub; keep them.
    let limits = post["responses"].take();
    *post = mcp_post_operation();
    if let (Some(responses), Some(limits)) = (post["responses"].as_object_mut(), limits.as_object())
    {
        for (status, response) in limits {
            responses
                .entry(status.clone())
                .or_insert_with(|| response.clone());
        }
    }
}

fn mcp_post_operation() -> serde_json::Value {
    let max = super::super::mcp::MAX_BODY_BYTES;
    let jsonrpc_error = |description: &str| {
        json!({"description": description,
               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcError"}}}})
    };
    let error = |description: &str| {
        json!({"description": description,
               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ApiError"}}}})
    };
    json!({
        "tags": ["discovery"],
        "operationId": "mcp_post",
        "summary": "MCP Streamable HTTP endpoint (JSON-RPC 2.0; protocol revisions 2026-07-28 and 2025-11-25)",
        "description": format!(
            "One JSON-RPC 2.0 message per request, answered with one JSON object (never an SSE stream). \
             Send `Content-Type: application/json` and `Accept: application/json, text/event-stream` \
             (both listed, as the MCP transport requires; OpenAPI tools ignore an `Accept` parameter, so it is \
             stated here too). Tools: `lookup_ip` (arguments `{{\"ip\": \"8.8.8.8\"}}`) and `my_ip`, both returning \
             the IpInfo object as structured content, `lookup_ips` (arguments `{{\"ips\": [\"8.8.8.8\", \"1.1.1.1\"]}}`, \
             at most the batch limit) returning `{{\"results\": [...]}}`, an IpInfo or Error per input in input order, `lookup_asn` \
             (arguments `{{\"asn\": \"AS15169\"}}`) returning the AsnInfo object, `lookup_prefix` (arguments \
             `{{\"prefix\": \"8.8.8.0/24\"}}`) returning the PrefixInfo object and `lookup_country` (arguments \
             `{{\"country_code\": \"BD\"}}`) returning the CountryInfo object. Stateless: no `Mcp-Session-Id` is issued or needed.\n\n\
             The request body schema is protocol revision 2025-11-25: `initialize`, then requests without \
             `_meta`, with `MCP-Protocol-Version` absent or `2025-11-25`. Revision 2026-07-28 is served too, \
             but ties headers to the body in ways a schema cannot state: no `initialize`; `server/discover` \
             and every request carry `params._meta` with `io.modelcontextprotocol/protocolVersion` \
             `2026-07-28` and `io.modelcontextprotocol/clientCapabilities`, and the headers \
             `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method` (the body's `method`) and, for `tools/call`, \
             `Mcp-Name` (the tool name). A header that is missing or differs from the body is refused with 400 \
             (JSON-RPC -32020 or -32602), as is `MCP-Protocol-Version: 2026-07-28` on a request without `_meta`.\n\n\
             Checked before the message is read, in this order: `Origin` (403), `Accept` (406), `Content-Type` \
             (415), body size, at most {max} bytes whatever `Content-Length` says (413), JSON (400, -32700), \
             JSON-RPC (400, -32600)."
        ),
        "parameters": [
            {"name": "Accept", "in": "header", "required": true,
             "description": "Must list both `application/json` and `text/event-stream`; 406 otherwise.",
             "schema": {"type": "string", "enum": ["application/json, text/event-stream"]}},
            {"name": "Origin", "in": "header", "required": false,
             "description": "Sent by browsers. Absent: accepted. Present: must be the `--public-url` origin or an \
                             `--mcp-allowed-origin`, or (without `--public-url`) name the host and port of `Host`; \
                             any other value is refused with 403.",
             "schema": {"type": "string"}},
            {"name": "MCP-Protocol-Version", "in": "header", "required": false,
             "description": "The protocol revision: absent or `2025-11-25` for the messages of this schema \
                             (`2026-07-28` with the headers and `_meta` the description names). An unknown or \
                             mismatched value is refused with 400.",
             "schema": {"type": "string", "enum": ["2025-11-25"]}},
            {"name": "Mcp-Session-Id", "in": "header", "required": false,
             "description": "Ignored: this server is stateless and issues no session.",
             "schema": {"type": "string"}}
        ],
        "requestBody": {
            "required": true,
            "description": format!("One JSON-RPC 2.0 request or notification, at most {max} bytes."),
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/McpMessage"}}}
        },
        "responses": {
            "200": {"description": "The JSON-RPC response to a request: a `result`, or an `error` (an unknown tool, \
                                    bad tool arguments). Tool failures such as an invalid address are results with \
                                    `isError: true`.",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JsonRpcAnswer"}}}},
            "202": {"description": "A notification was accepted; empty body"},
            "400": jsonrpc_error("The body is not JSON (-32700), not a JSON-RPC message (-32600), or the \
                                  `MCP-Protocol-Version` header or `_meta` are unknown, missing or mismatched"),
            "403": error("`Origin` is present and not accepted (`forbidden_origin`)"),
            "404": jsonrpc_error("Unknown JSON-RPC method (-32601)"),
            "406": error("`Accept` does not list both application/json and text/event-stream (`not_acceptable`)"),
            "413": error(&format!("The body is longer than {max} bytes (`body_too_large`)")),
            "415": error("`Content-Type` is not application/json (`unsupported_media_type`)")
        }
    })
}

/// `POST /mcp`: a stub for `utoipa` (path, tag, limit answers);
/// [`describe_mcp_post`] replaces it with the full description.
#[utoipa::path(post, path = "/mcp", tag = "discovery", operation_id = "mcp_post",
    responses((status = 200, description = "JSON-RPC response", content_type = "application/json")))]
#[allow(dead_code)]
pub(crate) fn mcp_post() {}

/// A reference to the component schema `name`.
fn schema_ref(name: &str) -> serde_json::Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// A JSON-RPC request or notification this server reads (`McpMessage`),
/// each kind and each object in it a named schema, so that client
/// generators make one model each, named as here.
fn mcp_message_schemas() -> Vec<(&'static str, serde_json::Value)> {
    let id = json!({"anyOf": [
        {"type": "string"},
        {"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX}
    ], "description": "The request's id, echoed in the answer", "examples": [1]});
    let jsonrpc =
        json!({"const": "2.0", "description": "The JSON-RPC version", "examples": ["2.0"]});
    let request = |method: &str, description: &str, params: &str, required: bool| {
        let mut required_keys = vec!["jsonrpc", "id", "method"];
        if required {
            required_keys.push("params");
        }
        let mut params = schema_ref(params);
        params["description"] = "The method's parameters".into();
        json!({"type": "object", "description": description, "required": required_keys, "properties": {
            "jsonrpc": jsonrpc,
            "id": id,
            "method": {"const": method, "description": "The method", "examples": [method]},
            "params": params
        }})
    };
    // Members the server does not know are ignored, so no `additionalProperties: false`.
    let meta = json!({"type": "object", "description": "Request metadata; ignored by this server", "examples": [{}]});
    let kinds = [
        "McpInitialize",
        "McpPing",
        "McpToolsList",
        "McpToolsCall",
        "McpOtherRequest",
        "McpNotification",
    ]
    .map(schema_ref);
    vec![
        (
            "McpMessage",
            json!({
                "description": "A JSON-RPC 2.0 request (with `id`) or notification (without) of MCP revision 2025-11-25 (see the operation for 2026-07-28).",
                "oneOf": kinds
            }),
        ),
        (
            "McpInitialize",
            request(
                "initialize",
                "`initialize`: the first request of a 2025-11-25 session",
                "McpInitializeParams",
                true,
            ),
        ),
        (
            "McpInitializeParams",
            json!({"type": "object", "description": "The parameters of `initialize`",
                "required": ["protocolVersion", "capabilities", "clientInfo"], "properties": {
                "protocolVersion": {"const": "2025-11-25", "description": "The protocol revision the client speaks", "examples": ["2025-11-25"]},
                "capabilities": {"type": "object", "description": "The client's capabilities; this server asks for none", "examples": [{}]},
                "clientInfo": {"$ref": "#/components/schemas/McpClientInfo", "description": "Who the client is"}
            }}),
        ),
        (
            "McpClientInfo",
            json!({"type": "object", "description": "The client's name and version", "required": ["name", "version"], "properties": {
                "name": {"type": "string", "description": "The client's name", "examples": ["example-client"]},
                "version": {"type": "string", "description": "The client's version", "examples": ["1.0.0"]}
            }}),
        ),
        (
            "McpPing",
            request(
                "ping",
                "`ping`: answered with an empty result",
                "McpPingParams",
                false,
            ),
        ),
        (
            "McpPingParams",
            json!({"type": "object", "description": "The parameters of `ping` (optional)", "properties": {
                "_meta": meta
            }}),
        ),
        (
            "McpToolsList",
            request(
                "tools/list",
                "`tools/list`: the tools and their input and output schemas",
                "McpToolsListParams",
                false,
            ),
        ),
        (
            "McpToolsListParams",
            json!({"type": "object", "description": "The parameters of `tools/list` (optional)", "properties": {
                "_meta": meta,
                "cursor": {"type": "string", "description": "Where a previous page ended (the list has one page)", "examples": [""]}
            }}),
        ),
        (
            "McpToolsCall",
            request(
                "tools/call",
                "`tools/call`: call a tool",
                "McpToolsCallParams",
                true,
            ),
        ),
        (
            "McpToolsCallParams",
            json!({"type": "object", "description": "The parameters of `tools/call`", "required": ["name"], "properties": {
                "name": {"type": "string", "description": "`lookup_ip`, `lookup_ips`, `my_ip`, `lookup_asn`, `lookup_prefix` or `lookup_country`; another name is a JSON-RPC error", "examples": ["lookup_ip"]},
                "arguments": {"type": "object", "description": "`{\"ip\": \"8.8.8.8\"}` for lookup_ip, `{\"ips\": [\"8.8.8.8\"]}` for lookup_ips, `{}` for my_ip, `{\"asn\": \"AS15169\"}` (or a number, `{\"asn\": 15169}`) for lookup_asn, `{\"prefix\": \"8.8.8.0/24\"}` for lookup_prefix, `{\"country_code\": \"BD\"}` for lookup_country", "examples": [{"ip": "8.8.8.8"}]},
                "_meta": meta
            }}),
        ),
        (
            "McpOtherRequest",
            json!({"type": "object", "required": ["jsonrpc", "id", "method"],
            "description": "Any other request: answered 200 with JSON-RPC error -32601 (method not found)",
            "properties": {
                "jsonrpc": jsonrpc,
                "id": id,
                "method": {"type": "string", "not": {"enum": super::super::mcp::IMPLEMENTED}, "description": "A method this server does not implement", "examples": ["resources/list"]},
                "params": {"description": "Ignored", "examples": [{}]}
            }}),
        ),
        (
            "McpNotification",
            json!({"type": "object", "required": ["jsonrpc", "method"], "not": {"required": ["id"]},
            "description": "A notification (`notifications/initialized`, ...): accepted and ignored, 202",
            "properties": {
                "jsonrpc": jsonrpc,
                "method": {"type": "string", "description": "The notification", "examples": ["notifications/initialized"]},
                "params": {"description": "Ignored", "examples": [{}]}
            }}),
        ),
    ]
}

/// The answer to a request: `result` or `error`.
fn jsonrpc_answer_schema() -> serde_json::Value {
    json!({"type": "object", "description": "A JSON-RPC answer: `result` or `error`", "required": ["jsonrpc"], "properties": {
        "jsonrpc": {"const": "2.0", "description": "The JSON-RPC version", "examples": ["2.0"]},
        "id": {"type": ["string", "integer", "null"], "description": "The request's id", "examples": [1]},
        "result": {"type": "object", "description": "The method's result (a tool's: `content`, `structuredContent`, `isError`)", "examples": [{}]},
        "error": {"$ref": "#/components/schemas/JsonRpcErrorObject", "description": "The error, instead of a result"}
    }, "oneOf": [{"required": ["result"]}, {"required": ["error"]}]})
}

/// A JSON-RPC error object as the whole answer.
fn jsonrpc_error_schema() -> serde_json::Value {
    json!({"type": "object", "description": "A JSON-RPC error answer", "required": ["jsonrpc", "error"], "properties": {
        "jsonrpc": {"const": "2.0", "description": "The JSON-RPC version", "examples": ["2.0"]},
        "id": {"type": ["string", "integer", "null"], "description": "The request's id, or null when it could not be read", "examples": [null]},
        "error": {"$ref": "#/components/schemas/JsonRpcErrorObject", "description": "What went wrong"}
    }})
}

/// The `error` member of a JSON-RPC answer.
fn jsonrpc_error_object_schema() -> serde_json::Value {
    json!({"type": "object", "description": "The `error` member of a JSON-RPC answer", "required": ["code", "message"], "properties": {
        "code": {"type": "integer", "description": "-32700 parse error, -32600 invalid request, -32601 unknown method, -32602 invalid params", "examples": [-32601]},
        "message": {"type": "string", "description": "What went wrong, for people", "examples": ["Method not found"]},
        "data": {"description": "More about the error, if anything", "examples": [null]}
    }})
}
