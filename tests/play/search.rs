//! Search: PUCT with a uniform evaluator finds forced wins; the Gumbel root stays legal and
//! its policy target is a distribution; values are per side, not per seat.
// `with_game!` instantiates the same generic code for Copy and non-Copy states.
#![allow(clippy::clone_on_copy)]

use crate::common;

use checkers_zero::config::search::SearchConfig;
use checkers_zero::config::search::SearchKind;
use checkers_zero::game::turns::distinct_turns;
use checkers_zero::game::*;
use checkers_zero::net::net_eval::{Evaluate, LeafEval, UniformEvaluator};
use checkers_zero::net::NetError;
use checkers_zero::search::gumbel::GumbelRoot;
use checkers_zero::search::puct::PuctRoot;
use checkers_zero::search::rollout::terminal_values;
use checkers_zero::search::root::RootSearch;
use checkers_zero::search::run::{run_searches, search};
use checkers_zero::search::tree::{Mcts, MctsConfig};
use checkers_zero::with_game;
use rand::rngs::StdRng;
use rand::SeedableRng;

/// PUCT on `trees` without noise until each root has `target` visits, leaves batched.
fn run_simulations<S: GameState>(trees: &mut [&mut Mcts<S>], target: u32) {
    let mut roots: Vec<Box<dyn RootSearch<S>>> = trees
        .iter()
        .map(|_| Box::new(PuctRoot::new(target, false)) as Box<dyn RootSearch<S>>)
        .collect();
    let mut rng = StdRng::seed_from_u64(0);
    run_searches(trees, &mut roots, &mut UniformEvaluator, &mut rng).unwrap();
}

/// The tree settings of the default search, with (`noise`) or without root noise.
fn tree_config(noise: bool) -> MctsConfig {
    SearchConfig::default().mcts(noise)
}

/// True if `me` wins by force within `turns` more turns (brute force over whole turns).
fn wins_within<S: GameState>(state: &S, me: Side, turns: u32) -> bool {
    if let Some(outcome) = state.outcome() {
        return outcome.winner == Some(me);
    }
    if turns == 0 {
        return false;
    }
    let children = distinct_turns(state);
    if state.side_to_move() == me {
        children
            .iter()
            .any(|t| wins_within(&t.state, me, turns - 1))
    } else {
        children
            .iter()
            .all(|t| wins_within(&t.state, me, turns - 1))
    }
}

/// Searches `position` and checks that the most visited first step starts a turn that wins
/// by force within `horizon` more turns (while some turns do not).
fn assert_search_finds_win(kind: GameKind, position: &str, simulations: u32, horizon: u32) {
    with_game!(kind, S => {
        let state = S::from_notation(kind, position, RulesConfig::default()).unwrap();
        let me = state.side_to_move();
        let turns = distinct_turns(&state);
        let winning: Vec<&str> = turns
            .iter()
            .filter(|t| wins_within(&t.state, me, horizon))
            .map(|t| t.path.as_str())
            .collect();
        assert!(!winning.is_empty() && winning.len() < turns.len(), "{position}: a real choice");
        // Play the whole turn step by step, searching each step with a fresh budget.
        let mut current = state.clone();
        let mut tree = Mcts::new(current.clone(), tree_config(false));
        let mut path = String::new();
        let mut first = true;
        loop {
            let target = tree.root_visits() + simulations;
            run_simulations(&mut [&mut tree], target);
            let best = tree.root_children().into_iter().max_by_key(|c| c.visits).unwrap();
            checkers_zero::game::turns::push_step_text(&current, best.action, first, &mut path);
            first = false;
            current.apply_step(best.action);
            tree.advance(best.action);
            if !current.turn_in_progress() || current.outcome().is_some() {
                break;
            }
        }
        let chosen = turns.iter().find(|t| t.state.position_hash() == current.position_hash()).unwrap();
        assert!(
            winning.contains(&chosen.path.as_str()),
            "{position}: search chose {path} ({}), winning turns are {winning:?}",
            chosen.path
        );
    });
}

