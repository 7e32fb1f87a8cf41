//! One solve over the ranks of an MPI job (feature `mpi`): `mpirun -np N nimdb solve … --mpi`.
//!
//! The solver itself knows nothing of MPI: it solves as one member of a set of
//! [`Partners`] ([`crate::solve::solve_partitioned`]), each owning one block of every
//! tier. This module gives it three things:
//!
//! - [`MpiTeam`], the job's ranks as partners: offers and child requests go to their
//!   owners by `MPI_Alltoall` (counts and flags) and `MPI_Alltoallv`, answers come back by
//!   `MPI_Alltoallv`, finished blocks go to rank 0 point to point in parts of at most
//!   [`GATHER_PART`] values, which rank 0's store writes as they come (it never holds a
//!   whole tier), and one `MPI_Allreduce` per tier agrees on its greatest remoteness;
//! - [`LeaderStore`], rank 0's tier store: it wraps the database's sink (rank 0 is the only
//!   rank that opens the SQLite file) and broadcasts every answer it gets from it;
//! - [`FollowerStore`], every other rank's store: it receives those broadcasts and discards
//!   the tiers it is asked to save.
//!
//! Every rank's store sees the same calls in the same order, so the broadcasts pair up.
//! Each broadcast carries a [`Reply`]: rank 0's result, success or failure, so that a
//! database error on rank 0 fails every rank at the same point and the job ends cleanly.
//! Control messages are encoded with bincode ([`encode`], [`decode`]); see
//! `docs/DISTRIBUTED.md` for the data flow and the figures.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::ThreadId;
use std::time::Instant;

use ::mpi::Count;
use ::mpi::Threading;
use ::mpi::collective::{CommunicatorCollectives, Root, SystemOperation};
use ::mpi::datatype::{Equivalence, Partition, PartitionMut};
use ::mpi::point_to_point::{Destination, Source};
use ::mpi::topology::{Communicator, SimpleCommunicator};
use bincode::{Decode, Encode};

use crate::game::{Convention, GameSpec};
use crate::index::{TierId, Universe};
use crate::solve::{
    GATHER_PART, PartSink, PartSource, Partners, SinkError, SolveOptions, SolvedTier, Spill, Strategy,
    TierHead, TierStore, WholeTier, decode_words, encode_words, take_all,
};

/// Bytes of the first broadcast of every message: the message's length and, when it fits,
/// the message itself, so that a small message costs one collective.
pub const BROADCAST_HEAD: usize = 256;

/// The tag of the point-to-point messages that carry finished blocks to rank 0.
const GATHER_TAG: i32 = 17;

/// The tag of the point-to-point messages that carry each rank its block of a stored tier
/// on a resume.
const SCATTER_TAG: i32 = 18;

/// The environment variable that sets, on rank 0, the values a part of a finished block
/// carries to rank 0 (1 to 2^24; [`GATHER_PART`] without it): fewer, larger messages, or
/// a smaller piece of each tier held at a time on rank 0.
pub const GATHER_PART_VARIABLE: &str = "NIMDB_GATHER_PART";

/// The part size [`GATHER_PART_VARIABLE`] sets, or [`GATHER_PART`]; an error names a value
/// that is not a whole number from 1 to 2^24.
pub fn gather_part_from_env() -> Result<u32, MpiError> {
    let Some(value) = std::env::var_os(GATHER_PART_VARIABLE) else { return Ok(GATHER_PART as u32) };
    let text = value.to_string_lossy();
    text.trim().parse::<u32>().ok().filter(|n| (1..=1 << 24).contains(n)).ok_or_else(|| {
        MpiError::Setting(format!("{GATHER_PART_VARIABLE}={text} is not a whole number from 1 to 16777216"))
    })
}

/// Bytes per broadcast after the head, for long messages (loaded tiers).
const BROADCAST_CHUNK: usize = 1 << 30;

