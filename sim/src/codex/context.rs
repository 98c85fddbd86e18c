//! The rollout's context records: `session_meta`, the first turn's developer
//! and `<environment_context>` messages, `world_state`, `turn_context` and
//! `thread_settings_applied`. Field names and nesting follow
//! `codex-0.171.0-rollout-tui-session.jsonl`; long instruction texts are
//! replaced by short stand-ins, hashes by derived hex.

use super::session::Session;
use crate::json::{J, Obj, empty_array, null};
use crate::obj;

const BASE_INSTRUCTIONS: &str = "You are a coding agent running in the Codex CLI, a terminal-based coding assistant. (fake-codex: instructions omitted)";
const COLLABORATION: &str = "# Collaboration Mode: Default\n\nYou are now in Default mode. (fake-codex: instructions omitted)";

impl Session {
    fn fs_entries(&self) -> Vec<Obj> {
        let special = |kind: &str, access: &str| {
            obj! { "path" => obj! { "type" => "special", "value" => obj! { "kind" => kind } }, "access" => access }
        };
        let mut list = vec![
            special("root", "read"),
            obj! { "path" => obj! { "type" => "path", "path" => self.cwd.as_str() }, "access" => "write" },
            special("slash_tmp", "write"),
            special("tmpdir", "write"),
        ];
        for sub in [".git", ".agents", ".codex", ".aws"] {
            list.push(obj! {
                "path" => obj! { "type" => "path", "path" => format!("{}/{sub}", self.cwd) },
                "access" => "read",
                "missing_path_behavior" => "skip",
            });
        }
        list
    }

    fn permission_profile(&self) -> Obj {
        if self.bypass_approvals {
            return obj! { "type" => "disabled" };
        }
        obj! {
            "type" => "managed",
            "file_system" => obj! { "type" => "restricted", "entries" => self.fs_entries() },
            "network" => "restricted",
        }
    }

    fn active_profile(&self) -> Obj {
        let id = if self.bypass_approvals {
            ":danger-full-access"
        } else {
            ":workspace"
        };
        obj! { "id" => id }
    }

    fn collaboration_mode(&self) -> Obj {
        obj! {
            "mode" => "default",
            "settings" => obj! {
                "model" => self.model.id.as_str(),
                "reasoning_effort" => null(),
                "developer_instructions" => COLLABORATION,
            },
        }
    }

    fn create_time(&self) -> f64 {
        self.clock.now_ms() as f64 / 1000.0
    }

    /// Response-item metadata; `sampled` is the history position the model saw.
    pub(crate) fn history_meta(&mut self, user_order: bool) -> Obj {
        self.history_seq += 1;
        let mut m = obj! {
            "history_sequence" => self.history_seq,
            "sampled_through_sequence" => self.sampled,
            "client_authored" => false,
        };
        if user_order {
            m.set("user_input_order", self.input_order);
            self.input_order += 1;
        }
        m
    }

    /// `session_meta` (first line of the rollout).
    pub fn rec_session_meta(&mut self) -> Obj {
        let window = self.uuid7();
        let (originator, source) = if self.interactive {
            ("codex-tui", "vscode")
        } else {
            ("codex_exec", "exec")
        };
        let payload = obj! {
            "account_scoped" => true,
            "session_id" => self.id.as_str(),
            "id" => self.id.as_str(),
            "timestamp" => crate::clock::iso(self.created_ms),
            "cwd" => self.cwd.as_str(),
            "runtime_workspace_roots" => vec![J::from(self.cwd.as_str())],
            "originator" => originator,
            "cli_version" => super::release::current().version.to_string(),
            "source" => source,
            "thread_source" => "user",
            "model_provider" => "openai",
            "base_instructions" => obj! {
                "text" => BASE_INSTRUCTIONS,
                "provenance" => obj! { "type" => "model", "model" => self.model.id.as_str() },
            },
            "history_mode" => "paginated",
            "context_window" => obj! { "window_id" => window },
            "git" => obj! {},
        };
        let payload = match &self.forked_from {
            Some((parent, records, bytes)) => payload
                .with("forked_from_id", parent)
                .with("forked_from_ordinal_exclusive", records)
                .with(
                    "history_base",
                    obj! {
                        "thread_id" => parent.as_str(),
                        "end_ordinal_exclusive" => *records,
                        "end_byte_offset" => *bytes,
                    },
                ),
            None => payload,
        };
        self.rec("session_meta", payload, None)
    }

    /// The first turn's developer message (permissions and mode instructions).
    pub fn rec_developer(&mut self, turn_id: &str) -> Obj {
        let id = format!("msg_{}", self.uuid7());
        let text = |t: &str| obj! { "type" => "input_text", "text" => t };
        let provenance = |kind: &str| match kind {
            "skills" => obj! { "provenance" => obj! { "type" => "skills" } },
            _ => obj! { "provenance" => obj! { "type" => "harness", "hook" => false } },
        };
        let payload = obj! {
            "type" => "message",
            "id" => id,
            "role" => "developer",
            "content" => vec![
                text("<skills_instructions>\n## Skills\n(fake-codex: none)\n</skills_instructions>"),
                text(&format!("<permissions instructions>\nFilesystem sandboxing: `sandbox_mode` is `{}`.\n</permissions instructions>", self.sandbox_mode())),
                text(&format!("<collaboration_mode>{COLLABORATION}</collaboration_mode>")),
            ],
            "internal_chat_message_metadata_passthrough" => obj! {
                "turn_id" => turn_id,
                "create_time" => self.create_time(),
                "content_item_kinds" => vec![
                    J::from("host_skills.instructions"),
                    J::from("permissions.instructions"),
                    J::from("collaboration_mode.instructions"),
                ],
                "content_item_metadata" => vec![provenance("skills"), provenance("harness"), provenance("harness")],
            },
        };
        let meta = self
            .history_meta(false)
            .with("mcp_attribution", obj! { "status" => "none" })
            .with("model_search_state", "unused");
        self.rec("response_item", payload, Some(meta))
    }

