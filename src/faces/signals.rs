//! How umbel stops on a signal: Ctrl-C, SIGTERM and SIGHUP raise the stop flag every long
//! operation looks at; a second signal, or a command still running [`STOP_GRACE`] after the
//! first, exits at once.

use crate::operations::Ctx;

/// Ctrl-C, SIGTERM (`timeout`, a CI cancelling) and SIGHUP (a closed terminal) stop what
/// umbel is doing (exit 130) the same way: what it started for itself (`-p`'s worker, a
/// half-spawned worker) is removed, workers it was asked about are left as they are. A
/// second signal exits at once, unless `second_exits` is false: `top` gives the terminal
/// back within a quarter second of the first, and exiting under it would leave it raw.
pub fn on_signals(ctx: &Ctx, second_exits: bool) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    for (signal, status) in [(SIGINT, 130), (SIGTERM, 143), (SIGHUP, 129)] {
        if second_exits {
            let _ = signal_hook::flag::register_conditional_shutdown(
                signal,
                status,
                ctx.cancel.clone(),
            );
        }
        let _ = signal_hook::flag::register(signal, ctx.cancel.clone());
    }
    if second_exits {
        stop_watchdog();
    }
}

/// How long umbel may take to stop after the first signal before it exits regardless.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// One signal ends any command: what umbel does looks at the stop flag and ends within a
/// moment, but a command blocked in a system call a signal does not break (an open(2) of a FIFO
/// nobody writes) would not. A thread waits for the first signal; if umbel is still running
/// [`STOP_GRACE`] later, it says so and exits 130.
fn stop_watchdog() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("stop watchdog".into())
        .spawn(move || {
            if signals.forever().next().is_some() {
                std::thread::sleep(STOP_GRACE);
                errln!(
                    "umbel: did not stop within {}s of the signal; exiting (`umbel ls` shows \
                     what it may have left)",
                    STOP_GRACE.as_secs()
                );
                std::process::exit(130);
            }
        });
}
