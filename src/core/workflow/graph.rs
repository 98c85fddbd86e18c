//! The step graph: Kahn's algorithm into waves of steps that can run side by side, a named
//! cycle when there is none, whether one step needs another (what a template may refer to), and
//! every step that needs a given one. Each is linear in the steps and their needs, so checking a
//! workflow of 10 000 steps costs ten times one of 1 000 (`just bench check`).

use std::collections::{BTreeSet, HashMap};

/// `deps[i]` are the steps step `i` needs (indices into the same list).
pub type Deps = Vec<BTreeSet<usize>>;

/// For each step, the steps that need it directly (the edges of `deps` turned round).
fn dependents(deps: &Deps) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); deps.len()];
    for (i, d) in deps.iter().enumerate() {
        for &j in d {
            if let Some(list) = out.get_mut(j) {
                list.push(i);
            }
        }
    }
    out
}

/// Steps grouped into waves: every step's dependencies are in earlier waves, each wave in file
/// order. `Err` holds one cycle as a path of step indices that starts and ends at the same step.
pub fn waves(deps: &Deps) -> Result<Vec<Vec<usize>>, Vec<usize>> {
    let n = deps.len();
    let dependents = dependents(deps);
    let mut remaining: Vec<usize> = deps.iter().map(BTreeSet::len).collect();
    let mut wave: Vec<usize> = (0..n).filter(|&i| remaining[i] == 0).collect();
    let mut out = Vec::new();
    let mut placed = 0;
    while !wave.is_empty() {
        let mut next = Vec::new();
        for &i in &wave {
            for &j in &dependents[i] {
                remaining[j] -= 1;
                if remaining[j] == 0 {
                    next.push(j);
                }
            }
        }
        next.sort_unstable();
        placed += wave.len();
        out.push(std::mem::replace(&mut wave, next));
    }
    if placed < n {
        let unplaced: Vec<bool> = remaining.iter().map(|&r| r > 0).collect();
        return Err(find_cycle(deps, &unplaced));
    }
    Ok(out)
}

/// A cycle among the steps not placed in a wave (each of them has an unplaced dependency).
fn find_cycle(deps: &Deps, unplaced: &[bool]) -> Vec<usize> {
    let Some(start) = (0..deps.len()).find(|&i| unplaced[i]) else {
        return Vec::new();
    };
    // Walk unplaced dependencies until a step repeats: that stretch is a cycle.
    let mut path = vec![start];
    let mut position = HashMap::from([(start, 0)]);
    let mut current = start;
    loop {
        let Some(&next) = deps[current].iter().find(|&&d| unplaced[d]) else {
            return path;
        };
        if let Some(&at) = position.get(&next) {
            // Each step in `path` needs the next one: `a → b → a` reads "a needs b needs a".
            let mut cycle = path[at..].to_vec();
            cycle.push(next);
            return cycle;
        }
        position.insert(next, path.len());
        path.push(next);
        current = next;
    }
}

/// Every step that needs step `root`, directly or not.
pub fn needing(deps: &Deps, root: usize) -> BTreeSet<usize> {
    let dependents = dependents(deps);
    let mut seen = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(i) = stack.pop() {
        for &j in dependents.get(i).map_or(&[][..], Vec::as_slice) {
            if seen.insert(j) {
                stack.push(j);
            }
        }
    }
    seen
}

/// The final steps: those no other step needs, in order.
pub fn finals(deps: &Deps) -> Vec<usize> {
    dependents(deps)
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_empty())
        .map(|(i, _)| i)
        .collect()
}

/// Answers "does step `from` need step `to`, directly or not?" for a graph without cycles, and
/// names the path. What it learns about one `to` is kept for the next question about it, and a
/// step in a wave no later than `to`'s cannot need it, so a workflow's questions together cost
/// about one walk of the graph per step asked about (not one per question).
pub struct Reach<'a> {
    deps: &'a Deps,
    /// Each step's wave.
    wave: Vec<usize>,
    /// Per `to`: for each step looked at, the step it needs on its way to `to` (`None`: it
    /// does not need `to`).
    known: HashMap<usize, HashMap<usize, Option<usize>>>,
    /// How many steps have been walked into, over every question (the work done).
    walked: usize,
}

impl<'a> Reach<'a> {
    /// `waves` are [`waves`]' answer for `deps`.
    pub fn new(deps: &'a Deps, waves: &[Vec<usize>]) -> Self {
        let mut wave = vec![0; deps.len()];
        for (n, steps) in waves.iter().enumerate() {
            for &i in steps {
                wave[i] = n;
            }
        }
        Reach {
            deps,
            wave,
            known: HashMap::new(),
            walked: 0,
        }
    }

    /// Whether `from` needs `to`, directly or not (a step does not need itself).
    pub fn needs(&mut self, from: usize, to: usize) -> bool {
        if from == to || from >= self.deps.len() || to >= self.deps.len() {
            return false;
        }
        self.explore(from, to);
        matches!(
            self.known.get(&to).and_then(|k| k.get(&from)),
            Some(Some(_))
        )
    }

