//! JSON-RPC errors rmcp leaves to the server. A request whose method rmcp knows but whose params
//! it cannot read (`tools/call` without a `name`, `arguments` that are not an object) reaches
//! the handler as a *custom* request, which rmcp would answer -32601 "method not found": the
//! method exists, its params are wrong, so umbel answers -32602 "invalid params" naming why.

use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CustomRequest, ErrorCode};

/// The client-to-server request methods of MCP that umbel's server answers.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// The error for a request that reached the handler as a custom request.
pub fn custom_request_error(request: &CustomRequest) -> ErrorData {
    let method = request.method.as_str();
    if !KNOWN_METHODS.contains(&method) {
        return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, method.to_string(), None);
    }
    let params = request.params.clone().unwrap_or(serde_json::Value::Null);
    let detail = match method {
        "tools/call" => match serde_json::from_value::<CallToolRequestParams>(params) {
            Err(e) => e.to_string(),
            Ok(_) => "params of the wrong shape".to_string(),
        },
        _ => "params of the wrong shape".to_string(),
    };
    ErrorData::invalid_params(format!("invalid params for `{method}`: {detail}"), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn custom(method: &str, params: Option<serde_json::Value>) -> CustomRequest {
        CustomRequest::new(method.to_string(), params)
    }

    #[test]
    fn a_known_method_with_unreadable_params_is_invalid_params() {
        let e = custom_request_error(&custom("tools/call", Some(serde_json::json!({}))));
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert!(e.message.contains("missing field `name`"), "{}", e.message);
        let e = custom_request_error(&custom("nope/nope", None));
        assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
    }
}