/// Why an MPI job failed on this rank.
#[derive(Debug, thiserror::Error)]
pub enum MpiError {
    /// `MPI_Init_thread` was refused (MPI was already initialized in this process).
    #[error("MPI could not be initialized (it was already, in this process)")]
    Init,
    /// The MPI library cannot take calls from the solver's thread.
    #[error("the MPI library offers only {0:?} thread support; nimdb needs at least funneled")]
    Threading(Threading),
    /// A control message could not be encoded.
    #[error("a control message could not be encoded: {0}")]
    Encode(#[from] bincode::error::EncodeError),
    /// A control message from rank 0 could not be decoded.
    #[error("a control message from rank 0 could not be decoded: {0}")]
    Decode(#[from] bincode::error::DecodeError),
    /// A setting from the environment is out of range.
    #[error("{0}")]
    Setting(String),
    /// Rank 0 runs another version of nimdb.
    #[error("rank 0 runs nimdb {leader}, this rank runs {own}: every rank must run the same build")]
    Version {
        /// Rank 0's version.
        leader: String,
        /// This rank's version.
        own: String,
    },
    /// The game rank 0 named does not parse here.
    #[error("rank 0 named a game this rank does not know: {0}")]
    Game(String),
}

/// The bincode configuration of every control message.
fn config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Encodes a control message.
pub fn encode<T: Encode>(message: &T) -> Result<Vec<u8>, MpiError> {
    Ok(bincode::encode_to_vec(message, config())?)
}

/// Decodes a control message, refusing trailing bytes.
pub fn decode<T: Decode<()>>(bytes: &[u8]) -> Result<T, MpiError> {
    let (message, read) = bincode::decode_from_slice(bytes, config())?;
    if read != bytes.len() {
        return Err(MpiError::Decode(bincode::error::DecodeError::Other("trailing bytes after a message")));
    }
    Ok(message)
}

/// The first message of a job, from rank 0 to every rank: what to solve, or stop.
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub enum Header {
    /// Solve this.
    Solve(JobPlan),
    /// Nothing to solve: rank 0 refused the arguments or the database (`failed`), or it
    /// was a dry run.
    Stop {
        /// Whether the job failed (the other ranks then exit with a failure status too).
        failed: bool,
    },
}

/// What every rank solves: the game, the convention, the universe's caps and the options.
/// Rank 0 builds it from its command line and broadcasts it, so that every rank solves
/// exactly the same universe whatever it was started with.
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub struct JobPlan {
    /// The nimdb version of rank 0; every rank must match it.
    pub version: String,
    /// The canonical game spec.
    pub game: String,
    /// Misère play.
    pub misere: bool,
    /// The universe's total.
    pub max_total: u32,
    /// The universe's heap-size cap.
    pub max_heap: Option<u32>,
    /// The universe's heap-count cap.
    pub max_heaps: Option<u32>,
    /// Whether nim-values are computed.
    pub nim_values: bool,
    /// Whether every rank's traffic per tier is gathered to rank 0 at the end
    /// (`--mpi-stats`).
    pub tier_stats: bool,
    /// Past how many bytes of its blocks of lower tiers each rank spills the rest to mapped
    /// files (`--window-limit`, or what `--memory-limit` needs), and rank 0's spill
    /// directory, which the other ranks use if it exists on their node.
    pub spill: Option<(u64, String)>,
    /// The most values a part of a finished block carries to rank 0 ([`GATHER_PART`], or
    /// the environment's [`GATHER_PART_VARIABLE`] on rank 0): every rank sends and
    /// receives parts of this size.
    pub gather_part: u32,
}

impl JobPlan {
    /// The plan of a solve.
    pub fn new(game: &GameSpec, convention: Convention, universe: &Universe, nim_values: bool) -> Self {
        JobPlan {
            version: env!("CARGO_PKG_VERSION").to_string(),
            game: game.canonical(),
            misere: convention == Convention::Misere,
            max_total: universe.max_total,
            max_heap: universe.max_heap,
            max_heaps: universe.max_heaps,
            nim_values,
            tier_stats: false,
            spill: None,
            gather_part: GATHER_PART as u32,
        }
    }

    /// Where this rank (not 0) spills, if the job spills: rank 0's directory if this node
    /// has it, else the system's temporary directory; the files are named after the rank
    /// and the process, and unlinked as soon as they are mapped.
    pub fn rank_spill(&self, rank: usize) -> Option<Spill> {
        let (budget, dir) = self.spill.as_ref()?;
        let dir = std::path::PathBuf::from(dir);
        let dir = if dir.is_dir() { dir } else { std::env::temp_dir() };
        Some(Spill {
            budget: *budget,
            dir,
            prefix: format!(".nimdb-spill-rank{rank}-{}", std::process::id()),
        })
    }

    /// The game, parsed back (and this rank's version checked against rank 0's).
    pub fn game(&self) -> Result<GameSpec, MpiError> {
        let own = env!("CARGO_PKG_VERSION");
        if self.version != own {
            return Err(MpiError::Version { leader: self.version.clone(), own: own.to_string() });
        }
        self.game.parse().map_err(|e: crate::game::SpecError| MpiError::Game(format!("{}: {e}", self.game)))
    }

    /// The solve options.
    pub fn options(&self) -> SolveOptions {
        SolveOptions {
            convention: Convention::from_misere(self.misere),
            universe: Universe {
                max_total: self.max_total,
                max_heap: self.max_heap,
                max_heaps: self.max_heaps,
            },
            nim_values: self.nim_values,
            strategy: Strategy::default(),
        }
    }
}

/// Rank 0's answer to one of the store's calls, as broadcast to the others.
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub enum Reply<T> {
    /// The call succeeded with this value.
    Done(T),
    /// The call failed on rank 0 with this message; every rank fails with it.
    Failed(String),
}

/// A solved tier on the wire: what rank 0 broadcasts when its store's whole-tier `load` is
/// called (the [`header`](WireTier::header) only). The partitioned solver reads stored
/// tiers in parts instead, each rank getting its block (`Partners::scatter_parts`).
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub struct WireTier {
    /// The tier's total.
    pub total: u32,
    /// The tier's heap count.
    pub heaps: u32,
    /// Remoteness by rank.
    pub remoteness: Vec<u16>,
    /// Nim-values by rank, if stored.
    pub nim_values: Option<Vec<u16>>,
    /// Seconds it took to solve.
    pub seconds: f64,
}

impl WireTier {
    /// The tier without its values: what the other ranks hear of a tier rank 0 loaded.
    pub fn header(t: &SolvedTier) -> Self {
        WireTier {
            total: t.tier.total,
            heaps: t.tier.heaps,
            remoteness: Vec::new(),
            nim_values: None,
            seconds: t.seconds,
        }
    }
}

impl From<&SolvedTier> for WireTier {
    fn from(t: &SolvedTier) -> Self {
        WireTier {
            total: t.tier.total,
            heaps: t.tier.heaps,
            remoteness: t.remoteness.clone(),
            nim_values: t.nim_values.clone(),
            seconds: t.seconds,
        }
    }
}

impl From<WireTier> for SolvedTier {
    fn from(t: WireTier) -> Self {
        SolvedTier {
            tier: TierId { total: t.total, heaps: t.heaps },
            remoteness: t.remoteness,
            nim_values: t.nim_values,
            seconds: t.seconds,
        }
    }
}

/// What one rank sent, and how long it spent in collectives. Bytes count what this rank
/// sent to the other ranks (not to itself), so the job's traffic is the sum over ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// Collective calls.
    pub collectives: u64,
    /// Bytes of offers (marking) and of child requests (settling), 8 each.
    pub exchanged_bytes: u64,
    /// Bytes of children's values sent back to the ranks that asked, 2 each.
    pub answered_bytes: u64,
    /// Bytes of finished blocks sent to rank 0 for storing: 1 a position (2 once remoteness
    /// passes 255).
    pub gathered_bytes: u64,
    /// Bytes rank 0 sent out: control messages, and on a resume each rank's block of the
    /// stored tiers (in parts, 1 byte a position, 2 once remoteness passes 255).
    pub broadcast_bytes: u64,
    /// Wall seconds inside collectives, waiting for the slowest rank included.
    pub seconds: f64,
}

/// The fields of a [`Traffic`] as numbers, for gathering to rank 0.
const TRAFFIC_FIELDS: usize = 6;

impl Traffic {
    /// `self − earlier`, field by field.
    pub fn since(&self, earlier: &Traffic) -> Traffic {
        Traffic {
            collectives: self.collectives - earlier.collectives,
            exchanged_bytes: self.exchanged_bytes - earlier.exchanged_bytes,
            answered_bytes: self.answered_bytes - earlier.answered_bytes,
            gathered_bytes: self.gathered_bytes - earlier.gathered_bytes,
            broadcast_bytes: self.broadcast_bytes - earlier.broadcast_bytes,
            seconds: self.seconds - earlier.seconds,
        }
    }

