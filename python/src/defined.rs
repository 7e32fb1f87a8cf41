//! `nimdb.define`: a game whose moves a Python function gives, solved by nimdb's own
//! solvers (the generic family solver, acyclic or loopy) and stored like any game.
//!
//! The rules are a [`Family`] ([`PyRules`]) in one of nimdb's layouts. Before a solve, every
//! move of every position of the solve's space is read from Python once, with the GIL held
//! ([`gather`]): each move is put in the layout's canonical form, checked to stay in the
//! space and (for a game declared acyclic) to lead to an earlier tier, and a failure raises
//! a Python exception naming the position before anything is written. The solver then
//! runs on the gathered moves with the GIL released. Outside a gathered space (an answer's
//! moves), the function is called as needed, and an exception it raises is raised by the
//! call that needed it.
//!
//! A defined game is stored under its name and a fingerprint of its moves on a fixed
//! sample of positions (every position of at most 6 tokens and 3 heaps); a solve or query
//! under a name already stored with other rules is refused.

use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::{Arc, RwLock};

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use nimdb::game::{
    Convention, Defined, Family, Formula, Game, LabelledMove, MAX_COUNT, PositionError, SpaceLayout,
    canonical_capped, show_tuple,
};
use nimdb::index::{PositionSpace, SpaceBounds, TierId, space_for};

use crate::errors::{Kind, NimdbError, parse_any_game};

/// The moves of every position of one space, read from Python once: what a solve runs on.
struct Graph {
    space: Box<dyn PositionSpace>,
    /// The first global index of each tier, in solve order.
    tier_start: HashMap<TierId, u64>,
    /// The tiers in solve order and their first global index, for turning an index back
    /// into (tier, rank).
    starts: Vec<(u64, TierId)>,
    /// `first[i]..first[i + 1]`: the children of position `i` in `children`.
    first: Vec<u64>,
    /// The children's global indices.
    children: Vec<u64>,
}

impl Graph {
    fn index(&self, position: &[u32]) -> Option<u64> {
        let (tier, rank) = self.space.locate(position)?;
        Some(self.tier_start[&tier] + rank)
    }
    fn unrank(&self, index: u64, out: &mut Vec<u32>) {
        let at = self.starts.partition_point(|&(start, _)| start <= index) - 1;
        let (start, tier) = self.starts[at];
        self.space.unrank(tier, index - start, out);
    }
    fn max_moves(&self) -> u64 {
        self.first.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    }
}

/// A Python function's rules, in one of nimdb's layouts.
pub struct PyRules {
    name: String,
    layout: SpaceLayout,
    loopy: bool,
    cap: Option<u32>,
    moves: Py<PyAny>,
    /// The moves gathered for the last solve's space.
    graph: RwLock<Option<Arc<Graph>>>,
}

impl std::fmt::Debug for PyRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyRules({})", self.name)
    }
}

/// One move as the function gave it: the position it leads to (canonical) and its label.
type Given = (Vec<u32>, Option<String>);

impl PyRules {
    /// The canonical form of `counts`, with the cap checked.
    fn canonical_counts(&self, counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        canonical_capped(self.layout, self.cap, &self.name, counts)
    }

