//! `cargo xtask`: one index of the repository's scripts. With no argument it lists every task with a one-line
//! description; `cargo xtask TASK [ARGS…]` runs the task's script from the repository's root with ARGS appended,
//! and exits with its status. Nothing is installed: the alias is in `.cargo/config.toml`.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// One task: its name, what it does (one line), and the command it runs (a path from the repository's root, then
/// fixed arguments).
struct Task {
    name: &'static str,
    about: &'static str,
    command: &'static [&'static str],
}

const fn task(name: &'static str, about: &'static str, command: &'static [&'static str]) -> Task {
    Task {
        name,
        about,
        command,
    }
}

/// Every task, grouped as the list prints them.
const TASKS: &[(&str, &[Task])] = &[
    (
        "checks",
        &[
            task(
                "ci",
                "everything CI runs (fmt, lints, tests, deploy, API, fuzz)",
                &[".ci/run"],
            ),
            task(
                "doc-links",
                "every relative link and #anchor of README.md and docs/ resolves",
                &["scripts/check-doc-links.py"],
            ),
            task(
                "comment-refs",
                "every *.md file and section a Rust comment cites exists",
                &["scripts/check-comment-refs.py"],
            ),
            task(
                "modgraph",
                "no import circle across directories in any crate (or: modgraph CRATE/src for its graph)",
                &["scripts/modgraph.py"],
            ),
            task(
                "schemathesis",
                "schemathesis, all checks, against a running `bidscan serve`",
                &["scripts/schemathesis.sh"],
            ),
            task(
                "reload-under-load",
                "wrk on /validate while SIGHUP reloads the policy",
                &["scripts/reload-under-load.sh"],
            ),
            task(
                "deploy-ci",
                "deploy/: manifests against a real scrape, three replicas behind nginx",
                &["deploy/ci.sh"],
            ),
            task(
                "deploy-manifests",
                "deployment files well-formed and naming only real metrics (--scrape FILE|URL)",
                &["deploy/check-manifests.py"],
            ),
            task(
                "lb-test",
                "three `bidscan serve` behind nginx, one stopped mid-load",
                &["deploy/lb-test.sh"],
            ),
        ],
    ),
    (
        "reliability",
        &[
            task(
                "fuzz",
                "libFuzzer on stable Rust: `fuzz build`, `fuzz run TARGET SECONDS`",
                &["scripts/fuzz.sh"],
            ),
            task(
                "fuzz-ci",
                "replay fuzz/regressions, then FUZZ_SECONDS per target",
                &["scripts/fuzz-ci.sh"],
            ),
            task(
                "hostile",
                "hostile-input and slow-client tests at full size",
                &["scripts/hostile.sh"],
            ),
            task(
                "overload",
                "overload figures: capacity, twice it, recovery",
                &["scripts/overload.sh"],
            ),
            task(
                "drain",
                "graceful drain under load: SIGTERM with clients in flight",
                &["scripts/drain.sh"],
            ),
            task(
                "soak",
                "100,000 mixed requests; RSS and retained bytes stay flat",
                &["scripts/soak.sh"],
            ),
        ],
    ),
    (
        "builds",
        &[
            task(
                "bolt-build",
                "the shipped binary: release build laid out by BOLT from a profile",
                &["scripts/bolt-build.sh"],
            ),
            task(
                "pgo-build",
                "a profile-guided release build (not shipped)",
                &["scripts/pgo-build.sh"],
            ),
            task(
                "train-server",
                "load a profiling build with the HTTP bench mixes",
                &["scripts/train-server.sh"],
            ),
        ],
    ),
    (
        "benchmarks",
        &[
            task(
                "bench-callgrind",
                "instructions per corpus pass for each decoder (FAMILY)",
                &["benches/report/callgrind.sh"],
            ),
            task(
                "bench-callgrind-doc",
                "instructions per decode of one corpus document (DECODER DOC)",
                &["benches/report/callgrind_doc.sh"],
            ),
            task(
                "bench-callgrind-table",
                "join callgrind.sh's per-family outputs into one table",
                &["benches/report/callgrind_table.py"],
            ),
            task(
                "bench-cg-self",
                "self cost per function of a callgrind file, any event",
                &["benches/report/cg_self.py"],
            ),
            task(
                "bench-cg-lines",
                "instruction-cache lines and pages a callgrind dump executed",
                &["benches/report/cg_lines.py"],
            ),
            task(
                "bench-criterion-table",
                "markdown table of the criterion `peers` groups",
                &["benches/report/criterion_table.py"],
            ),
            task(
                "bench-service",
                "requests per second: bidscan, baseline, floor and nginx under wrk",
                &["benches/http/service.sh"],
            ),
            task(
                "bench-http-callgrind",
                "instructions per HTTP request of one POSTed document",
                &["benches/http/callgrind.sh"],
            ),
            task(
                "bench-http-auction",
                "instructions per auction of 5 over HTTP against five /decode and five /validate calls",
                &["benches/http/auction_callgrind.sh"],
            ),
            task(
                "bench-http-load",
                "bidscan against the baseline server with oha",
                &["benches/http/load.sh"],
            ),
            task(
                "bench-mixes",
                "build the HTTP bench mixes of real bodies (OUT_DIR)",
                &["benches/http/mixes.py"],
            ),
        ],
    ),
    (
        "data",
        &[
            task(
                "validate-pairs",
                "build corpus/validate-pairs/ from prebid-server's fixtures",
                &["scripts/pairs_from_prebid.py"],
            ),
            task(
                "vast-expected",
                "write corpus/vast-samples/EXPECTED.tsv with an independent XML reader",
                &["corpus/vast-samples/expected.py"],
            ),
        ],
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ lies in the repository")
        .to_path_buf()
}

fn list() {
    println!("cargo xtask TASK [ARGS...]   (runs the task's script from the repository's root)\n");
    let width = TASKS
        .iter()
        .flat_map(|(_, tasks)| tasks.iter())
        .map(|t| t.name.len())
        .max()
        .unwrap_or(0);
    for (group, tasks) in TASKS {
        println!("{group}:");
        for t in *tasks {
            println!(
                "  {:width$}  {}  ({})",
                t.name,
                t.about,
                t.command.join(" ")
            );
        }
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(name) = args.next() else {
        list();
        return ExitCode::SUCCESS;
    };
    if matches!(name.as_str(), "-h" | "--help" | "help" | "list") {
        list();
        return ExitCode::SUCCESS;
    }
    let Some(task) = TASKS
        .iter()
        .flat_map(|(_, tasks)| tasks.iter())
        .find(|t| t.name == name)
    else {
        eprintln!("no task {name:?}; `cargo xtask` lists them");
        return ExitCode::from(2);
    };
    let root = root();
    let mut command = Command::new(root.join(task.command[0]));
    let mut rest: Vec<String> = task.command[1..].iter().map(|s| s.to_string()).collect();
    rest.extend(args);
    if task.name == "modgraph" && rest.is_empty() {
        rest.push("--check".to_owned());
    }
    let status = command.args(&rest).current_dir(&root).status();
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(s) => ExitCode::from(s.code().map_or(1, |c| c.clamp(1, 255) as u8)),
        Err(e) => {
            eprintln!("{}: {e}", task.command[0]);
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every task's script exists and is executable, and names are unique.
    #[test]
    fn every_task_runs_a_script_that_exists() {
        let mut names = std::collections::BTreeSet::new();
        for (_, tasks) in TASKS {
            for t in *tasks {
                assert!(names.insert(t.name), "{} twice", t.name);
                let path = root().join(t.command[0]);
                assert!(path.is_file(), "{}: {} is missing", t.name, path.display());
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = path.metadata().unwrap().permissions().mode();
                    assert!(mode & 0o111 != 0, "{} is not executable", path.display());
                }
            }
        }
    }
}
