//! The partitioned solver (`nimdb::solve::solve_partitioned`, what `nimdb solve --mpi` runs
//! on each rank) without MPI: the members are threads of this process that exchange
//! through shared mailboxes. For 1 to 4 members, the tiers member 0 stores equal the
//! single-process solve's, which agree with the independent forward search; each member
//! holds about its share of the window.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Barrier, Mutex};

use nimdb::game::{Convention, GameSpec};
use nimdb::index::{TierId, Universe};
use nimdb::solve::reference::ReferenceSearch;
use nimdb::solve::{
    DiscardStore, MemoryStore, PartSink, Partners, Silent, SinkError, SolveOptions, SolveReport, SolvedTier,
    Spill, Strategy, TierStore, WholeTier, solve_in_memory, solve_partitioned, solve_partitioned_spilling,
};

/// What the members of one crowd share: mailboxes by (to, from), flags and maxima by member.
struct Post {
    words: Vec<Vec<Vec<u64>>>,
    answers: Vec<Vec<Vec<u16>>>,
    flags: Vec<u64>,
    stops: Vec<bool>,
    maxima: Vec<u16>,
    wins: Vec<u16>,
    blocks: Vec<Vec<u16>>,
    /// The greatest remoteness of the tier member 0 scatters, if it loaded one.
    scattered: Option<u16>,
}

/// Values a part of a gathered tier holds in these crowds: a few, so every tier of more
/// positions reaches member 0's store in several parts.
const PART: usize = 7;

/// One member of a crowd of threads.
struct Member {
    index: usize,
    size: usize,
    post: Arc<Mutex<Post>>,
    barrier: Arc<Barrier>,
}

impl Member {
    fn crowd(size: usize) -> Vec<Member> {
        let post = Arc::new(Mutex::new(Post {
            words: vec![vec![Vec::new(); size]; size],
            answers: vec![vec![Vec::new(); size]; size],
            flags: vec![0; size],
            stops: vec![false; size],
            maxima: vec![0; size],
            wins: vec![0; size],
            blocks: vec![Vec::new(); size],
            scattered: None,
        }));
        let barrier = Arc::new(Barrier::new(size));
        (0..size).map(|index| Member { index, size, post: post.clone(), barrier: barrier.clone() }).collect()
    }
}