    /// Calls the Python function on `position` and reads what it gives.
    fn call(&self, py: Python<'_>, position: &[u32]) -> PyResult<Vec<Given>> {
        let shown = self.show(position);
        let arg = PyTuple::new(py, position)?;
        let given = self.moves.bind(py).call1((arg,)).map_err(|e| {
            let err = NimdbError::new_err(format!("{}'s moves{shown} raised: {e}", self.name));
            err.set_cause(py, Some(e));
            err
        })?;
        let mut out: Vec<Given> = Vec::new();
        let iter = given.try_iter().map_err(|_| {
            NimdbError::new_err(format!("{}'s moves{shown} gave no iterable of positions", self.name))
        })?;
        for item in iter {
            let item = item?;
            let (to, label) = match item.cast::<PyTuple>() {
                Ok(t) if t.len() == 2 && t.get_item(1)?.is_instance_of::<PyString>() => {
                    (t.get_item(0)?, Some(t.get_item(1)?.extract::<String>()?))
                }
                _ => (item, None),
            };
            let counts: Vec<i64> = to.extract().map_err(|_| {
                NimdbError::new_err(format!(
                    "{}'s moves{shown} gave {}, which is not a position (a sequence of counts)",
                    self.name,
                    to.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })?;
            let counts = counts
                .iter()
                .map(|&c| u32::try_from(c).ok().filter(|&c| c <= MAX_COUNT))
                .collect::<Option<Vec<u32>>>()
                .ok_or_else(|| {
                    NimdbError::new_err(format!(
                        "{}'s moves{shown} gave {counts:?}: each count must be from 0 to {MAX_COUNT}",
                        self.name
                    ))
                })?;
            let to = self.canonical_counts(counts.clone()).map_err(|e| {
                NimdbError::new_err(format!(
                    "{}'s moves{shown} gave {counts:?}, which leaves its layout: {e}",
                    self.name
                ))
            })?;
            // One move per resulting position, the first label kept.
            if !out.iter().any(|(seen, _)| *seen == to) {
                out.push((to, label));
            }
        }
        Ok(out)
    }

    /// The moves of `position`, from the gathered space or from Python (an exception is
    /// kept, to be raised when the library returns, and no move is given).
    fn given(&self, position: &[u32]) -> Vec<Given> {
        let graph = self.graph.read().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(g) = graph
            && let Some(i) = g.index(position)
        {
            let mut out = Vec::new();
            for &c in &g.children[g.first[i as usize] as usize..g.first[i as usize + 1] as usize] {
                let mut to = Vec::new();
                g.unrank(c, &mut to);
                out.push((to, None));
            }
            return out;
        }
        Python::attach(|py| match self.call(py, position) {
            Ok(given) => given,
            Err(e) => {
                crate::signals::keep(e);
                Vec::new()
            }
        })
    }
}

impl Family for PyRules {
    fn layout(&self) -> SpaceLayout {
        self.layout
    }
    fn loopy(&self) -> bool {
        self.loopy
    }
    fn canonical(&self, counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        self.canonical_counts(counts)
    }
    fn show(&self, position: &[u32]) -> String {
        show_tuple(position)
    }
    fn moves(&self, position: &[u32]) -> Vec<LabelledMove> {
        // Listed moves carry the function's own labels: ask it (the gathered space keeps no
        // labels). An exception is kept, to be raised when the library returns.
        let given = Python::attach(|py| self.call(py, position)).unwrap_or_else(|e| {
            crate::signals::keep(e);
            Vec::new()
        });
        given
            .into_iter()
            .map(|(to, label)| {
                let text = label.unwrap_or_else(|| "move".to_string());
                LabelledMove { to, text }
            })
            .collect()
    }
    fn for_each_child(&self, position: &[u32], _buf: &mut Vec<u32>, visit: &mut dyn FnMut(&[u32])) {
        for (to, _) in self.given(position) {
            visit(&to);
        }
    }
    fn rules_text(&self) -> String {
        format!(
            "{}: a game defined in Python ({}, {}); its moves are the function's",
            self.name,
            layout_word(self.layout),
            if self.loopy { "loopy" } else { "acyclic" }
        )
    }
    fn formula(&self, _convention: Convention) -> Option<Formula> {
        None
    }
    fn heap_cap(&self) -> Option<u32> {
        self.cap
    }
    fn move_bound(&self, position: &[u32]) -> u64 {
        // The most moves of any gathered position, when a space was gathered: a program's
        // game may have more moves than the built-in families' bound.
        let gathered = self.graph.read().unwrap_or_else(|p| p.into_inner()).as_ref().map(|g| g.max_moves());
        let default = position.iter().map(|&c| c as u64 + 1).sum::<u64>();
        gathered.map_or(default, |m| m.max(default))
    }
}

fn layout_word(layout: SpaceLayout) -> String {
    match layout {
        SpaceLayout::Multiset => "multiset".into(),
        SpaceLayout::Staircase => "staircase".into(),
        SpaceLayout::DistinctSet => "set".into(),
        SpaceLayout::Row { heaps, .. } => format!("row of {heaps}"),
    }
}

/// Reads the moves of every position of `space` from Python (the GIL held), checking each:
/// in the layout, in the space, and for an acyclic game in an earlier tier. Ctrl-C stops it.
fn gather(py: Python<'_>, rules: &PyRules, space: Box<dyn PositionSpace>) -> PyResult<Graph> {
    let tiers = space.tiers();
    let mut tier_start = HashMap::new();
    let mut starts = Vec::with_capacity(tiers.len());
    let mut at = 0u64;
    for &t in &tiers {
        tier_start.insert(t, at);
        starts.push((at, t));
        at += space.size(t);
    }
    let tier_index: HashMap<TierId, usize> = tiers.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    let mut first = Vec::with_capacity(at as usize + 1);
    let mut children = Vec::new();
    let mut position = Vec::new();
    let b = space.bounds();
    for (ti, &tier) in tiers.iter().enumerate() {
        for rank in 0..space.size(tier) {
            if (first.len() & 1023) == 0 {
                py.check_signals()?;
            }
            first.push(children.len() as u64);
            space.unrank(tier, rank, &mut position);
            for (to, _) in rules.call(py, &position)? {
                let Some((t, r)) = space.locate(&to) else {
                    return Err(NimdbError::new_err(format!(
                        "{}'s move from {} to {} leaves the space solved (total ≤ {}, heaps ≤ {}{}){}",
                        rules.name,
                        rules.show(&position),
                        rules.show(&to),
                        b.max_total,
                        b.max_heaps,
                        b.max_heap.map(|h| format!(", each ≤ {h}")).unwrap_or_default(),
                        if rules.loopy {
                            "; a loopy game's moves must keep to its cap (define it with cap=…)"
                        } else {
                            "; a move must not add tokens (declare loopy=True, with a cap, if it does)"
                        }
                    )));
                };
                if !rules.loopy && tier_index[&t] >= ti {
                    return Err(NimdbError::new_err(format!(
                        "{}'s move from {} to {} does not go to an earlier tier (fewer tokens, or as many in more heaps), so the game may have a cycle: declare loopy=True",
                        rules.name,
                        rules.show(&position),
                        rules.show(&to)
                    )));
                }
                children.push(tier_start[&t] + r);
            }
        }
    }
    first.push(children.len() as u64);
    Ok(Graph { space, tier_start, starts, first, children })
}

/// The sample of positions a defined game's fingerprint hashes the moves of: every position
/// of at most 6 tokens and 3 heaps (each heap at most the cap).
fn sample_space(layout: SpaceLayout, cap: Option<u32>) -> PyResult<Box<dyn PositionSpace>> {
    let heaps = match layout {
        SpaceLayout::Row { heaps, .. } => heaps.min(3),
        _ => 3,
    };
    let max_total = match cap {
        Some(c) => (heaps * c).min(6),
        None => 6,
    };
    space_for(layout, SpaceBounds { max_total, max_heaps: heaps, max_heap: cap.map(|c| c.min(max_total)) })
        .map_err(|e| NimdbError::new_err(e.to_string()))
}

/// The fingerprint of the rules: a hash of the layout, the loopiness, the cap and the moves
/// of every position of the sample, in the order the function gives them.
fn fingerprint(py: Python<'_>, rules: &PyRules) -> PyResult<u64> {
    let space = sample_space(rules.layout, rules.cap)?;
    let mut h = Fnv::default();
    h.write(layout_word(rules.layout).as_bytes());
    h.write_u8(rules.loopy as u8);
    h.write_u32(rules.cap.unwrap_or(u32::MAX));
    let mut position = Vec::new();
    for tier in space.tiers() {
        for rank in 0..space.size(tier) {
            space.unrank(tier, rank, &mut position);
            let moves = rules.call(py, &position)?;
            h.write_u64(moves.len() as u64);
            for (to, _) in moves {
                h.write_u64(to.len() as u64);
                for c in to {
                    h.write_u32(c);
                }
            }
        }
    }
    Ok(h.finish())
}

/// FNV-1a, 64 bits: a hash whose value never changes between builds (unlike std's).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A game defined in Python (`nimdb.define`): pass it wherever a game name goes.
#[pyclass(module = "nimdb", frozen)]
pub struct DefinedGame {
    rules: Arc<PyRules>,
    defined: Defined,
}

#[pymethods]
impl DefinedGame {
    /// The name it is stored under.
    #[getter]
    fn name(&self) -> String {
        self.rules.name.clone()
    }
    /// "multiset", "row", "staircase" or "set".
    #[getter]
    fn layout(&self) -> String {
        layout_word(self.rules.layout).split(' ').next().unwrap_or_default().to_string()
    }
    /// Whether its moves may form cycles (positions may then be draws).
    #[getter]
    fn loopy(&self) -> bool {
        self.rules.loopy
    }
    /// The largest heap, when the rules cap heaps.
    #[getter]
    fn cap(&self) -> Option<u32> {
        self.rules.cap
    }
    /// The fingerprint of its moves (hex), part of the id it is stored under.
    #[getter]
    fn fingerprint(&self) -> String {
        format!("{:016x}", self.defined.fingerprint())
    }
    /// The id a database stores its solves under.
    #[getter]
    fn storage_id(&self) -> String {
        self.defined.storage_id()
    }
    fn __repr__(&self) -> String {
        format!(
            "nimdb.DefinedGame({:?}, layout={:?}, loopy={}, fingerprint={:?})",
            self.rules.name,
            self.layout(),
            if self.rules.loopy { "True" } else { "False" },
            self.fingerprint()
        )
    }
}

/// Defines a game by its moves: `moves(position)` gets a position (a tuple of counts in the
/// layout's canonical form) and returns an iterable of the positions one move leads to
/// (each a sequence of counts, put in canonical form by nimdb), or of `(position, label)`
/// pairs to name the moves. `layout` is "multiset" (heaps in any order, zeros dropped),
/// "row" (`heaps` labelled heaps, trailing zeros dropped), "staircase" (coins on steps
/// 1, 2, …) or "set" (distinct heaps). A game whose moves may add tokens is `loopy=True`
/// and needs `cap`, the largest heap (its solves cover every position of at most
/// `max_heaps` heaps, each at most `cap`).
///
/// The moves of a fixed sample of positions are read now, for the game's fingerprint: an
/// exception in `moves`, or a move that leaves the layout, raises here. The game is stored
/// under `name` and the fingerprint; a database that holds a solve of `name` under other
/// rules refuses to solve or answer this one.
#[pyfunction]
#[pyo3(signature = (name, moves, *, layout = "multiset", heaps = None, cap = None, loopy = false))]
pub fn define(
    py: Python<'_>,
    name: &str,
    moves: Py<PyAny>,
    layout: &str,
    heaps: Option<u32>,
    cap: Option<u32>,
    loopy: bool,
) -> PyResult<DefinedGame> {
    if !moves.bind(py).is_callable() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "moves must be callable: moves(position) -> positions",
        ));
    }
    let layout = match (layout, heaps) {
        ("multiset", None) => SpaceLayout::Multiset,
        ("staircase", None) => SpaceLayout::Staircase,
        ("set", None) => SpaceLayout::DistinctSet,
        ("row", Some(n)) if (1..=16).contains(&n) => SpaceLayout::Row { heaps: n, sorted: false },
        ("row", _) => return Err(Kind::BadArgument.err("layout=\"row\" needs heaps=N, from 1 to 16")),
        (other, Some(_)) if ["multiset", "staircase", "set"].contains(&other) => {
            return Err(Kind::BadArgument.err(format!("heaps= goes with layout=\"row\" only, not {other:?}")));
        }
        (other, _) => {
            return Err(Kind::BadArgument.err(format!(
                "unknown layout {other:?}: use \"multiset\", \"row\" (with heaps=N), \"staircase\" or \"set\""
            )));
        }
    };
    if let Some(c) = cap
        && !(1..=64).contains(&c)
    {
        return Err(Kind::BadArgument.err(format!("cap={c}: a cap is from 1 to 64")));
    }
    if loopy && cap.is_none() {
        return Err(Kind::BadArgument.err(
            "a loopy game needs cap=C, the largest heap: its space is every position of at most K heaps, each at most C",
        ));
    }
    if cap.is_some() && matches!(layout, SpaceLayout::Staircase | SpaceLayout::DistinctSet) {
        return Err(Kind::BadArgument.err("cap= goes with layout \"multiset\" or \"row\""));
    }
    let rules =
        Arc::new(PyRules { name: name.to_string(), layout, loopy, cap, moves, graph: RwLock::new(None) });
    let print = fingerprint(py, &rules)?;
    let family: Arc<dyn Family> = rules.clone();
    let defined = Defined::new(name, print, family).map_err(|e| Kind::BadArgument.err(e.to_string()))?;
    Ok(DefinedGame { rules, defined })
}