#[test]
fn mcts_with_uniform_evaluator_finds_forced_win_hexdame() {
    // White wins in two turns only with g3-g4 or g3-h4 (20 turns to choose from). In the
    // second position d7-d4 wins in two turns and d7-e7 in four (walking through Red's
    // forced replies, the search sees both); most turns do not win.
    assert_search_finds_win(GameKind::Hexdame, "white d7:W g3:w f8:r", 3000, 2);
    assert_search_finds_win(GameKind::Hexdame, "white d7:W e2:w f5:r", 3000, 4);
}

#[test]
fn mcts_with_uniform_evaluator_finds_forced_win_rematch() {
    // One winning turn out of 12 (White), and one out of 11 (Orange), in both seat layouts.
    for kind in [GameKind::Rematch, GameKind::Rematch3] {
        assert_search_finds_win(kind, "white b3:RRRWW c2:OOW d5:OOWR quiet=1", 3000, 2);
        assert_search_finds_win(
            kind,
            "orange a3:RRO b4:O c2:WWR c4:WRWO d5:O quiet=3",
            3000,
            2,
        );
    }
}

#[test]
fn mcts_with_uniform_evaluator_finds_forced_win_eximo() {
    // One winning turn out of 29, and two out of 39.
    assert_search_finds_win(
        GameKind::Eximo,
        "black b1:b b2:b b7:w c5:b d2:b d7:w e1:b e4:b f2:b f3:b g1:b g3:b",
        3000,
        2,
    );
    assert_search_finds_win(
        GameKind::Eximo,
        "black a3:b a4:b b2:b b5:b c1:b c2:b c6:b d1:b d2:b e2:b e3:b f1:b f2:b f7:b g2:b g5:w",
        3000,
        2,
    );
}

/// Random positions reached by random play, for property tests.
fn random_positions<S: GameState>(kind: GameKind, count: usize, seed: u64) -> Vec<S> {
    let keep = common::positions::Keep::Any(1.0 / 40.0);
    common::positions::random_positions(kind, RulesConfig::default(), count, seed, keep)
}

#[test]
fn gumbel_with_8_simulations_is_legal_and_its_target_sums_to_one() {
    for kind in GameKind::ALL {
        with_game!(kind, S => {
            let positions: Vec<S> = random_positions(kind, 60, 11);
            let mut trees: Vec<Mcts<S>> =
                positions.iter().map(|p| Mcts::new(p.clone(), tree_config(true))).collect();
            let mut refs: Vec<&mut Mcts<S>> = trees.iter_mut().collect();
            let mut rng = StdRng::seed_from_u64(5);
            // k = 16, the paper's.
            let config = SearchConfig { considered: 16, ..SearchConfig::default() }.gumbel();
            let mut roots: Vec<Box<dyn RootSearch<S>>> = refs
                .iter()
                .map(|_| Box::new(GumbelRoot::new(config.clone(), 8)) as Box<dyn RootSearch<S>>)
                .collect();
            let outcomes = run_searches(&mut refs, &mut roots, &mut UniformEvaluator, &mut rng).unwrap();
            let mut legal = StepList::new();
            for (state, outcome) in positions.iter().zip(outcomes) {
                let outcome = outcome.expect("non-terminal root");
                state.legal_steps(&mut legal);
                assert!(legal.contains(&outcome.action), "{kind}: illegal step");
                let total: f32 = outcome.policy.iter().map(|(_, p)| p).sum();
                assert!((total - 1.0).abs() < 1e-4, "{kind}: policy sums to {total}");
                assert_eq!(outcome.policy.len(), legal.len());
                assert!(outcome.policy.iter().all(|(a, p)| legal.contains(a) && *p >= 0.0));
            }
            for tree in &trees {
                assert_eq!(tree.root_visits(), 8, "{kind}: the budget is spent exactly");
            }
        });
    }
}

