//! A session's permission mode and model as ACP shows them: session modes and config options.
//! The mode is the one the worker's screen shows, and the modes its CLI's key cycles through
//! (`umbel mode`) are the session's modes: the client switches among them. Where the screen
//! names none, the mode is the one `umbel acp` was started with, and fixed. The model is the
//! worker's (`--model`, else the CLI's default); where umbel drives the CLI's `/model` picker
//! (`umbel model`), the models it lists are the choices and the client switches among them,
//! else it is fixed at spawn and shown as such.

use crate::core::providers::mode::ModeReport;
use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigOptionValue,
    SessionConfigSelectOption, SessionMode, SessionModeState,
};

/// A session's mode, the modes it can switch to, and its model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionModes {
    /// The mode on now.
    pub mode: String,
    /// The modes the client may switch to (only `mode` when it is fixed).
    pub modes: Vec<String>,
    /// Whether the CLI's key switches them.
    pub switchable: bool,
    /// `--model` (or the model last switched to), else `default` (the CLI's own).
    pub model: String,
    /// The models the client may switch to (only `model` when it is fixed).
    pub models: Vec<String>,
}

/// The value a session has when a flag was not given.
const DEFAULT: &str = "default";

impl SessionModes {
    /// Fixed at spawn: `--permission-mode` (else the CLI's default) and `--model`.
    pub fn fixed(mode: Option<&str>, model: Option<&str>) -> Self {
        let mode = mode.unwrap_or(DEFAULT).to_string();
        SessionModes {
            modes: vec![mode.clone()],
            mode,
            switchable: false,
            model: model.unwrap_or(DEFAULT).to_string(),
            models: Vec::new(),
        }
    }

    /// As the worker's screen shows them (`umbel mode`): switchable.
    pub fn shown(report: &ModeReport, model: Option<&str>) -> Self {
        SessionModes {
            mode: report.mode.clone(),
            modes: report.modes.clone(),
            switchable: true,
            model: model.unwrap_or(DEFAULT).to_string(),
            models: Vec::new(),
        }
    }

    /// The same, its model switchable among `listed` (what the CLI's `/model` lists).
    pub fn with_models(mut self, listed: &[String]) -> Self {
        self.models = listed.to_vec();
        self
    }

    /// The model choices: the one on, then the others listed.
    fn model_choices(&self) -> Vec<String> {
        let others = self.models.iter().filter(|m| **m != self.model).cloned();
        std::iter::once(self.model.clone()).chain(others).collect()
    }

    /// The session's modes for ACP.
    pub fn modes(&self) -> SessionModeState {
        let modes = self.modes.iter().map(|m| {
            SessionMode::new(m.clone(), name(m, "permission mode")).description(self.how())
        });
        SessionModeState::new(self.mode.clone(), modes.collect())
    }

    /// The session's config options: its mode and its model.
    pub fn options(&self) -> Vec<SessionConfigOption> {
        let choices = |values: &[String], what: &str| -> Vec<SessionConfigSelectOption> {
            let choice = |v: &String| SessionConfigSelectOption::new(v.clone(), name(v, what));
            values.iter().map(choice).collect()
        };
        let mode = SessionConfigOption::select(
            "mode",
            "Permission mode",
            self.mode.clone(),
            choices(&self.modes, "permission mode"),
        )
        .description(self.how())
        .category(SessionConfigOptionCategory::Mode);
        let how = match self.models.is_empty() {
            true => fixed_by("--model"),
            false => {
                "Switched with the CLI's own /model for this session (umbel model), between turns"
                    .into()
            }
        };
        let model = SessionConfigOption::select(
            "model",
            "Model",
            self.model.clone(),
            choices(&self.model_choices(), "model"),
        )
        .description(how)
        .category(SessionConfigOptionCategory::Model);
        vec![mode, model]
    }

