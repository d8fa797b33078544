//! The supervisor against real children (`sh`): a child that hangs is killed at the
//! deadline, one killed by a signal or exiting with a status is classified, its stderr's last
//! lines are kept, and its answers arrive as messages.

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdout, Command};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};
use supervisor::{LineTail, Supervised};

type Child = Supervised<String, LineTail<3>>;

/// Stdout as lines.
fn line(r: &mut BufReader<ChildStdout>) -> std::io::Result<Option<String>> {
    let mut s = String::new();
    Ok((r.read_line(&mut s)? > 0).then(|| s.trim_end().to_string()))
}

fn sh(script: &str) -> Child {
    Supervised::spawn(Command::new("sh").args(["-c", script]), line).expect("sh starts")
}

#[test]
fn answers_arrive_in_order_and_the_end_of_stdout_disconnects() {
    let mut c = sh("for i in 1 2 3; do read x; echo \"got $x\"; done");
    for i in 0..3 {
        writeln!(c.stdin(), "{i}").unwrap();
        assert_eq!(c.recv(Duration::from_secs(10)), Ok(format!("got {i}")));
    }
    assert_eq!(
        c.recv(Duration::from_secs(10)),
        Err(RecvTimeoutError::Disconnected)
    );
    assert_eq!(c.reap(Duration::from_secs(10)).status, "exit status 0");
}

#[test]
fn a_child_that_hangs_is_killed_at_the_deadline() {
    let c = sh("read x; sleep 600");
    let start = Instant::now();
    assert_eq!(
        c.recv(Duration::from_millis(200)),
        Err(RecvTimeoutError::Timeout)
    );
    assert!(start.elapsed() >= Duration::from_millis(200));
    let status = c.kill();
    assert_eq!(status, "killed (signal 9 (SIGKILL))");
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "the kill did not wait out the sleep"
    );
}

#[test]
fn a_child_killed_by_a_signal_is_classified_with_its_last_words() {
    let c =
        sh("for i in 1 2 3 4 5; do echo \"line $i\" >&2; done; printf 'last' >&2; kill -SEGV $$");
    assert_eq!(
        c.recv(Duration::from_secs(10)),
        Err(RecvTimeoutError::Disconnected)
    );
    let death = c.reap(Duration::from_secs(10));
    assert_eq!(death.status, "signal 11 (SIGSEGV)");
    // The tail holds three lines: the unfinished last one and the two before it.
    assert_eq!(death.stderr.lines(), ["line 4", "line 5", "last"]);
}

#[test]
fn an_exit_status_is_classified() {
    let c = sh("echo bye >&2; exit 3");
    assert_eq!(
        c.recv(Duration::from_secs(10)),
        Err(RecvTimeoutError::Disconnected)
    );
    let death = c.reap(Duration::from_secs(10));
    assert_eq!(death.status, "exit status 3");
    assert_eq!(death.stderr.lines(), ["bye"]);
}

#[test]
fn a_child_that_closes_stdout_but_lives_on_is_killed_after_the_grace() {
    let c = sh("exec >&-; echo closed >&2; sleep 600");
    assert_eq!(
        c.recv(Duration::from_secs(10)),
        Err(RecvTimeoutError::Disconnected)
    );
    let start = Instant::now();
    let death = c.reap(Duration::from_millis(100));
    assert_eq!(
        death.status,
        "killed (signal 9 (SIGKILL)) after 100ms without exiting"
    );
    assert!(start.elapsed() < Duration::from_secs(60));
}

#[test]
fn dropping_the_handle_kills_the_child() {
    let c = sh("echo $$; sleep 600");
    let pid: u32 = c.recv(Duration::from_secs(10)).unwrap().parse().unwrap();
    drop(c);
    // Reaped: the pid no longer names a process of ours (`kill -0` fails).
    let alive = Command::new("kill")
        .args(["-0", &pid.to_string()])
        .status()
        .unwrap();
    assert!(!alive.success(), "child {pid} outlived its handle");
}

#[test]
fn a_missing_program_is_an_error_not_a_panic() {
    let r: std::io::Result<Child> =
        Supervised::spawn(&mut Command::new("/nonexistent/worker"), line);
    assert!(r.is_err());
}
