//! A session's permission mode and model: the mode read from its worker's screen when the
//! session opens or loads (`umbel mode`), switched with the CLI's own key when the client asks
//! (`session/set_mode`, the `mode` config option); the models the CLI's `/model` lists read
//! once per CLI and process (`umbel model`), the model switched with it when the client asks
//! (the `model` config option).

use super::super::modes::{SessionModes, chosen};
use super::{Sessions, blocking};
use crate::operations::Ctx;
use crate::operations::worker::Worker;
use crate::operations::{mode, model};
use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    SessionConfigOptionValue, SessionId, SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse, SetSessionModeRequest, SetSessionModeResponse,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The modes of a session on `worker`, as its screen shows them; where it shows none (a CLI
/// with no such key, a dialog over the prompt) the mode `umbel acp` was started with
/// (`flag`), fixed.
pub fn read_modes(ctx: &Ctx, worker: &Worker, flag: Option<&str>, known: &Listed) -> SessionModes {
    let model = worker.meta.model.as_deref();
    let modes = match mode::mode(ctx, worker, None) {
        Ok(report) => SessionModes::shown(&report, model),
        Err(_) => SessionModes::fixed(flag, model),
    };
    modes.with_models(&listed(ctx, worker, known))
}

/// The models each CLI's `/model` lists, read once per process (opening the picker takes a
/// few keys): by provider.
pub type Listed = Arc<Mutex<HashMap<&'static str, Vec<String>>>>;

/// The models `worker`'s CLI lists, from `known` or its picker (none where umbel does not
/// drive one, or it could not be read).
fn listed(ctx: &Ctx, worker: &Worker, known: &Listed) -> Vec<String> {
    let provider = worker.provider().name();
    if let Some(models) = known.lock().ok().and_then(|k| k.get(provider).cloned()) {
        return models;
    }
    let Ok(report) = model::model(ctx, worker, None) else {
        return Vec::new();
    };
    if let Ok(mut known) = known.lock() {
        known.insert(provider, report.models.clone());
    }
    report.models
}

impl Sessions {
    /// `session/set_mode`: the CLI's key until the worker's screen shows the mode.
    pub async fn set_mode(
        &self,
        req: &SetSessionModeRequest,
    ) -> Result<SetSessionModeResponse, Error> {
        self.switch(&req.session_id, &req.mode_id.0).await?;
        Ok(SetSessionModeResponse::new())
    }

    /// `session/set_config_option`: `mode` as `session/set_mode`; `model` with the CLI's `/model`
    /// to one it lists.
    pub async fn set_option(
        &self,
        req: &SetSessionConfigOptionRequest,
    ) -> Result<SetSessionConfigOptionResponse, Error> {
        let modes = match req.config_id.0.as_ref() {
            "mode" => self.switch(&req.session_id, &chosen(&req.value)).await?,
            "model" => self.switch_model(&req.session_id, &req.value).await?,
            other => {
                return Err(Error::invalid_params().data(serde_json::json!({
                    "reason": format!("no config option {other:?}: the options are \"mode\" and \"model\""),
                })));
            }
        };
        Ok(SetSessionConfigOptionResponse::new(modes.options()))
    }

    /// Switches session `id` to mode `wanted`; its modes after.
    async fn switch(&self, id: &SessionId, wanted: &str) -> Result<SessionModes, Error> {
        let modes = self.modes_held(id)?;
        let Some(target) = modes.switch_to(wanted)? else {
            return Ok(modes);
        };
        let (ctx, worker) = (self.ctx.clone(), self.worker_held(id)?);
        let report = blocking(move || mode::mode(&ctx, &worker, Some(&target))).await?;
        let now = SessionModes::shown(&report, Some(&modes.model)).with_models(&modes.models);
        if let Some(held) = self.lock().get_mut(id.0.as_ref()) {
            held.modes = now.clone();
        }
        Ok(now)
    }

    /// Switches session `id` to the model `value` names; its modes after.
    async fn switch_model(
        &self,
        id: &SessionId,
        value: &SessionConfigOptionValue,
    ) -> Result<SessionModes, Error> {
        let mut modes = self.modes_held(id)?;
        let Some(target) = modes.model_to(value)? else {
            return Ok(modes);
        };
        let (ctx, worker) = (self.ctx.clone(), self.worker_held(id)?);
        let report = blocking(move || model::model(&ctx, &worker, Some(&target))).await?;
        modes.model = report.model.unwrap_or(modes.model);
        if let Some(held) = self.lock().get_mut(id.0.as_ref()) {
            held.modes = modes.clone();
            held.worker.meta.model = Some(modes.model.clone());
        }
        Ok(modes)
    }

    fn modes_held(&self, id: &SessionId) -> Result<SessionModes, Error> {
        self.held(id, |session| session.modes.clone())
    }

    fn worker_held(&self, id: &SessionId) -> Result<Worker, Error> {
        self.held(id, |session| session.worker.clone())
    }

    /// What `read` takes of session `id`.
    fn held<T>(&self, id: &SessionId, read: impl Fn(&super::Held) -> T) -> Result<T, Error> {
        let held = self.lock();
        let session = held
            .get(id.0.as_ref())
            .ok_or_else(|| super::no_session(id))?;
        Ok(read(session))
    }
}
