//! Kill trials: a process SIGKILLed at a point the test chooses, for crash-consistency tests
//! (the one way the CLI's tests kill an ingest).

use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Spawns `cmd` (stdout discarded), polls `reached` with the time since the spawn until it
/// says the kill point has come, then kills the process with SIGKILL and checks that the
/// signal is what ended it. Returns when it was killed, counted from the spawn.
///
/// The process must still be running at the kill point: if it exits first (it finished, or
/// failed), or does not reach the point within `limit`, the test fails with its status and
/// stderr.
pub fn kill_trial(cmd: &mut Command, limit: Duration, mut reached: impl FnMut(Duration) -> bool) -> Duration {
    let mut child =
        cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap_or_else(|e| panic!("cannot spawn {cmd:?}: {e}"));
    // Drained on a thread, so a chatty process cannot block on a full pipe before the kill.
    let mut pipe = child.stderr.take().unwrap_or_else(|| unreachable!("stderr is piped"));
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    loop {
        let elapsed = started.elapsed();
        if reached(elapsed) {
            break;
        }
        if let Some(status) = child.try_wait().unwrap_or_else(|e| panic!("wait: {e}")) {
            let err = stderr.join().unwrap_or_default();
            panic!("the process exited ({status}) after {elapsed:?}, before the kill point; stderr:\n{err}");
        }
        if elapsed > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the kill point was not reached within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let at = started.elapsed();
    child.kill().unwrap_or_else(|e| panic!("kill: {e}")); // SIGKILL on Unix
    let status = child.wait().unwrap_or_else(|e| panic!("wait: {e}"));
    let err = stderr.join().unwrap_or_default();
    // A process that exited on its own between the last poll and the kill shows here.
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9), "not ended by the kill at {at:?}: {status:?}; stderr:\n{err}");
    }
    #[cfg(not(unix))]
    assert!(!status.success(), "not ended by the kill at {at:?}: {status:?}; stderr:\n{err}");
    at
}
