//! `umbel doctor`: looks at everything umbel depends on — tmux and its private socket, each
//! provider's binary (found the way `spawn` finds it) and version, its configuration folder,
//! the hook scripts and the state root's permissions and writability — and judges each with
//! `core::doctor`; then asks each host this umbel has workers on for its own report. It starts
//! no tmux server and changes nothing (its write probe is a small file, removed at once).

use super::Ctx;
use super::spawn::resolve_bin;
use crate::adapters::exec::RunError;
use crate::adapters::files;
use crate::adapters::state::{EVENT_SH, LAUNCH_SH};
use crate::core::doctor::{
    Check, Level, free_space_check, release_check, state_root_check, tmux_check, version_line,
};
use crate::core::errors::{Error, binary_cause_and_remedy};
use crate::core::providers::{Provider, ProviderModule, SignIn};
use std::path::Path;

use super::cli_release::VERSION_BOUND;

/// Runs every check, in a fixed order.
pub fn doctor(ctx: &Ctx) -> Vec<Check> {
    let mut checks = vec![
        tmux_check(ctx.tmux.version().map_err(|e| e.to_string())),
        socket(ctx),
        state_root(ctx.state.path()),
        hooks(&ctx.state.hooks_dir()),
        inotify(ctx.state.path()),
        installed(),
    ];
    checks.extend(orphans(ctx));
    checks.extend(warm_workers(ctx));
    checks.extend(crate::core::send_tally::check(
        &crate::adapters::send_tally::read(ctx.state.path()),
    ));
    for provider in <Provider as clap::ValueEnum>::value_variants() {
        let module = provider.module();
        checks.push(binary(ctx, module));
        checks.push(config(ctx, module));
        if resolve_bin(ctx, module).is_ok() {
            checks.push(sign_in(ctx, module));
        }
    }
    no_provider_note(&mut checks);
    checks.extend(super::remote::doctor::host_checks(ctx));
    checks
}

/// The one check left when umbel could not even open its state root (or refused the socket).
pub fn unusable_state(err: &crate::core::errors::Error) -> Check {
    Check::fail(
        "state-root",
        err.to_string(),
        "set UMBEL_STATE to a folder you can create and write (and UMBEL_TMUX_SOCKET to a \
         name other than `default`), then run `umbel doctor` again",
    )
}

/// A missing CLI is a warning, never a failure: umbel itself works without any (`just demo`
/// and `just try` drive it on the fakes), so doctor exits 1 only for what breaks umbel. With
/// none usable at all, one more line says so and what needs none.
fn no_provider_note(checks: &mut Vec<Check>) {
    let names: Vec<&str> = <Provider as clap::ValueEnum>::value_variants()
        .iter()
        .map(|p| p.as_str())
        .collect();
    let usable = checks
        .iter()
        .any(|c| names.contains(&c.name.as_str()) && c.level == Level::Ok);
    if !usable {
        checks.push(Check::warn(
            "providers",
            format!("none of {} can be run here, so no worker can start", names.join(", ")),
            "install one and sign in (docs/getting-started.md); `just demo` and `just try` need none of them: they run umbel on the fake CLIs",
        ));
    }
}

fn socket(ctx: &Ctx) -> Check {
    let path = ctx.tmux.socket_path();
    let head = format!("-L {} ({})", ctx.tmux.socket(), path.display());
    match ctx.tmux.session_count() {
        Ok(None) => Check::ok("socket", format!("{head}: no server yet; spawn starts one")),
        Ok(Some(n)) => Check::ok("socket", format!("{head}: server running, {n} session(s)")),
        Err(e) => Check::fail(
            "socket",
            format!("{head}: {e}"),
            format!(
                "a stale socket can be removed with `rm {}` once no worker runs on it",
                path.display()
            ),
        ),
    }
}

/// Whether a wait can be woken by inotify, or polls because the user's inotify instances (or
/// watches) are used up — by editors as often as by umbel.
fn inotify(state: &Path) -> Check {
    let dir = if crate::adapters::host::exists(state) {
        state
    } else {
        Path::new("/")
    };
    let polls = match crate::adapters::watch::FolderWatch::new(dir) {
        Ok(watch) => watch.polls(),
        Err(e) => {
            return Check::fail(
                "inotify",
                e.to_string(),
                "umbel's waits watch folders with inotify: a kernel without it is not supported",
            );
        }
    };
    if !polls {
        return Check::ok("inotify", "waits wake on change");
    }
    let (instances, watches) = crate::adapters::watch::inotify_limits();
    let shown = |n: Option<u64>| n.map_or("?".to_string(), |n| n.to_string());
    let limits = format!(
        "fs.inotify.max_user_instances = {}, max_user_watches = {}",
        shown(instances),
        shown(watches)
    );
    Check::warn(
        "inotify",
        format!(
            "out of inotify instances or watches ({limits}): waits poll every 100 ms instead of waking at once"
        ),
        "raise the limit, e.g. `sudo sysctl fs.inotify.max_user_instances=1024` (and \
         `fs.inotify.max_user_watches`), or close what holds them (editors, file watchers)",
    )
}

