//! Rules R0–R4 and R6 (spec §3.1) as one pure function over a run's status triples: which
//! step comes next. The chain runs exactly this dispatch, so the rule behaviour (role gating,
//! branches, marker clearing, caps) is tested here without a store.

use crate::payload::{ACTION_DECOMPOSE, ACTION_RETIGHTEN, ACTION_SYNTHESIZE_DIRECTLY, ACTION_WALK_SEEDS, PIPELINE_ROLE};
use crate::triples::{
    ASSESS_COMPLETE, ASSESS_SUFFICIENT, CLASSIFY_COMPLETE, EXECUTE_COMPLETE, REQUEST_RECEIVED, RESULT_COMPLETE, ROLE,
    ROUTE_ACTION, ROUTE_COMPLETE, Status,
};

/// Hard cap of retighten rounds (R2's `max_iterations`).
pub const RETIGHTEN_CAP: u32 = 2;
/// Hard cap of refine rounds (R4's `max_iterations`).
pub const REFINE_CAP: u32 = 5;

/// The next step of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// R0: run classify.
    Classify,
    /// R1: run route.
    Route,
    /// R2 `retighten`: clear the classify and route markers, re-classify the new topic.
    Retighten,
    /// R2 `retighten` past the cap: synthesise from the candidates (project rule).
    SynthesizeFromCandidates,
    /// R2 `synthesize_directly`: synthesise from the candidates (D31).
    SynthesizeDirectly,
    /// R2 `walk_seeds` / `decompose`, or a refine: run execute.
    Execute,
    /// R3: run assess.
    Assess,
    /// R4 `sufficient == false` under the cap: clear the execute and assess markers, execute
    /// again with the refined queries.
    Refine,
    /// R4 `sufficient`, cap exhaustion, or nothing to refine: synthesise.
    Synthesize,
    /// R2 with an action outside the enum: the chain fails.
    Invalid,
    /// R6: the result is complete; hand it back.
    Continue,
    /// No rule fires (not a research run, or nothing received).
    Idle,
}

/// Counters and facts of the run that the rules branch on (never free text).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Retighten rounds done.
    pub retighten_rounds: u32,
    /// Refine rounds done.
    pub refine_rounds: u32,
    /// `min(intent.resolved_max_iterations, 5)`.
    pub refine_cap: u32,
    /// The last assessment proposed refined queries.
    pub has_refined_queries: bool,
}

fn set(status: &Status, p: &str) -> bool {
    status.get(p).is_some_and(|v| !v.is_empty())
}

/// The step the rules choose for this status.
pub fn dispatch(status: &Status, c: &Counters) -> Step {
    if status.get(ROLE).map(String::as_str) != Some(PIPELINE_ROLE) {
        return Step::Idle;
    }
    if set(status, RESULT_COMPLETE) {
        return Step::Continue;
    }
    if set(status, ASSESS_COMPLETE) {
        let sufficient = status.get(ASSESS_SUFFICIENT).map(String::as_str) == Some("true");
        if !sufficient && c.refine_rounds < c.refine_cap.min(REFINE_CAP) && c.has_refined_queries {
            return Step::Refine;
        }
        return Step::Synthesize;
    }
    if set(status, EXECUTE_COMPLETE) {
        return Step::Assess;
    }
    if set(status, ROUTE_COMPLETE) {
        return match status.get(ROUTE_ACTION).map(String::as_str).unwrap_or("") {
            ACTION_SYNTHESIZE_DIRECTLY => Step::SynthesizeDirectly,
            ACTION_RETIGHTEN if c.retighten_rounds < RETIGHTEN_CAP => Step::Retighten,
            ACTION_RETIGHTEN => Step::SynthesizeFromCandidates,
            ACTION_WALK_SEEDS | ACTION_DECOMPOSE => Step::Execute,
            _ => Step::Invalid,
        };
    }
    if set(status, CLASSIFY_COMPLETE) {
        return Step::Route;
    }
    if status.get(REQUEST_RECEIVED).map(String::as_str) == Some("true") {
        return Step::Classify;
    }
    Step::Idle
}
