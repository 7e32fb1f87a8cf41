//! The resource policy: what a command may spend, decided before it starts.
//!
//! Every command that can grow with its input asks here first. Memory is checked against
//! a budget: the limit the user gave, else the memory the machine has available now (the
//! kernel's `MemAvailable`, and the cgroup's `memory.max` when one is set), with a margin.
//! A refusal names the cost and the budget, so the user can decide; nothing is written.
//!
//! Disk is checked the same way before a solve writes: the free space of the database's
//! file system ([`free_disk`]) and this process's file-size limit ([`file_size_limit`],
//! `ulimit -f`); the solver's `Estimate::plan` (crate `nimdb-solve`) applies both with the memory budget, for
//! every face that solves (`nimdb solve`, the Python package).
//!
//! It is also the one place that reads what this process takes ([`resident_bytes`],
//! [`peak_resident_bytes`]), for the progress bar and the record of each solve run.

use std::fmt;
use std::path::{Path, PathBuf};

/// The share of the available memory a command may plan to use, in percent.
const AVAILABLE_SHARE_PERCENT: u64 = 80;

/// Why a command was refused before it started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResourceError {
    /// The estimated memory is over the budget.
    #[error("{what} needs about {} of memory, more than the {} allowed ({source_of_limit})", Bytes(*.needed), Bytes(*.limit))]
    Memory {
        /// What was refused, e.g. "solving kayles (total ≤ 130)".
        what: String,
        /// The estimated peak, in bytes.
        needed: u64,
        /// The budget, in bytes.
        limit: u64,
        /// Where the budget came from.
        source_of_limit: String,
    },
    /// The database and its write-ahead log would not fit the disk free.
    #[error(
        "{what} needs about {} of disk for the database and its write-ahead log, more than nine tenths of the {} free in {} (a solve leaves a tenth of the disk free)",
        Bytes(*.needed), Bytes(*.free), .dir.display()
    )]
    Disk {
        /// What was refused.
        what: String,
        /// Bytes the database, its write-ahead log and any spill may take.
        needed: u64,
        /// Bytes free to this user.
        free: u64,
        /// The directory whose file system was asked.
        dir: PathBuf,
    },
    /// The solve is over the memory budget, and spilling its lower tiers would not fit the
    /// disk free either.
    #[error(
        "{memory}, and spilling its lower tiers to disk would need about {} with the database and its write-ahead log, more than nine tenths of the {} free in {} (a solve leaves a tenth of the disk free)",
        Bytes(*.needed), Bytes(*.free), .dir.display()
    )]
    SpillDisk {
        /// The memory refusal that spilling would have avoided.
        memory: Box<ResourceError>,
        /// Bytes the database, its write-ahead log and the spill may take.
        needed: u64,
        /// Bytes free to this user.
        free: u64,
        /// The directory whose file system was asked.
        dir: PathBuf,
    },
    /// A file of the solve (the database, its write-ahead log, a spilled tier's file) would
    /// grow past this process's file-size limit (`ulimit -f`).
    #[error(
        "{what} would grow {file} to about {}, more than the file-size limit (ulimit -f) of {}",
        Bytes(*.grown), Bytes(*.limit)
    )]
    FileSize {
        /// What was refused.
        what: String,
        /// Which file: "the database", "its write-ahead log", "a spill file".
        file: &'static str,
        /// The file's size at its largest, at most.
        grown: u64,
        /// The limit.
        limit: u64,
    },
    /// A memory limit was given above what this process may have: its address-space limit
    /// (`ulimit -v`) or its control group's.
    #[error("a memory limit of {} is more than this process may use: {} ({source_of_room})", Bytes(*.given), Bytes(*.room))]
    LimitAboveRoom {
        /// The limit given.
        given: u64,
        /// The most this process may use.
        room: u64,
        /// Where that figure came from, in words.
        source_of_room: String,
    },
}

impl ResourceError {
    /// Whether the refusal is about memory alone (a larger budget would let it run).
    pub fn is_memory(&self) -> bool {
        matches!(self, ResourceError::Memory { .. })
    }
}

