#!/usr/bin/env python3
"""Builds the verifier's WordNet table (crates/verify/data/wordnet/) from WordNet 3.0.

Rebuild (from the repository root):

    apt-get install -y wordnet-base
    python3 -m venv /tmp/wn-venv
    /tmp/wn-venv/bin/pip install --require-hashes -r scripts/wordnet/requirements.txt
    /tmp/wn-venv/bin/python scripts/wordnet/build_table.py

Options: --wordnet DIR (default /usr/share/wordnet), --out DIR (default
crates/verify/data/wordnet beside this script's repository). The output is the same bytes on
every run: every set is sorted before it is written.

The stems are snowballstemmer 2.2.0's English stemmer, which agrees with rust-stemmers 1.2.0's
`Algorithm::English` (what `lexicon::stem` uses) on every single-word WordNet lemma; later
snowballstemmer releases changed the algorithm ("-ogist"), so the version is pinned. The Rust
test `every_stem_is_the_verifiers_stem` re-stems every word the table lists.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import snowballstemmer

REPO = Path(__file__).resolve().parents[2]
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
POS_ORDER = "nvar"
# Sense-key synset types: 1 noun, 2 verb, 3 adjective, 4 adverb, 5 adjective satellite.
SS_TYPE_NUM = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}

# The frequent-sense rule (README.md, "Which senses count"; `frequent_senses`): a sense counts
# when it has at least SHARE of its stem's tagged uses (all lemmas and parts of speech with that
# stem together) and at least MIN_COUNT of them, among a few other cases.
SHARE = 0.15
MIN_COUNT = 3
# `hypo` climbs this many hypernym levels. A synset named only by multi-word lemmas
# ("motor_vehicle", "self-propelled_vehicle") is climbed through without counting, so "car"
# reaches "vehicle"; MAX_STEPS bounds the pointers followed in all.
HYPO_LEVELS = 2
MAX_STEPS = 6

# Lower-cased acronyms that meet a function word missing from the stopword list ("US" → "us").
EXTRA_STOP = {"us"}

# A word the verifier can meet as one token: letters, hyphens inside.
WORD_RE = re.compile(r"[a-z]+(?:-[a-z]+)*")
MARKER_RE = re.compile(r"\((a|p|ip)\)")


class Synset:
    """One line of a data.* file."""

    __slots__ = ("key", "ss_type", "lexfile", "words", "lex_ids", "ptrs")

    def __init__(self, key, ss_type, lexfile, words, lex_ids, ptrs):
        self.key = key  # (file's part of speech: n v a r, byte offset as written)
        self.ss_type = ss_type  # n v a s r
        self.lexfile = lexfile
        self.words = words  # lemmas as written (case kept), adjective markers removed
        self.lex_ids = lex_ids
        self.ptrs = ptrs  # (symbol, target key, source word number, target word number); 0 = whole synset


def file_pos(p: str) -> str:
    return "a" if p == "s" else p


def read_data(wn: Path) -> dict[tuple[str, str], Synset]:
    synsets = {}
    for p, name in POS_FILES.items():
        with open(wn / f"data.{name}", encoding="ascii") as f:
            for line in f:
                if line.startswith("  "):  # the licence header
                    continue
                body = line.split(" | ", 1)[0].split()
                offset, lexfile, ss_type = body[0], int(body[1]), body[2]
                words, lex_ids = [], []
                i = 4
                for _ in range(int(body[3], 16)):
                    # Adjective position markers "(a)", "(p)", "(ip)" follow the lemma.
                    words.append(MARKER_RE.sub("", body[i]))
                    lex_ids.append(int(body[i + 1], 16))
                    i += 2
                ptrs = []
                n_ptr = int(body[i])
                i += 1
                for _ in range(n_ptr):
                    sym, tgt, tpos, st = body[i : i + 4]
                    ptrs.append((sym, (file_pos(tpos), tgt), int(st[:2], 16), int(st[2:], 16)))
                    i += 4
                synsets[(p, offset)] = Synset((p, offset), ss_type, lexfile, words, lex_ids, ptrs)
    return synsets


def read_index(wn: Path) -> dict[tuple[str, str], list[str]]:
    """(lemma, file part of speech) → synset offsets in WordNet's sense order."""
    index = {}
    for p, name in POS_FILES.items():
        with open(wn / f"index.{name}", encoding="ascii") as f:
            for line in f:
                if line.startswith("  "):
                    continue
                fields = line.split()
                lemma, synset_cnt, p_cnt = fields[0], int(fields[2]), int(fields[3])
                offsets = fields[4 + p_cnt + 2 :]
                assert len(offsets) == synset_cnt, line
                index[(lemma, p)] = offsets
    return index