    /// Every byte this rank sent to the others.
    pub fn sent_bytes(&self) -> u64 {
        self.exchanged_bytes + self.answered_bytes + self.gathered_bytes + self.broadcast_bytes
    }

    fn to_array(self) -> [f64; TRAFFIC_FIELDS] {
        [
            self.collectives as f64,
            self.exchanged_bytes as f64,
            self.answered_bytes as f64,
            self.gathered_bytes as f64,
            self.broadcast_bytes as f64,
            self.seconds,
        ]
    }

    fn from_array(a: &[f64]) -> Traffic {
        Traffic {
            collectives: a[0] as u64,
            exchanged_bytes: a[1] as u64,
            answered_bytes: a[2] as u64,
            gathered_bytes: a[3] as u64,
            broadcast_bytes: a[4] as u64,
            seconds: a[5],
        }
    }
}

/// One rank's traffic for one tier (from the end of the previous tier to this one's save;
/// the first tier's row also holds the resume's broadcasts).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierTraffic {
    /// The tier.
    pub tier: TierId,
    /// The rank.
    pub rank: usize,
    /// The rank's traffic for it.
    pub traffic: Traffic,
}

/// One rank's totals, gathered to rank 0 at the end of a job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RankFigures {
    /// The rank.
    pub rank: usize,
    /// Its traffic.
    pub traffic: Traffic,
    /// Wall seconds of its solve call.
    pub solve_seconds: f64,
    /// CPU seconds of the whole process (user and system, every thread).
    pub cpu_seconds: f64,
    /// The process's peak resident memory (`VmHWM`), in bytes (0 where unknown).
    pub peak_bytes: u64,
    /// The most bytes of its blocks of solved tiers it held at once (its window).
    pub window_bytes: u64,
}

/// This process's CPU seconds so far (user and system, every thread).
pub fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the struct it is given, which is plain data.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_SELF is always valid.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0.0;
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// MPI itself: initialized by [`init`], finalized when dropped. Keep it alive until the
/// job's last MPI call.
pub struct MpiSession {
    _universe: ::mpi::environment::Universe,
}

/// Initializes MPI (funneled: only the calling thread makes MPI calls) and returns the
/// session and the team of all the job's ranks. Started without `mpirun`, it is a job of
/// one rank.
pub fn init() -> Result<(MpiSession, MpiTeam), MpiError> {
    let (universe, threading) =
        ::mpi::initialize_with_threading(Threading::Funneled).ok_or(MpiError::Init)?;
    if threading < Threading::Funneled {
        return Err(MpiError::Threading(threading));
    }
    let world = universe.world();
    let team = MpiTeam {
        index: world.rank() as usize,
        size: world.size() as usize,
        thread: std::thread::current().id(),
        state: Mutex::new(State::default()),
        gather_part: AtomicUsize::new(GATHER_PART),
    };
    Ok((MpiSession { _universe: universe }, team))
}

#[derive(Default)]
struct State {
    traffic: Traffic,
    at_last_tier: Traffic,
    tiers: Vec<TierTraffic>,
}

/// The ranks of the job's world communicator, as the solver's [`Partners`].
pub struct MpiTeam {
    index: usize,
    size: usize,
    thread: ThreadId,
    state: Mutex<State>,
    /// The most values a part of a finished block carries ([`JobPlan::gather_part`]).
    gather_part: AtomicUsize,
}

impl MpiTeam {
    /// Sets the most values a part of a finished block carries to rank 0: every rank must
    /// set the same, from the job's plan ([`JobPlan::gather_part`]).
    pub fn set_gather_part(&self, values: u32) {
        self.gather_part.store((values as usize).max(1), Ordering::Relaxed);
    }