impl Partners for Member {
    fn index(&self) -> usize {
        self.index
    }
    fn size(&self) -> usize {
        self.size
    }
    fn exchange(&self, outbox: Vec<Vec<u64>>, flags: u64) -> Result<(Vec<Vec<u64>>, u64), String> {
        {
            let mut post = self.post.lock().unwrap();
            for (to, words) in outbox.into_iter().enumerate() {
                post.words[to][self.index] = words;
            }
            post.flags[self.index] = flags;
        }
        self.barrier.wait();
        let got = {
            let mut post = self.post.lock().unwrap();
            (
                std::mem::replace(&mut post.words[self.index], vec![Vec::new(); self.size]),
                post.flags.iter().fold(0, |all, f| all | f),
            )
        };
        self.barrier.wait();
        Ok(got)
    }
    fn answer(&self, answers: Vec<Vec<u16>>, asked: &[usize], most: u16) -> Result<Vec<Vec<u16>>, String> {
        assert!(answers.iter().flatten().all(|&a| a <= most), "an answer above {most}");
        {
            let mut post = self.post.lock().unwrap();
            for (to, a) in answers.into_iter().enumerate() {
                post.answers[to][self.index] = a;
            }
        }
        self.barrier.wait();
        let got = std::mem::replace(
            &mut self.post.lock().unwrap().answers[self.index],
            vec![Vec::new(); self.size],
        );
        self.barrier.wait();
        for (m, a) in got.iter().enumerate() {
            assert_eq!(a.len(), asked[m], "member {} answered {} of {} requests", m, a.len(), asked[m]);
        }
        Ok(got)
    }
    fn gather_parts(
        &self,
        block: &[u16],
        len: u64,
        most: u16,
        take: &mut dyn FnMut(&[u16]) -> Result<(), String>,
    ) -> Result<(), String> {
        assert!(block.iter().all(|&v| v <= most), "a value above {most}");
        self.post.lock().unwrap().blocks[self.index] = block.to_vec();
        self.barrier.wait();
        let taken = if self.index == 0 {
            let blocks = std::mem::take(&mut self.post.lock().unwrap().blocks);
            assert_eq!(blocks.iter().map(Vec::len).sum::<usize>() as u64, len);
            // Parts of a few values each, so that a tier crosses in many.
            nimdb::solve::take_all(blocks.iter().flat_map(|b| b.chunks(PART)), take)
        } else {
            Ok(())
        };
        self.barrier.wait();
        if self.index == 0 {
            self.post.lock().unwrap().blocks = vec![Vec::new(); self.size];
        }
        taken
    }
    fn agree(&self, max: u16, longest_win: u16, stop: bool) -> Result<(u16, u16, bool), String> {
        {
            let mut post = self.post.lock().unwrap();
            post.maxima[self.index] = max;
            post.wins[self.index] = longest_win;
            post.stops[self.index] = stop;
        }
        self.barrier.wait();
        let got = {
            let post = self.post.lock().unwrap();
            (
                post.maxima.iter().copied().max().unwrap(),
                post.wins.iter().copied().max().unwrap(),
                post.stops.iter().any(|&f| f),
            )
        };
        self.barrier.wait();
        Ok(got)
    }
    fn scatter_parts(
        &self,
        len: u64,
        load: &mut dyn FnMut(&mut dyn PartSink),
    ) -> Result<Option<(Vec<u16>, u16)>, String> {
        if self.index == 0 {
            // Member 0 reads the tier through its store and deals out the blocks.
            let mut whole = WholeTier::default();
            load(&mut whole);
            whole.close().unwrap();
            let mut post = self.post.lock().unwrap();
            if let Some((positions, most)) = whole.head {
                assert_eq!(positions, len);
                assert!(whole.values.iter().all(|&v| v <= most), "a value above {most}");
                whole.values.resize(len as usize, 0);
                for m in 0..self.size {
                    let b = nimdb::solve::block(len, m, self.size);
                    post.blocks[m] = whole.values[b.start as usize..b.end as usize].to_vec();
                }
                post.scattered = Some(most);
            }
        }
        self.barrier.wait();
        let got = {
            let mut post = self.post.lock().unwrap();
            post.scattered.map(|max| (std::mem::take(&mut post.blocks[self.index]), max))
        };
        self.barrier.wait();
        if self.index == 0 {
            self.post.lock().unwrap().scattered = None;
        } else {
            // The others' stores only hear of the load.
            load(&mut WholeTier::default());
        }
        Ok(got)
    }
}

/// Solves with `members` threads; returns member 0's tiers and every member's report.
fn crowd_solve(spec: &GameSpec, options: &SolveOptions, members: usize) -> (MemoryStore, Vec<SolveReport>) {
    crowd_solve_spilling(spec, options, members, None)
}

/// [`crowd_solve`], each member spilling past `spill`'s budget into its own files there.
fn crowd_solve_spilling(
    spec: &GameSpec,
    options: &SolveOptions,
    members: usize,
    spill: Option<&Spill>,
) -> (MemoryStore, Vec<SolveReport>) {
    let crowd = Member::crowd(members);
    std::thread::scope(|s| {
        let handles: Vec<_> = crowd
            .iter()
            .map(|member| {
                s.spawn(move || {
                    let spill = spill
                        .map(|s| Spill { prefix: format!("{}-{}", s.prefix, member.index), ..s.clone() });
                    let spill = spill.as_ref();
                    if member.index == 0 {
                        let mut store = MemoryStore::default();
                        let report =
                            solve_partitioned_spilling(spec, options, &mut store, &Silent, member, spill)
                                .unwrap();
                        (Some(store), report)
                    } else {
                        let mut store = DiscardStore::new(options.convention);
                        let report =
                            solve_partitioned_spilling(spec, options, &mut store, &Silent, member, spill)
                                .unwrap();
                        (None, report)
                    }
                })
            })
            .collect();
        let mut results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let store = results[0].0.take().unwrap();
        (store, results.into_iter().map(|r| r.1).collect())
    })
}

