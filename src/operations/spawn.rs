//! `spawn`: claim the name, compose the environment, launch the CLI in its own tmux session
//! through `hooks/launch.sh`, pass its startup dialogs, and return once it is ready. Any failure
//! after the name is claimed unwinds completely: no session, no folder.

use super::Ctx;
use super::cli_release;
use super::fork::ForkSource;
use super::park::{LAUNCH_FILE, Launch, env_buffer, start_in_tmux, with_own, worker_env};
pub use super::startup::Readiness;
use super::startup::{StartWait, await_ready};
use crate::adapters::{files, host, timing};
use crate::core::args::{OnPermission, SpawnArgs};
use crate::core::duration::{DEFAULT_STARTUP, parse_or};
use crate::core::errors::{BinProblem, Error, Result};
use crate::core::meta::Meta;
use crate::core::name::WorkerName;
use crate::core::providers::flags::{self, Given};
use crate::core::providers::{LaunchInput, LaunchSpec, ProviderModule, Version};
use crate::core::worker_env::{EnvSpec, shell_quote};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Everything checked before anything is created.
struct Plan {
    provider: &'static dyn ProviderModule,
    on_permission: OnPermission,
    flags: Vec<Given>,
    cwd: PathBuf,
    bin: PathBuf,
    env: Vec<(String, String)>,
    startup_timeout: Duration,
    release: Option<Version>,
    /// The variables given with `--env` (their consent for dialogs that ask about them).
    given: Vec<String>,
    /// The `--env` requests themselves (kept for a resume, which composes the environment again).
    requested: Vec<EnvSpec>,
    /// `--fork-from`: the conversation the worker starts with a copy of.
    fork: Option<ForkSource>,
}

/// Starts a worker and waits until it is ready for prompts.
pub fn spawn(ctx: &Ctx, args: &SpawnArgs) -> Result<Meta> {
    spawn_with(ctx, args, None, Readiness::Ready)
}

/// A worktree an earlier worker of the same name left with work in it (`run --resume`), and the
/// folder inside it that worker ran in: the new worker runs there instead of in a new worktree,
/// and a failed spawn leaves it as it was.
pub struct Adopted {
    pub worktree: crate::core::worktree::WorktreeMeta,
    pub cwd: std::path::PathBuf,
}

/// [`spawn`], in an adopted worktree when one is given, returning at `readiness`.
// long: spawn's steps in order, each unwinding what the ones before made.
pub fn spawn_with(
    ctx: &Ctx,
    args: &SpawnArgs,
    adopted: Option<Adopted>,
    readiness: Readiness,
) -> Result<Meta> {
    super::budget::check_spawn(ctx, args)?;
    if let Some(host) = &args.host {
        return super::remote::verbs::spawn(ctx, host, args);
    }
    let requested = args.name.as_deref().map(WorkerName::parse).transpose()?;
    let (mut plan, forked) = plan_fork(ctx, args)?;
    let args = forked.as_ref().unwrap_or(args);
    ctx.state.install_hooks()?;
    timing::mark("planned, hooks installed");
    let name = match requested {
        Some(name) => {
            ctx.state.create_session(&name)?;
            name
        }
        None => claim_anonymous(ctx)?,
    };
    // Held until spawn returns, unwinding included: `prune` leaves the worker alone meanwhile.
    let _spawning = match ctx.state.lock_spawn(&name) {
        Ok(lock) => lock,
        Err(e) => {
            let _ = ctx.state.remove_session(&name);
            return Err(e);
        }
    };
    if let Err(e) = super::budget_usage::put_spawn_limits(ctx, &name, args) {
        let _ = ctx.state.remove_session(&name);
        return Err(e);
    }
    // Set once this spawn may have made a tmux session: only then is there one of its own to
    // end. A session of that name it did not make (another state root's worker on a shared
    // `UMBEL_TMUX_SOCKET`) is never touched.
    let made_here = adopted.is_none() && args.worktree.is_some();
    let worktree = match (adopted, args.worktree.as_deref()) {
        (Some(adopted), _) => {
            plan.cwd = adopted.cwd;
            Some(adopted.worktree)
        }
        (None, Some(branch)) => {
            match super::worktree::create(ctx, &name, &plan.cwd, Some(branch), args.base.as_deref())
            {
                Ok(made) => {
                    plan.cwd = made.cwd;
                    Some(made.meta)
                }
                Err(e) => {
                    let _ = ctx.state.remove_session(&name);
                    return Err(e);
                }
            }
        }
        (None, None) => None,
    };
    let mut started = false;
    let wait = StartWait {
        timeout: plan.startup_timeout,
        readiness,
    };
    match launch(
        ctx,
        args,
        &plan,
        &name,
        worktree.clone(),
        wait,
        &mut started,
    ) {
        Ok(meta) => Ok(meta),
        Err(e) => {
            if started {
                super::kill::abandon(ctx, &name.tmux_session());
            }
            if let Some(wt) = worktree.as_ref().filter(|_| made_here) {
                super::worktree::remove(ctx, wt);
            }
            ctx.tmux.delete_buffer(&env_buffer(&name));
            let _ = ctx.state.remove_session(&name);
            Err(e)
        }
    }
}