/// Bytes free to an unprivileged writer on the file system holding `dir`; `None` when it
/// cannot be asked.
pub fn free_disk(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: a zeroed statvfs is valid for the kernel to fill, and `path` is a valid C
        // string for the duration of the call.
        let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
            return None;
        }
        Some((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// This process's file-size limit (`RLIMIT_FSIZE`, `ulimit -f`) in bytes, when there is one.
pub fn file_size_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: a zeroed rlimit is valid for the kernel to fill.
        let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) } != 0
            || limit.rlim_cur == libc::RLIM_INFINITY
        {
            return None;
        }
        Some(limit.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    None
}

/// A memory budget, with where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    /// Bytes allowed.
    pub bytes: u64,
    /// Where the figure came from, in words.
    pub source: String,
}

impl MemoryBudget {
    /// The budget: `limit` if given, else a share of the memory available now; unlimited if
    /// neither is known.
    pub fn new(limit: Option<u64>) -> Self {
        if let Some(bytes) = limit {
            return MemoryBudget { bytes, source: "the memory limit given".to_string() };
        }
        match available_memory() {
            Some(free) => MemoryBudget {
                bytes: free / 100 * AVAILABLE_SHARE_PERCENT,
                source: format!("{AVAILABLE_SHARE_PERCENT}% of the {} available now", Bytes(free)),
            },
            None => MemoryBudget { bytes: u64::MAX, source: "the available memory is unknown".to_string() },
        }
    }

    /// The budget of [`new`](Self::new), refusing a `limit` above what this process may
    /// have at all (the room under its address-space limit, `ulimit -v`, or its control
    /// group's `memory.max`): such a limit would let a command plan memory it cannot get,
    /// and abort part-way instead of being refused. (The kernel's available memory is not a
    /// ceiling: a limit may count on memory the page cache gives back.)
    pub fn given(limit: Option<u64>) -> Result<Self, ResourceError> {
        if let Some(given) = limit {
            let rooms = [
                (address_space_room(), "the room left under this process's address-space limit, ulimit -v"),
                (cgroup_room(), "the room left under its control group's memory.max"),
            ];
            if let Some((room, source)) =
                rooms.into_iter().filter_map(|(r, s)| r.map(|r| (r, s))).min_by_key(|(r, _)| *r)
                && given > room
            {
                return Err(ResourceError::LimitAboveRoom {
                    given,
                    room,
                    source_of_room: source.to_string(),
                });
            }
        }
        Ok(Self::new(limit))
    }

    /// Refuses `needed` bytes for `what` if they are over the budget.
    pub fn check(&self, what: &str, needed: u64) -> Result<(), ResourceError> {
        if needed > self.bytes {
            return Err(ResourceError::Memory {
                what: what.to_string(),
                needed,
                limit: self.bytes,
                source_of_limit: self.source.clone(),
            });
        }
        Ok(())
    }
}

/// The memory available to this process now, in bytes: the smallest of the kernel's
/// `MemAvailable`, the room left under the cgroup's `memory.max` and the room left under
/// this process's address-space limit (`ulimit -v`, `RLIMIT_AS`), of those that can be read.
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| parse_meminfo(&s));
    [meminfo, cgroup_room(), address_space_room()].into_iter().flatten().min()
}

/// The room left under this process's soft address-space limit (`RLIMIT_AS`): the limit in
/// `/proc/self/limits` less the address space in use (`VmSize`); `None` when unlimited or
/// unreadable.
fn address_space_room() -> Option<u64> {
    let limit = parse_address_limit(&std::fs::read_to_string("/proc/self/limits").ok()?)?;
    let used = process_status("VmSize:").unwrap_or(0);
    Some(limit.saturating_sub(used))
}

/// The soft "Max address space" of a `/proc/PID/limits` text, in bytes; `None` when it is
/// unlimited or missing.
fn parse_address_limit(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..].split_whitespace().next()?.parse().ok()
}

fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

