//! Discourse acts: what each sentence does (greets, acknowledges, explains, instructs, …),
//! grouped into parents where the structure says so (a summary paragraph, a list of steps).

use std::sync::LazyLock;

use warrant_graph::DiscourseType;

/// A discourse type and the pattern of sentences of that type.
struct Cue {
    kind: DiscourseType,
    pattern: String,
}

/// Cues in priority order; the first that matches decides.
static CUES: LazyLock<Vec<Cue>> = LazyLock::new(|| {
    use DiscourseType::*;
    let c = |kind, p: &str| Cue { kind, pattern: format!("(?i){p}") };
    vec![
        c(
            Greeting,
            r"^\W*(?:hi|hello|hey|greetings|good\s+(?:morning|afternoon|evening)|dear\s+\w+|welcome)(?-u:\b)[^.!?]{0,40}[.!,]?\s*$",
        ),
        c(
            Closing,
            r"^\W*(?:let\s+me\s+know|hope\s+(?:this|that)\s+helps|feel\s+free|(?:best|kind|warm)\s+regards|regards|sincerely|cheers|have\s+a\s+(?:great|good|nice)|happy\s+to\s+help|thanks\s+again|thank\s+you\s+for\s+(?:your\s+patience|contacting|choosing)|don't\s+hesitate|if\s+you\s+have\s+(?:any\s+)?(?:other|more|further)\s+questions)",
        ),
        c(
            Acknowledgment,
            r"^\W*(?:thanks?\s+(?:you\s+)?for|thank\s+you|i\s+understand|i\s+see(?-u:\b)|i'm\s+sorry|i\s+am\s+sorry|sorry\s+(?:to|for|about)|i\s+apologi[sz]e|we\s+apologi[sz]e|sure(?-u:\b)|of\s+course|certainly|absolutely|great\s+question|good\s+question|got\s+it|understood|no\s+problem|i'll\s+[^.]{0,60}(?-u:\b)for\s+you|i\s+will\s+[^.]{0,60}(?-u:\b)for\s+you|i\s+can\s+help|happy\s+to\s+help\s+with|i\s+hear\s+you|that\s+sounds\s+frustrating)",
        ),
        c(
            Summary,
            r"^\W*(?:in\s+summary|to\s+summari[sz]e|in\s+short|overall|tl;?dr|in\s+conclusion|to\s+sum\s+up|all\s+in\s+all|the\s+bottom\s+line|in\s+a\s+nutshell|summary(?-u:\b))",
        ),
        c(
            Warning,
            r"^\W*(?:warning|caution|careful|be\s+careful|beware|important|note(?-u:\b)|please\s+note|do\s+not|don't|never|avoid|make\s+sure\s+not|be\s+aware|keep\s+in\s+mind)|(?-u:\b)(?:at\s+your\s+own\s+risk|can\s+be\s+dangerous|is\s+dangerous|security\s+risk|data\s+loss)(?-u:\b)",
        ),
        c(
            Clarification,
            r"^\W*(?:to\s+clarify|in\s+other\s+words|that\s+is\s+to\s+say|that\s+is,|i\s+mean|just\s+to\s+be\s+clear|to\s+be\s+clear|could\s+you\s+clarify|do\s+you\s+mean|did\s+you\s+mean|by\s+\S+\s+i\s+mean|which\s+means\s+that)",
        ),
        c(
            Reasoning,
            r"^\W*(?:therefore|thus|hence|so,|consequently|as\s+a\s+result|it\s+follows|this\s+means\s+that|since(?-u:\b)|given\s+that|step\s+\d+|first,|second,|third,|then,|next,|finally,|let\s+me\s+(?:work|think|reason)|let's\s+(?:work|think|reason|break)|we\s+can\s+conclude)|(?-u:\b)(?:therefore|thus|hence)(?-u:\b)",
        ),
        c(
            Instruction,
            r"^\W*(?:here's\s+how|here\s+is\s+how|to\s+\w+[^,]{0,60},\s+\w+|you\s+(?:can|should|must|need\s+to)|please\s+\w+|make\s+sure|(?:add|apply|call|change|check|choose|click|configure|copy|create|delete|download|enable|disable|enter|follow|go\s+to|install|open|press|remove|replace|restart|run|save|select|set|sign|start|stop|try|turn|type|update|upload|use|verify|visit|wait|write|navigate|log\s+in|book|contact)(?-u:\b))",
        ),
        c(
            Explanation,
            r"^\W*(?:this\s+(?:allows|lets|means|is\s+because|happens|works|ensures|makes)|because|the\s+reason|that's\s+because|this\s+is\s+why|which\s+(?:allows|means)|in\s+(?:this|that)\s+case|for\s+example|for\s+instance|e\.g\.)|(?-u:\b)because(?-u:\b)|(?-u:\b)so\s+that(?-u:\b)",
        ),
    ]
});

/// All cues in one set: one scan per sentence; the first matching cue in priority order wins.
/// (Only the set is compiled: compiling is most of a short check's time.)
static CUE_SET: LazyLock<regex::RegexSet> = LazyLock::new(|| {
    regex::RegexSet::new(CUES.iter().map(|c| c.pattern.as_str())).unwrap_or_else(|e| panic!("discourse cue set: {e}"))
});

/// What a sentence does. Questions back to the user are clarifications.
pub fn classify(sentence: &str) -> DiscourseType {
    let t = sentence.trim();
    if let Some(i) = CUE_SET.matches(t).iter().next() {
        return CUES[i].kind;
    }
    if t.ends_with('?') {
        return DiscourseType::Clarification;
    }
    DiscourseType::Assertion
}

/// Types that carry no claim: their sentences are not made into claims.
pub fn is_phatic(t: DiscourseType) -> bool {
    matches!(t, DiscourseType::Greeting | DiscourseType::Closing | DiscourseType::Acknowledgment)
}

/// A lead-in that introduces the lines after it as its children ("Here are the steps:").
pub fn introduces_list(sentence: &str) -> bool {
    sentence.trim_end().ends_with(':')
}

#[cfg(test)]
mod tests {
    use super::*;
    use DiscourseType::*;

    #[test]
    fn classifies_each_type() {
        let cases = [
            ("Hi there!", Greeting),
            ("Hello Sam,", Greeting),
            ("Thanks for reaching out about the failing export job.", Acknowledgment),
            ("I'll calculate that tip for you.", Acknowledgment),
            ("I'm sorry to hear your order is late.", Acknowledgment),
            ("To clarify, the limit applies per user.", Clarification),
            ("Do you mean the staging server?", Clarification),
            ("This allows running any Python expression provided by the user.", Explanation),
            ("It failed because the API token expired.", Explanation),
            ("Therefore, penguins can fly.", Reasoning),
            ("Step 1: All birds can fly.", Reasoning),
            ("Paris is the capital of France.", Assertion),
            ("Here's how you can execute dynamic code in Python:", Instruction),
            ("Run the migration before deploying.", Instruction),
            ("Warning: this deletes all data.", Warning),
            ("Never share your API key.", Warning),
            ("In summary, the outage lasted two hours.", Summary),
            ("Let me know if anything else comes up!", Closing),
            ("Hope this helps.", Closing),
            ("Best regards, Ana", Closing),
        ];
        for (s, want) in cases {
            assert_eq!(classify(s), want, "{s}");
        }
    }

    #[test]
    fn phatic_types() {
        assert!(is_phatic(Greeting) && is_phatic(Closing) && is_phatic(Acknowledgment));
        assert!(!is_phatic(Assertion) && !is_phatic(Warning));
    }
}
