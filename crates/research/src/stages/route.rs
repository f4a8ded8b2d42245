//! route (spec §6.2): choose one action from the classifier output.

use crate::payload::{
    ACTION_DECOMPOSE, ACTION_RETIGHTEN, ACTION_SYNTHESIZE_DIRECTLY, ACTION_WALK_SEEDS, ClassifierOutput, DecomposeArgs, Intent,
    RetightenArgs, RouteDecision, SeedRef, WalkSeedsArgs,
};
use crate::stages::{Usage, Working};
use crate::text::{Terms, contains_phrase, normalise_topic, tokens};

/// What a router sees.
#[derive(Debug, Clone, Copy)]
pub struct RouteInput<'a> {
    /// The validated intent.
    pub intent: &'a Intent,
    /// The working topic and hints.
    pub working: &'a Working,
    /// The latest classifier output.
    pub classifier: &'a ClassifierOutput,
    /// Retighten rounds so far.
    pub retighten_rounds: u32,
}

/// A route stage. The chain validates the decision and its action's arguments; any error is
/// a route failure (the chain then ends with a degraded result).
pub trait Router: Send + Sync {
    /// Chooses an action.
    fn route(&self, input: &RouteInput<'_>) -> Result<(RouteDecision, Usage), String>;
}

/// Deterministic router settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouterConfig {
    /// Pick `synthesize_directly` on a strong direct hit (issue 7): a tier-0 entity candidate
    /// whose label is the whole (normalised) topic, with every topic term already in the
    /// candidates' text. Off, the router never picks it (spec §6.2's project rule).
    pub direct_synthesis: bool,
}

impl Default for RouterConfig {
    fn default() -> Self {
        Self { direct_synthesis: true }
    }
}

/// The deterministic router (D32). First match wins:
/// 1. a degraded classifier output **or no candidates**, fewer than 2 retightens, and a
///    normalised topic that differs → `retighten` with the normalised topic;
/// 2. a strong direct hit (see [`RouterConfig::direct_synthesis`]) → `synthesize_directly`;
/// 3. 1–3 candidates whose label occurs in the topic → `walk_seeds` by candidate index;
/// 4. otherwise → `decompose`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuleRouter {
    /// Settings.
    pub config: RouterConfig,
}

impl RuleRouter {
    /// A router with settings.
    pub fn new(config: RouterConfig) -> Self {
        Self { config }
    }
}

fn strong_direct_hit(co: &ClassifierOutput, topic: &str) -> bool {
    let normal = normalise_topic(topic);
    let named = co
        .candidates
        .iter()
        .any(|c| c.tier == "0" && c.entity_type == "entity" && tokens(&c.label) == tokens(&normal) && !c.snippet_text.is_empty());
    if !named {
        return false;
    }
    let terms = Terms::of(topic);
    let text: String = co.candidates.iter().map(|c| format!("{} {}\n", c.entity_id, c.snippet_text)).collect();
    terms.hits(&text) == terms.len()
}

impl Router for RuleRouter {
    fn route(&self, input: &RouteInput<'_>) -> Result<(RouteDecision, Usage), String> {
        let (co, working) = (input.classifier, input.working);
        let normal = normalise_topic(&working.topic);
        if (co.degraded || co.candidates.is_empty())
            && input.retighten_rounds < 2
            && !normal.is_empty()
            && normal != working.topic
        {
            let why = if co.degraded { "classifier degraded" } else { "no candidates" };
            let args = RetightenArgs { topic: normal, hints: working.hints.clone() };
            return Ok((RouteDecision::new(ACTION_RETIGHTEN, &args, format!("{why}; broadened the topic")), Usage::default()));
        }
        if self.config.direct_synthesis && strong_direct_hit(co, &working.topic) {
            let d = RouteDecision {
                action: ACTION_SYNTHESIZE_DIRECTLY.into(),
                rationale: "the topic names an entity and the candidates cover every topic term".into(),
                ..RouteDecision::default()
            };
            return Ok((d, Usage::default()));
        }
        let named: Vec<usize> =
            co.candidates.iter().enumerate().filter(|(_, c)| contains_phrase(&working.topic, &c.label)).map(|(i, _)| i).collect();
        if (1..=3).contains(&named.len()) {
            let seeds = named.iter().map(|i| SeedRef { reference: i.to_string(), ref_type: "candidate_index".into() }).collect();
            let d =
                RouteDecision::new(ACTION_WALK_SEEDS, &WalkSeedsArgs { seeds }, format!("{} named candidate(s)", named.len()));
            return Ok((d, Usage::default()));
        }
        let mut axes = vec!["entity_type".to_string()];
        if co.hints.contains_key("time_range") {
            axes.push("time".into());
        }
        if co.hints.contains_key("path_intent") || co.hints.contains_key("path_predicates") {
            axes.push("predicate".into());
        }
        let n = co.candidates.len();
        let scope = if n <= 3 {
            "narrow"
        } else if n <= 8 {
            "medium"
        } else {
            "broad"
        };
        let args = DecomposeArgs { axes, focus: working.topic.clone(), scope: scope.into() };
        Ok((RouteDecision::new(ACTION_DECOMPOSE, &args, format!("{n} candidate(s), none named")), Usage::default()))
    }
}