/// The Gumbel root's value is the one its target implies, Σ π′ · q̂ over the completed
/// Q-values (mixed from the root's mean, or with `q_rescale` from the net's raw value), and
/// both transforms keep the target a distribution over the legal steps.
#[test]
fn gumbel_value_is_the_targets_expected_completed_q() {
    type S = checkers_zero::game::rematch::Rematch;
    use checkers_zero::search::gumbel::completed_q;
    let positions: Vec<S> = random_positions(GameKind::Rematch, 40, 21);
    for q_rescale in [false, true] {
        let config = SearchConfig {
            q_rescale,
            ..SearchConfig::default()
        };
        let mut trees: Vec<Mcts<S>> = positions
            .iter()
            .map(|p| Mcts::new(p.clone(), config.mcts(false)))
            .collect();
        let mut refs: Vec<&mut Mcts<S>> = trees.iter_mut().collect();
        let mut roots: Vec<Box<dyn RootSearch<S>>> = refs
            .iter()
            .map(|_| Box::new(GumbelRoot::new(config.gumbel(), 24)) as Box<dyn RootSearch<S>>)
            .collect();
        let mut rng = StdRng::seed_from_u64(9);
        let outcomes =
            run_searches(&mut refs, &mut roots, &mut HashValueEvaluator, &mut rng).unwrap();
        for (tree, outcome) in trees.iter().zip(outcomes) {
            let outcome = outcome.expect("non-terminal root");
            let children = tree.root_children();
            let base = if q_rescale {
                tree.root_net_value()
            } else {
                tree.root_value()
            };
            let completed = completed_q(&children, base);
            let expected: f32 = outcome
                .policy
                .iter()
                .zip(&completed)
                .map(|(p, q)| p.1 * q)
                .sum();
            assert!(
                (outcome.value - expected).abs() < 1e-5,
                "{} vs {expected}",
                outcome.value
            );
            let total: f32 = outcome.policy.iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-4);
        }
    }
}

/// An evaluator with uniform priors and a value that differs between positions (from the
/// position's hash), so that Q-values spread as they do under a net.
struct HashValueEvaluator;

impl<S: GameState> Evaluate<S> for HashValueEvaluator {
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        let mut uniform = UniformEvaluator.evaluate(states)?;
        for (eval, state) in uniform.iter_mut().zip(states) {
            eval.value = (state.position_hash() % 2001) as f32 / 1000.0 - 1.0;
        }
        Ok(uniform)
    }
}

#[test]
fn team_seats_share_one_value() {
    // The same positions searched as 2-player and 3-player ReMATCH: only the seat differs,
    // so every root value and visit count must be identical.
    type S = checkers_zero::game::rematch::Rematch;
    let positions: Vec<S> = random_positions(GameKind::Rematch, 30, 3);
    for p in positions {
        let three =
            S::from_notation(GameKind::Rematch3, &p.to_notation(), RulesConfig::default()).unwrap();
        if p.turn_in_progress() {
            continue;
        }
        let mut a = Mcts::new(p.clone(), tree_config(false));
        let mut b = Mcts::new(three.clone(), tree_config(false));
        run_simulations(&mut [&mut a], 200);
        run_simulations(&mut [&mut b], 200);
        assert_eq!(a.root_value(), b.root_value());
        assert_eq!(a.root_children(), b.root_children());
        assert_eq!(p.side_to_move(), three.side_to_move());
    }
}

use checkers_zero::search::agents::{rollout_uct, Agent, AlphaBetaAgent, RandomAgent};
use checkers_zero::search::run::Budget;

/// Plays one whole turn with `agent` from `state` and returns the resulting position.
fn play_turn<S: GameState>(agent: &mut dyn Agent<S>, state: &S) -> S {
    let mut current = state.clone();
    loop {
        let step = agent.choose(&current).unwrap();
        current
            .try_apply_step(step)
            .expect("agents play legal steps");
        if !current.turn_in_progress() || current.outcome().is_some() {
            return current;
        }
    }
}

#[test]
fn alpha_beta_finds_forced_win_hexdame() {
    type S = checkers_zero::game::hexdame::HexDame;
    for position in ["white d7:W g3:w f8:r", "white d7:W e2:w f5:r"] {
        let state = S::from_notation(GameKind::Hexdame, position, RulesConfig::default()).unwrap();
        let me = state.side_to_move();
        let mut agent = AlphaBetaAgent::new(Budget::Count(3), 1);
        let after = play_turn(&mut agent, &state);
        assert!(
            wins_within(&after, me, 2),
            "{position}: {}",
            after.to_notation()
        );
    }
}

