// umbel: reports one worker's turns to umbel. Written by umbel into the worker's session folder
// and loaded through OPENCODE_CONFIG_CONTENT's `plugin` list; never edit it (the next spawn
// writes it again). The UMBEL line is read by fake-opencode too: keep it one line of JSON.
import { appendFileSync } from "node:fs";
import { spawnSync } from "node:child_process";

const UMBEL = __UMBEL__;

// opencode's bus events umbel hears, under the hook names its event log takes ([A-Za-z0-9_]).
// `session.status` is `SessionBusy` when the session turns busy (the prompt was taken: umbel
// reads a hook by its name alone), `SessionStatus` for its other states (idle, retry).
const HOOKS = {
  "session.idle": "SessionIdle",
  "session.error": "SessionError",
  "permission.asked": "PermissionAsked",
  "permission.updated": "PermissionAsked",
  "permission.replied": "PermissionReplied",
  "question.asked": "QuestionAsked",
  "question.replied": "QuestionReplied",
  "question.rejected": "QuestionRejected",
};

function hook(name, payload) {
  try {
    spawnSync("sh", ["-c", UMBEL.hook + " " + name], {
      input: JSON.stringify(payload ?? {}),
      stdio: ["pipe", "ignore", "ignore"],
    });
  } catch {}
}

function record(line) {
  try {
    appendFileSync(UMBEL.transcript, JSON.stringify(line) + "\n");
  } catch {}
}

export const UmbelWorker = async () => {
  // Subagent sessions (the task tool) go busy and idle inside the worker's turn.
  const children = new Set();
  // A prompt's record is written once: opencode rewrites it after the turn (its diff summary).
  const prompts = new Set();
  const tools = new Map();
  let busy = false;
  // A turn is open from its prompt until its idle: after an Esc abort opencode publishes its
  // idle events a second time, maybe after the next `send` took its event-log position; that
  // idle ends no turn and is not reported.
  let open = false;
  // The newest message and its error: an Esc abort may end the turn with `session.idle` alone,
  // the abort only on the message (`MessageAbortedError`); the idle hook carries it. Ids sort
  // by time; an older message updated again later (opencode does) does not count.
  let newest = { id: "", error: null };
  hook("PluginStart", {});
  return {
    event: async ({ event }) => {
      const p = event.properties ?? {};
      const session = p.sessionID ?? p.info?.sessionID ?? p.part?.sessionID;
      if (event.type === "session.created" || event.type === "session.updated") {
        if (p.info?.parentID) children.add(p.info.id);
        // The TUI creates its session when the first prompt is submitted: the prompt was taken
        // (the TUI keeps showing it until the session is made, seconds on a loaded machine).
        else if (event.type === "session.created") {
          open = true;
          hook("SessionCreated", p);
        }
        return;
      }
      if (session && children.has(session)) return;
      if (event.type === "message.updated" && p.info) {
        if (p.info.role === "user") {
          if (prompts.has(p.info.id)) return;
          prompts.add(p.info.id);
          if (p.info.id >= newest.id) newest = { id: p.info.id, error: null };
          open = true;
          hook("PromptTaken", { sessionID: p.info.sessionID, messageID: p.info.id });
        } else if (p.info.role === "assistant" && p.info.id >= newest.id) {
          newest = { id: p.info.id, error: p.info.error ?? null };
        }
        record({ type: "message", info: p.info });
        return;
      }
      if (event.type === "message.part.updated" && p.part) {
        record({ type: "part", part: p.part });
        const status = p.part.state?.status;
        if (p.part.type === "tool" && status && tools.get(p.part.callID) !== status) {
          tools.set(p.part.callID, status);
          if (status !== "pending") hook("ToolUpdate", p.part);
        }
        return;
      }
      if (event.type === "session.status") {
        const now = p.status?.type === "busy";
        if (now && !busy) {
          open = true;
          hook("SessionBusy", p);
        }
        else if (!now) hook("SessionStatus", p);
        busy = now;
        return;
      }
      const name = HOOKS[event.type];
      if (name === "SessionIdle") {
        if (!open) return;
        open = false;
        if (newest.error) return hook(name, { ...p, error: newest.error });
      }
      if (name) hook(name, p);
    },
  };
};