fn cgroup_room() -> Option<u64> {
    let max = std::fs::read_to_string("/sys/fs/cgroup/memory.max").ok()?;
    let max: u64 = max.trim().parse().ok()?; // "max" means no limit
    let current: u64 = std::fs::read_to_string("/sys/fs/cgroup/memory.current").ok()?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

/// This process's peak resident memory so far (the kernel's high-water mark, `VmHWM` in
/// `/proc/self/status`), in bytes; `None` where there is no such file (not Linux). One small
/// file read: cheap enough to take once per stored tier.
pub fn peak_resident_bytes() -> Option<u64> {
    process_status("VmHWM:")
}

/// This process's resident memory now (`VmRSS` in `/proc/self/status`), in bytes.
pub fn resident_bytes() -> Option<u64> {
    process_status("VmRSS:")
}

/// The CPU time this process has used so far, its threads' together (user and system;
/// `CLOCK_PROCESS_CPUTIME_ID`); `None` where there is no such clock.
pub fn process_cpu_time() -> Option<std::time::Duration> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is a valid timespec to fill.
        let r = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
        (r == 0).then(|| std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
    }
    #[cfg(not(unix))]
    None
}

/// The CPU clock of one thread, read from any thread while that thread lives
/// (`pthread_getcpuclockid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadClock(#[cfg(unix)] libc::clockid_t);

impl ThreadClock {
    /// The calling thread's clock; `None` where there is none.
    pub fn current() -> Option<ThreadClock> {
        #[cfg(unix)]
        {
            let mut id: libc::clockid_t = 0;
            // SAFETY: `pthread_self` is the calling thread, and `id` a valid place to write.
            let r = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) };
            (r == 0).then_some(ThreadClock(id))
        }
        #[cfg(not(unix))]
        None
    }

    /// The CPU time its thread has used so far; the thread must be alive.
    pub fn used(self) -> Option<std::time::Duration> {
        #[cfg(unix)]
        {
            let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
            // SAFETY: `ts` is a valid timespec to fill; the caller keeps the thread alive.
            let r = unsafe { libc::clock_gettime(self.0, &mut ts) };
            (r == 0).then(|| std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
        }
        #[cfg(not(unix))]
        None
    }
}

/// The threads that do one kind of work, whose CPU time is counted together and apart from
/// the rest of the process: a server's solves on the spot run on a thread pool of their own
/// whose workers join a group, and the threads those workers start to help them (the tier
/// writer) join it too ([`ThreadGroup::current`]). The time of a thread that has ended stays
/// counted. A thread is in at most one group.
#[derive(Clone, Debug, Default)]
pub struct ThreadGroup(std::sync::Arc<std::sync::Mutex<GroupClocks>>);

/// The live members' clocks and the time of the members that ended.
#[derive(Debug, Default)]
struct GroupClocks {
    live: Vec<ThreadClock>,
    ended: std::time::Duration,
    /// A member's clock could not be read: the group's time is not known.
    unknown: bool,
}

/// The calling thread's group membership: leaves the group (its time kept) when the thread
/// ends or joins another.
struct Membership {
    group: ThreadGroup,
    clock: Option<ThreadClock>,
}

impl Drop for Membership {
    fn drop(&mut self) {
        // Still on the member's own thread (a thread-local's destructor, or a join that
        // replaces it): its clock is readable.
        let used = self.clock.and_then(ThreadClock::used);
        if let Ok(mut clocks) = self.group.0.lock() {
            if let Some(clock) = self.clock {
                clocks.live.retain(|&c| c != clock);
            }
            match used {
                Some(used) => clocks.ended += used,
                None => clocks.unknown = true,
            }
        }
    }
}

std::thread_local! {
    static MEMBERSHIP: std::cell::RefCell<Option<Membership>> = const { std::cell::RefCell::new(None) };
}

impl ThreadGroup {
    /// An empty group.
    pub fn new() -> ThreadGroup {
        ThreadGroup::default()
    }