/// The warm `-p` key of a launch (`core::warm::key`): what `args` would start, after the same
/// checks as a spawn (bad input is refused here too) — the provider, the resolved folder and
/// binary, its release, the flags and the whole environment the worker would get. The worker's
/// name, its startup bound and umbel's own clock play no part.
pub fn launch_key(ctx: &Ctx, args: &SpawnArgs) -> Result<String> {
    let plan = plan(ctx, args)?;
    let launch = SpawnArgs {
        name: None,
        cwd: None,
        startup_timeout: None,
        ..args.clone()
    };
    Ok(crate::core::warm::key(&[
        env!("CARGO_PKG_VERSION").to_string(),
        format!("{launch:?}"),
        format!("{:?}", plan.on_permission),
        plan.cwd.to_string_lossy().into_owned(),
        plan.bin.to_string_lossy().into_owned(),
        format!("{:?}", plan.release),
        format!("{:?}", plan.env),
    ]))
}

/// The plan; with `--fork-from`, on the parent's provider and folder (the fork's arguments,
/// returned too).
fn plan_fork(ctx: &Ctx, args: &SpawnArgs) -> Result<(Plan, Option<SpawnArgs>)> {
    let (fork, forked) = super::fork::resolve(ctx, args)?;
    let plan = plan(ctx, forked.as_ref().unwrap_or(args))?;
    Ok((Plan { fork, ..plan }, forked))
}

fn plan(ctx: &Ctx, args: &SpawnArgs) -> Result<Plan> {
    let provider = args.provider.module();
    let on_permission = args.on_permission(OnPermission::Stop)?;
    let flags = args.passthrough();
    check_flags(args, &flags)?;
    args.rules().check()?;
    let specs = &args.env;
    let startup_timeout = parse_or(
        args.startup_timeout.as_deref(),
        "--startup-timeout",
        DEFAULT_STARTUP,
    )?;
    let cwd = resolve_cwd(args.cwd.as_deref())?;
    let bin = resolve_bin(ctx, provider)?;
    let env = worker_env(ctx, provider, specs)?;
    check_hook_path(&env, args)?;
    let release = cli_release::learn(ctx, provider, &bin, &env);
    cli_release::require_supported(provider, release)?;
    Ok(Plan {
        provider,
        on_permission,
        flags,
        cwd,
        bin,
        env,
        startup_timeout,
        release,
        given: args.env.iter().map(|s| s.name().to_string()).collect(),
        requested: args.env.clone(),
        fork: None,
    })
}

/// What the CLI's hooks need on the worker's PATH: `sh` runs `event.sh`, which runs `cat` and
/// `date`.
const HOOK_TOOLS: [&str; 3] = ["sh", "cat", "date"];