fn state_root(path: &Path) -> Check {
    let shown = path.display().to_string();
    if !crate::adapters::host::exists(path) {
        return not_created_yet(path);
    }
    match files::mode_and_ownership(path) {
        Ok((mode, owned)) => {
            let check = state_root_check(&shown, mode, owned);
            if check.level != Level::Ok {
                return check;
            }
            // The mode says nothing on a read-only file system (nor to root): try a write.
            for dir in [path.to_path_buf(), path.join("sessions")] {
                if !crate::adapters::host::exists(&dir) {
                    continue;
                }
                if let Err(e) = files::probe_write(&dir) {
                    return Check::fail(
                        "state-root",
                        format!("{}: umbel cannot write there: {e}", dir.display()),
                        "set UMBEL_STATE to a folder you can write (or remount it read-write)",
                    );
                }
            }
            match files::free_bytes(path) {
                Ok(free) => free_space_check(&shown, free).unwrap_or(check),
                Err(_) => check,
            }
        }
        Err(e) => Check::fail(
            "state-root",
            format!("{shown}: {e}"),
            "set UMBEL_STATE to a folder you can write",
        ),
    }
}

/// A state root not made yet: doctor creates nothing, so it checks that the first spawn could
/// (the nearest folder that exists takes a write).
fn not_created_yet(path: &Path) -> Check {
    let parent = path
        .ancestors()
        .skip(1)
        .find(|dir| crate::adapters::host::exists(dir));
    match parent.map(files::probe_write) {
        Some(Ok(())) | None => Check::ok(
            "state-root",
            format!(
                "{}: not created yet; the first spawn creates it (mode 0700)",
                path.display()
            ),
        ),
        Some(Err(e)) => Check::fail(
            "state-root",
            format!(
                "{}: does not exist, and umbel cannot create it: {e}",
                path.display()
            ),
            "set UMBEL_STATE to a folder you can write",
        ),
    }
}

/// Sessions this state root started whose worker folder is gone: nothing lists them, so say so
/// (no check at all when there are none).
fn orphans(ctx: &Ctx) -> Option<Check> {
    let check = match super::kill::orphans(ctx) {
        Ok(names) if names.is_empty() => return None,
        Ok(names) => Check::warn(
            "sessions",
            names
                .iter()
                .map(|name| super::inspect::orphan_problem(ctx, name))
                .collect::<Vec<_>>()
                .join("; "),
            "end each with `umbel kill NAME` (`umbel kill --all` ends them all)",
        ),
        Err(e) => Check::warn(
            "sessions",
            format!("cannot list the sessions: {e}"),
            "run `umbel doctor` again",
        ),
    };
    Some(check)
}

/// The warm workers (`-p --warm`) waiting for their `-p`, with the time each has left; one
/// whose time is up but still runs (its timer did not: a restarted tmux server) is a warning.
fn warm_workers(ctx: &Ctx) -> Option<Check> {
    let now = crate::adapters::host::now_ms();
    let marks: Vec<_> = ctx
        .state
        .list()
        .ok()?
        .into_iter()
        .filter_map(|name| Some((ctx.state.warm_mark(&name)?, name)))
        .collect();
    if marks.is_empty() {
        return None;
    }
    let overdue: Vec<String> = marks
        .iter()
        .filter(|(m, _)| m.left_ms(now) == 0)
        .map(|(_, n)| n.to_string())
        .collect();
    if !overdue.is_empty() {
        return Some(Check::warn(
            "warm",
            format!("warm workers past their time: {}", overdue.join(", ")),
            "`umbel prune` ends them",
        ));
    }
    let listed: Vec<String> = marks
        .iter()
        .map(|(m, n)| {
            format!(
                "{n} ({} left)",
                crate::core::duration::whole_seconds(m.left_ms(now))
            )
        })
        .collect();
    Some(Check::ok(
        "warm",
        format!(
            "warm workers ready for the next `-p --warm`: {}",
            listed.join(", ")
        ),
    ))
}

