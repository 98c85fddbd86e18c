//! A session's permission mode and model as ACP shows them: session modes and config options.
//! Both are fixed when the worker is spawned (`umbel acp --permission-mode`, `--model`), and
//! shown as such: one mode, one choice per option, each saying how to get another; asking
//! for the value a session has is fine, for any other an invalid-params error naming the flag.

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    SessionConfigOption, SessionConfigOptionCategory, SessionConfigOptionValue,
    SessionConfigSelectOption, SessionMode, SessionModeState,
};

/// What a session was spawned with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed {
    /// `--permission-mode`, else `default` (the CLI's own).
    pub mode: String,
    /// `--model`, else `default` (the CLI's own).
    pub model: String,
}

/// The value a session has when a flag was not given.
const DEFAULT: &str = "default";

impl Fixed {
    pub fn new(mode: Option<&str>, model: Option<&str>) -> Self {
        Fixed {
            mode: mode.unwrap_or(DEFAULT).to_string(),
            model: model.unwrap_or(DEFAULT).to_string(),
        }
    }

    /// The session's modes: the one it has.
    pub fn modes(&self) -> SessionModeState {
        let mode = SessionMode::new(self.mode.clone(), name(&self.mode, "permission mode"))
            .description(fixed_by("--permission-mode"));
        SessionModeState::new(self.mode.clone(), vec![mode])
    }

    /// The session's config options: its mode and its model, one choice each.
    pub fn options(&self) -> Vec<SessionConfigOption> {
        let option = |id: &str, what: &str, value: &str, flag: &str, category| {
            let choice = SessionConfigSelectOption::new(value.to_string(), name(value, what));
            SessionConfigOption::select(
                id.to_string(),
                what.to_string(),
                value.to_string(),
                vec![choice],
            )
            .description(fixed_by(flag))
            .category(category)
        };
        vec![
            option(
                "mode",
                "Permission mode",
                &self.mode,
                "--permission-mode",
                SessionConfigOptionCategory::Mode,
            ),
            option(
                "model",
                "Model",
                &self.model,
                "--model",
                SessionConfigOptionCategory::Model,
            ),
        ]
    }

    /// `session/set_mode`: fine for the mode the session has.
    pub fn set_mode(&self, wanted: &str) -> Result<(), Error> {
        self.check(wanted, &self.mode, "--permission-mode")
    }

    /// `session/set_config_option`: fine for the value the session has.
    pub fn set_option(&self, id: &str, value: &SessionConfigOptionValue) -> Result<(), Error> {
        let wanted = value
            .as_value_id()
            .map_or(String::new(), |v| v.0.to_string());
        match id {
            "mode" => self.check(&wanted, &self.mode, "--permission-mode"),
            "model" => self.check(&wanted, &self.model, "--model"),
            _ => Err(Error::invalid_params().data(serde_json::json!({
                "reason": format!("no config option {id:?}: the options are \"mode\" and \"model\""),
            }))),
        }
    }

    fn check(&self, wanted: &str, has: &str, flag: &str) -> Result<(), Error> {
        if wanted == has {
            return Ok(());
        }
        Err(Error::invalid_params().data(serde_json::json!({
            "reason": format!(
                "this session's CLI runs {has:?}, fixed when it was spawned: start `umbel acp {flag} {wanted}` for sessions that run {wanted:?}"
            ),
        })))
    }
}

/// A value's name: `default` says whose.
fn name(value: &str, what: &str) -> String {
    match value {
        DEFAULT => format!("The CLI's default {what}"),
        other => other.to_string(),
    }
}

fn fixed_by(flag: &str) -> String {
    format!(
        "Fixed when the session's CLI was spawned (umbel acp {flag}); not switchable mid-session yet"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_value_a_session_has_is_taken() {
        let fixed = Fixed::new(None, Some("opus"));
        assert_eq!(fixed.modes().current_mode_id.0.as_ref(), "default");
        assert!(fixed.set_mode("default").is_ok());
        let refused = fixed.set_mode("plan").expect_err("another mode");
        let why = refused.data.expect("data").to_string();
        assert!(why.contains("umbel acp --permission-mode plan"), "{why}");
        let model = |v: &str| SessionConfigOptionValue::value_id(v.to_string());
        assert!(fixed.set_option("model", &model("opus")).is_ok());
        assert!(fixed.set_option("model", &model("haiku")).is_err());
        assert!(fixed.set_option("speed", &model("fast")).is_err());
    }
}