/// Refuses a worker PATH the hooks cannot run on (`--env PATH=`): the CLI would start, take
/// prompts and answer them, but no turn could be seen to start or end. A worker without PATH
/// gets the shell's default one, which has them.
fn check_hook_path(env: &[(String, String)], args: &SpawnArgs) -> Result<()> {
    let Some((_, path)) = env.iter().find(|(k, _)| k == "PATH") else {
        return Ok(());
    };
    let on_path = |tool: &str| {
        path.split(':')
            .filter(|dir| !dir.is_empty())
            .any(|dir| host::is_executable(&Path::new(dir).join(tool)))
    };
    let missing: Vec<&str> = HOOK_TOOLS.into_iter().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let whose = if args.env.iter().any(|spec| spec.name() == "PATH") {
        "`--env PATH`"
    } else {
        "the worker's PATH (umbel's own)"
    };
    Err(Error::usage(format!(
        "{whose} is `{path}`, which has no {}: umbel's hooks run under `sh` with `cat` and \
         `date` from the worker's PATH, and without them no turn could be seen to start or \
         end; keep /usr/bin and /bin on it (e.g. `--env PATH=/your/bin:/usr/bin:/bin`)",
        missing.join(", ")
    )))
}

/// Refuses a passthrough flag the provider lacks, and a permission mode next to
/// `--on-permission`/`--unattended` (both set the CLI's mode).
fn check_flags(args: &SpawnArgs, flags: &[Given]) -> Result<()> {
    flags::check(args.provider, flags)?;
    if args.permission_mode.is_some() && (args.unattended || args.on_permission.is_some()) {
        return Err(Error::usage(
            "`--permission-mode` sets the CLI's own mode, as `--on-permission`/`--unattended` do: give only one",
        ));
    }
    Ok(())
}

/// Writes the launch files and meta.json, starts the CLI through `launch.sh`, and waits until
/// it is ready.
fn launch(
    ctx: &Ctx,
    args: &SpawnArgs,
    plan: &Plan,
    name: &WorkerName,
    worktree: Option<crate::core::worktree::WorktreeMeta>,
    wait: StartWait,
    started: &mut bool,
) -> Result<Meta> {
    let session_id = uuid::Uuid::new_v4().to_string();
    let spec = put_launch_files(ctx, args, plan, name, &session_id)?;
    let mut meta = Meta {
        name: name.to_string(),
        provider: args.provider,
        model: args.model.clone(),
        cwd: plan.cwd.clone(),
        bin: plan.bin.to_string_lossy().into_owned(),
        tmux_session: name.tmux_session(),
        session_id,
        transcript_path: spec.transcript_path.clone(),
        anonymous: args.name.is_none(),
        unattended: plan.on_permission == OnPermission::Allow,
        created_at: host::now_ms(),
        ready_at: None,
        umbel_version: env!("CARGO_PKG_VERSION").to_string(),
        cli_version: plan.release.map(|v| v.to_string()),
        worktree,
    };
    ctx.state.write_meta(&meta, name)?;
    timing::mark("launch files and meta written");
    *started = true;
    if let Err(e) = start_cli(ctx, plan, name, &meta, spec) {
        if !taken(&e) {
            return Err(e);
        }
        *started = false;
        return Err(Error::SessionTaken {
            name: name.to_string(),
            session: meta.tmux_session,
            socket: ctx.tmux.socket().to_string(),
        });
    }
    timing::mark("tmux session started");
    let given: Vec<&str> = args.env.iter().map(|spec| spec.name()).collect();
    await_ready(ctx, name, &meta, wait, &given, &plan.env, 0)?;
    timing::mark("ready");
    meta.ready_at = Some(host::now_ms());
    ctx.state.write_meta(&meta, name)?;
    Ok(meta)
}

/// The provider's launch, built on the user's own config files (read, never written), with its
/// files and links put in place.
fn put_launch_files(
    ctx: &Ctx,
    args: &SpawnArgs,
    plan: &Plan,
    name: &WorkerName,
    session_id: &str,
) -> Result<LaunchSpec> {
    let user_files = files::read_existing(plan.provider.user_files(&plan.env));
    let spec = plan.provider.launch(&LaunchInput {
        session_dir: &ctx.state.session_dir(name),
        hook_command: &hook_command(ctx, name),
        session_id,
        model: args.model.as_deref(),
        on_permission: plan.on_permission,
        flags: &plan.flags,
        cli_args: &args.cli_args,
        cwd: &plan.cwd,
        env: &plan.env,
        user_files: &user_files,
        release: plan.release,
    })?;
    for (path, content) in &spec.files {
        files::write_private(path, content)?;
    }
    for (link, target) in &spec.links {
        files::link_if_present(link, target)?;
    }
    super::rules::put(ctx, name, &args.rules(), plan.provider.approval().ask_event)?;
    Ok(spec)
}