    fn world(&self) -> SimpleCommunicator {
        SimpleCommunicator::world()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn count(&self, started: Instant, f: impl FnOnce(&mut Traffic)) {
        let mut state = self.state();
        f(&mut state.traffic);
        state.traffic.seconds += started.elapsed().as_secs_f64();
    }

    /// Broadcasts `message` from rank 0 (which passes `Some`) to every rank (which pass
    /// `None`), and returns it on every rank.
    fn broadcast(&self, message: Option<Vec<u8>>) -> Vec<u8> {
        let started = Instant::now();
        let world = self.world();
        let root = world.process_at_rank(0);
        let mut head = [0u8; BROADCAST_HEAD];
        let inline = BROADCAST_HEAD - 8;
        if let Some(bytes) = &message {
            head[..8].copy_from_slice(&(bytes.len() as u64).to_le_bytes());
            let n = bytes.len().min(inline);
            head[8..8 + n].copy_from_slice(&bytes[..n]);
        }
        root.broadcast_into(&mut head[..]);
        let len = u64::from_le_bytes(head[..8].try_into().expect("eight bytes")) as usize;
        let mut bytes = message.unwrap_or_else(|| {
            let mut b = vec![0u8; len];
            let n = len.min(inline);
            b[..n].copy_from_slice(&head[8..8 + n]);
            b
        });
        let mut calls = 1;
        if len > inline {
            for chunk in bytes[inline..].chunks_mut(BROADCAST_CHUNK) {
                root.broadcast_into(chunk);
                calls += 1;
            }
        }
        // Rank 0 sends; the others only receive.
        let sent = if self.index == 0 { (BROADCAST_HEAD + len.saturating_sub(inline)) as u64 } else { 0 };
        self.count(started, |t| {
            t.collectives += calls;
            t.broadcast_bytes += sent;
        });
        bytes.truncate(len);
        bytes
    }

    /// Sends (rank 0) or receives (the others) the job's [`Header`]. Rank 0 passes the
    /// header; every rank gets it back.
    pub fn announce(&self, header: Option<&Header>) -> Result<Header, MpiError> {
        if self.index == 0 {
            let header = header.cloned().unwrap_or(Header::Stop { failed: true });
            self.broadcast(Some(encode(&header)?));
            Ok(header)
        } else {
            decode(&self.broadcast(None))
        }
    }

    /// Rank 0: broadcasts its reply (a reply that cannot be encoded goes out as a failure).
    fn send_reply<T: Encode>(&self, reply: &Reply<T>) {
        let bytes = encode(reply).unwrap_or_else(|e| {
            encode(&Reply::<()>::Failed(format!("rank 0 could not encode its reply: {e}")))
                .unwrap_or_default()
        });
        self.broadcast(Some(bytes));
    }

    /// The other ranks: receives rank 0's reply. A message that does not decode means the
    /// ranks no longer agree, and the job is aborted.
    fn receive_reply<T: Decode<()>>(&self) -> Result<T, SinkError> {
        match decode::<Reply<T>>(&self.broadcast(None)) {
            Ok(Reply::Done(value)) => Ok(value),
            Ok(Reply::Failed(message)) => Err(SinkError::new(message)),
            Err(e) => self.abort(&e.to_string()),
        }
    }

    /// Records the end of a tier on this rank.
    fn end_tier(&self, tier: TierId) {
        let mut state = self.state();
        let traffic = state.traffic.since(&state.at_last_tier);
        state.at_last_tier = state.traffic;
        let rank = self.index;
        state.tiers.push(TierTraffic { tier, rank, traffic });
    }

    /// This rank's traffic so far.
    pub fn traffic(&self) -> Traffic {
        self.state().traffic
    }

    /// Gathers every rank's figures to rank 0 (every rank calls this once, at the end of
    /// the job, whatever its solve returned): each rank's totals, in rank order, and, with
    /// `per_tier`, each rank's traffic per tier, tier by tier and rank by rank. Rank 0 gets
    /// them; the others get `None`. Every rank must pass the same `per_tier`.
    pub fn gather(
        &self,
        solve_seconds: f64,
        window_bytes: u64,
        per_tier: bool,
    ) -> Option<(Vec<RankFigures>, Vec<TierTraffic>)> {
        const FIELDS: usize = TRAFFIC_FIELDS + 4;
        const ROW: usize = TRAFFIC_FIELDS + 2;
        let world = self.world();
        let root = world.process_at_rank(0);
        let peak = crate::resources::peak_resident_bytes().unwrap_or(0);
        let mut own = self.traffic().to_array().to_vec();
        own.extend([solve_seconds, cpu_seconds(), peak as f64, window_bytes as f64]);
        // Every rank solved (or failed at) the same tiers, so their lists are as long; if
        // they are not, no rank sends its rows.
        let tiers = self.state().tiers.clone();
        let counts = [tiers.len() as u64];
        let (mut least, mut most) = ([0u64], [0u64]);
        world.all_reduce_into(&counts[..], &mut least[..], SystemOperation::min());
        world.all_reduce_into(&counts[..], &mut most[..], SystemOperation::max());
        let rows = if per_tier && least == most { tiers.len() } else { 0 };
        let per_tier: Vec<f64> = tiers[..rows]
            .iter()
            .flat_map(|t| {
                let mut row = vec![t.tier.total as f64, t.tier.heaps as f64];
                row.extend(t.traffic.to_array());
                row
            })
            .collect();
        if self.index == 0 {
            let mut all = vec![0f64; FIELDS * self.size];
            root.gather_into_root(&own[..], &mut all[..]);
            let figures = all
                .chunks(FIELDS)
                .enumerate()
                .map(|(rank, a)| RankFigures {
                    rank,
                    traffic: Traffic::from_array(&a[..TRAFFIC_FIELDS]),
                    solve_seconds: a[TRAFFIC_FIELDS],
                    cpu_seconds: a[TRAFFIC_FIELDS + 1],
                    peak_bytes: a[TRAFFIC_FIELDS + 2] as u64,
                    window_bytes: a[TRAFFIC_FIELDS + 3] as u64,
                })
                .collect();
            let mut every = vec![0f64; per_tier.len() * self.size];
            root.gather_into_root(&per_tier[..], &mut every[..]);
            let mut table = Vec::with_capacity(rows * self.size);
            for i in 0..rows {
                for rank in 0..self.size {
                    let a = &every[(rank * rows + i) * ROW..][..ROW];
                    table.push(TierTraffic {
                        tier: TierId { total: a[0] as u32, heaps: a[1] as u32 },
                        rank,
                        traffic: Traffic::from_array(&a[2..]),
                    });
                }
            }
            Some((figures, table))
        } else {
            root.gather_into(&own[..]);
            root.gather_into(&per_tier[..]);
            None
        }
    }

    /// Waits until every rank has called this (`MPI_Barrier`).
    pub fn barrier(&self) {
        self.world().barrier();
    }

    /// Ends the whole job at once (`MPI_Abort`) after printing `message`: for failures that
    /// only this rank sees, after which the ranks could no longer meet at the same calls.
    pub fn abort(&self, message: &str) -> ! {
        eprintln!("nimdb: error: rank {}: {message}; aborting the MPI job", self.index);
        self.world().abort(1)
    }
}

impl MpiTeam {
    fn on_own_thread(&self) -> Result<(), String> {
        if std::thread::current().id() != self.thread {
            return Err("MPI calls must come from the thread that initialized MPI".into());
        }
        Ok(())
    }

