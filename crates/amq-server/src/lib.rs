//! `amq serve`: the amq filters as a durable HTTP service.
//!
//! - amq's own JSON API under `/api/v1` (create, add, query, delete, export, import and merge
//!   filters; plan; the OpenAPI document at `/api/v1/openapi.json`, generated from this code);
//! - the Cashu mint filter endpoints of the NUT-23 draft (`/v1/filter/spent/{keyset_id}`,
//!   `/v1/filter/issued/{keyset_id}`, `/v1/info`), fed through `/api/v1/cashu/...`;
//! - a name-availability page at `/`.
//!
//! [`app`] builds the router over an [`AppState`], so every route is tested in-process;
//! [`run`] opens the store, preloads word lists, binds and serves. A 2xx answer to a change
//! means the change is on disk (see [`engine`]).
//!
//! ```no_run
//! use amq_server::{app, AppState, Limits};
//! let state = AppState::in_memory(Limits::default(), None);
//! let router: axum::Router = app(state);
//! ```

pub mod config;
pub mod engine;
pub mod error;
pub mod extract;
mod layers;
mod page;
mod routes;
mod serve;
pub mod store;

pub use config::{Config, Limits, Preload};
pub use engine::Engine;
pub use error::{ApiError, CashuError};
pub use routes::openapi;
pub use serve::run;

use std::sync::Arc;
use store::{MemoryStore, Store, StoreError};

/// What every handler shares: the engine, the limits and the write token.
#[derive(Debug, Clone)]
pub struct AppState(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    engine: Engine,
    limits: Limits,
    token: Option<String>,
}

impl AppState {
    /// The state over a store (opened: every filter is loaded and the committer started);
    /// with `token`, every write needs `Authorization: Bearer <token>`.
    ///
    /// # Errors
    /// The store failed or holds what this version cannot read.
    pub fn new(
        store: Arc<dyn Store>,
        limits: Limits,
        token: Option<String>,
    ) -> Result<Self, StoreError> {
        Ok(AppState(Arc::new(Inner {
            engine: Engine::open(store)?,
            limits,
            token,
        })))
    }

    /// The state over a fresh [`MemoryStore`] (tests).
    pub fn in_memory(limits: Limits, token: Option<String>) -> Self {
        Self::new(Arc::new(MemoryStore::new()), limits, token).expect("an empty store opens")
    }

    /// The filters and keysets.
    pub fn engine(&self) -> &Engine {
        &self.0.engine
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.0.limits
    }

    /// The write token, if writes need one.
    pub fn token(&self) -> Option<&str> {
        self.0.token.as_deref()
    }
}

/// The whole service: every route, with the body limit, the timeout, the write token and
/// gzip as layers.
pub fn app(state: AppState) -> axum::Router {
    routes::router(state)
}
