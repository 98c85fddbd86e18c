//! A session for unit tests, and the session helpers' tests.

use std::path::PathBuf;

use super::*;

impl Session {
    /// A session with fixed paths and id, touching no environment (unit tests).
    pub fn for_test(home: &std::path::Path, scenario: Scenario, interactive: bool) -> Session {
        let mut s = Session::build(
            "01a23853-d1c2-7c12-b3dc-ab331d81c131".into(),
            home.to_path_buf(),
            PathBuf::from("/tmp/probework/proj"),
            Config::default(),
            HookFile::default(),
            resolve_model(Some("gpt-fake-1"), None, None),
            scenario,
            interactive,
        );
        s.recorder = None;
        s
    }
}

mod unit {
    use super::*;

    #[test]
    fn models_resolve_in_order() {
        assert_eq!(resolve_model(None, None, None).display, "GPT-6.2-Sol");
        assert_eq!(resolve_model(None, None, Some("c")).id, "c");
        assert_eq!(resolve_model(None, Some("o"), Some("c")).id, "o");
        assert_eq!(resolve_model(Some("m"), Some("o"), Some("c")).display, "m");
    }

    #[test]
    fn uuid7_puts_the_time_first() {
        // 2026-12-02T19:55:47.010Z, the fixture thread's time.
        let id = uuid7(1_796_241_347_010, 0xc12, 0xb3dc_ab33_1d81_c131);
        assert!(id.starts_with("01a23853-d1c2-7c12-"), "{id}");
        assert!(ids::is_uuid(&id));
    }
}

mod scenario_additions {
    use crate::scenario::{End, Scenario, UsageLimit};

    #[test]
    fn the_codex_fields_parse_and_default_off() {
        let s = Scenario::parse(
            r#"{"startup":{"trust_dialog":true,"hook_review":true,"swallow_enters":2},
                "turns":[{"end":{"usage_limit":{"retry_at":"9:00 AM"}}},{"end":{"usage_limit":{}}}]}"#,
        )
        .unwrap();
        assert!(s.startup.trust_dialog && s.startup.hook_review);
        assert_eq!(s.startup.swallow_enters, 2);
        assert_eq!(
            s.turns[0].end,
            End::UsageLimit(UsageLimit {
                retry_at: "9:00 AM".into()
            })
        );
        assert!(matches!(&s.turns[1].end, End::UsageLimit(u) if u.retry_at == "8:57 PM"));
        let d = Scenario::parse("{}").unwrap().startup;
        assert!(!d.trust_dialog && !d.hook_review && d.swallow_enters == 0);
        let err = Scenario::parse(r#"{"turns":[{"end":{"usage_limit":{"at":"x"}}}]}"#).unwrap_err();
        assert!(err.contains("`at`"), "{err}");
    }
}