    /// `MPI_Alltoallv`: sends `parts[m]` to rank `m` and returns what each rank sent this
    /// one (`recv_lens[m]` values from rank `m`).
    fn all_to_all<T: Equivalence + Copy + Default>(
        &self,
        parts: &[Vec<T>],
        recv_lens: &[usize],
    ) -> Result<Vec<Vec<T>>, String> {
        let (counts, displs) = partition(parts.iter().map(Vec::len))?;
        let (recv_counts, recv_displs) = partition(recv_lens.iter().copied())?;
        // Both buffers are real allocations even when empty: an empty `Vec<u8>`'s address
        // is 1, which Open MPI takes for `MPI_IN_PLACE`.
        let total: usize = parts.iter().map(Vec::len).sum();
        let mut send = Vec::with_capacity(total.max(1));
        for part in parts {
            send.extend_from_slice(part);
        }
        let mut recv = Vec::with_capacity(recv_lens.iter().sum::<usize>().max(1));
        recv.resize(recv_lens.iter().sum(), T::default());
        self.world().all_to_all_varcount_into(
            &Partition::new(&send[..], &counts[..], &displs[..]),
            &mut PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]),
        );
        drop(send);
        Ok(split(&recv, recv_lens.iter().copied()))
    }
}

/// `len` zero bytes in a real allocation, even for none: an empty `Vec<u8>`'s address is 1,
/// which Open MPI takes for `MPI_IN_PLACE`.
fn byte_buffer(len: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(len.max(1));
    bytes.resize(len, 0);
    bytes
}

/// `values` a byte each (in a real allocation, see [`byte_buffer`]); an error if one does
/// not fit (the solver promised it would).
fn narrow(values: &[u16]) -> Result<Vec<u8>, String> {
    let mut bytes = byte_buffer(values.len());
    for (b, &v) in bytes.iter_mut().zip(values) {
        *b = u8::try_from(v).map_err(|_| format!("value {v} is above the bound the solver gave"))?;
    }
    Ok(bytes)
}

/// Counts and displacements of pieces of `lens` values, for a variable-count collective.
fn partition(lens: impl Iterator<Item = usize>) -> Result<(Vec<Count>, Vec<Count>), String> {
    let mut counts = Vec::new();
    let mut displs = Vec::new();
    let mut at = 0usize;
    for len in lens {
        let too_many = || format!("{len} values for one rank at once: more than MPI counts");
        counts.push(Count::try_from(len).map_err(|_| too_many())?);
        displs.push(Count::try_from(at).map_err(|_| too_many())?);
        at += len;
    }
    Ok((counts, displs))
}

/// Splits `all` into pieces of `lens` values.
fn split<T: Copy>(all: &[T], lens: impl Iterator<Item = usize>) -> Vec<Vec<T>> {
    let mut at = 0;
    lens.map(|len| {
        let piece = all[at..at + len].to_vec();
        at += len;
        piece
    })
    .collect()
}

impl Partners for MpiTeam {
    fn index(&self) -> usize {
        self.index
    }

    fn size(&self) -> usize {
        self.size
    }

    fn exchange(&self, outbox: Vec<Vec<u64>>, flags: u64) -> Result<(Vec<Vec<u64>>, u64), String> {
        self.on_own_thread()?;
        if self.size == 1 {
            return Ok((outbox, flags));
        }
        let started = Instant::now();
        let world = self.world();
        // Each batch goes out compressed (`encode_words`: sorted words cost 2–3 bytes);
        // this rank's own box stays here as it is.
        let mut outbox = outbox;
        let own = std::mem::take(&mut outbox[self.index]);
        let outbox: Vec<Vec<u8>> = outbox.iter().map(|words| encode_words(words)).collect();
        // Each rank tells each the bytes it sends it, and its flags.
        let heads: Vec<u64> = outbox.iter().flat_map(|b| [b.len() as u64, flags]).collect();
        let mut got = vec![0u64; 2 * self.size];
        world.all_to_all_into(&heads[..], &mut got[..]);
        let any = got.chunks(2).fold(0, |all, h| all | h[1]);
        let recv_lens: Vec<usize> = got.chunks(2).map(|h| h[0] as usize).collect();
        let sent: u64 = outbox.iter().map(|b| b.len() as u64).sum();
        let mut inbox = self
            .all_to_all(&outbox, &recv_lens)?
            .iter()
            .map(|bytes| decode_words(bytes))
            .collect::<Result<Vec<_>, _>>()?;
        inbox[self.index] = own;
        self.count(started, |t| {
            t.collectives += 2;
            t.exchanged_bytes += sent;
        });
        Ok((inbox, any))
    }

