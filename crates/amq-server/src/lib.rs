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
pub mod state;
pub mod store;

pub use config::{Config, Limits, Preload};
pub use engine::Engine;
pub use error::{ApiError, CashuError};
pub use routes::openapi;
pub use serve::run;
pub use state::{ServerClock, StateFilters, StateFiltersConfig};

use std::sync::Arc;
use store::{MemoryStore, Store};

/// Any error of opening the state or serving.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// What the state is opened with.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The limits.
    pub limits: Limits,
    /// The write token (`None`: writes are open).
    pub token: Option<String>,
    /// The Cashu compact state filter sequences.
    pub state_filters: StateFiltersConfig,
    /// The state filters' clock.
    pub clock: ServerClock,
}

/// What every handler shares: the engine, the state filters and the settings.
#[derive(Debug, Clone)]
pub struct AppState(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    engine: Engine,
    state_filters: StateFilters,
    settings: Settings,
}

impl AppState {
    /// The state over a store: every filter and keyset is loaded, the committer started,
    /// and every configured state-filter sequence opened.
    ///
    /// # Errors
    /// The store failed or holds what this version cannot read; a bad state-filter setting.
    pub fn open(store: Arc<dyn Store>, settings: Settings) -> Result<Self, Error> {
        let state_filters = StateFilters::open(
            store.clone(),
            &settings.state_filters,
            settings.clock.clone(),
        )
        .map_err(|e| format!("state filters: {e}"))?;
        Ok(AppState(Arc::new(Inner {
            engine: Engine::open(store)?,
            state_filters,
            settings,
        })))
    }

    /// [`open`](Self::open) with these limits and token and no state filters.
    ///
    /// # Errors
    /// As [`open`](Self::open).
    pub fn new(
        store: Arc<dyn Store>,
        limits: Limits,
        token: Option<String>,
    ) -> Result<Self, Error> {
        Self::open(
            store,
            Settings {
                limits,
                token,
                ..Settings::default()
            },
        )
    }

    /// The state over a fresh [`MemoryStore`] (tests).
    ///
    /// # Panics
    /// Never: an empty store has nothing to load.
    pub fn in_memory(limits: Limits, token: Option<String>) -> Self {
        Self::new(Arc::new(MemoryStore::new()), limits, token).expect("an empty store opens")
    }

    /// The filters and keysets.
    pub fn engine(&self) -> &Engine {
        &self.0.engine
    }

    /// The state filters.
    pub fn state_filters(&self) -> &StateFilters {
        &self.0.state_filters
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.0.settings
    }

    /// The limits.
    pub fn limits(&self) -> &Limits {
        &self.0.settings.limits
    }

    /// The write token, if writes need one.
    pub fn token(&self) -> Option<&str> {
        self.0.settings.token.as_deref()
    }
}

/// The whole service: every route, with the body limit, the timeout, the write token and
/// gzip as layers.
pub fn app(state: AppState) -> axum::Router {
    routes::router(state)
}