def read_counts(wn: Path) -> dict[str, int]:
    """Sense key → times tagged in the semantic concordances (cntlist.rev)."""
    counts = {}
    with open(wn / "cntlist.rev", encoding="ascii") as f:
        for line in f:
            # The sense number is left aside: some are older releases' numbers.
            key, _number, cnt = line.split()
            # Some satellite heads keep their marker here ("preceding(a)"), never in data.adj.
            key = MARKER_RE.sub("", key)
            counts[key] = counts.get(key, 0) + int(cnt)
    return counts


def sense_key(syn: Synset, i: int, synsets) -> str:
    """The WordNet sense key of word i of a synset (wndb(5WN), "Sense Key Encoding")."""
    head = ":"
    if syn.ss_type == "s":
        h = next(synsets[t] for sym, t, _, _ in syn.ptrs if sym == "&")
        head = f"{h.words[0].lower()}:{h.lex_ids[0]:02d}"
    return f"{syn.words[i].lower()}%{SS_TYPE_NUM[syn.ss_type]}:{syn.lexfile:02d}:{syn.lex_ids[i]:02d}:{head}"


def frequent_senses(synsets, index, counts, stem_of):
    """The (lemma, synset key) pairs that count as frequent senses (for `syn` and `hypo`), the
    wider set good enough for a pointer between two words (`deriv`, `ant`), and statistics.

    The unit is the stem, not the lemma: the verifier sees only stems, so "accumulator" (never
    tagged) is one more sense of "accumul", whose tagged uses are all "accumulate".
    """
    by_stem: dict[str, list[tuple[str, str, str, int]]] = defaultdict(list)  # (lemma, pos, offset, count)
    matched = 0
    keep, lexical = set(), set()
    entries = sorted(index.items(), key=lambda e: (POS_ORDER.index(e[0][1]), e[0][0]))
    for (lemma, p), offsets in entries:
        st = stem_of(lemma)
        if st is None:
            continue
        for n, off in enumerate(offsets):
            syn = synsets[(p, off)]
            i = [w.lower() for w in syn.words].index(lemma)
            c = counts.get(sense_key(syn, i, synsets), 0)
            matched += c
            by_stem[st].append((lemma, p, off, c))
            # WordNet lists a lemma's senses in a part of speech by tag count: the first is
            # that part of speech's main sense ("murder" the verb, under the noun's 45 uses).
            if n == 0 and c >= MIN_COUNT:
                keep.add((lemma, (p, off)))
            if n == 0 or c >= MIN_COUNT:
                lexical.add((lemma, (p, off)))
    for senses in by_stem.values():
        total = sum(c for *_, c in senses)
        if total == 0:
            # No evidence: the shortest lemma's first sense in each part of speech. The shortest
            # is the base the others derive from ("abdicate", not "abdicator"), and so the word
            # a text most likely holds.
            base = min((lemma for lemma, *_ in senses), key=lambda w: (len(w), w))
            firsts = set()
            for lemma, p, off, _ in senses:
                if lemma == base and p not in firsts:
                    firsts.add(p)
                    keep.add((lemma, (p, off)))
            continue
        # The most tagged sense; a tie goes to the earlier (nouns first, then WordNet's order).
        top = max(range(len(senses)), key=lambda k: (senses[k][3], -k))
        for k, (lemma, p, off, c) in enumerate(senses):
            if k == top or (c >= MIN_COUNT and c >= SHARE * total):
                keep.add((lemma, (p, off)))
    stats = {"tagged_keyed": matched, "tagged_all": sum(counts.values())}
    return keep, keep | lexical, stats