/// A game argument: a name (any game nimdb knows) or a `DefinedGame`.
pub fn game_arg(obj: &Bound<'_, PyAny>) -> PyResult<Game> {
    if let Ok(defined) = obj.cast::<DefinedGame>() {
        return Ok(Game::Defined(defined.get().defined.clone()));
    }
    let name: String = obj.extract().map_err(|_| {
        Kind::BadType.err(format!(
            "game must be a name such as 'kayles' or a game from nimdb.define, not {}",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ))
    })?;
    parse_any_game(&name)
}

/// The defined game passed as `obj`, if it is one.
pub fn defined_of(obj: &Bound<'_, PyAny>) -> Option<Defined> {
    obj.cast::<DefinedGame>().ok().map(|d| d.get().defined.clone())
}

/// Before a solve of `obj` over the space `bounds`: for a defined game, checks that the
/// sample's moves still give the game's fingerprint (the function's moves did not change
/// since it was defined), then reads every move of the space from Python (the GIL held),
/// each checked. A no-op for any other game.
pub fn prepare_solve(py: Python<'_>, obj: &Bound<'_, PyAny>, bounds: SpaceBounds) -> PyResult<()> {
    let Ok(defined) = obj.cast::<DefinedGame>() else { return Ok(()) };
    let DefinedGame { rules, defined } = defined.get();
    if fingerprint(py, rules)? != defined.fingerprint() {
        return Err(NimdbError::new_err(format!(
            "the moves of {} changed since nimdb.define: define it again (under another name if its solves are to be kept apart)",
            rules.name
        )));
    }
    let space = space_for(rules.layout, bounds).map_err(|e| NimdbError::new_err(e.to_string()))?;
    let graph = gather(py, rules, space)?;
    // Moves that changed while the space was read (the sample is read again after it).
    if fingerprint(py, rules)? != defined.fingerprint() {
        return Err(NimdbError::new_err(format!(
            "the moves of {} changed since nimdb.define (while its space was read): its moves must not depend on when they are asked",
            rules.name
        )));
    }
    *rules.graph.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(graph));
    Ok(())
}

/// For a defined game: a solve stored under its name with other rules, if any (a solve or
/// answer of it is then refused, in these words).
pub fn other_rules(db: &nimdb::store::Database, defined: Option<&Defined>) -> Result<(), String> {
    let Some(d) = defined else { return Ok(()) };
    let prefix = Defined::storage_prefix(d.name());
    let own = d.storage_id();
    let solves = db.solves().map_err(|e| e.to_string())?;
    match solves.into_iter().find(|s| s.game_id.starts_with(&prefix) && s.game_id != own) {
        None => Ok(()),
        Some(s) => Err(format!(
            "{} holds solve #{} of a game named {} with other rules (fingerprint {}, this one's {:016x}): give this game another name",
            db.path().display(),
            s.id,
            d.name(),
            s.game_id.rsplit('@').next().unwrap_or_default(),
            d.fingerprint()
        )),
    }
}
