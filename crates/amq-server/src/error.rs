//! One error type for amq's own API: a status and `{"error": "..."}`; and the Cashu error
//! shape (`{"detail": "...", "code": n}`, NUT-00) for the Cashu routes.

use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// An error of amq's API: its HTTP status and a one-line message, sent as
/// `{"error": "..."}`. Bad input gets a 4xx; only the store failing gets a 5xx.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The message (lower case, no trailing period).
    pub message: String,
}

/// The JSON body of every error of amq's API.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// What went wrong.
    pub error: String,
}

impl ApiError {
    /// An error with this status and message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
        }
    }
    /// 400: the request is malformed (not JSON, bad hex or base64, a bad name).
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }
    /// 401: a write without the bearer token.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, message)
    }
    /// 404: no such filter, keyset or item.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }
    /// 409: the request conflicts with what is there (the name exists, the kind cannot do it,
    /// the filter is full).
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, message)
    }
    /// 413: the body or the item list is over its limit.
    pub fn too_large(message: impl Into<String>) -> Self {
        Self::new(StatusCode::PAYLOAD_TOO_LARGE, message)
    }
    /// 422: well-formed but not acceptable (bad parameters, over the memory cap).
    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }
    /// 503: the store failed; the change did not happen.
    pub fn storage(message: impl std::fmt::Display) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, message.to_string())
    }
    /// 500: a bug (a corrupt record); never caused by input.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status.as_u16(), self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (
            self.status,
            axum::Json(ErrorBody {
                error: self.message,
            }),
        )
            .into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                "Bearer".parse().expect("a header"),
            );
        }
        r
    }
}

impl From<amq::Error> for ApiError {
    /// What the filter refused: 409 when it is the filter's state or kind (full, a kind that
    /// cannot do it, a shape or kind that does not match), 422 for bad parameters or bytes.
    fn from(e: amq::Error) -> Self {
        match e {
            amq::Error::Full { .. }
            | amq::Error::Unsupported { .. }
            | amq::Error::ShapeMismatch { .. }
            | amq::Error::WrongKind { .. } => ApiError::conflict(e.to_string()),
            _ => ApiError::unprocessable(e.to_string()),
        }
    }
}

impl From<serde_json::Error> for ApiError {
    /// Broken JSON is a 400; JSON of the wrong shape a 422.
    fn from(e: serde_json::Error) -> Self {
        match e.classify() {
            serde_json::error::Category::Data => ApiError::unprocessable(e.to_string()),
            _ => ApiError::bad_request(format!("invalid JSON: {e}")),
        }
    }
}

impl From<BytesRejection> for ApiError {
    /// A body over the limit is a 413; one that cannot be read a 400.
    fn from(r: BytesRejection) -> Self {
        let status = r.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::too_large("the request body is over the limit (--max-body-bytes)")
        } else if status.is_client_error() {
            ApiError::new(status, r.body_text())
        } else {
            ApiError::bad_request(r.body_text())
        }
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> Self {
        ApiError::bad_request(r.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        ApiError::bad_request(r.body_text())
    }
}

/// A Cashu error (NUT-00): `{"detail": "...", "code": n}` with a 4xx status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CashuError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The Cashu error code (NUT-00's table: 12001 "Keyset is not known").
    pub code: u32,
    /// The message.
    pub detail: String,
}

/// The JSON body of a Cashu error.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CashuErrorBody {
    /// What went wrong.
    pub detail: String,
    /// The Cashu error code.
    pub code: u32,
}

impl CashuError {
    /// 12001, "Keyset is not known" (NUT-00), with a 404.
    pub fn unknown_keyset(id: &str) -> Self {
        CashuError {
            status: StatusCode::NOT_FOUND,
            code: 12001,
            detail: format!("keyset is not known: {id}"),
        }
    }
}

impl IntoResponse for CashuError {
    fn into_response(self) -> Response {
        (
            self.status,
            axum::Json(CashuErrorBody {
                detail: self.detail,
                code: self.code,
            }),
        )
            .into_response()
    }
}