class Table:
    """Stem-level relations; each pair of lemmas is added through `add`, which filters."""

    def __init__(self, stopwords: set[str]):
        self.stopwords = stopwords | EXTRA_STOP
        self.stemmer = snowballstemmer.stemmer("english")
        self.words: dict[str, set[str]] = defaultdict(set)  # stem → words that gave it
        self.rel: dict[str, dict[str, set[str]]] = {r: defaultdict(set) for r in RELATIONS}
        self._stems: dict[str, str | None] = {}

    def stem(self, lemma: str) -> str | None:
        """The key of a WordNet lemma, or None when the verifier never looks it up."""
        if lemma in self._stems:
            return self._stems[lemma]
        w = lemma.lower()
        st = None
        if WORD_RE.fullmatch(w) and w not in self.stopwords:
            st = self.stemmer.stemWord(w)
            if len(st) < 2:
                st = None
        self._stems[lemma] = st
        return st

    def add(self, rel: str, a: str, b: str, symmetric: bool):
        """Adds b to a's list (and a to b's when symmetric); lemmas that do not key are skipped."""
        sa, sb = self.stem(a), self.stem(b)
        if sa is None or sb is None or sa == sb:
            return
        self.words[sa].add(a.lower())
        self.words[sb].add(b.lower())
        self.rel[rel][sa].add(sb)
        if symmetric:
            self.rel[rel][sb].add(sa)


# Relation columns in file order.
RELATIONS = ("syn", "hypo", "deriv", "ant")


def build(synsets, keep, lexical, table: Table):
    def frequent_words(key):
        syn = synsets[key]
        return [w for w in syn.words if (w.lower(), key) in keep]

    # syn: two lemmas of one synset, the synset a frequent sense of both.
    for key in sorted(synsets):
        ws = frequent_words(key)
        for a in ws:
            for b in ws:
                if a < b:
                    table.add("syn", a, b, symmetric=True)

    # hypo: a claim word's list holds the words whose frequent senses have its frequent sense as a
    # hypernym within HYPO_LEVELS levels. Instance hypernyms (@i) are left out: "Balzac" names a
    # writer but a source saying "Balzac" does not state "writer".
    for key in sorted(synsets):
        narrow = frequent_words(key)
        if not any(table.stem(w) for w in narrow):
            continue
        frontier = [key]
        seen = {key}
        levels = {key: 0}
        steps = 0
        while frontier and steps < MAX_STEPS:
            steps += 1
            nxt = []
            for k in frontier:
                for sym, t, _, _ in synsets[k].ptrs:
                    if sym != "@" or t in seen:
                        continue
                    seen.add(t)
                    named = any(table.stem(w) for w in synsets[t].words)
                    lv = levels[k] + (1 if named else 0)
                    if lv > HYPO_LEVELS:
                        continue
                    levels[t] = lv
                    nxt.append(t)
                    for broad in frequent_words(t):
                        for w in narrow:
                            table.add("hypo", broad, w, symmetric=False)
            frontier = nxt

    # deriv: derivationally related forms (+) and pertainyms (\\); ant: direct antonyms (!). Both
    # are pointers between two words, each in a sense good enough for a pointer; both directions.
    # A pertainym to a multi-word lemma ("Soviet" → "Soviet_Union") reaches the single-word
    # lemmas of that synset instead ("Russia", "USSR").
    for key in sorted(synsets):
        syn = synsets[key]
        for sym, t, src, dst in syn.ptrs:
            rel = {"+": "deriv", "\\": "deriv", "!": "ant"}.get(sym)
            if rel is None or src == 0 or dst == 0:
                continue
            a, b = syn.words[src - 1], synsets[t].words[dst - 1]
            if (a.lower(), key) not in lexical:
                continue
            targets = [b]
            if sym == "\\" and "_" in b:
                targets = [w for w in synsets[t].words if "_" not in w]
            for b in targets:
                if (b.lower(), t) in lexical:
                    table.add(rel, a, b, symmetric=True)


def read_stopwords(path: Path, section: str = "verify") -> set[str]:
    """One `[section]` of stopwords.txt as warrant_text::stopwords reads it: '#' lines skipped,
    words split on whitespace."""
    words = set()
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1]
        elif current == section:
            words.update(line.split())
    return words


def licence_text(copyright_file: Path) -> str:
    """The WordNet 3.0 licence, verbatim: the 'License: WordNet3.0' paragraph of the Debian
    copyright file with its Debian formatting undone (one leading space, ' .' for a blank line)."""
    lines = copyright_file.read_text(encoding="utf-8").splitlines()
    start = lines.index("License: WordNet3.0") + 1
    out = []
    for line in lines[start:]:
        if not line.startswith(" "):
            break
        out.append("" if line == " ." else line[1:])
    return "\n".join(out).rstrip("\n") + "\n"