#[test]
fn every_agent_plays_legal_steps_in_every_game() {
    for kind in GameKind::ALL {
        with_game!(kind, S => {
            let positions: Vec<S> = random_positions(kind, 12, 21);
            let mut agents: Vec<Box<dyn Agent<S>>> = vec![
                Box::new(RandomAgent::new(1)),
                Box::new(rollout_uct(30, 2)),
                Box::new(AlphaBetaAgent::new(Budget::Count(1), 3)),
                Box::new(AlphaBetaAgent::new(Budget::Time(std::time::Duration::from_millis(5)), 4)),
            ];
            for state in &positions {
                for agent in agents.iter_mut() {
                    let step = agent.choose(state).unwrap();
                    let mut legal = StepList::new();
                    state.legal_steps(&mut legal);
                    assert!(legal.contains(&step), "{kind}: {} played an illegal step", agent.name());
                }
            }
        });
    }
}

#[test]
fn the_move_choice_takes_the_most_visited_with_ties_to_the_better_value() {
    use checkers_zero::search::root::most_visited;
    use checkers_zero::search::tree::ChildStats;
    let child = |action, visits, q| ChildStats {
        action,
        prior: 0.25,
        visits,
        q,
    };
    let children = vec![
        child(1, 30, 0.9),
        child(2, 70, -0.2),
        child(3, 70, 0.1),
        child(4, 70, 0.0),
    ];
    assert_eq!(most_visited(&children), Some(2));
    assert_eq!(most_visited(&children[..1]), Some(0));
    assert_eq!(most_visited(&[]), None);
}

#[test]
fn net_agents_play_legal_steps_in_every_game() {
    use checkers_zero::config::net::NetConfig;
    use checkers_zero::net::batcher::{Batcher, BatcherConfig};
    use checkers_zero::net::encode::Encode;
    use checkers_zero::net::model::Model;
    use checkers_zero::net::net_eval::NetEvaluator;
    use checkers_zero::search::agents::PolicyAgent;
    use checkers_zero::search::agents::SearchAgent;
    let tiny = NetConfig::tiny();
    for kind in GameKind::ALL {
        with_game!(kind, S => {
            tch::manual_seed(1);
            let model = Model::new(S::net_shape(kind), tiny.clone(), tch::Device::Cpu).unwrap();
            let evaluator = Batcher::spawn(model, BatcherConfig { torch_threads: 1, ..Default::default() });
            let mut agents: Vec<Box<dyn Agent<S>>> = vec![
                Box::new(PolicyAgent::new(evaluator.handle())),
                Box::new(SearchAgent::new(
                    "mcts:16",
                    NetEvaluator::new(evaluator.handle()),
                    SearchConfig::default(),
                    Budget::Count(16),
                    1,
                )),
                Box::new(SearchAgent::new(
                    "puct:16",
                    NetEvaluator::new(evaluator.handle()),
                    SearchConfig { kind: SearchKind::Puct, ..SearchConfig::default() },
                    Budget::Count(16),
                    1,
                )),
                Box::new(SearchAgent::new(
                    "mcts:5ms",
                    NetEvaluator::new(evaluator.handle()),
                    SearchConfig::default(),
                    Budget::Time(std::time::Duration::from_millis(5)),
                    2,
                )),
            ];
            for state in random_positions::<S>(kind, 8, 31) {
                let mut legal = StepList::new();
                state.legal_steps(&mut legal);
                for agent in agents.iter_mut() {
                    let step = agent.choose(&state).unwrap();
                    assert!(legal.contains(&step), "{kind}: {} played an illegal step", agent.name());
                }
            }
        });
    }
}

/// Records the number of legal steps of every position it is asked about; values are a
/// fixed function of the position (its hash), exact at positions with one legal step: there
/// it gives the value of the next position with a choice, seen from its own side to move.
#[derive(Default)]
struct CountingEvaluator {
    legal_counts: Vec<usize>,
}

/// A made-up value of `state` for its side to move, in (-1, 1).
fn hashed_value<S: GameState>(state: &S) -> f32 {
    (state.position_hash() % 1000) as f32 / 1000.0 * 1.8 - 0.9
}

