//! One solve over the ranks of an MPI job (feature `mpi`): `mpirun -np N nimdb solve … --mpi`.
//!
//! The solver itself knows nothing of MPI: it solves as one member of a [`Team`]
//! ([`crate::solve::solve_on_team`]). This module gives it three things:
//!
//! - [`MpiTeam`], the team of the job's ranks: [`Team::min_all`] is `MPI_Allreduce` with
//!   `MPI_MIN` over 16-bit values, in chunks, so every rank ends each tier holding all of it;
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
use std::thread::ThreadId;
use std::time::Instant;

use ::mpi::Threading;
use ::mpi::collective::{CommunicatorCollectives, Root, SystemOperation};
use ::mpi::topology::{Communicator, SimpleCommunicator};
use bincode::{Decode, Encode};

use crate::game::{Convention, GameSpec};
use crate::index::{TierId, Universe};
use crate::solve::{SinkError, SolveOptions, SolvedTier, Strategy, Team, TierStore};

/// Values per `MPI_Allreduce` call: the reduction needs a send buffer beside the tier (the
/// bindings have no `MPI_IN_PLACE`), and chunks keep that copy small and every count far
/// below `i32::MAX`.
pub const REDUCE_CHUNK: usize = 1 << 22;

/// Bytes of the first broadcast of every message: the message's length and, when it fits,
/// the message itself, so that a small message costs one collective.
pub const BROADCAST_HEAD: usize = 256;

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
        }
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

/// A solved tier on the wire (a resumed solve's tiers, loaded by rank 0).
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

/// What one rank sent and received, and how long it spent in collectives.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Traffic {
    /// `MPI_Allreduce` calls.
    pub reductions: u64,
    /// Bytes this rank put into reductions (it receives as many back).
    pub reduced_bytes: u64,
    /// Broadcasts (each message is one or more).
    pub broadcasts: u64,
    /// Bytes broadcast: sent by rank 0, received by every other rank.
    pub broadcast_bytes: u64,
    /// Wall seconds inside collectives, waiting for the slowest rank included.
    pub seconds: f64,
}

impl Traffic {
    /// `self − earlier`, field by field.
    pub fn since(&self, earlier: &Traffic) -> Traffic {
        Traffic {
            reductions: self.reductions - earlier.reductions,
            reduced_bytes: self.reduced_bytes - earlier.reduced_bytes,
            broadcasts: self.broadcasts - earlier.broadcasts,
            broadcast_bytes: self.broadcast_bytes - earlier.broadcast_bytes,
            seconds: self.seconds - earlier.seconds,
        }
    }

    /// As numbers, for gathering to rank 0.
    fn to_array(self, solve_seconds: f64) -> [f64; 6] {
        [
            self.reductions as f64,
            self.reduced_bytes as f64,
            self.broadcasts as f64,
            self.broadcast_bytes as f64,
            self.seconds,
            solve_seconds,
        ]
    }
}

/// One tier's share of rank 0's traffic (from the end of the previous tier to this one's
/// save; the first tier's row also holds the resume broadcasts).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierTraffic {
    /// The tier.
    pub tier: TierId,
    /// Its positions.
    pub positions: u64,
    /// Wall seconds to solve it, collectives included.
    pub seconds: f64,
    /// Rank 0's traffic for it.
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
    };
    Ok((MpiSession { _universe: universe }, team))
}

#[derive(Default)]
struct State {
    traffic: Traffic,
    at_last_tier: Traffic,
    tiers: Vec<TierTraffic>,
}

/// The ranks of the job's world communicator, as the solver's [`Team`].
pub struct MpiTeam {
    index: usize,
    size: usize,
    thread: ThreadId,
    state: Mutex<State>,
}

impl MpiTeam {
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
        let sent = (BROADCAST_HEAD + len.saturating_sub(inline)) as u64;
        self.count(started, |t| {
            t.broadcasts += calls;
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

    /// Records the end of a tier on this rank (rank 0's per-tier figures).
    fn end_tier(&self, solved: &SolvedTier) {
        let mut state = self.state();
        let traffic = state.traffic.since(&state.at_last_tier);
        state.at_last_tier = state.traffic;
        state.tiers.push(TierTraffic {
            tier: solved.tier,
            positions: solved.remoteness.len() as u64,
            seconds: solved.seconds,
            traffic,
        });
    }

    /// This rank's traffic so far.
    pub fn traffic(&self) -> Traffic {
        self.state().traffic
    }

    /// Rank 0's traffic per tier solved (empty on the other ranks).
    pub fn tier_traffic(&self) -> Vec<TierTraffic> {
        self.state().tiers.clone()
    }

    /// Gathers every rank's figures to rank 0 (every rank calls this once, at the end of
    /// the job, whatever its solve returned). Rank 0 gets them all, in rank order; the
    /// others get `None`.
    pub fn gather(&self, solve_seconds: f64) -> Option<Vec<RankFigures>> {
        let world = self.world();
        let root = world.process_at_rank(0);
        let own = self.traffic().to_array(solve_seconds);
        if self.index == 0 {
            let mut all = vec![0f64; 6 * self.size];
            root.gather_into_root(&own[..], &mut all[..]);
            Some(
                all.chunks(6)
                    .enumerate()
                    .map(|(rank, a)| RankFigures {
                        rank,
                        traffic: Traffic {
                            reductions: a[0] as u64,
                            reduced_bytes: a[1] as u64,
                            broadcasts: a[2] as u64,
                            broadcast_bytes: a[3] as u64,
                            seconds: a[4],
                        },
                        solve_seconds: a[5],
                    })
                    .collect(),
            )
        } else {
            root.gather_into(&own[..]);
            None
        }
    }

    /// Ends the whole job at once (`MPI_Abort`) after printing `message`: for failures that
    /// only this rank sees, after which the ranks could no longer meet at the same calls.
    pub fn abort(&self, message: &str) -> ! {
        eprintln!("nimdb: error: rank {}: {message}; aborting the MPI job", self.index);
        self.world().abort(1)
    }
}

impl Team for MpiTeam {
    fn index(&self) -> usize {
        self.index
    }

    fn size(&self) -> usize {
        self.size
    }

    fn min_all(&self, values: &mut [u16]) -> Result<(), String> {
        if std::thread::current().id() != self.thread {
            return Err("MPI calls must come from the thread that initialized MPI".into());
        }
        let started = Instant::now();
        let world = self.world();
        let mut send = Vec::with_capacity(values.len().min(REDUCE_CHUNK));
        let mut calls = 0;
        for chunk in values.chunks_mut(REDUCE_CHUNK) {
            send.clear();
            send.extend_from_slice(chunk);
            world.all_reduce_into(&send[..], chunk, SystemOperation::min());
            calls += 1;
        }
        let bytes = 2 * values.len() as u64;
        self.count(started, |t| {
            t.reductions += calls;
            t.reduced_bytes += bytes;
        });
        Ok(())
    }
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
        self.team.send_reply(&reply(&result, |t: &SolvedTier| WireTier::from(t)));
        result
    }

    fn save(&mut self, solved: &SolvedTier) -> Result<(), SinkError> {
        let result = self.inner.save(solved);
        self.team.send_reply(&reply(&result, |_| ()));
        self.team.end_tier(solved);
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

    fn save(&mut self, solved: &SolvedTier) -> Result<(), SinkError> {
        self.team.receive_reply::<()>()?;
        self.team.end_tier(solved);
        Ok(())
    }

    fn finish(&mut self) -> Result<(), SinkError> {
        self.team.receive_reply::<()>()
    }
}