    /// The steps from `from` to `to`, each needing the next (`[from, …, to]`), when `from`
    /// needs `to` directly or not.
    pub fn path(&mut self, from: usize, to: usize) -> Option<Vec<usize>> {
        if !self.needs(from, to) {
            return None;
        }
        let known = self.known.get(&to)?;
        let mut path = vec![from];
        let mut at = from;
        while at != to {
            at = (*known.get(&at)?)?;
            path.push(at);
        }
        Some(path)
    }

    /// Depth first from `from` towards `to`, recording what each step visited leads to.
    fn explore(&mut self, from: usize, to: usize) {
        let (deps, wave, walked) = (self.deps, &self.wave, &mut self.walked);
        let known = self.known.entry(to).or_default();
        // Each frame: a step and its needs not yet looked at.
        let mut stack = vec![(from, deps[from].iter())];
        while let Some((step, rest)) = stack.last_mut() {
            let step = *step;
            if known.contains_key(&step) {
                stack.pop();
                continue;
            }
            let Some(&need) = rest.next() else {
                known.insert(step, None);
                stack.pop();
                continue;
            };
            let leads = need == to || matches!(known.get(&need), Some(Some(_)));
            if leads {
                // Every step on the stack needs the one above it, so all of them reach `to`.
                let mut next = need;
                for (s, _) in stack.drain(..).rev() {
                    known.insert(s, Some(next));
                    next = s;
                }
                return;
            }
            if !known.contains_key(&need) && wave[need] > wave[to] {
                *walked += 1;
                stack.push((need, deps[need].iter()));
            }
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn deps(edges: &[&[usize]]) -> Deps {
        edges.iter().map(|e| e.iter().copied().collect()).collect()
    }

    #[test]
    fn independent_steps_share_a_wave() {
        // 0, 1 independent; 2 needs both; 3 needs 0.
        let d = deps(&[&[], &[], &[0, 1], &[0]]);
        assert_eq!(waves(&d).unwrap(), vec![vec![0, 1], vec![2, 3]]);
    }

    #[test]
    fn a_cycle_is_named_as_a_closed_path() {
        // 0 needs 1, 1 needs 0; 2 is fine.
        let d = deps(&[&[1], &[0], &[]]);
        let cycle = waves(&d).unwrap_err();
        assert_eq!(cycle.first(), cycle.last());
        assert_eq!(cycle.len(), 3);
        let d = deps(&[&[0]]);
        assert_eq!(waves(&d).unwrap_err(), vec![0, 0]);
        // A step that only waits on a cycle is not part of it.
        let d = deps(&[&[1], &[2], &[1]]);
        let cycle = waves(&d).unwrap_err();
        assert!(!cycle.contains(&0), "{cycle:?}");
    }

    #[test]
    fn needing_is_transitive() {
        let d = deps(&[&[], &[0], &[1], &[]]);
        assert_eq!(needing(&d, 0), [1, 2].into_iter().collect());
        assert!(needing(&d, 3).is_empty());
    }

    #[test]
    fn the_final_steps_are_those_nothing_needs() {
        // 0 ← 1 ← 2, 3 alone, 4 needs 0.
        let d = deps(&[&[], &[0], &[1], &[], &[0]]);
        assert_eq!(finals(&d), vec![2, 3, 4]);
        assert_eq!(finals(&deps(&[])), Vec::<usize>::new());
    }

    #[test]
    fn reach_names_the_path_and_only_when_there_is_one() {
        // 0 ← 1 ← 2, 3 ← 4 (and 4 needs 0 too).
        let d = deps(&[&[], &[0], &[1], &[], &[3, 0]]);
        let w = waves(&d).unwrap();
        let mut reach = Reach::new(&d, &w);
        assert_eq!(reach.path(2, 0), Some(vec![2, 1, 0]));
        assert_eq!(reach.path(1, 0), Some(vec![1, 0]));
        assert_eq!(reach.path(4, 0), Some(vec![4, 0]));
        assert_eq!(reach.path(0, 2), None);
        assert_eq!(reach.path(4, 1), None);
        assert_eq!(reach.path(2, 3), None);
        assert_eq!(reach.path(2, 2), None);
        // Asked again, from what it already knows.
        assert_eq!(reach.path(2, 0), Some(vec![2, 1, 0]));
        assert_eq!(reach.path(4, 1), None);
    }

    /// 10 000 steps on one worker (each needs the one before), each asking about the first
    /// step: each step is walked once for that question, not once per asker.
    #[test]
    fn a_long_chain_is_planned_and_asked_in_linear_work() {
        let n = 10_000;
        let d: Deps = (0..n)
            .map(|i| {
                if i == 0 {
                    BTreeSet::new()
                } else {
                    BTreeSet::from([i - 1])
                }
            })
            .collect();
        let w = waves(&d).unwrap();
        assert_eq!(w.len(), n);
        let mut reach = Reach::new(&d, &w);
        for i in (1..n).rev() {
            assert!(reach.needs(i, 0), "{i}");
            assert!(!reach.needs(0, i), "{i}");
        }
        for i in 1..n {
            assert!(reach.needs(i, i - 1) && reach.needs(i, 0), "{i}");
        }
        assert!(
            reach.walked <= 2 * n,
            "walked {} steps for {n}",
            reach.walked
        );
        assert_eq!(reach.path(3, 0), Some(vec![3, 2, 1, 0]));
    }
}