    fn answer(&self, answers: Vec<Vec<u16>>, asked: &[usize], most: u16) -> Result<Vec<Vec<u16>>, String> {
        self.on_own_thread()?;
        if self.size == 1 {
            return Ok(answers);
        }
        let started = Instant::now();
        let to_others: usize =
            answers.iter().enumerate().filter(|&(to, _)| to != self.index).map(|(_, a)| a.len()).sum();
        let (replies, width) = if most <= u8::MAX as u16 {
            // No answer passes `most`: a byte each.
            let narrow = answers.iter().map(|a| narrow(a)).collect::<Result<Vec<_>, _>>()?;
            drop(answers);
            let got = self.all_to_all(&narrow, asked)?;
            (got.into_iter().map(|g| g.into_iter().map(u16::from).collect()).collect(), 1)
        } else {
            (self.all_to_all(&answers, asked)?, 2)
        };
        self.count(started, |t| {
            t.collectives += 1;
            t.answered_bytes += width * to_others as u64;
        });
        Ok(replies)
    }

    fn gather_parts(
        &self,
        block: &[u16],
        len: u64,
        most: u16,
        take: &mut dyn FnMut(&[u16]) -> Result<(), String>,
    ) -> Result<(), String> {
        self.on_own_thread()?;
        let part = self.gather_part.load(Ordering::Relaxed);
        if self.size == 1 {
            return take_all(block.chunks(part), take);
        }
        let started = Instant::now();
        let world = self.world();
        // No value of the tier passes `most`: a byte each when it fits.
        let narrow_parts = most <= u8::MAX as u16;
        if self.index != 0 {
            if greatest(block) > most {
                self.abort(&format!("a value of this rank's block is above the tier's greatest, {most}"));
            }
            // Parts in rank order, point to point: messages from one rank to another with
            // one tag arrive in the order sent.
            let root = world.process_at_rank(0);
            for part in block.chunks(part) {
                if narrow_parts {
                    root.send_with_tag(&narrow(part)?[..], GATHER_TAG);
                } else {
                    root.send_with_tag(part, GATHER_TAG);
                }
            }
            let sent = if narrow_parts { 1 } else { 2 } * block.len() as u64;
            self.count(started, |t| {
                t.collectives += 1;
                t.gathered_bytes += sent;
            });
            return Ok(());
        }
        // Rank 0: its own block, then each member's, a part at a time, every part received
        // even after `take` fails.
        let mut failed = take_all(block.chunks(part), take).err();
        let largest = (1..self.size).map(|m| crate::solve::block(len, m, self.size)).map(|b| b.end - b.start);
        let buffer = (largest.max().unwrap_or(0) as usize).min(part);
        let mut bytes = byte_buffer(if narrow_parts { buffer } else { 0 });
        let mut values = vec![0u16; buffer];
        for member in 1..self.size {
            let from = world.process_at_rank(member as i32);
            let own = crate::solve::block(len, member, self.size);
            let mut left = (own.end - own.start) as usize;
            while left > 0 {
                let count = left.min(part);
                if narrow_parts {
                    from.receive_into_with_tag(&mut bytes[..count], GATHER_TAG);
                    for (v, &b) in values.iter_mut().zip(&bytes[..count]) {
                        *v = u16::from(b);
                    }
                } else {
                    from.receive_into_with_tag(&mut values[..count], GATHER_TAG);
                }
                if failed.is_none() {
                    failed = take(&values[..count]).err();
                }
                left -= count;
            }
        }
        self.count(started, |t| t.collectives += 1);
        failed.map_or(Ok(()), Err)
    }

    fn agree(&self, max: u16, longest_win: u16, stop: bool) -> Result<(u16, u16, bool), String> {
        self.on_own_thread()?;
        if self.size == 1 {
            return Ok((max, longest_win, stop));
        }
        let started = Instant::now();
        let own = [max, longest_win, u16::from(stop)];
        let mut all = [0u16; 3];
        self.world().all_reduce_into(&own[..], &mut all[..], SystemOperation::max());
        self.count(started, |t| t.collectives += 1);
        Ok((all[0], all[1], all[2] != 0))
    }

    fn scatter_parts(
        &self,
        len: u64,
        load: &mut dyn FnMut(&mut dyn PartSink),
    ) -> Result<Option<(Vec<u16>, u16)>, String> {
        self.on_own_thread()?;
        if self.size == 1 {
            let mut whole = WholeTier::default();
            load(&mut whole);
            return Ok(whole.head.map(|(_, most)| (whole.values, most)));
        }
        let started = Instant::now();
        if self.index == 0 {
            let mut scatter = Scatter {
                team: self,
                len,
                part: self.gather_part.load(Ordering::Relaxed),
                most: None,
                at: 0,
                own: Vec::new(),
                buffer: Vec::new(),
                closed: false,
                sent: 0,
            };
            load(&mut scatter);
            scatter.close().map_err(|e| e.to_string())?;
            let (most, own, sent) = (scatter.most, scatter.own, scatter.sent);
            self.count(started, |t| {
                t.collectives += 1;
                t.broadcast_bytes += 4 + sent;
            });
            return Ok(most.map(|most| (own, most)));
        }
        // Whether rank 0 has the tier, and its greatest remoteness.
        let mut head = [0u16; 2];
        self.world().process_at_rank(0).broadcast_into(&mut head[..]);
        let got = if head[0] == 0 {
            None
        } else {
            let own = crate::solve::block(len, self.index, self.size);
            Some((self.receive_block((own.end - own.start) as usize, head[1]), head[1]))
        };
        // This rank's store hears how rank 0's load went.
        load(&mut Ignored);
        self.count(started, |t| t.collectives += 1);
        Ok(got)
    }
}

