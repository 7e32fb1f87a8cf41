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

use numpy::{IntoPyArray, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
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
    /// `moves(position)`, one position at a time, with labels.
    moves: Option<Py<PyAny>>,
    /// `moves_many(positions)`, a batch of positions as one array.
    many: Option<Py<PyAny>>,
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

/// What a move read from `moves` is given to: the position (canonical) and its label.
type LabelledVisit<'a> = dyn FnMut(&[u32], Option<String>) -> PyResult<()> + 'a;

/// A position's moves as they are read: one per resulting position, the first label kept.
#[derive(Default)]
struct Unique {
    moves: Vec<Given>,
    /// The positions seen, once there are too many to compare one by one.
    seen: Option<std::collections::HashSet<Vec<u32>>>,
}

impl Unique {
    /// Keeps the move to `to` unless one to the same position is kept.
    fn push(&mut self, to: Vec<u32>, label: Option<String>) {
        const LINEAR: usize = 16;
        let fresh = match &mut self.seen {
            Some(seen) => seen.insert(to.clone()),
            None if self.moves.len() < LINEAR => !self.moves.iter().any(|(seen, _)| *seen == to),
            None => {
                let mut seen: std::collections::HashSet<Vec<u32>> =
                    self.moves.iter().map(|(m, _)| m.clone()).collect();
                let fresh = seen.insert(to.clone());
                self.seen = Some(seen);
                fresh
            }
        };
        if fresh {
            self.moves.push((to, label));
        }
    }
}

impl PyRules {
    /// The canonical form of `counts`, with the cap checked.
    fn canonical_counts(&self, counts: Vec<u32>) -> Result<Vec<u32>, PositionError> {
        canonical_capped(self.layout, self.cap, &self.name, counts)
    }

    /// The moves of `position` as the game's function gives them: `moves` when it was
    /// given (with its labels), else a batch of one through `moves_many`.
    fn call(&self, py: Python<'_>, position: &[u32]) -> PyResult<Vec<Given>> {
        match &self.moves {
            Some(moves) => self.call_one(py, moves, position),
            None => {
                let mut batch = self.call_many(py, &[position.to_vec()])?;
                Ok(batch.pop().unwrap_or_default().into_iter().map(|to| (to, None)).collect())
            }
        }
    }

    /// The children of each of `positions` (canonical, one per resulting position, in the
    /// order given): one call of `moves_many` when the game has it, else `moves` on each.
    fn children_of(&self, py: Python<'_>, positions: &[Vec<u32>]) -> PyResult<Vec<Vec<Vec<u32>>>> {
        match &self.moves {
            Some(moves) if self.many.is_none() => positions
                .iter()
                .map(|p| Ok(self.call_one(py, moves, p)?.into_iter().map(|(to, _)| to).collect()))
                .collect(),
            _ => self.call_many(py, positions),
        }
    }

    /// Where the function's answer for `position` went wrong, in one line.
    fn wrong(&self, what: &str, position: &[u32], detail: String) -> PyErr {
        NimdbError::new_err(format!("{}'s {what}{} {detail}", self.name, self.show(position)))
    }

    /// Reads one count list the function gave from `position` into canonical form, into
    /// `out` (its buffer reused: no allocation a move once it is large enough).
    fn read_counts_into(
        &self,
        what: &str,
        position: &[u32],
        counts: impl Iterator<Item = i64> + Clone,
        out: &mut Vec<u32>,
    ) -> PyResult<()> {
        out.clear();
        for c in counts.clone() {
            match u32::try_from(c).ok().filter(|&c| c <= MAX_COUNT) {
                Some(c) => out.push(c),
                None => {
                    let counts: Vec<i64> = counts.collect();
                    let detail = format!("gave {counts:?}: each count must be from 0 to {MAX_COUNT}");
                    return Err(self.wrong(what, position, detail));
                }
            }
        }
        match self.canonical_counts(std::mem::take(out)) {
            Ok(canonical) => {
                *out = canonical;
                Ok(())
            }
            Err(e) => {
                let counts: Vec<i64> = counts.collect();
                Err(self.wrong(what, position, format!("gave {counts:?}, which leaves its layout: {e}")))
            }
        }
    }

    /// Calls `moves` on `position` and reads what it gives.
    fn call_one(&self, py: Python<'_>, moves: &Py<PyAny>, position: &[u32]) -> PyResult<Vec<Given>> {
        let mut out = Unique::default();
        self.visit_one(py, moves, position, true, &mut |to, label| {
            out.push(to.to_vec(), label);
            Ok(())
        })?;
        Ok(out.moves)
    }

    /// Calls `moves` on `position` and gives `visit` each move it gives (canonical, in a
    /// reused buffer; the same position may come more than once), with its label when
    /// `labels` asks for them.
    fn visit_one(
        &self,
        py: Python<'_>,
        moves: &Py<PyAny>,
        position: &[u32],
        labels: bool,
        visit: &mut LabelledVisit<'_>,
    ) -> PyResult<()> {
        let arg = PyTuple::new(py, position)?;
        let given = moves.bind(py).call1((arg,)).map_err(|e| {
            let err = self.wrong("moves", position, format!("raised: {e}"));
            err.set_cause(py, Some(e));
            err
        })?;
        let iter = given
            .try_iter()
            .map_err(|_| self.wrong("moves", position, "gave no iterable of positions".into()))?;
        let mut buf = Vec::new();
        for item in iter {
            let item = item?;
            let (to, label) = match item.cast::<PyTuple>() {
                Ok(t) if t.len() == 2 && t.get_item(1)?.is_instance_of::<PyString>() => {
                    let label = if labels { Some(t.get_item(1)?.extract::<String>()?) } else { None };
                    (t.get_item(0)?, label)
                }
                _ => (item, None),
            };
            let counts: Vec<i64> = to.extract().map_err(|_| {
                let shown = to.repr().map(|r| r.to_string()).unwrap_or_default();
                self.wrong(
                    "moves",
                    position,
                    format!("gave {shown}, which is not a position (a sequence of counts)"),
                )
            })?;
            self.read_counts_into("moves", position, counts.iter().copied(), &mut buf)?;
            visit(&buf, label)?;
        }
        Ok(())
    }

    /// The children of each of `positions` through `moves_many`, one per resulting
    /// position, in the order given.
    fn call_many(&self, py: Python<'_>, positions: &[Vec<u32>]) -> PyResult<Vec<Vec<Vec<u32>>>> {
        let mut out: Vec<Unique> = (0..positions.len()).map(|_| Unique::default()).collect();
        self.visit_many(py, positions, &mut |p, to| {
            out[p].push(to.to_vec(), None);
            Ok(())
        })?;
        Ok(out.into_iter().map(|u| u.moves.into_iter().map(|(to, _)| to).collect()).collect())
    }

    /// Calls `visit(i, child)` with every child of each of `positions` (`i` its index;
    /// the child in canonical form, a position one move from it; the same child may come
    /// more than once): one call of `moves_many` when the game has it, else `moves` on each.
    fn visit_children(
        &self,
        py: Python<'_>,
        positions: &[Vec<u32>],
        visit: &mut dyn FnMut(usize, &[u32]) -> PyResult<()>,
    ) -> PyResult<()> {
        match &self.moves {
            Some(moves) if self.many.is_none() => {
                for (i, p) in positions.iter().enumerate() {
                    self.visit_one(py, moves, p, false, &mut |to, _| visit(i, to))?;
                }
                Ok(())
            }
            _ => self.visit_many(py, positions, visit),
        }
    }

    /// Calls `moves_many` on `positions` (one array, a row each, padded with zeros) and
    /// reads the `(children, of)` it gives back: each row of `children` a position one move
    /// from the row `of` names, given to `visit` with that row's index.
    fn visit_many<'py>(
        &self,
        py: Python<'py>,
        positions: &[Vec<u32>],
        visit: &mut dyn FnMut(usize, &[u32]) -> PyResult<()>,
    ) -> PyResult<()> {
        let many = self.many.as_ref().expect("moves_many, when moves is not given");
        let n = positions.len();
        let width = positions.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let mut flat = vec![0u32; n * width];
        for (row, p) in flat.chunks_exact_mut(width).zip(positions) {
            row[..p.len()].copy_from_slice(p);
        }
        let batch = flat.into_pyarray(py).reshape([n, width])?;
        let batch_of = |detail: String| {
            let asked = match positions {
                [one] => format!("on {}", self.show(one)),
                [first, .., last] => {
                    format!("on a batch of {n} positions, {} to {},", self.show(first), self.show(last))
                }
                [] => "on no positions".to_string(),
            };
            NimdbError::new_err(format!("{}'s moves_many {asked} {detail}", self.name))
        };
        let given = many.bind(py).call1((batch,)).map_err(|e| {
            let err = batch_of(format!("raised: {e}"));
            err.set_cause(py, Some(e));
            err
        })?;
        let (children, of) = given
            .extract::<(Bound<'py, PyAny>, Bound<'py, PyAny>)>()
            .map_err(|_| batch_of("gave no pair (children, of) of arrays".into()))?;
        let np = py.import("numpy")?;
        let whole = |a: &Bound<'py, PyAny>, what: &str| -> PyResult<Bound<'py, PyAny>> {
            let a = np.call_method1("asarray", (a,))?;
            let kind: String = a.getattr("dtype")?.getattr("kind")?.extract()?;
            let size: usize = a.getattr("size")?.extract()?;
            if size > 0 && !matches!(kind.as_str(), "i" | "u") {
                return Err(batch_of(format!(
                    "gave {what} of dtype {}, not whole numbers",
                    a.getattr("dtype")?
                )));
            }
            a.call_method1("astype", ("int64",))
        };
        let children = whole(&children, "children")?;
        let of = whole(&of, "of")?;
        let rows: usize = of.getattr("size")?.extract()?;
        if rows == 0 {
            return Ok(());
        }
        let of: PyReadonlyArray1<i64> = of.call_method0("ravel")?.extract()?;
        let shape: Vec<usize> = children.getattr("shape")?.extract()?;
        if shape.len() != 2 || shape[0] != rows {
            return Err(batch_of(format!(
                "gave children of shape {shape:?} for {rows} entries of `of`: children must be a 2-D array with a row for each"
            )));
        }
        let children: PyReadonlyArray2<i64> = children.extract()?;
        let (children, of) = (children.as_array(), of.as_array());
        let mut to = Vec::new();
        for (r, &parent) in of.iter().enumerate() {
            let Some(p) = usize::try_from(parent).ok().filter(|&p| p < n) else {
                return Err(batch_of(format!(
                    "gave of[{r}] = {parent}, not a row of the {n} positions given"
                )));
            };
            self.read_counts_into("moves_many", &positions[p], children.row(r).iter().copied(), &mut to)?;
            visit(p, &to)?;
        }
        Ok(())
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
    fn for_each_child(&self, position: &[u32], buf: &mut Vec<u32>, visit: &mut dyn FnMut(&[u32])) {
        // From the gathered space, each child unranked into `buf`: what a solve reads.
        let graph = self.graph.read().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(g) = graph
            && let Some(i) = g.index(position)
        {
            for &c in &g.children[g.first[i as usize] as usize..g.first[i as usize + 1] as usize] {
                g.unrank(c, buf);
                visit(buf);
            }
            return;
        }
        // Outside it, from the function (an exception is kept, to be raised when the library
        // returns, and no move is given).
        let given = Python::attach(|py| self.call(py, position)).unwrap_or_else(|e| {
            crate::signals::keep(e);
            Vec::new()
        });
        for (to, _) in given {
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

/// The positions asked of the function at once while a space is gathered.
const BATCH: usize = 1024;

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
    let b = space.bounds();
    // Positions are asked in batches (one call of `moves_many` each, or `moves` on each),
    // in solve order; each batch's moves are checked as they are placed.
    let mut batch: Vec<Vec<u32>> = Vec::with_capacity(BATCH);
    let mut batch_tier: Vec<usize> = Vec::with_capacity(BATCH);
    let mut flush = |batch: &mut Vec<Vec<u32>>, batch_tier: &mut Vec<usize>| -> PyResult<()> {
        py.check_signals()?;
        // Each child located and checked as it comes, then every position's children
        // sorted and kept once.
        let mut found: Vec<(u32, u64)> = Vec::new();
        rules.visit_children(py, batch, &mut |i, to| {
            let position = &batch[i];
            let Some((t, r)) = space.locate(to) else {
                return Err(NimdbError::new_err(format!(
                    "{}'s move from {} to {} leaves the space solved (total ≤ {}, heaps ≤ {}{}){}",
                    rules.name,
                    rules.show(position),
                    rules.show(to),
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
            if !rules.loopy && tier_index[&t] >= batch_tier[i] {
                return Err(NimdbError::new_err(format!(
                    "{}'s move from {} to {} does not go to an earlier tier (fewer tokens, or as many in more heaps), so the game may have a cycle: declare loopy=True",
                    rules.name,
                    rules.show(position),
                    rules.show(to)
                )));
            }
            found.push((i as u32, tier_start[&t] + r));
            Ok(())
        })?;
        found.sort_unstable();
        found.dedup();
        let mut at = 0;
        for i in 0..batch.len() as u32 {
            first.push(children.len() as u64);
            while at < found.len() && found[at].0 == i {
                children.push(found[at].1);
                at += 1;
            }
        }
        batch.clear();
        batch_tier.clear();
        Ok(())
    };
    let mut position = Vec::new();
    for (ti, &tier) in tiers.iter().enumerate() {
        for rank in 0..space.size(tier) {
            space.unrank(tier, rank, &mut position);
            batch.push(position.clone());
            batch_tier.push(ti);
            if batch.len() == BATCH {
                flush(&mut batch, &mut batch_tier)?;
            }
        }
    }
    if !batch.is_empty() {
        flush(&mut batch, &mut batch_tier)?;
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
    for moves in rules.children_of(py, &sample_positions(space.as_ref()))? {
        h.write_u64(moves.len() as u64);
        for to in moves {
            h.write_u64(to.len() as u64);
            for c in to {
                h.write_u32(c);
            }
        }
    }
    Ok(h.finish())
}

/// Every position of `space`, in solve order.
fn sample_positions(space: &dyn PositionSpace) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut position = Vec::new();
    for tier in space.tiers() {
        for rank in 0..space.size(tier) {
            space.unrank(tier, rank, &mut position);
            out.push(position.clone());
        }
    }
    out
}

/// Where `moves` and `moves_many` disagree on the sample, if they do: the position.
fn disagreement(py: Python<'_>, rules: &PyRules) -> PyResult<Option<(Vec<u32>, String)>> {
    let (Some(moves), Some(_)) = (&rules.moves, &rules.many) else { return Ok(None) };
    let space = sample_space(rules.layout, rules.cap)?;
    let positions = sample_positions(space.as_ref());
    let batch = rules.call_many(py, &positions)?;
    for (p, many) in positions.into_iter().zip(batch) {
        let one: Vec<Vec<u32>> = rules.call_one(py, moves, &p)?.into_iter().map(|(to, _)| to).collect();
        if one != many {
            let show = |m: &[Vec<u32>]| m.iter().map(|to| rules.show(to)).collect::<Vec<_>>().join(" ");
            let detail = format!("moves gives [{}], moves_many [{}]", show(&one), show(&many));
            return Ok(Some((p, detail)));
        }
    }
    Ok(None)
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
    theorems: Vec<Py<crate::stated::Theorem>>,
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
    /// The theorems and conjectures stated of it (`define(…, theorem=…)`).
    #[getter]
    fn theorems(&self, py: Python<'_>) -> Vec<Py<crate::stated::Theorem>> {
        self.theorems.iter().map(|t| t.clone_ref(py)).collect()
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
/// `moves_many(positions)`, instead of or beside `moves`, takes a batch: a uint32 array of
/// shape (n, width), a position a row, padded with zeros, and returns a pair `(children,
/// of)` of integer arrays: `children` (m, any width, zeros padding) holds the positions one
/// move leads to and `of` (m,) the row each is a move from. A solve asks it for thousands
/// of positions at once, so a numpy `moves_many` spares the interpreter. Given both, the
/// two must agree (checked on the sample) and `moves` names the moves in answers.
///
/// The moves of a fixed sample of positions are read now, for the game's fingerprint: an
/// exception in `moves`, or a move that leaves the layout, raises here. The game is stored
/// under `name` and the fingerprint; a database that holds a solve of `name` under other
/// rules refuses to solve or answer this one.
///
/// `theorem` (a `nimdb.Theorem`, or a list of them) states formulas of the game: each is
/// checked by `Database.verify` against every stored position of its convention, and the
/// first marked `proven=True` for a convention answers the positions no stored solve holds
/// (source "user-theorem", naming its citation). A conjecture is only checked. Theorems are
/// not part of the rules: they do not change the fingerprint.
#[pyfunction]
#[pyo3(signature = (name, moves = None, *, moves_many = None, layout = "multiset", heaps = None, cap = None, loopy = false, theorem = None))]
#[allow(clippy::too_many_arguments)]
pub fn define(
    py: Python<'_>,
    name: &str,
    moves: Option<Py<PyAny>>,
    moves_many: Option<Py<PyAny>>,
    layout: &str,
    heaps: Option<u32>,
    cap: Option<u32>,
    loopy: bool,
    theorem: Option<&Bound<'_, PyAny>>,
) -> PyResult<DefinedGame> {
    let theorems = crate::stated::theorems_arg(theorem)?;
    if loopy && let Some(t) = theorems.iter().find(|t| t.get().claim() == nimdb::game::Claim::NimValue) {
        return Err(Kind::BadArgument.err(format!(
            "theorem {:?} gives nim-values, but {name} is loopy: its positions may be draws, with no nim-value; state an outcome (gives=\"outcome\")",
            t.get().stated().citation()
        )));
    }
    for (f, what) in [
        (&moves, "moves must be callable: moves(position) -> positions"),
        (&moves_many, "moves_many must be callable: moves_many(positions) -> (children, of)"),
    ] {
        if let Some(f) = f
            && !f.bind(py).is_callable()
        {
            return Err(pyo3::exceptions::PyTypeError::new_err(what));
        }
    }
    if moves.is_none() && moves_many.is_none() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "define needs the moves: moves(position) -> positions, or moves_many(positions) -> (children, of)",
        ));
    }
    if moves_many.is_some() && layout == "set" {
        return Err(Kind::BadArgument.err(
            "moves_many takes the \"multiset\", \"row\" and \"staircase\" layouts (their positions pad with zeros); a set's 0 is a heap: give moves",
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
    let rules = Arc::new(PyRules {
        name: name.to_string(),
        layout,
        loopy,
        cap,
        moves,
        many: moves_many,
        graph: RwLock::new(None),
    });
    if let Some((position, detail)) = disagreement(py, &rules)? {
        return Err(Kind::BadArgument
            .err(format!("{name}'s moves and moves_many disagree at {}: {detail}", rules.show(&position))));
    }
    let print = fingerprint(py, &rules)?;
    let family: Arc<dyn Family> = rules.clone();
    let defined = Defined::new(name, print, family)
        .map_err(|e| Kind::BadArgument.err(e.to_string()))?
        .with_theorems(theorems.iter().map(|t| t.get().stated()).collect());
    Ok(DefinedGame { rules, defined, theorems })
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
    let DefinedGame { rules, defined, .. } = defined.get();
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