    /// The calling thread joins the group for the rest of its life (leaving the group it
    /// was in): from now on [`used`](Self::used) counts its CPU time, all of it, the time
    /// before it joined included.
    pub fn join(&self) {
        let clock = ThreadClock::current();
        if let Ok(mut clocks) = self.0.lock() {
            match clock {
                Some(clock) => clocks.live.push(clock),
                None => clocks.unknown = true,
            }
        }
        let joined = Membership { group: self.clone(), clock };
        // The old membership is dropped here, on this thread: its time stays with its group.
        let _ = MEMBERSHIP.try_with(|m| m.borrow_mut().replace(joined));
    }

    /// The group the calling thread is in, for a thread it starts to join: the work of a
    /// helper thread is its starter's work.
    pub fn current() -> Option<ThreadGroup> {
        MEMBERSHIP.try_with(|m| m.borrow().as_ref().map(|m| m.group.clone())).ok().flatten()
    }

    /// The CPU time the group's threads have used, ended members' included; `None` where a
    /// member's clock cannot be read (no thread clocks here).
    pub fn used(&self) -> Option<std::time::Duration> {
        // Read under the lock: a member leaves only under it, so every clock read is of a
        // live thread.
        let clocks = self.0.lock().ok()?;
        if clocks.unknown {
            return None;
        }
        let mut sum = clocks.ended;
        for clock in &clocks.live {
            sum += clock.used()?;
        }
        Some(sum)
    }
}

/// A memory figure of this process from `/proc/self/status`.
fn process_status(field: &str) -> Option<u64> {
    parse_status(&std::fs::read_to_string("/proc/self/status").ok()?, field)
}

/// The bytes of `field` (e.g. `VmHWM:`) in the text of a `/proc/PID/status` file, which gives
/// them in kB.
fn parse_status(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(field))?;
    let mut words = line[field.len()..].split_whitespace();
    let kb: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => kb.checked_mul(1024),
        _ => None,
    }
}

/// A text that is not a size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadSize(String);

/// Parses a size such as `512M`, `4G`, `4GB`, `1.5g`, `1000000` (bytes); units are powers
/// of 1024.
pub fn parse_size(text: &str) -> Result<u64, BadSize> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.strip_suffix("ib").or_else(|| t.strip_suffix('b')).unwrap_or(&t);
    let (number, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&t[..i], &t[i..]),
        None => (t, ""),
    };
    let scale: u64 = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return Err(BadSize(format!("'{}' is not a size (write e.g. 512M, 4G or 1.5T)", shorten(text)))),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| BadSize(format!("'{}' is not a size (write e.g. 512M, 4G or 1.5T)", shorten(text))))?;
    if !value.is_finite() || value <= 0.0 || value * scale as f64 >= u64::MAX as f64 {
        return Err(BadSize(format!("'{}' is not a usable size", shorten(text))));
    }
    Ok((value * scale as f64) as u64)
}

fn shorten(text: &str) -> String {
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text.to_string()
    }
}