impl<S: GameState> Evaluate<S> for CountingEvaluator {
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        let mut evals = UniformEvaluator.evaluate(states)?;
        let mut legal = StepList::new();
        for (eval, state) in evals.iter_mut().zip(states) {
            state.legal_steps(&mut legal);
            self.legal_counts.push(legal.len());
            let mut end = (*state).clone();
            while end.outcome().is_none() {
                end.legal_steps(&mut legal);
                if legal.len() != 1 {
                    break;
                }
                end.apply_step(legal[0]);
            }
            let v = match terminal_values(&end) {
                Some(values) => values[end.side_to_move().0 as usize],
                None => hashed_value(&end),
            };
            eval.value = if end.side_to_move() == state.side_to_move() {
                v
            } else {
                -v
            };
        }
        Ok(evals)
    }
}

/// Positions with a choice where at least one step leads to a position with one legal step
/// (a capture continuation or a single reply): the root child number and the position.
fn positions_with_forced_children<S: GameState>(kind: GameKind, count: usize) -> Vec<(S, usize)> {
    let mut found = Vec::new();
    let mut legal = StepList::new();
    let mut next = StepList::new();
    for seed in 0.. {
        for state in random_positions::<S>(kind, 50, seed) {
            state.legal_steps(&mut legal);
            if legal.len() < 2 {
                continue;
            }
            let forced = legal.iter().position(|&a| {
                let mut child = state.clone();
                child.apply_step(a);
                child.legal_steps(&mut next);
                child.outcome().is_none() && next.len() == 1
            });
            if let Some(k) = forced {
                found.push((state, k));
                if found.len() == count {
                    return found;
                }
            }
        }
    }
    unreachable!()
}

#[test]
fn no_net_call_at_a_position_with_one_legal_step() {
    let configs = [
        SearchConfig {
            kind: SearchKind::Puct,
            ..SearchConfig::default()
        },
        SearchConfig {
            kind: SearchKind::Gumbel,
            ..SearchConfig::default()
        },
    ];
    for kind in GameKind::ALL {
        with_game!(kind, S => {
            let mut rng = StdRng::seed_from_u64(3);
            let mut forced_children_visited = [0; 2];
            for (state, k) in positions_with_forced_children::<S>(kind, 10) {
                for (c, config) in configs.iter().enumerate() {
                    let mut counting = CountingEvaluator::default();
                    let mut tree = Mcts::new(state.clone(), config.mcts(false));
                    search(&mut tree, config, 64, &mut rng, &mut counting).unwrap();
                    assert!(!counting.legal_counts.is_empty());
                    assert!(
                        counting.legal_counts.iter().all(|&n| n != 1),
                        "{kind} {}: a net call at a forced position",
                        config.kind
                    );
                    // The search went through the forced child (so the test means something).
                    forced_children_visited[c] += tree.root_children()[k].visits;
                }
            }
            assert!(
                forced_children_visited.iter().all(|&n| n > 0),
                "{kind}: the searches visit forced positions ({forced_children_visited:?})"
            );
        });
    }
}

#[test]
fn values_back_up_through_forced_steps_as_without_the_walk() {
    // One simulation through a child whose position is forced: the search walks on and
    // evaluates the next position with a choice. The child must get the value a search that
    // stopped at the forced position would give it: the evaluator's value there (exact for
    // this evaluator), seen from the side that chose the child, whoever moves along the chain
    // (2 sides; 3 seats in 3-player ReMATCH).
    for kind in GameKind::ALL {
        with_game!(kind, S => {
            for (state, k) in positions_with_forced_children::<S>(kind, 20) {
                let mut tree = Mcts::new(state.clone(), tree_config(true));
                let mut counting = CountingEvaluator::default();
                for via in [None, Some(k)] {
                    let leaf = tree.select_leaf_via(via);
                    let eval = if leaf.terminal {
                        None
                    } else {
                        counting.evaluate(&[&leaf.state]).unwrap().pop()
                    };
                    tree.expand_and_backup(leaf, eval.as_ref());
                }
                let child = &tree.root_children()[k];
                assert_eq!(child.visits, 1);
                let mut forced = state.clone();
                let mut legal = StepList::new();
                forced.legal_steps(&mut legal);
                forced.apply_step(legal[k]);
                let there = counting.evaluate(&[&forced]).unwrap().pop().unwrap().value;
                let expected = if forced.side_to_move() == state.side_to_move() {
                    there
                } else {
                    -there
                };
                assert!((child.q - expected).abs() < 1e-6, "{kind} {}: {} vs {expected}", state.to_notation(), child.q);
            }
        });
    }
}

