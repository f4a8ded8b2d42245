//! Transcripts (§7.1): WebVTT and SubRip cues with numbers, timecodes and tags stripped.
//!
//! Cue text becomes prose: consecutive cues of one speaker join into a paragraph (`Speaker:
//! text …`), a change of speaker starts a new one, and a long unattributed run breaks into
//! paragraphs at sentence ends so chunks stay small.

use std::sync::LazyLock;

use regex::Regex;
use warrant_text::pattern::compile as re;

static TIMECODE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3}\s*-->\s*(?:\d{1,2}:)?\d{1,2}:\d{2}[.,]\d{1,3}"));
static VOICE: LazyLock<Regex> = LazyLock::new(|| re(r"<v(?:\.[\w.-]+)?\s+([^>]+)>"));
static TAG: LazyLock<Regex> = LazyLock::new(|| re(r"</?[A-Za-z][^>]*>|<\d{1,2}:\d{2}(?::\d{2})?[.,]\d{1,3}>|\{\\[^}]*\}"));
static SPEAKER_LINE: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:-\s*)?([A-Z][\p{L}0-9 .'-]{0,30}):\s+\S"));
static TIMESTAMP: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:^|\s|\[|\()(?:\d{1,2}:)?\d{1,2}:\d{2}(?:[.,]\d{1,3})?(?:\]|\)|\s|$)"));

fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&nbsp;", " ")
        .replace("&lrm;", "")
        .replace("&rlm;", "")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// One cue's text and speaker.
struct Cue {
    speaker: Option<String>,
    text: String,
}

fn cue_text(lines: &[&str]) -> Cue {
    let joined = lines.join(" ");
    let mut speaker = VOICE.captures(&joined).map(|c| c[1].trim().to_string());
    let stripped = TAG.replace_all(&joined, "");
    let mut text = decode_entities(stripped.trim());
    if speaker.is_none()
        && let Some(c) = SPEAKER_LINE.captures(&text)
    {
        let name = c[1].trim().to_string();
        let after = c.get(1).map_or(0, |m| m.end());
        text = text[after..].trim_start_matches(':').trim().to_string();
        speaker = Some(name);
    }
    let text = warrant_text::normalize::collapse_whitespace(text.trim_start_matches("- "));
    Cue { speaker, text }
}

fn render(cues: Vec<Cue>) -> String {
    let mut out = String::new();
    let mut current: Option<Option<String>> = None;
    let mut para_len = 0usize;
    for c in cues {
        if c.text.is_empty() {
            continue;
        }
        let same = current.as_ref() == Some(&c.speaker);
        let long_run = same && para_len > 600 && out.ends_with(['.', '!', '?', '…']);
        if !same || long_run {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            if let Some(s) = &c.speaker {
                out.push_str(s);
                out.push_str(": ");
            }
            para_len = 0;
            current = Some(c.speaker.clone());
        } else {
            out.push(' ');
        }
        para_len += c.text.len();
        out.push_str(&c.text);
    }
    out.push('\n');
    out
}

/// The cue text of a WebVTT file.
pub fn vtt_to_text(raw: &str) -> String {
    let mut cues = Vec::new();
    for block in blocks(raw) {
        let first = block.first().map_or("", |l| l.trim());
        if first.starts_with("WEBVTT") || first.starts_with("NOTE") || first == "STYLE" || first == "REGION" {
            continue;
        }
        let Some(tc) = block.iter().position(|l| TIMECODE.is_match(l)) else { continue };
        cues.push(cue_text(&block[tc + 1..]));
    }
    render(cues)
}

/// The cue text of a SubRip file.
pub fn srt_to_text(raw: &str) -> String {
    let mut cues = Vec::new();
    for block in blocks(raw) {
        let Some(tc) = block.iter().position(|l| TIMECODE.is_match(l)) else { continue };
        cues.push(cue_text(&block[tc + 1..]));
    }
    render(cues)
}

/// Blank-line separated blocks of trimmed lines.
fn blocks(raw: &str) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    for l in raw.lines() {
        let l = l.trim_end_matches('\r');
        if l.trim().is_empty() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(l);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// True for a plain-text transcript: at least three timestamps and three `Speaker:` lines.
pub fn looks_like_transcript(text: &str) -> bool {
    let mut stamps = 0;
    let mut speakers = 0;
    for l in text.lines().take(2000) {
        if TIMESTAMP.is_match(l) {
            stamps += 1;
        }
        if SPEAKER_LINE
            .is_match(l.trim_start_matches(|c: char| c == '[' || c.is_ascii_digit() || c == ':' || c == ']' || c == ' '))
        {
            speakers += 1;
        }
        if stamps >= 3 && speakers >= 3 {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vtt_cues_become_speaker_paragraphs() {
        let vtt = "WEBVTT - intro\n\nNOTE this is a comment\n\n1\n00:00:01.000 --> 00:00:04.000 align:start\n<v Ana>Welcome to the <b>onboarding</b> call.</v>\n\n00:00:04.500 --> 00:00:06.000\n<v Ana>Please read the policy.\n\n00:00:06.500 --> 00:00:08.000\n<v Bo>Thanks &amp; noted.\n";
        assert_eq!(vtt_to_text(vtt), "Ana: Welcome to the onboarding call. Please read the policy.\n\nBo: Thanks & noted.\n");
    }

    #[test]
    fn srt_cues_lose_numbers_timecodes_and_tags() {
        let srt = "1\r\n00:00:01,000 --> 00:00:02,500\r\n<i>Deploy on Mondays only.</i>\r\n\r\n2\r\n00:00:03,000 --> 00:00:05,000\r\n{\\an8}Never deploy\r\non Fridays.\r\n";
        assert_eq!(srt_to_text(srt), "Deploy on Mondays only. Never deploy on Fridays.\n");
    }

    #[test]
    fn plain_transcripts_are_recognised() {
        let t = "[00:01] Ana: Hello there.\n[00:05] Bo: Hi.\n[00:09] Ana: Let us start.\n";
        assert!(looks_like_transcript(t));
        assert!(!looks_like_transcript("Meeting at 10:30 with Ana.\nNotes: none."));
    }
}
