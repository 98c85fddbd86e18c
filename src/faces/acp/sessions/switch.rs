//! A session's permission mode: read from its worker's screen when the session opens or
//! loads (`umbel mode`), switched with the CLI's own key when the client asks
//! (`session/set_mode`, the `mode` config option). The model is fixed at spawn.

use super::super::modes::{SessionModes, chosen};
use super::{Sessions, blocking};
use crate::operations::Ctx;
use crate::operations::mode;
use crate::operations::worker::Worker;
use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    SessionId, SetSessionConfigOptionRequest, SetSessionConfigOptionResponse,
    SetSessionModeRequest, SetSessionModeResponse,
};

/// The modes of a session on `worker`, as its screen shows them; where it shows none (a CLI
/// with no such key, a dialog over the prompt) the mode `umbel acp` was started with
/// (`flag`), fixed.
pub fn read_modes(ctx: &Ctx, worker: &Worker, flag: Option<&str>) -> SessionModes {
    let model = worker.meta.model.as_deref();
    match mode::mode(ctx, worker, None) {
        Ok(report) => SessionModes::shown(&report, model),
        Err(_) => SessionModes::fixed(flag, model),
    }
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

    /// `session/set_config_option`: `mode` as `session/set_mode`; `model` only the one it has.
    pub async fn set_option(
        &self,
        req: &SetSessionConfigOptionRequest,
    ) -> Result<SetSessionConfigOptionResponse, Error> {
        let modes = match req.config_id.0.as_ref() {
            "mode" => self.switch(&req.session_id, &chosen(&req.value)).await?,
            "model" => {
                let modes = self.modes_held(&req.session_id)?;
                modes.check_model(&req.value)?;
                modes
            }
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
        let now = SessionModes::shown(&report, Some(&modes.model));
        if let Some(held) = self.lock().get_mut(id.0.as_ref()) {
            held.modes = now.clone();
        }
        Ok(now)
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