def table_text(table: Table) -> str:
    """table.tsv: one line per stem that has a relation, the relations in RELATIONS order."""
    keys = set()
    for r in RELATIONS:
        keys.update(table.rel[r])
    out = [
        "# WordNet 3.0 relations keyed by Snowball English stems, built by scripts/wordnet/build_table.py",
        "# (README.md beside this file says how; LICENSE is WordNet's licence).",
        "# stem<TAB>" + "<TAB>".join(RELATIONS) + " (lists of stems, space-separated, sorted)",
    ]
    for st in sorted(keys):
        out.append("\t".join([st] + [" ".join(sorted(table.rel[r].get(st, ()))) for r in RELATIONS]))
    return "\n".join(out) + "\n"


def words_text(table: Table) -> str:
    """words.tsv: each stem of table.tsv (listed or listing) with the lemmas that gave it, so the
    Rust tests can check that lexicon::stem computes the same stems (test data only)."""
    out = [
        "# The lemmas behind each stem of table.tsv, for the tests (see README.md).",
        "# stem<TAB>words (space-separated, sorted)",
    ]
    for st in sorted(table.words):
        out.append(st + "\t" + " ".join(sorted(table.words[st])))
    return "\n".join(out) + "\n"


def package_version() -> str:
    """The installed wordnet-base package's version, for the README's provenance line."""
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", "wordnet-base"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