    /// The first turn's `<environment_context>` user message.
    pub fn rec_environment(&mut self, turn_id: &str) -> Obj {
        let id = format!("msg_{}", self.uuid7());
        let text = format!(
            "<environment_context>\n  <cwd>{}</cwd>\n  <shell>bash</shell>\n  <current_date>{}</current_date>\n  <timezone>Etc/UTC</timezone>\n</environment_context>",
            self.cwd,
            self.clock.date()
        );
        let payload = obj! {
            "type" => "message",
            "id" => id,
            "role" => "user",
            "content" => vec![obj! { "type" => "input_text", "text" => text }],
            "internal_chat_message_metadata_passthrough" => obj! {
                "turn_id" => turn_id,
                "create_time" => self.create_time(),
                "content_item_kinds" => vec![J::from("environments.environment_context")],
                "content_item_metadata" => vec![obj! { "provenance" => obj! { "type" => "harness", "hook" => false } }],
            },
        };
        let meta = self
            .history_meta(false)
            .with("model_search_state", "unused");
        self.rec("response_item", payload, Some(meta))
    }

    /// `world_state` (first turn).
    pub fn rec_world_state(&mut self) -> Obj {
        let filesystem = format!(
            "<filesystem><workspace_roots><root>{}</root></workspace_roots></filesystem>",
            self.cwd
        );
        let (h1, h2, h3) = (self.ids.hex(40), self.ids.hex(40), self.ids.hex(40));
        let state = obj! {
            "agents_md" => obj! {},
            "apps_instructions" => false,
            "collaboration_mode" => obj! { "mode" => "default", "model" => self.model.id.as_str(), "instructions" => h1 },
            "context_window_guidance" => "",
            "environments" => obj! {
                "environments" => obj! { "local" => obj! { "cwd" => self.cwd.as_str(), "status" => "available", "shell" => "bash" } },
                "current_date" => self.clock.date(),
                "timezone" => "Etc/UTC",
                "filesystem" => filesystem,
            },
            "environments_instructions" => false,
            "git_attribution" => false,
            "host_skills" => obj! { "body" => "\n## Skills\n(fake-codex: none)", "includeInstructions" => true },
            "managed_developer_instructions" => obj! {},
            "model" => self.model.id.as_str(),
            "model_catalog" => h2,
            "multi_agent_mode" => obj! {},
            "permissions" => obj! { "instructions" => h3, "approved_command_prefixes" => empty_array() },
            "persistent_mode" => obj! {},
            "plugins_instructions" => false,
            "realtime" => obj! { "active" => false },
            "skills" => obj! { "includeInstructions" => true },
        };
        self.rec(
            "world_state",
            obj! { "full" => true, "state" => state },
            None,
        )
    }

    /// `turn_context`.
    pub fn rec_turn_context(&mut self, turn_id: &str) -> Obj {
        let sandbox = if self.bypass_approvals {
            obj! { "type" => "danger-full-access" }
        } else {
            obj! {
                "type" => "workspace-write",
                "network_access" => false,
                "exclude_tmpdir_env_var" => false,
                "exclude_slash_tmp" => false,
            }
        };
        let payload = obj! {
            "turn_id" => turn_id,
            "root_turn_id" => turn_id,
            "disabled_plugin_ids" => empty_array(),
            "cwd" => self.cwd.as_str(),
            "approval_policy" => self.approval_policy(),
            "approvals_reviewer" => "user",
            "permission_profile" => self.permission_profile(),
            "active_permission_profile" => self.active_profile(),
            "model" => self.model.id.as_str(),
            "collaboration_mode" => self.collaboration_mode(),
            "multi_agent_version" => "v1",
            "realtime_active" => false,
            "summary" => "none",
            "sandbox_policy" => sandbox,
            "file_system_sandbox_policy" => obj! { "kind" => "restricted", "entries" => self.fs_entries() },
        };
        self.rec("turn_context", payload, None)
    }

    /// `event_msg/thread_settings_applied`.
    pub fn rec_thread_settings(&mut self) -> Obj {
        let settings = obj! {
            "model" => self.model.id.as_str(),
            "model_provider_id" => "openai",
            "approval_policy" => self.approval_policy(),
            "approvals_reviewer" => "user",
            "requested_approvals_reviewer" => "user",
            "permission_profile" => self.permission_profile(),
            "active_permission_profile" => self.active_profile(),
            "cwd" => self.cwd.as_str(),
            "runtime_workspace_roots" => vec![J::from(self.cwd.as_str())],
            "collaboration_mode" => self.collaboration_mode(),
            "disabled_plugin_ids" => empty_array(),
        };
        let payload = obj! {
            "type" => "thread_settings_applied",
            "thread_id" => self.id.as_str(),
            "thread_settings" => settings,
        };
        self.rec("event_msg", payload, None)
    }
}
