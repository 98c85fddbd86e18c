//! Settings, trusted folders and the projects map, on real files in a temp dir.

use super::*;
use serde_json::json;

fn sandbox(name: &str) -> (PathBuf, Paths) {
    let root = std::env::temp_dir().join(format!("sim-gemini-home-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let cwd = root.join("work").join("proj");
    std::fs::create_dir_all(&cwd).unwrap();
    let home = root.join("home");
    let paths = Paths {
        dir: home.join(".gemini"),
        home,
        cwd: cwd.canonicalize().unwrap(),
    };
    (root, paths)
}

#[test]
fn settings_give_hooks_in_millis_names_auth_and_trust_switch() {
    let (root, p) = sandbox("settings");
    let settings = json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
        "model": {"name": "gemini-x"},
        "hooks": {"AfterAgent": [{"matcher": "*", "hooks": [
            {"type": "command", "name": "log-it", "command": "echo a", "timeout": 1500}]}]}
    });
    write_in_place(&p.settings(), &settings.to_string()).unwrap();
    let s = load_settings(&p).unwrap();
    assert_eq!(s.auth_type.as_deref(), Some("gemini-api-key"));
    assert!(!s.folder_trust);
    assert_eq!(s.model.as_deref(), Some("gemini-x"));
    let cmds = s.hooks.matching("AfterAgent", None);
    assert_eq!(cmds[0].timeout, Duration::from_millis(1500));
    assert_eq!(
        s.hook_names,
        vec![("AfterAgent".into(), "echo a".into(), "log-it".into())]
    );
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn missing_settings_are_defaults() {
    let (root, p) = sandbox("nosettings");
    let s = load_settings(&p).unwrap();
    assert!(s.folder_trust);
    assert_eq!(s.auth_type, None);
    assert!(!s.hooks.has("AfterAgent"));
    std::fs::create_dir_all(&p.dir).unwrap();
    std::fs::write(p.settings(), "{nope").unwrap();
    assert!(load_settings(&p).unwrap_err().contains("invalid JSON"));
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn trust_rules_longest_match_wins_and_parent_rules_cover_siblings() {
    let (root, p) = sandbox("trust");
    let cwd = p.cwd.clone();
    let work = cwd.parent().unwrap().to_path_buf();
    let s = |v: &Path| v.to_string_lossy().into_owned();
    assert_eq!(is_trusted(&json!({}), &cwd), None);
    assert_eq!(
        is_trusted(&json!({ s(&cwd): "TRUST_FOLDER" }), &cwd),
        Some(true)
    );
    assert_eq!(
        is_trusted(&json!({ s(&work): "TRUST_FOLDER" }), &cwd),
        Some(true)
    );
    let sibling = work.join("other");
    assert_eq!(
        is_trusted(&json!({ s(&sibling): "TRUST_PARENT" }), &cwd),
        Some(true)
    );
    assert_eq!(
        is_trusted(
            &json!({ s(&work): "TRUST_FOLDER", s(&cwd): "DO_NOT_TRUST" }),
            &cwd
        ),
        Some(false)
    );
    assert_eq!(
        is_trusted(&json!({ s(&cwd.join("sub")): "TRUST_FOLDER" }), &cwd),
        None
    );
    assert_eq!(
        is_trusted(
            &json!({ "/tmp/probework/projx": "TRUST_FOLDER" }),
            Path::new("/tmp/probework/proj")
        ),
        None
    );
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn set_trust_keeps_other_entries_and_writes_the_real_shape() {
    let (root, p) = sandbox("settrust");
    write_in_place(&p.trusted_folders(), r#"{"/elsewhere":"DO_NOT_TRUST"}"#).unwrap();
    set_trust(&p, TrustLevel::TrustFolder).unwrap();
    let text = std::fs::read_to_string(p.trusted_folders()).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["/elsewhere"], "DO_NOT_TRUST");
    assert_eq!(doc[p.cwd.to_str().unwrap()], "TRUST_FOLDER");
    assert!(
        text.contains("\n  \""),
        "pretty-printed with two spaces: {text}"
    );
    assert_eq!(is_trusted(&doc, &p.cwd), Some(true));
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn write_in_place_shrinks_without_truncating_first() {
    let (root, p) = sandbox("inplace");
    let f = p.dir.join("x.json");
    write_in_place(&f, "a long first version").unwrap();
    write_in_place(&f, "short").unwrap();
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "short");
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn projects_get_the_basename_made_unique_and_are_remembered() {
    let (root, p) = sandbox("projects");
    write_in_place(&p.projects(), r#"{"projects":{"/a/proj":"proj"}}"#).unwrap();
    assert_eq!(project_name(&p).unwrap(), "proj-1");
    assert_eq!(
        project_name(&p).unwrap(),
        "proj-1",
        "second use reads the map"
    );
    let doc = read_json(&p.projects()).unwrap();
    assert_eq!(doc["projects"]["/a/proj"], "proj");
    assert_eq!(doc["projects"][p.cwd.to_str().unwrap()], "proj-1");
    let marker = p.dir.join("tmp/proj-1/.project_root");
    assert_eq!(
        std::fs::read_to_string(marker).unwrap(),
        p.cwd.to_str().unwrap()
    );
    assert_eq!(unique_name("x", &["x".into(), "x-1".into()]), "x-2");
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn a_fresh_home_creates_projects_json() {
    let (root, p) = sandbox("fresh");
    assert_eq!(project_name(&p).unwrap(), "proj");
    let text = std::fs::read_to_string(p.projects()).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        doc,
        json!({"projects": { p.cwd.to_str().unwrap(): "proj" }})
    );
    let _ = std::fs::remove_dir_all(root);
}
