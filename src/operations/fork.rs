//! `spawn --fork-from NAME`: a new worker that starts with a copy of worker NAME's conversation,
//! NAME left untouched — the CLI's own fork (claude `--fork-session --resume <id>`, codex
//! `codex fork <id>`; gemini has none and is refused). The fork runs NAME's CLI, in NAME's
//! folder unless `--cwd` says otherwise (claude looks for the conversation under its folder);
//! a codex fork's own CODEX_HOME first gets a copy of NAME's rollout, where codex looks for it.
//!
//! `spawn --resume ID` on codex goes the same way: a thread a person ran outside umbel is in
//! their own CODEX_HOME, so the worker's gets a copy of its rollout and starts with
//! `codex resume <id>` (claude finds its sessions itself; its `--resume` is a passthrough flag).

use super::Ctx;
use super::park::cli_session_id;
use super::worker::Worker;
use crate::adapters::{files, host};
use crate::core::args::SpawnArgs;
use crate::core::errors::{Error, Result};
use crate::core::name::WorkerName;
use crate::core::providers::ProviderModule;
use crate::core::status::WorkerState;
use std::path::PathBuf;

/// The conversation a fork starts from.
#[derive(Debug, Clone)]
pub struct ForkSource {
    /// The worker forked from.
    pub name: String,
    /// The id the parent's CLI knows its conversation by.
    pub session_id: String,
    /// The parent's transcript.
    pub transcript: PathBuf,
    /// The parent's session folder.
    pub session_dir: PathBuf,
    /// The parent's provider and folder (the fork's unless told otherwise).
    pub args: SpawnArgs,
    /// A fork, or the resume of a conversation run outside umbel.
    pub how: How,
}

/// How the new worker starts from the conversation.
#[derive(Debug, Clone)]
pub enum How {
    /// The CLI's fork of another worker's conversation.
    Fork,
    /// The CLI's resume of a conversation in the user's own config home `home`; the copy goes
    /// to the same place under `inside` in the worker's session folder.
    Resume { home: PathBuf, inside: &'static str },
}

/// `--fork-from`'s conversation and the fork's spawn arguments (both `None` without it).
pub fn resolve(ctx: &Ctx, args: &SpawnArgs) -> Result<(Option<ForkSource>, Option<SpawnArgs>)> {
    let Some(parent) = args.fork_from.as_deref() else {
        return Ok((outside(ctx, args)?, None));
    };
    let fork = source(ctx, parent)?;
    let forked = fork.spawn_args(args);
    Ok((Some(fork), Some(forked)))
}

/// Worker `name`'s conversation, or why it cannot be forked (its CLI cannot fork, or it has no
/// conversation yet).
pub fn source(ctx: &Ctx, name: &str) -> Result<ForkSource> {
    let parent = Worker::load(ctx, name)?;
    let provider = parent.provider();
    let refused = |detail: String| Error::NotResumable {
        name: name.to_string(),
        detail,
    };
    if provider.fork_args(&[], "").is_none() {
        return Err(refused(format!(
            "cannot be forked: {} has no fork of a conversation (its `--resume` continues the \
             same one; docs/providers.md#resume-and-fork)",
            provider.name()
        )));
    }
    // Mid-turn, the copy would hold half a turn, which never ends in the fork.
    let busy = |detail: &str| Error::Busy {
        name: name.to_string(),
        detail: format!("{detail}; fork it once the turn ended (`umbel wait {name}`)"),
    };
    match super::send::state_now(ctx, &parent)?.0 {
        WorkerState::Busy => return Err(busy("a turn is running")),
        WorkerState::NeedsInput => return Err(busy("its turn waits for a person")),
        _ => {}
    }
    // The CLI writes the turn that just ended a moment after its hook: the fork copies it.
    parent.await_recorded(ctx, &parent.recent_events(ctx)?);
    let transcript = parent
        .transcript_path(ctx)
        .filter(|path| host::exists(path));
    let (Some(session_id), Some(transcript)) = (cli_session_id(ctx, &parent), transcript) else {
        return Err(refused(
            "has no conversation to fork yet: send it a prompt first".to_string(),
        ));
    };
    Ok(ForkSource {
        name: name.to_string(),
        session_id,
        transcript,
        session_dir: ctx.state.session_dir(&parent.name),
        args: SpawnArgs {
            provider: parent.meta.provider,
            cwd: Some(parent.meta.cwd.clone()),
            ..SpawnArgs::default()
        },
        how: How::Fork,
    })
}

/// `--resume ID` of a CLI whose workers do not see the user's own conversations (codex): where
/// the conversation is, or a usage error naming where it was looked for.
fn outside(ctx: &Ctx, args: &SpawnArgs) -> Result<Option<ForkSource>> {
    let provider = args.provider.module();
    let (Some(id), Some((home, inside))) = (&args.resume, provider.outside_home(&ctx.env)) else {
        return Ok(None);
    };
    let sessions = home.join("sessions");
    let Some(transcript) = files::find_by_suffix(&sessions, &format!("-{id}.jsonl")) else {
        return Err(Error::usage(format!(
            "`--resume {id}`: {} has no conversation of that id in {} (`{} resume` lists them)",
            provider.name(),
            sessions.display(),
            provider.name()
        )));
    };
    Ok(Some(ForkSource {
        name: id.clone(),
        session_id: id.clone(),
        transcript,
        session_dir: PathBuf::new(),
        args: args.clone(),
        how: How::Resume { home, inside },
    }))
}

impl ForkSource {
    /// The fork's spawn arguments: `args` on the parent's provider, in the parent's folder
    /// unless `--cwd` was given.
    pub fn spawn_args(&self, args: &SpawnArgs) -> SpawnArgs {
        SpawnArgs {
            provider: self.args.provider,
            cwd: args.cwd.clone().or_else(|| self.args.cwd.clone()),
            ..args.clone()
        }
    }

    /// Puts what the fork's CLI needs to find the conversation in the fork's folder, and returns
    /// the arguments it starts with (`args`: its own launch).
    pub fn prepare(
        &self,
        ctx: &Ctx,
        provider: &dyn ProviderModule,
        child: &WorkerName,
        args: &[String],
    ) -> Result<Vec<String>> {
        let child_dir = ctx.state.session_dir(child);
        let copy = match &self.how {
            How::Fork => provider.transcript_copy(&self.transcript, &self.session_dir, &child_dir),
            How::Resume { home, inside } => self
                .transcript
                .strip_prefix(home)
                .ok()
                .map(|path| child_dir.join(inside).join(path)),
        };
        if let Some(copy) = copy {
            let text = files::read_text(&self.transcript)
                .map_err(|e| Error::io("cannot read", &self.transcript, e))?;
            files::write_private(&copy, &text)?;
        }
        match self.how {
            How::Fork => provider
                .fork_args(args, &self.session_id)
                .ok_or_else(|| Error::usage(format!("`{}`'s CLI cannot fork", self.name))),
            How::Resume { .. } => Ok(provider.resume_args(args, &self.session_id)),
        }
    }
}
