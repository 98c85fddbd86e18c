//! A command loads its worker once: meta.json is read at most once per command
//! (`UMBEL_DEBUG_META_READS` makes umbel print its count on exit).

use crate::harness::*;

/// The count umbel printed on stderr.
fn meta_reads(out: &Ran) -> usize {
    let err = out.stderr();
    err.lines()
        .find_map(|l| l.strip_prefix("umbel: debug: meta.json reads: "))
        .unwrap_or_else(|| panic!("no meta.json read count on stderr: {err}"))
        .trim()
        .parse()
        .expect("a number")
}

#[test]
fn print_mode_and_the_turn_verbs_read_meta_json_once() {
    let mut sb = Sandbox::new();
    sb.spawn("w", &[]);
    sb.var("UMBEL_DEBUG_META_READS", "1");
    // -p on a worker it reuses: once, to load it.
    let out = sb.umbel(["-p", "--name", "w", "--output-format", "json", "hello"]);
    assert_eq!(meta_reads(&out.success()), 1, "-p --name w");
    let out = sb.umbel(["-p", "--name", "w", "-o", "stream-json", "and streamed"]);
    assert_eq!(meta_reads(&out.success()), 1, "-p --name w -o stream-json");
    // -p on a worker it spawns: spawn hands back the worker it wrote.
    let out = sb.umbel(["-p", "hello again"]).success();
    assert_eq!(meta_reads(&out), 0, "-p");
    for args in [
        &["send", "w", "more"][..],
        &["wait", "w"],
        &["read", "w"],
        &["read", "w", "--all"],
        &["actions", "w"],
        &["explain", "w"],
    ] {
        let out = sb.umbel(args).success();
        assert_eq!(meta_reads(&out), 1, "umbel {}", args.join(" "));
    }
}