/// The store of a member other than 0 on a resume, as `nimdb solve --mpi` gives it: it
/// knows which tiers are stored, but loading one yields only the tier's name (member 0
/// alone reads the values, and hands each member its block).
struct HeardStore {
    stored: BTreeSet<TierId>,
}

impl TierStore for HeardStore {
    fn solved_tiers(&mut self) -> Result<BTreeSet<TierId>, SinkError> {
        Ok(self.stored.clone())
    }
    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        assert!(self.stored.contains(&tier), "{tier} is not stored");
        Ok(SolvedTier { tier, remoteness: Vec::new(), nim_values: None, seconds: 0.0 })
    }
    fn save(&mut self, _solved: SolvedTier) -> Result<(), SinkError> {
        Ok(())
    }
    fn load_in_parts(&mut self, tier: TierId, _into: &mut dyn PartSink) -> Result<(), SinkError> {
        assert!(self.stored.contains(&tier), "{tier} is not stored");
        Ok(())
    }
}

/// Resumes with `members` threads from `kept` (member 0's store): returns member 0's store.
fn crowd_resume(spec: &GameSpec, options: &SolveOptions, members: usize, kept: MemoryStore) -> MemoryStore {
    let crowd = Member::crowd(members);
    let stored: BTreeSet<TierId> = kept.tiers.keys().copied().collect();
    let mut kept = Some(kept);
    std::thread::scope(|s| {
        let handles: Vec<_> = crowd
            .iter()
            .map(|member| {
                let mine = if member.index == 0 { kept.take() } else { None };
                let stored = stored.clone();
                s.spawn(move || match mine {
                    Some(mut store) => {
                        solve_partitioned(spec, options, &mut store, &Silent, member).unwrap();
                        Some(store)
                    }
                    None => {
                        let mut store = HeardStore { stored };
                        solve_partitioned(spec, options, &mut store, &Silent, member).unwrap();
                        None
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).next().unwrap().unwrap()
    })
}

/// A universe's caps: largest heap, most heaps.
type Caps = (Option<u32>, Option<u32>);

fn options(spec: &GameSpec, game: &str, convention: Convention, total: u32, caps: Caps) -> SolveOptions {
    let universe = Universe::new(spec.rules(), game, Some(total), caps.0, caps.1).unwrap();
    SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde }
}

#[test]
fn every_crowd_stores_the_single_process_tiers_which_agree_with_the_forward_search() {
    let cases: &[(&str, u32, Caps)] = &[
        ("lines", 16, (None, None)),
        ("kayles", 18, (None, None)),
        ("nim", 18, (Some(6), Some(4))),
        ("wythoff", 14, (None, None)),
        ("moore:2", 12, (Some(5), Some(4))),
        ("octal:0.137", 16, (None, None)),
        ("grundy", 16, (None, None)),
    ];
    for &(game, total, caps) in cases {
        let spec: GameSpec = game.parse().unwrap();
        for convention in [Convention::Normal, Convention::Misere] {
            let options = options(&spec, game, convention, total, caps);
            let alone = solve_in_memory(&spec, &options).unwrap();
            let table = options.universe.table().unwrap();
            let mut reference = ReferenceSearch::new(spec.rules(), convention);
            for tier in options.universe.tiers() {
                for (rank, position) in table.positions(tier).enumerate() {
                    let r = alone.tiers[&tier].remoteness[rank] as u32;
                    assert_eq!((convention.is_win(r), r), reference.solve(&position), "{game} {position}");
                }
            }
            for members in 1..=4 {
                let (store, _) = crowd_solve(&spec, &options, members);
                assert_eq!(store.tiers.len(), alone.tiers.len(), "{game} {convention}, {members} members");
                for (tier, solved) in &alone.tiers {
                    assert_eq!(
                        store.tiers[tier].remoteness, solved.remoteness,
                        "{game} {convention}, {members} members, tier {tier}"
                    );
                }
            }
        }
    }
}

/// A resume where only member 0 can read the stored tiers (the others hear only their
/// names, as the ranks of an MPI job do): each member gets its blocks from member 0, and
/// the tiers solved after them are the single-process solve's. The stored tiers are the
/// first half and every fifth of the rest, so both a resume's window and stored tiers met
/// later are handed out.
#[test]
fn a_crowd_resumes_from_tiers_that_only_member_0_reads() {
    let cases: &[(&str, u32, Caps)] = &[
        ("lines", 20, (None, None)),
        ("kayles", 20, (None, None)),
        ("nim", 16, (Some(6), Some(4))),
        ("wythoff", 12, (None, None)),
    ];
    for &(game, total, caps) in cases {
        let spec: GameSpec = game.parse().unwrap();
        let options = options(&spec, game, Convention::Misere, total, caps);
        let alone = solve_in_memory(&spec, &options).unwrap();
        let order = options.universe.tiers();
        for members in 2..=4 {
            let mut kept = MemoryStore::default();
            for (i, tier) in order.iter().enumerate() {
                if i < order.len() / 2 || i % 5 == 0 {
                    kept.tiers.insert(*tier, alone.tiers[tier].clone());
                }
            }
            let store = crowd_resume(&spec, &options, members, kept);
            assert_eq!(store.tiers.len(), alone.tiers.len(), "{game}, {members} members");
            for (tier, solved) in &alone.tiers {
                assert_eq!(
                    store.tiers[tier].remoteness, solved.remoteness,
                    "{game}, {members} members, {tier}"
                );
            }
        }
    }
}

/// Each member spills its own blocks past the budget (as `nimdb solve --mpi
/// --window-limit` makes every rank do), holds no more than the budget and the loss values
/// of the spilled blocks, and the tiers stay the single-process solve's; the spill files
/// are gone afterwards.
#[test]
fn each_member_spills_its_own_blocks_past_the_budget() {
    for game in ["lines", "kayles"] {
        let spec: GameSpec = game.parse().unwrap();
        let options = options(&spec, game, Convention::Misere, 30, (None, None));
        let alone = solve_in_memory(&spec, &options).unwrap();
        for members in 1..=3 {
            let (_, unlimited) = crowd_solve(&spec, &options, members);
            let dir = tempfile::tempdir().unwrap();
            let budget = 1024;
            let spill = Spill { budget, dir: dir.path().to_path_buf(), prefix: "spill".into() };
            let (store, reports) = crowd_solve_spilling(&spec, &options, members, Some(&spill));
            for (tier, solved) in &alone.tiers {
                assert_eq!(
                    store.tiers[tier].remoteness, solved.remoteness,
                    "{game}, {members} members, {tier}"
                );
            }
            for (member, (report, free)) in reports.iter().zip(&unlimited).enumerate() {
                assert!(report.spilled_bytes > 0, "{game}: member {member} of {members} spilled nothing");
                assert!(
                    report.peak_window_bytes < free.peak_window_bytes / 2,
                    "{game}: member {member} of {members} held {} bytes spilling, {} not",
                    report.peak_window_bytes,
                    free.peak_window_bytes
                );
            }
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "spill files left behind");
        }
    }
}

#[test]
fn each_member_holds_its_share_of_the_window() {
    let spec: GameSpec = "lines".parse().unwrap();
    let options = options(&spec, "lines", Convention::Misere, 30, (None, None));
    let (_, one) = crowd_solve(&spec, &options, 1);
    let (_, four) = crowd_solve(&spec, &options, 4);
    let whole = one[0].peak_window_bytes;
    let shares: HashMap<usize, u64> =
        four.iter().enumerate().map(|(i, r)| (i, r.peak_window_bytes)).collect();
    for (member, &bytes) in &shares {
        assert!(
            bytes * 100 <= whole * 35,
            "member {member} of 4 held {bytes} bytes of window, the single member {whole}"
        );
    }
}
