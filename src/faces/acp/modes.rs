//! A session's permission mode and model as ACP shows them: session modes and config options.
//! The mode is the one the worker's screen shows, and the modes its CLI's key cycles through
//! (`umbel mode`) are the session's modes: the client switches among them. Where the screen
//! names none, the mode is the one `umbel acp` was started with, and fixed. The model is fixed
//! when the worker is spawned (`--model`), and shown as such.

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
    /// `--model`, else `default` (the CLI's own).
    pub model: String,
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
        }
    }

    /// As the worker's screen shows them (`umbel mode`): switchable.
    pub fn shown(report: &ModeReport, model: Option<&str>) -> Self {
        SessionModes {
            mode: report.mode.clone(),
            modes: report.modes.clone(),
            switchable: true,
            model: model.unwrap_or(DEFAULT).to_string(),
        }
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
        let models = std::slice::from_ref(&self.model);
        let model = SessionConfigOption::select(
            "model",
            "Model",
            self.model.clone(),
            choices(models, "model"),
        )
        .description(fixed_by("--model"))
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

    /// `session/set_config_option` for the model: fine for the model the session has.
    pub fn check_model(&self, value: &SessionConfigOptionValue) -> Result<(), Error> {
        let wanted = chosen(value);
        if wanted == self.model {
            return Ok(());
        }
        Err(refused(
            &wanted,
            &self.model,
            std::slice::from_ref(&self.model),
            "--model",
        ))
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
        assert!(fixed.check_model(&model("opus")).is_ok());
        assert!(fixed.check_model(&model("haiku")).is_err());
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
