//! The JSON-RPC side of `/mcp` before rmcp: reading a message (and the
//! 400 answers to one that is not), and JSON-RPC error answers.

use axum::http::StatusCode;
use axum::response::Response;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use serde_json::{Value, json};

/// JSON-RPC 2.0: the body is not JSON (or not sent as JSON).
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC 2.0: JSON, but not a request, notification or response.
pub const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC 2.0: a known method with params that do not fit.
pub const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC 2.0: an error inside the server.
pub const INTERNAL_ERROR: i32 = -32603;

/// The body as rmcp is to read it, or the 400 answer to a body that is not
/// JSON (-32700), not a JSON-RPC message (-32600, with the request's `id`
/// when it has a usable one), or an implemented method with unreadable
/// params (-32602). A whole-number `id` written as a fraction (`3.0`, the same
/// JSON number as `3`) is rewritten as an integer, which is all rmcp reads.
pub(super) fn read_message(bytes: axum::body::Bytes) -> Result<axum::body::Bytes, Box<Response>> {
    let refuse = |code, id, message: &str| {
        Box::new(jsonrpc_error(StatusCode::BAD_REQUEST, code, id, message))
    };
    let mut value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        refuse(
            PARSE_ERROR,
            Value::Null,
            &format!("Parse error: the body is not JSON ({e})"),
        )
    })?;
    let mut bytes = bytes;
    // MCP ids are strings or integers (rmcp reads 64-bit signed ones).
    let id = match value.get("id") {
        None => Value::Null,
        Some(id @ Value::String(_)) => id.clone(),
        Some(Value::Number(n)) if n.is_i64() => Value::Number(n.clone()),
        Some(Value::Number(n)) => {
            let whole = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18);
            let Some(whole) = whole else {
                return Err(refuse(INVALID_REQUEST, Value::Null, BAD_ID));
            };
            // In range and whole: the cast is exact.
            value["id"] = json!(whole as i64);
            bytes = serde_json::to_vec(&value).unwrap_or_default().into();
            value["id"].clone()
        }
        Some(_) => return Err(refuse(INVALID_REQUEST, Value::Null, BAD_ID)),
    };
    match serde_json::from_slice::<ClientJsonRpcMessage>(&bytes) {
        Err(e) => Err(refuse(
            INVALID_REQUEST,
            id,
            &format!("Invalid Request: not a JSON-RPC 2.0 message this server reads ({e})"),
        )),
        Ok(message) => match unreadable_params(&message).or_else(|| bad_params(&value)) {
            Some(method) => Err(refuse(
                INVALID_PARAMS,
                id,
                &format!("Invalid params: the params of `{method}` do not fit the MCP schema"),
            )),
            None => Ok(bytes),
        },
    }
}

const BAD_ID: &str = "Invalid Request: id must be a string or a 64-bit integer";

/// The requests this server implements (its tools and the two lifecycles).
pub const IMPLEMENTED: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "server/discover",
];

/// An implemented method whose params rmcp could not read, so that it fell
/// back to a custom request (rmcp would answer "method not found:
/// initialize" with 200, which misleads the client): its name, for a -32602
/// answer. Other methods are rmcp's to answer (-32601), and notifications are
/// accepted and ignored (202), whatever their params.
fn unreadable_params(message: &ClientJsonRpcMessage) -> Option<String> {
    match message {
        JsonRpcMessage::Request(r) => match &r.request {
            ClientRequest::CustomRequest(c) if IMPLEMENTED.contains(&c.method.as_str()) => {
                Some(c.method.clone())
            }
            _ => None,
        },
        _ => None,
    }
}

/// A request for an implemented method whose params break the schema the
/// OpenAPI document publishes but that rmcp reads all the same (ignoring the
/// member) and answers 200: params that are not an object, a `_meta` that is
/// not an object, a `tools/list` cursor that is not a string, `tools/call`
/// arguments that are not an object. Its name, for a -32602 answer.
fn bad_params(value: &Value) -> Option<String> {
    let method = value.get("method").and_then(Value::as_str)?;
    value.get("id")?;
    let params = value.get("params")?;
    let not = |key: &str, ok: fn(&Value) -> bool| params.get(key).is_some_and(|v| !ok(v));
    let bad = match method {
        "initialize" => !params.is_object(),
        "ping" => !params.is_object() || not("_meta", Value::is_object),
        "tools/list" => {
            !params.is_object() || not("_meta", Value::is_object) || not("cursor", Value::is_string)
        }
        "tools/call" => {
            !params.is_object()
                || not("_meta", Value::is_object)
                || not("arguments", Value::is_object)
        }
        _ => false,
    };
    bad.then(|| method.to_owned())
}

/// A JSON-RPC 2.0 error object as the whole answer.
pub(super) fn jsonrpc_error(status: StatusCode, code: i32, id: Value, message: &str) -> Response {
    // Written out so that the members keep the order JSON-RPC lists them in.
    let message = Value::String(message.to_owned());
    let body =
        format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message}}}}}"#);
    let mut response = crate::web::serve::policy::typed("application/json", body);
    *response.status_mut() = status;
    response
}
