//! The step graph: Kahn's algorithm into waves of steps that can run side by side, a named
//! cycle when there is none, and each step's ancestors (what a template may refer to).

use std::collections::BTreeSet;

/// `deps[i]` are the steps step `i` needs (indices into the same list).
pub type Deps = Vec<BTreeSet<usize>>;

/// Steps grouped into waves: every step's dependencies are in earlier waves. `Err` holds one
/// cycle as a path of step indices that starts and ends at the same step.
pub fn waves(deps: &Deps) -> Result<Vec<Vec<usize>>, Vec<usize>> {
    let n = deps.len();
    let mut remaining: Vec<usize> = deps.iter().map(BTreeSet::len).collect();
    let mut done = vec![false; n];
    let mut out = Vec::new();
    let mut placed = 0;
    while placed < n {
        let wave: Vec<usize> = (0..n).filter(|&i| !done[i] && remaining[i] == 0).collect();
        if wave.is_empty() {
            return Err(find_cycle(deps, &done));
        }
        for &i in &wave {
            done[i] = true;
        }
        for (j, d) in deps.iter().enumerate() {
            if !done[j] {
                remaining[j] -= d.iter().filter(|k| wave.contains(k)).count();
            }
        }
        placed += wave.len();
        out.push(wave);
    }
    Ok(out)
}

/// A cycle among the steps not yet placed (each of them has an unplaced dependency).
fn find_cycle(deps: &Deps, done: &[bool]) -> Vec<usize> {
    let Some(start) = (0..deps.len()).find(|&i| !done[i]) else {
        return Vec::new();
    };
    // Walk unplaced dependencies until a step repeats: that stretch is a cycle.
    let mut path = vec![start];
    let mut current = start;
    loop {
        let Some(&next) = deps[current].iter().find(|&&d| !done[d]) else {
            return path;
        };
        if let Some(at) = path.iter().position(|&p| p == next) {
            // Each step in `path` needs the next one: `a → b → a` reads "a needs b needs a".
            let mut cycle = path[at..].to_vec();
            cycle.push(next);
            return cycle;
        }
        path.push(next);
        current = next;
    }
}

/// Every step `i` depends on, directly or not.
pub fn ancestors(deps: &Deps, i: usize) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<usize> = deps[i].iter().copied().collect();
    while let Some(d) = stack.pop() {
        if seen.insert(d) {
            stack.extend(deps[d].iter().copied());
        }
    }
    seen
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
    fn ancestors_are_transitive() {
        let d = deps(&[&[], &[0], &[1], &[]]);
        assert_eq!(ancestors(&d, 2), [0, 1].into_iter().collect());
        assert!(ancestors(&d, 3).is_empty());
    }
}