README = """# WordNet relations for the claim verifier

`table.tsv` gives the verifier (`crates/verify/src/wordnet.rs`) lexical relations that its
hand-written lists (`../synonyms.txt`, `../hypernyms.txt`, `../antonyms.txt`) do not reach:
"film"/"movie", "novelist" → "author", "production"/"produce", "high"/"low".

## What the table holds

One line per stem that has a relation: `stem<TAB>syn<TAB>hypo<TAB>deriv<TAB>ant`, each relation
a sorted, space-separated list of stems. A stem is the Snowball English (Porter2) stem of a
lower-cased single-word WordNet lemma, exactly as `crate::lexicon::stem` (rust-stemmers 1.2,
`Algorithm::English`) computes it. `words.tsv` (test data, not compiled into the library) gives
every stem of the table, listed or listing, with the lemmas behind it
(`stem<TAB>words`): the Rust tests re-stem each of those words.

| relation | meaning | stems with a list | entries |
| --- | --- | ---: | ---: |
| `syn` | the two words share a synset that is a frequent sense of both | {syn_keys} | {syn_pairs} |
| `hypo` | in the list of W: words V with a frequent sense whose hypernym within {levels} levels is a frequent sense of W; a source saying V states W ("novelist" states "author"; not the reverse) | {hypo_keys} | {hypo_pairs} |
| `deriv` | derivationally related forms (`+`) and pertainyms (`\\`: "French"/"France"), both directions | {deriv_keys} | {deriv_pairs} |
| `ant` | direct antonyms (`!`), both directions | {ant_keys} | {ant_pairs} |

`table.tsv`: {stems} stems, {size} bytes; `words.tsv`: {words_stems} stems, {words_count}
words, {words_size} bytes. Only lemmas of letters (with inner hyphens: "well-known") are
read; multi-word lemmas (WordNet's `_`) and lemmas with digits or other marks are left out, as are stop words (`[verify]` of `crates/text/data/stopwords.txt`, plus "us", the lower-cased
"US") and stems shorter than two characters; a pair whose two words share a stem is dropped.
For `hypo`, a hypernym synset named only by multi-word lemmas ("motor_vehicle") is climbed
through without counting as a level, so "car" reaches "vehicle"; instance hypernyms are not
followed ("Balzac" names a writer, but a source saying "Balzac" does not state "writer").

## Which senses count

Polysemy is what costs precision: "picture" is a film in one of its twelve senses (3 of its 102
tagged uses), and a source saying "picture" almost never means one. Sense frequency comes from
`cntlist.rev`, the tag counts of WordNet's semantic concordances (SemCor), joined to WordNet 3.0
senses by sense key ({tagged_keyed} tagged uses of the lemmas read here).

The unit is the stem, because the verifier sees only stems: all senses of all lemmas with one
stem ("accumulate", "accumulation", "accumulator" → `accumul`) compete. A sense is frequent when

- it has at least {share_pct}% of the stem's tagged uses and at least {min_count} of them, or
- it is the stem's most tagged sense, or
- it is its lemma's first sense in a part of speech and has at least {min_count} tagged uses
  (WordNet lists senses by tag count, so this is the main sense of a part of speech that is
  really used: "murder" the verb, under the noun's 45 uses), or
- the stem was never tagged, and it is the first sense, in its part of speech, of the stem's
  shortest lemma (the base the others derive from: "abdicate", not "abdicator").

`syn` and `hypo` need frequent senses at both ends: a sense with a small share is more often a
wrong reading than a paraphrase. `deriv` and `ant` are pointers between two particular words,
whose link depends little on the sense, so there each end may also be any sense with at least
{min_count} tagged uses or its lemma's first sense in its part of speech ("begin" ↔ "end" is
drawn between senses with 12% and 23% of their stems' uses).

## Rebuild

```
apt-get install -y wordnet-base
python3 -m venv /tmp/wn-venv
/tmp/wn-venv/bin/pip install --require-hashes -r scripts/wordnet/requirements.txt
/tmp/wn-venv/bin/python scripts/wordnet/build_table.py
```

The script writes `table.tsv`, `words.tsv`, `LICENSE` and this file; its output is the same bytes on every
run. snowballstemmer is pinned to 2.2.0, which stems every WordNet lemma as rust-stemmers 1.2.0
does (later releases changed "-ogist").

## Provenance and licence

WordNet 3.0, Princeton University (data.*, index.* and cntlist.rev from the Debian package
`wordnet-base` {version}). WordNet is used, copied and modified here under the WordNet 3.0
licence, whose text, with Princeton's copyright notice and disclaimer, is in `LICENSE` beside this
file and must stay with the table. WordNet 3.0 Copyright 2006 by Princeton University. All rights
reserved.
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    ap.add_argument("--out", type=Path, default=REPO / "crates/verify/data/wordnet")
    ap.add_argument("--copyright", type=Path, default=Path("/usr/share/doc/wordnet-base/copyright"))
    args = ap.parse_args()

    synsets = read_data(args.wordnet)
    index = read_index(args.wordnet)
    counts = read_counts(args.wordnet)
    table = Table(read_stopwords(REPO / "crates/text/data/stopwords.txt"))
    keep, lexical, stats = frequent_senses(synsets, index, counts, table.stem)
    build(synsets, keep, lexical, table)

    args.out.mkdir(parents=True, exist_ok=True)
    text = table_text(table)
    words = words_text(table)
    (args.out / "table.tsv").write_text(text, encoding="utf-8", newline="\n")
    (args.out / "words.tsv").write_text(words, encoding="utf-8", newline="\n")
    (args.out / "LICENSE").write_text(licence_text(args.copyright), encoding="utf-8", newline="\n")
    figures = {
        "stems": sum(1 for line in text.splitlines() if not line.startswith("#")),
        "size": len(text.encode()),
        "words_size": len(words.encode()),
        "words_stems": len(table.words),
        "words_count": sum(len(w) for w in table.words.values()),
        "levels": HYPO_LEVELS,
        "share_pct": round(SHARE * 100),
        "min_count": MIN_COUNT,
        "tagged_keyed": stats["tagged_keyed"],
        "version": package_version(),
    }
    for r in RELATIONS:
        figures[f"{r}_keys"] = len(table.rel[r])
        figures[f"{r}_pairs"] = sum(len(v) for v in table.rel[r].values())
    (args.out / "README.md").write_text(README.format(**figures), encoding="utf-8", newline="\n")
    print(f"table.tsv: {figures['size']} bytes, {figures['stems']} stems")
    print(f"words.tsv: {figures['words_size']} bytes, {figures['words_stems']} stems, {figures['words_count']} words")
    for r in RELATIONS:
        print(f"  {r}: {figures[r + '_keys']} stems with a list, {figures[r + '_pairs']} entries")
    print(f"  frequent (lemma, sense) pairs: {len(keep)}; tagged uses of kept lemmas: {stats['tagged_keyed']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