    /// What switching to `wanted` takes: nothing (`None`, it is on), the CLI's key to the
    /// cycle's mode (`Some`), or an invalid-params error saying how to get it.
    pub fn switch_to(&self, wanted: &str) -> Result<Option<String>, Error> {
        if wanted == self.mode {
            return Ok(None);
        }
        match self.modes.iter().find(|m| *m == wanted) {
            Some(mode) if self.switchable => Ok(Some(mode.clone())),
            _ => Err(refused(
                wanted,
                &self.mode,
                &self.modes,
                "--permission-mode",
            )),
        }
    }

    /// What `session/set_config_option` for the model takes: nothing (`None`, it is on), the
    /// CLI's `/model` to a model it lists (`Some`), or an invalid-params error saying how to
    /// get it.
    pub fn model_to(&self, value: &SessionConfigOptionValue) -> Result<Option<String>, Error> {
        let wanted = chosen(value);
        if wanted == self.model {
            return Ok(None);
        }
        match self.models.iter().find(|m| **m == wanted) {
            Some(model) => Ok(Some(model.clone())),
            None => Err(refused(
                &wanted,
                &self.model,
                &self.model_choices(),
                "--model",
            )),
        }
    }

    fn how(&self) -> String {
        if self.switchable {
            "Switched with the CLI's own key (umbel mode), between turns".into()
        } else {
            fixed_by("--permission-mode")
        }
    }
}

/// The value of a `session/set_config_option` request, as the name of a choice.
pub fn chosen(value: &SessionConfigOptionValue) -> String {
    value
        .as_value_id()
        .map_or(String::new(), |v| v.0.to_string())
}

fn refused(wanted: &str, has: &str, choices: &[String], flag: &str) -> Error {
    Error::invalid_params().data(serde_json::json!({
        "reason": format!(
            "this session runs {has:?} and can switch to {}; for {wanted:?} start `umbel acp {flag} {wanted}`",
            choices.join(", ")
        ),
    }))
}

/// A value's name: `default` says whose.
fn name(value: &str, what: &str) -> String {
    match value {
        DEFAULT => format!("The CLI's default {what}"),
        other => other.to_string(),
    }
}

fn fixed_by(flag: &str) -> String {
    format!("Fixed when the session's CLI was spawned (umbel acp {flag})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_session_takes_only_what_it_has() {
        let fixed = SessionModes::fixed(None, Some("opus"));
        assert_eq!(fixed.modes().current_mode_id.0.as_ref(), "default");
        assert_eq!(fixed.switch_to("default").ok(), Some(None));
        let refused = fixed.switch_to("plan").expect_err("another mode");
        let why = refused.data.expect("data").to_string();
        assert!(why.contains("umbel acp --permission-mode plan"), "{why}");
        let model = |v: &str| SessionConfigOptionValue::value_id(v.to_string());
        assert_eq!(fixed.model_to(&model("opus")).ok(), Some(None));
        assert!(fixed.model_to(&model("haiku")).is_err());
        let listed = fixed.with_models(&["Opus".into(), "Haiku".into()]);
        assert_eq!(
            listed.model_to(&model("Haiku")).ok(),
            Some(Some("Haiku".into()))
        );
        let why = listed.model_to(&model("gpt")).expect_err("unlisted").data;
        assert!(why.expect("data").to_string().contains("opus, Opus, Haiku"));
        let options = listed.options();
        let text = serde_json::to_string(&options[1]).expect("json");
        assert!(
            text.contains("umbel model") && text.contains("Haiku"),
            "{text}"
        );
    }

    #[test]
    fn a_shown_session_switches_within_its_cycle() {
        let report = ModeReport {
            name: "acp-1".into(),
            mode: "auto".into(),
            modes: vec!["auto".into(), "manual".into(), "plan".into()],
            pressed: 0,
        };
        let shown = SessionModes::shown(&report, None);
        assert_eq!(shown.modes().available_modes.len(), 3);
        assert_eq!(shown.switch_to("plan").ok(), Some(Some("plan".to_string())));
        assert!(shown.switch_to("yolo").is_err());
    }
}