/// What each of the CLI's hooks runs: `event.sh` with the worker's events folder.
fn hook_command(ctx: &Ctx, name: &WorkerName) -> String {
    format!(
        "sh {} {}",
        shell_quote(&ctx.state.hooks_dir().join("event.sh").to_string_lossy()),
        shell_quote(&ctx.state.events_dir(name).to_string_lossy())
    )
}

/// Starts the CLI in its own tmux session through `launch.sh`, its environment passed in a
/// buffer (never on an argv).
fn start_cli(
    ctx: &Ctx,
    plan: &Plan,
    name: &WorkerName,
    meta: &Meta,
    spec: LaunchSpec,
) -> Result<()> {
    // A fork starts with the CLI's fork of the parent's conversation; a later resume starts
    // the worker's own launch on its own conversation, so that is what launch.json keeps.
    let started_args = match &plan.fork {
        Some(fork) => fork.prepare(ctx, plan.provider, name, &spec.args)?,
        None => spec.args.clone(),
    };
    let launch = Launch {
        args: spec.args,
        env: with_own(plan.env.clone(), &spec.env),
        requested: plan.requested.clone(),
        own: spec.env,
        given: plan.given.clone(),
    };
    // Kept (mode 0600) for `park`/`resume`: the CLI is started again exactly as now.
    ctx.state.write_record(name, LAUNCH_FILE, &launch)?;
    let launch = Launch {
        args: started_args,
        ..launch
    };
    start_in_tmux(ctx, name, meta, &plan.cwd, &launch)
}

/// Whether tmux refused a new session because one of that name runs on the socket already. The
/// name was free in this state root (spawn claimed its folder), so another root sharing the
/// socket owns it.
fn taken(err: &Error) -> bool {
    matches!(err, Error::Tmux { message, .. } if message.contains("duplicate session"))
}

fn claim_anonymous(ctx: &Ctx) -> Result<WorkerName> {
    let mut last = None;
    for _ in 0..8 {
        let entropy = u64::from_le_bytes(
            uuid::Uuid::new_v4().as_bytes()[..8]
                .try_into()
                .unwrap_or([0; 8]),
        );
        let name = WorkerName::anonymous(entropy);
        match ctx.state.create_session(&name) {
            Ok(_) => return Ok(name),
            Err(e @ Error::Exists { .. }) => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| Error::usage("could not find a free anonymous name")))
}

fn resolve_cwd(cwd: Option<&Path>) -> Result<PathBuf> {
    let given = match cwd {
        Some(p) => p.to_path_buf(),
        None => host::current_dir().map_err(|e| Error::CwdMissing {
            path: PathBuf::from("."),
            reason: crate::core::errors::os_text(&e),
        })?,
    };
    let resolved = host::canonicalize(&given).map_err(|e| Error::CwdMissing {
        path: given.clone(),
        reason: crate::core::errors::os_text(&e),
    })?;
    if !resolved.is_dir() {
        return Err(Error::CwdMissing {
            path: given,
            reason: "not a directory".into(),
        });
    }
    Ok(resolved)
}

/// The provider's binary: its override variable, else its default name, looked up on PATH.
pub fn resolve_bin(ctx: &Ctx, provider: &dyn ProviderModule) -> Result<PathBuf> {
    let set = ctx.var(provider.bin_env_var()).filter(|v| !v.is_empty());
    let wanted = set.unwrap_or(provider.default_bin()).to_string();
    let here = host::current_dir().unwrap_or_default();
    if let Some(found) = ctx.find_program(&wanted, &here) {
        return Ok(found);
    }
    let problem = if !wanted.contains('/') {
        BinProblem::NotOnPath
    } else if host::exists(&here.join(&wanted)) {
        BinProblem::NotExecutable
    } else {
        BinProblem::NoSuchFile
    };
    Err(Error::BinaryNotFound {
        provider: provider.name(),
        package: provider.releases().package,
        bin: wanted,
        env_var: provider.bin_env_var(),
        from_env: set.is_some(),
        problem,
    })
}