/// An evaluator that puts 0.97 of the prior on the first legal step and values every position
/// as even, or (`hashed`) by its hash.
struct SkewedEvaluator {
    hashed: bool,
}

impl<S: GameState> Evaluate<S> for SkewedEvaluator {
    fn evaluate(&mut self, states: &[&S]) -> Result<Vec<LeafEval>, NetError> {
        let mut evals = UniformEvaluator.evaluate(states)?;
        for (eval, state) in evals.iter_mut().zip(states) {
            let rest = 0.03 / (eval.priors.len().max(2) - 1) as f32;
            for (i, p) in eval.priors.iter_mut().enumerate() {
                *p = if i == 0 { 0.97 } else { rest };
            }
            if self.hashed {
                eval.value = hashed_value(*state);
            }
        }
        Ok(evals)
    }
}

/// `search.forced_playouts` (KataGo): in self-play's full PUCT searches every root step gets
/// about `sqrt(k · P · N)` visits, and the policy target drops the visits so forced; the
/// agents' searches (no noise) are plain PUCT.
#[test]
fn forced_playouts_visit_every_root_step_and_are_pruned_from_the_target() {
    use checkers_zero::search::root::SearchResult;
    use checkers_zero::search::run::start_search;
    use checkers_zero::search::tree::ChildStats;
    let state =
        checkers_zero::game::rematch::Rematch::start(GameKind::Rematch, RulesConfig::default());
    let plain = SearchConfig {
        kind: SearchKind::Puct,
        dirichlet_alpha: 0.0,
        ..SearchConfig::default()
    };
    let forced = SearchConfig {
        forced_playouts: 2.0,
        ..plain.clone()
    };
    let run = |config: &SearchConfig, self_play: bool, hashed: bool| {
        let mut tree = Mcts::new(state.clone(), config.mcts(self_play));
        let mut roots = vec![start_search(config, &tree, 200, self_play)];
        let mut rng = StdRng::seed_from_u64(3);
        let mut evaluator = SkewedEvaluator { hashed };
        let result: SearchResult =
            run_searches(&mut [&mut tree], &mut roots, &mut evaluator, &mut rng)
                .unwrap()
                .pop()
                .flatten()
                .unwrap();
        (tree.root_children(), result)
    };
    let total = |cs: &[ChildStats]| cs.iter().map(|c| c.visits).sum::<u32>();
    let low = |cs: &[ChildStats]| cs[1..].iter().map(|c| c.visits).sum::<u32>();
    for hashed in [false, true] {
        let (children, _) = run(&forced, true, hashed);
        assert!(children.len() >= 4, "a real choice at the start");
        for c in &children {
            let floor = (2.0 * c.prior * total(&children) as f32).sqrt().floor() as u32;
            assert!(
                c.visits + 1 >= floor,
                "step {}: {} visits, {floor} forced",
                c.action,
                c.visits
            );
        }
    }
    // With even values the plain search leaves the low-prior steps unvisited.
    let (children, _) = run(&forced, true, false);
    let (plain_children, _) = run(&plain, true, false);
    assert!(
        low(&children) > low(&plain_children),
        "{children:?} {plain_children:?}"
    );

    // With values that differ, the target is pruned: some steps' forced visits are gone
    // from it, and the most visited step's share grew.
    let (children, result) = run(&forced, true, true);
    let best = (0..children.len())
        .max_by_key(|&i| children[i].visits)
        .unwrap();
    assert_eq!(result.action, children[best].action);
    let raw_share = children[best].visits as f32 / total(&children) as f32;
    assert!(result.policy[best].1 > raw_share, "{:?}", result.policy);
    let pruned = children
        .iter()
        .zip(&result.policy)
        .filter(|(c, p)| c.visits > 0 && p.1 == 0.0);
    assert!(pruned.count() > 0, "{:?} {children:?}", result.policy);
    assert!((result.policy.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-5);

    // An agent's search (no noise) with the same config is plain PUCT.
    for hashed in [false, true] {
        assert_eq!(run(&forced, false, hashed), run(&plain, false, hashed));
    }
}

/// The tree settings of the default search with the solver on, without root noise.
fn solver_config() -> MctsConfig {
    SearchConfig {
        solver: true,
        ..SearchConfig::default()
    }
    .mcts(false)
}

#[test]
fn the_solver_proves_the_forced_wins_at_the_root() {
    // The win-in-two positions of the tests above: with the solver the root is proven won
    // for the side to move, the proven steps report their exact value, and the search
    // stops asking the net about proven subtrees.
    let cases = [
        (GameKind::Hexdame, "white d7:W g3:w f8:r"),
        (GameKind::Rematch, "white b3:RRRWW c2:OOW d5:OOWR quiet=1"),
        (
            GameKind::Eximo,
            "black b1:b b2:b b7:w c5:b d2:b d7:w e1:b e4:b f2:b f3:b g1:b g3:b",
        ),
    ];
    for (kind, position) in cases {
        with_game!(kind, S => {
            let state = S::from_notation(kind, position, RulesConfig::default()).unwrap();
            let me = state.side_to_move().0 as usize;
            let mut tree = Mcts::new(state.clone(), solver_config());
            run_simulations(&mut [&mut tree], 3000);
            let proven = tree.root_proven();
            assert_eq!(proven.map(|v| v[me]), Some(1.0), "{position}: root {proven:?}");
            assert_eq!(tree.root_value(), 1.0, "{position}");
            let best = tree.root_children().into_iter().max_by_key(|c| c.visits).unwrap();
            assert_eq!(best.q, 1.0, "{position}: the most visited step is the proven win");
            // Without the solver the same budget proves nothing.
            let mut plain = Mcts::new(state.clone(), tree_config(false));
            run_simulations(&mut [&mut plain], 3000);
            assert_eq!(plain.root_proven(), None, "{position}");
            assert!(plain.root_value() < 1.0, "{position}");
        });
    }
}

/// A position between turns `turns_left` whole turns before the end of a random game
/// (uniformly drawn steps, seeded by `seed`), where proofs are within reach.
fn near_the_end<S: GameState>(kind: GameKind, seed: u64, turns_left: usize) -> S {
    use rand::Rng;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut state = S::start(kind, RulesConfig::default());
    let mut boundaries = vec![state.clone()];
    let mut steps = StepList::new();
    while state.outcome().is_none() {
        state.legal_steps(&mut steps);
        state.apply_step(steps[rng.gen_range(0..steps.len())]);
        if !state.turn_in_progress() && state.outcome().is_none() {
            boundaries.push(state.clone());
        }
    }
    let at = boundaries.len().saturating_sub(turns_left);
    boundaries.swap_remove(at.min(boundaries.len() - 1))
}

#[test]
fn solver_proofs_agree_with_the_exact_solver() {
    use checkers_zero::search::solve::{solve_position, under_rules_alone};
    for kind in [GameKind::Rematch, GameKind::Rematch3, GameKind::Eximo] {
        with_game!(kind, S => {
            let (mut proven, mut checked) = (0, 0);
            for seed in 0..24 {
                let position: S = near_the_end(kind, seed, 1 + seed as usize % 4);
                let state = under_rules_alone(&position).unwrap();
                let mut tree = Mcts::new(state.clone(), solver_config());
                run_simulations(&mut [&mut tree], 1500);
                let Some(values) = tree.root_proven() else { continue };
                proven += 1;
                let exact = solve_position(&state, 100_000).unwrap().position;
                let Some(class) = exact.class() else { continue };
                checked += 1;
                let me = state.side_to_move().0 as usize;
                assert_eq!(values[me], class as f32, "{kind}: {}", state.to_notation());
                assert_eq!(values[me], -values[1 - me], "{kind}: one side's gain");
            }
            assert!(checked >= 6, "{kind}: {proven} of 24 roots proven, {checked} checked");
        });
    }
}

#[test]
fn rollouts_mix_random_playouts_into_the_leaf_values() {
    // A uniform evaluator values every leaf at 0, so without playouts only terminal leaves
    // move the root's value. With λ = 1 the leaves take the playouts' mean instead: the root
    // values move, stay in [-1, 1], and the search repeats itself exactly; λ = 0 is the
    // search without playouts.
    type S = checkers_zero::game::rematch::Rematch;
    let with = |rollouts: u32, rollout_weight: f32| {
        SearchConfig {
            rollouts,
            rollout_weight,
            ..SearchConfig::default()
        }
        .mcts(false)
    };
    let positions: Vec<S> = random_positions(GameKind::Rematch, 12, 17);
    let mut moved = 0;
    for p in positions.iter().filter(|p| !p.turn_in_progress()) {
        let mut trees: Vec<Mcts<S>> = [with(0, 0.5), with(8, 0.0), with(8, 1.0), with(8, 1.0)]
            .into_iter()
            .map(|config| Mcts::new(p.clone(), config))
            .collect();
        for tree in &mut trees {
            run_simulations(&mut [tree], 64);
        }
        let values: Vec<f32> = trees.iter().map(|t| t.root_value()).collect();
        let [off, none, mixed, again] = values[..] else {
            unreachable!("four trees")
        };
        assert_eq!(off, none, "λ = 0 is the search without playouts");
        assert_eq!(trees[0].root_children(), trees[1].root_children());
        assert_eq!(mixed, again, "the playouts are seeded by the position");
        assert_eq!(trees[2].root_children(), trees[3].root_children());
        assert!((-1.0..=1.0).contains(&mixed), "{mixed}");
        moved += usize::from(mixed != off);
    }
    assert!(moved >= 5, "the playouts moved {moved} root values");
}

#[test]
fn rollout_settings_are_checked_and_reach_the_tree() {
    let default = SearchConfig::default();
    assert_eq!(default.mcts(false).rollouts, 0);
    assert!(!toml::to_string(&default).unwrap().contains("rollout"));
    let overrides =
        checkers_zero::config::search::SearchOverrides::parse("rollouts=4,rollout_weight=0.25")
            .unwrap();
    let on = default.with(&overrides).unwrap();
    assert_eq!(
        (on.mcts(false).rollouts, on.mcts(false).rollout_weight),
        (4, 0.25)
    );
    assert_eq!(on.for_play().rollouts, 4, "play keeps them");
    for text in ["rollouts=65", "rollout_weight=1.5", "rollouts=-1"] {
        let e = checkers_zero::config::search::SearchOverrides::parse(text).unwrap_err();
        assert!(e.to_string().contains("rollout"), "{text}: {e}");
    }
}

/// `search.root_policy_temperature` (KataGo): in self-play the root's priors are raised to
/// 1/T once per search, with Gumbel and PUCT roots alike; agents' searches keep them.
#[test]
fn the_root_policy_temperature_flattens_self_plays_root_priors_only() {
    use checkers_zero::search::run::start_search;
    let state =
        checkers_zero::game::rematch::Rematch::start(GameKind::Rematch, RulesConfig::default());
    let priors = |config: &SearchConfig, self_play: bool| -> Vec<f32> {
        let mut tree = Mcts::new(state.clone(), config.mcts(self_play));
        let mut roots = vec![start_search(config, &tree, 16, self_play)];
        let mut rng = StdRng::seed_from_u64(5);
        run_searches(
            &mut [&mut tree],
            &mut roots,
            &mut SkewedEvaluator { hashed: false },
            &mut rng,
        )
        .unwrap();
        tree.root_children().iter().map(|c| c.prior).collect()
    };
    for kind in [SearchKind::Gumbel, SearchKind::Puct] {
        let config = SearchConfig {
            kind,
            dirichlet_alpha: 0.0,
            root_policy_temperature: 2.0,
            ..SearchConfig::default()
        };
        let plain = priors(&config, false);
        assert!((plain[0] - 0.97).abs() < 1e-6, "{kind}: {plain:?}");
        // 0.97 and 0.03 / (n - 1) each to the power 1/2, normalised.
        let n = plain.len();
        let (high, low) = (0.97f32.sqrt(), (0.03 / (n - 1) as f32).sqrt());
        let total = high + (n - 1) as f32 * low;
        let tempered = priors(&config, true);
        assert!(
            (tempered[0] - high / total).abs() < 1e-5,
            "{kind}: {tempered:?}"
        );
        assert!(
            (tempered[1] - low / total).abs() < 1e-5,
            "{kind}: {tempered:?}"
        );
        assert!((tempered.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        // Play never tempers.
        assert_eq!(config.for_play().root_policy_temperature, 1.0);
    }
}