fn hooks(dir: &Path) -> Check {
    let mut stale = Vec::new();
    for (file, content) in [("event.sh", EVENT_SH), ("launch.sh", LAUNCH_SH)] {
        let path = dir.join(file);
        match (files::read_text(&path), files::mode_and_ownership(&path)) {
            (Ok(text), Ok((mode, _))) if text == content => {
                if mode & 0o100 == 0 {
                    return Check::fail(
                        "hooks",
                        format!("{} is not executable", path.display()),
                        format!("chmod 700 {}", path.display()),
                    );
                }
            }
            (Ok(_), _) => stale.push(file),
            (Err(_), _) => {
                return Check::ok(
                    "hooks",
                    format!("{}: not installed yet; spawn installs them", dir.display()),
                );
            }
        }
    }
    if stale.is_empty() {
        Check::ok("hooks", format!("{}: event.sh, launch.sh", dir.display()))
    } else {
        Check::warn(
            "hooks",
            format!(
                "{} differ from this umbel's: {}",
                dir.display(),
                stale.join(", ")
            ),
            "the next spawn replaces them; workers already running keep the old ones",
        )
    }
}

fn binary(ctx: &Ctx, module: &dyn ProviderModule) -> Check {
    let name = module.name();
    let bin = match resolve_bin(ctx, module) {
        Ok(bin) => bin,
        Err(Error::BinaryNotFound {
            provider,
            package,
            bin,
            env_var,
            from_env,
            problem,
        }) => {
            let (cause, remedy) =
                binary_cause_and_remedy((provider, package), &bin, env_var, from_env, problem);
            return Check::warn(name, cause, format!("{remedy} (needed only to use {name})"));
        }
        Err(e) => return Check::fail(name, e.to_string(), e.hint()),
    };
    match super::cli_release::learn(ctx, module, &bin, &ctx.env) {
        Some(release) => release_check(name, &bin.to_string_lossy(), module.releases(), release),
        // Nothing told the release: run `--version` again to say why.
        None => version(ctx, module, &bin),
    }
}

/// Runs `<bin> --version` and judges what it printed.
fn version(ctx: &Ctx, module: &dyn ProviderModule, bin: &Path) -> Check {
    let name = module.name();
    let shown = bin.display();
    match super::cli_release::run_version(bin, &ctx.env) {
        Ok(done) if done.status.success() => {
            let stdout = String::from_utf8_lossy(&done.stdout);
            match version_line(&stdout) {
                Some(version) => Check::ok(name, format!("{shown}: {version}")),
                None => Check::warn(
                    name,
                    format!("{shown}: `--version` printed nothing"),
                    format!("check that {shown} is the real {name} CLI"),
                ),
            }
        }
        Ok(done) => Check::fail(
            name,
            format!(
                "{shown} --version failed ({}): {}",
                done.status,
                String::from_utf8_lossy(&done.stderr).trim()
            ),
            format!("run `{shown} --version` in a terminal to see why"),
        ),
        // No stop flag is watched: a doctor run is not interrupted, it exits.
        Err(RunError::TimedOut | RunError::Interrupted) => Check::fail(
            name,
            format!(
                "{shown} --version did not answer within {}s",
                VERSION_BOUND.as_secs()
            ),
            format!("run `{shown} --version` in a terminal to see why"),
        ),
        Err(RunError::Spawn(e)) => Check::fail(
            name,
            format!("{shown} cannot be run: {e}"),
            format!(
                "reinstall {name}, or point {} elsewhere",
                module.bin_env_var()
            ),
        ),
    }
}

fn config(ctx: &Ctx, module: &dyn ProviderModule) -> Check {
    let name = module.name();
    let label = format!("{name}-config");
    match module.config_dir(&ctx.env) {
        Some(dir) if dir.is_dir() => Check::ok(&label, dir.display().to_string()),
        Some(dir) => Check::warn(
            &label,
            format!(
                "{} does not exist: {name} has not been set up here",
                dir.display()
            ),
            format!("run `{name}` once in a terminal and sign in"),
        ),
        None => Check::warn(
            &label,
            "HOME is not set, so the configuration folder is unknown",
            "set HOME",
        ),
    }
}

/// Whether the CLI will open on its prompt: the provider judges its own sign-in files.
fn sign_in(ctx: &Ctx, module: &dyn ProviderModule) -> Check {
    let label = format!("{}-sign-in", module.name());
    let files = files::read_existing(module.sign_in_files(&ctx.env));
    match module.sign_in(&ctx.env, &files) {
        SignIn::Ready(how) => Check::ok(&label, how),
        SignIn::Missing { detail, fix } => Check::warn(&label, detail, fix),
    }
}

/// How this umbel was installed, and how to update it that way.
fn installed() -> Check {
    let how = crate::adapters::installed::this_umbel();
    Check::ok(
        "umbel",
        format!(
            "{} installed {}; to update: {}",
            env!("CARGO_PKG_VERSION"),
            how.how(),
            how.update()
        ),
    )
}
