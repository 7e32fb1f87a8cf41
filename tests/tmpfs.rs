//! A solve on a small file system (an 8 MiB tmpfs, mounted for the test) is refused before
//! it writes anything when the database and its write-ahead log would not fit, and `--dry-run`
//! says so; a solve that fits runs there (issue 24, finding 5).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// An 8 MiB tmpfs mounted on a fresh directory, unmounted when dropped.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount() -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Tmpfs { dir })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

#[test]
#[ignore = "needs root to mount a tmpfs (.ci/run runs it with --ignored)"]
fn a_solve_that_would_not_fit_the_disk_is_refused_before_it_writes() {
    let Some(fs) = Tmpfs::mount() else {
        common::missing("mounting a tmpfs needs root and mount(8)");
    };
    let db = fs.path("nim.sqlite");
    // Misère Nim with at most 7 heaps of at most 32: 15,380,937 positions, about 16 MB of
    // records and their rows (with the write-ahead log's 1 MB): more than the 8 MiB file system.
    let big = ["solve", "--game", "nim", "--misere", "--max-heap", "32", "--max-heaps", "7", "-q", "--db"];
    let dry = common::nimdb().args(big).arg(&db).arg("--dry-run").output().unwrap();
    let said = String::from_utf8_lossy(&dry.stdout);
    assert!(said.contains("of disk") && !said.contains(": fits"), "{said}");
    let out = common::nimdb().args(big).arg(&db).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the solve was accepted: {err}");
    assert!(
        err.contains("of disk") && err.contains("nothing was written") && err.lines().count() == 1,
        "{err}"
    );
    assert_eq!(entries(fs.dir.path()), 0, "a refused solve wrote something");
    // A solve that fits runs there.
    let small = ["solve", "--game", "nim", "--misere", "--max-heap", "10", "--max-heaps", "6", "-q", "--db"];
    common::nimdb().args(small).arg(&db).assert().success();
    common::nimdb().args(["verify", "--game", "nim", "--misere", "--db"]).arg(&db).assert().success();
}