impl MpiTeam {
    /// Receives this rank's block of `count` values of a tier whose greatest value is
    /// `most`, sent by rank 0 in parts of the job's part size.
    fn receive_block(&self, count: usize, most: u16) -> Vec<u16> {
        let part = self.gather_part.load(Ordering::Relaxed);
        let world = self.world();
        let root = world.process_at_rank(0);
        let mut values = vec![0u16; count];
        let mut bytes = byte_buffer(if most <= u8::MAX as u16 { part.min(count) } else { 0 });
        for chunk in values.chunks_mut(part) {
            if most <= u8::MAX as u16 {
                root.receive_into_with_tag(&mut bytes[..chunk.len()], SCATTER_TAG);
                for (v, &b) in chunk.iter_mut().zip(&bytes) {
                    *v = u16::from(b);
                }
            } else {
                root.receive_into_with_tag(chunk, SCATTER_TAG);
            }
        }
        values
    }
}

/// A sink that takes nothing: a rank's own store's part of a scatter, which only hears
/// rank 0's outcome.
struct Ignored;

impl PartSink for Ignored {
    fn head(&mut self, _positions: u64, _most: u16) -> Result<(), SinkError> {
        Ok(())
    }
    fn part(&mut self, _values: &[u16]) -> Result<(), SinkError> {
        Ok(())
    }
}

/// Rank 0's sink of a stored tier it hands out as it reads it: its own block it keeps,
/// every other rank's goes out in parts of `part` values as the values come.
struct Scatter<'t> {
    team: &'t MpiTeam,
    len: u64,
    part: usize,
    /// The tier's greatest remoteness, once its head is broadcast.
    most: Option<u16>,
    /// Values routed so far.
    at: u64,
    own: Vec<u16>,
    /// Values for the rank that owns the ones just routed, not yet sent.
    buffer: Vec<u16>,
    closed: bool,
    /// Bytes sent to the other ranks.
    sent: u64,
}

impl Scatter<'_> {
    fn announce(&self, mut head: [u16; 2]) {
        self.team.world().process_at_rank(0).broadcast_into(&mut head[..]);
    }

    /// Sends the buffered values to `member`.
    fn flush(&mut self, member: usize, most: u16) -> Result<(), SinkError> {
        let world = self.team.world();
        let to = world.process_at_rank(member as i32);
        if most <= u8::MAX as u16 {
            to.send_with_tag(&narrow(&self.buffer).map_err(SinkError::new)?[..], SCATTER_TAG);
            self.sent += self.buffer.len() as u64;
        } else {
            to.send_with_tag(&self.buffer[..], SCATTER_TAG);
            self.sent += 2 * self.buffer.len() as u64;
        }
        self.buffer.clear();
        Ok(())
    }

    /// Hands `values`, the next in rank order, to their owners.
    fn route(&mut self, mut values: &[u16], most: u16) -> Result<(), SinkError> {
        let n = self.team.size;
        while !values.is_empty() {
            let member = crate::solve::owner(self.at, self.len, n);
            let end = crate::solve::block(self.len, member, n).end;
            let take = values.len().min((end - self.at) as usize);
            if member == 0 {
                self.own.extend_from_slice(&values[..take]);
                self.at += take as u64;
            } else {
                let mut rest = &values[..take];
                while !rest.is_empty() {
                    let k = rest.len().min(self.part - self.buffer.len());
                    self.buffer.extend_from_slice(&rest[..k]);
                    rest = &rest[k..];
                    self.at += k as u64;
                    if self.buffer.len() == self.part || self.at == end {
                        self.flush(member, most)?;
                    }
                }
            }
            values = &values[take..];
        }
        Ok(())
    }
}

impl PartSink for Scatter<'_> {
    fn head(&mut self, positions: u64, max_remoteness: u16) -> Result<(), SinkError> {
        if self.most.is_some() || self.closed {
            return Err(SinkError::new("a tier's head came twice"));
        }
        if positions != self.len {
            return Err(SinkError::new(format!(
                "the stored tier holds {positions} positions, not {}",
                self.len
            )));
        }
        self.announce([1, max_remoteness]);
        self.most = Some(max_remoteness);
        let own = crate::solve::block(self.len, 0, self.team.size);
        self.own.reserve_exact((own.end - own.start) as usize);
        Ok(())
    }

    fn part(&mut self, values: &[u16]) -> Result<(), SinkError> {
        let Some(most) = self.most.filter(|_| !self.closed) else {
            return Err(SinkError::new("a tier's values came before its head"));
        };
        if self.at + values.len() as u64 > self.len {
            return Err(SinkError::new(format!(
                "the stored tier holds more than its {} positions",
                self.len
            )));
        }
        if let Some(&v) = values.iter().find(|&&v| v > most) {
            return Err(SinkError::new(format!(
                "the stored tier holds remoteness {v}, above its greatest {most}"
            )));
        }
        self.route(values, most)
    }

    fn close(&mut self) -> Result<(), SinkError> {
        if std::mem::replace(&mut self.closed, true) {
            return Ok(());
        }
        let Some(most) = self.most else {
            // No head went out: every rank hears there is no tier.
            self.announce([0, 0]);
            return Ok(());
        };
        // A load that stopped early: every rank still gets its whole block (the load's
        // error says it is no good).
        let zeros = vec![0u16; self.part.min((self.len - self.at) as usize)];
        while self.at < self.len {
            let k = zeros.len().min((self.len - self.at) as usize);
            self.route(&zeros[..k], most)?;
        }
        Ok(())
    }
}