/// Bytes in human units (KB, MB, GB, TB; powers of 1024).
#[derive(Clone, Copy, Debug)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0 as f64;
        let units = [(1u64 << 40, "TB"), (1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")];
        for (scale, name) in units {
            if self.0 >= scale {
                let v = b / scale as f64;
                return if v >= 10.0 { write!(f, "{v:.0} {name}") } else { write!(f, "{v:.1} {name}") };
            }
        }
        write!(f, "{} bytes", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Burns the calling thread's CPU until its own clock has passed `cpu`.
    fn burn(cpu: std::time::Duration) {
        let clock = ThreadClock::current().expect("a thread clock");
        let start = clock.used().unwrap();
        let mut x = 1u64;
        while clock.used().unwrap() - start < cpu {
            for _ in 0..10_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
    }

    /// Issue 34, round six: a server watched a solve by the whole process's CPU time, so a
    /// busy sibling request counted against the solve. A thread group counts its members'
    /// time only: a thread outside it burning 400 ms does not count, a member's 50 ms and
    /// its helper's 50 ms do (the helper joined through `current`), and a member's time
    /// stays counted after it ends.
    #[test]
    fn a_thread_group_counts_its_members_time_only() {
        use std::time::Duration;
        let group = ThreadGroup::new();
        let before = group.used().unwrap();
        assert_eq!(before, Duration::ZERO);
        let outside = std::thread::spawn(|| burn(Duration::from_millis(400)));
        let member = {
            let group = group.clone();
            std::thread::spawn(move || {
                group.join();
                burn(Duration::from_millis(50));
                let helper_group = ThreadGroup::current().expect("in a group");
                std::thread::spawn(move || {
                    helper_group.join();
                    burn(Duration::from_millis(50));
                })
                .join()
                .unwrap();
            })
        };
        member.join().unwrap();
        outside.join().unwrap();
        let used = group.used().unwrap();
        assert!(used >= Duration::from_millis(100), "{used:?}: the members' time is lost");
        assert!(used < Duration::from_millis(300), "{used:?}: the outside thread counted");
        assert!(ThreadGroup::current().is_none(), "the test's thread joined nothing");
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("512M").unwrap(), 512 << 20);
        assert_eq!(parse_size("4G").unwrap(), 4 << 30);
        assert_eq!(parse_size("4GB").unwrap(), 4 << 30);
        assert_eq!(parse_size("4gib").unwrap(), 4 << 30);
        assert_eq!(parse_size("1.5k").unwrap(), 1536);
        assert_eq!(parse_size("1000").unwrap(), 1000);
        for bad in ["", "x", "4Q", "-1G", "0", "99999999999T", "NaN"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn budget_refuses_over_the_limit() {
        let b = MemoryBudget::new(Some(1 << 30));
        assert!(b.check("x", 1 << 29).is_ok());
        let e = b.check("solving kayles", 375 << 30).unwrap_err().to_string();
        assert!(e.contains("375 GB") && e.contains("1.0 GB") && e.contains("solving kayles"), "{e}");
    }

    /// Low finding of issue 34: "needs about 7.5 MB …, more than the 8.0 MB free" read as
    /// a contradiction: the rule (nine tenths of the free disk) is stated.
    #[test]
    fn a_disk_refusal_states_the_nine_tenths_rule() {
        let e = ResourceError::Disk {
            what: "this solve".into(),
            needed: 7_500_000,
            free: 8_000_000,
            dir: "/d".into(),
        };
        let text = e.to_string();
        assert!(text.contains("more than nine tenths of the 7.6 MB free in /d"), "{text}");
        assert!(text.ends_with("(a solve leaves a tenth of the disk free)"), "{text}");
    }

    #[test]
    fn meminfo_is_read() {
        let text = "MemTotal:       24000000 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(parse_meminfo(text), Some(20_000_000 * 1024));
        assert!(available_memory().is_some_and(|m| m > 0));
    }

    #[test]
    fn address_space_limit_is_read() {
        let limited = "Limit                     Soft Limit           Hard Limit           Units     \n\
                       Max stack size            8388608              unlimited            bytes     \n\
                       Max address space         2048000000           unlimited            bytes     \n";
        assert_eq!(parse_address_limit(limited), Some(2_048_000_000));
        let unlimited = "Max address space         unlimited            unlimited            bytes     \n";
        assert_eq!(parse_address_limit(unlimited), None);
        assert_eq!(parse_address_limit(""), None);
    }

    #[test]
    fn process_status_is_read() {
        let text = "Name:\tnimdb\nVmPeak:\t  300000 kB\nVmHWM:\t   12345 kB\nVmRSS:\t    2048 kB\n";
        assert_eq!(parse_status(text, "VmHWM:"), Some(12345 * 1024));
        assert_eq!(parse_status(text, "VmRSS:"), Some(2048 * 1024));
        assert_eq!(parse_status(text, "VmSwap:"), None);
        assert_eq!(parse_status("VmHWM:\t12 MB\n", "VmHWM:"), None, "only kB is known");
        // This process: its peak is at least what it holds now, and more than a megabyte.
        let (now, peak) = (resident_bytes().unwrap(), peak_resident_bytes().unwrap());
        assert!(peak >= now && now > 1 << 20, "peak {peak}, now {now}");
    }
}