/// The greatest value of `values` (0 for none).
fn greatest(values: &[u16]) -> u16 {
    values.iter().copied().max().unwrap_or(0)
}

/// Rank 0's tier store: the database's sink, whose every answer is broadcast to the other
/// ranks (see [`FollowerStore`]).
pub struct LeaderStore<'a> {
    inner: &'a mut dyn TierStore,
    team: &'a MpiTeam,
}

impl<'a> LeaderStore<'a> {
    /// Wraps rank 0's sink.
    pub fn new(inner: &'a mut dyn TierStore, team: &'a MpiTeam) -> Self {
        LeaderStore { inner, team }
    }
}

fn reply<T, U>(result: &Result<T, SinkError>, f: impl FnOnce(&T) -> U) -> Reply<U> {
    match result {
        Ok(value) => Reply::Done(f(value)),
        Err(e) => Reply::Failed(e.to_string()),
    }
}

impl TierStore for LeaderStore<'_> {
    fn solved_tiers(&mut self) -> Result<BTreeSet<TierId>, SinkError> {
        let result = self.inner.solved_tiers();
        self.team
            .send_reply(&reply(&result, |set| set.iter().map(|t| (t.total, t.heaps)).collect::<Vec<_>>()));
        result
    }

    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        let result = self.inner.load(tier);
        // The other ranks hear only which tier was loaded, or why it could not be: the
        // solver then scatters each rank its block (`Partners::scatter`).
        self.team.send_reply(&reply(&result, |t: &SolvedTier| WireTier::header(t)));
        result
    }

    fn save(&mut self, solved: SolvedTier) -> Result<(), SinkError> {
        let tier = solved.tier;
        let result = self.inner.save(solved);
        self.team.send_reply(&reply(&result, |_| ()));
        self.team.end_tier(tier);
        result
    }

    fn load_in_parts(&mut self, tier: TierId, into: &mut dyn PartSink) -> Result<(), SinkError> {
        let result = self.inner.load_in_parts(tier, into);
        // Every rank gets its whole block (or hears there is none) before the reply.
        let result = result.and(into.close());
        self.team.send_reply(&reply(&result, |_| (tier.total, tier.heaps)));
        result
    }

    fn save_in_parts(&mut self, head: &TierHead, parts: &mut PartSource<'_>) -> Result<(), SinkError> {
        let mut taken = false;
        let result = self.inner.save_in_parts(head, &mut |sink| {
            taken = true;
            parts(sink)
        });
        // The other ranks send their blocks whatever the database does: receive them
        // before the reply, so that no rank is left waiting to send.
        if !taken {
            parts(&mut |_| Ok(())).ok();
        }
        self.team.send_reply(&reply(&result, |_| ()));
        self.team.end_tier(head.tier);
        result
    }

    fn finish(&mut self) -> Result<(), SinkError> {
        let result = self.inner.finish();
        self.team.send_reply(&reply(&result, |_| ()));
        result
    }
}

/// The tier store of every rank but 0: it answers with what rank 0 broadcasts, and drops
/// the tiers it saves (rank 0 stores them). It never touches a database.
pub struct FollowerStore<'a> {
    team: &'a MpiTeam,
}

impl<'a> FollowerStore<'a> {
    /// The store of a rank other than 0.
    pub fn new(team: &'a MpiTeam) -> Self {
        FollowerStore { team }
    }
}

impl TierStore for FollowerStore<'_> {
    fn solved_tiers(&mut self) -> Result<BTreeSet<TierId>, SinkError> {
        let tiers: Vec<(u32, u32)> = self.team.receive_reply()?;
        Ok(tiers.into_iter().map(|(total, heaps)| TierId { total, heaps }).collect())
    }

    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        let wire: WireTier = self.team.receive_reply()?;
        let got = TierId { total: wire.total, heaps: wire.heaps };
        if got != tier {
            self.team.abort(&format!("rank 0 sent tier {got} where this rank loads {tier}"));
        }
        Ok(wire.into())
    }

    fn save(&mut self, solved: SolvedTier) -> Result<(), SinkError> {
        self.team.receive_reply::<()>()?;
        self.team.end_tier(solved.tier);
        Ok(())
    }

    fn load_in_parts(&mut self, tier: TierId, _into: &mut dyn PartSink) -> Result<(), SinkError> {
        // This rank's block came with the scatter (`Partners::scatter_parts`); rank 0 says
        // here whether its load succeeded.
        let (total, heaps): (u32, u32) = self.team.receive_reply()?;
        if (total, heaps) != (tier.total, tier.heaps) {
            self.team.abort(&format!("rank 0 loaded tier ({total},{heaps}) where this rank loads {tier}"));
        }
        Ok(())
    }

    fn save_in_parts(&mut self, head: &TierHead, parts: &mut PartSource<'_>) -> Result<(), SinkError> {
        // This rank's block goes to rank 0; nothing comes back but rank 0's reply.
        let sent = parts(&mut |_| Ok(()));
        self.team.receive_reply::<()>()?;
        self.team.end_tier(head.tier);
        sent
    }

    fn finish(&mut self) -> Result<(), SinkError> {
        self.team.receive_reply::<()>()
    }
}
