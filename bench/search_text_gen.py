"""The pages bench/search_bench.py archives: each a few paragraphs of words drawn from a
vocabulary with a Zipf distribution (as words are in real text), some in other scripts, and
each version the one before with sentences added, removed or edited.

Kept apart from the bench so the numbers it draws (numpy, in large blocks: the generator
must not be what the bench measures) are easy to read on their own.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

#: The commonest English words, ranked: the head of the Zipf curve reads as text.
COMMON = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "they",
    "you",
    "were",
    "her",
    "she",
    "there",
    "one",
    "all",
    "we",
    "their",
    "has",
    "been",
    "would",
    "will",
    "more",
    "if",
    "no",
    "when",
    "what",
    "so",
    "can",
    "said",
    "who",
    "about",
    "out",
    "up",
    "them",
    "some",
    "could",
    "him",
    "into",
    "its",
    "then",
    "two",
    "time",
    "only",
    "do",
    "new",
    "other",
    "than",
    "may",
    "first",
    "any",
    "like",
    "now",
    "my",
    "over",
    "such",
    "our",
    "man",
    "me",
    "even",
    "most",
    "made",
    "after",
    "also",
    "did",
    "many",
    "before",
    "must",
    "through",
    "back",
    "years",
    "where",
    "much",
    "your",
    "way",
    "well",
    "down",
    "should",
    "because",
    "each",
    "just",
    "those",
    "people",
    "how",
    "too",
    "little",
    "state",
    "good",
    "very",
    "make",
    "world",
    "still",
    "own",
    "see",
    "men",
    "work",
    "long",
    "get",
    "here",
    "between",
    "both",
    "life",
    "being",
    "under",
    "never",
    "day",
    "same",
    "another",
    "know",
    "while",
    "last",
    "might",
    "us",
    "great",
    "old",
    "year",
    "off",
    "come",
    "since",
    "against",
    "go",
    "came",
    "right",
    "used",
    "take",
    "three",
]
SYLLABLES = [
    "ba",
    "be",
    "bi",
    "bo",
    "bu",
    "ca",
    "ce",
    "ci",
    "co",
    "cu",
    "da",
    "de",
    "di",
    "do",
    "du",
    "fa",
    "fe",
    "fi",
    "fo",
    "ga",
    "ge",
    "gi",
    "go",
    "ha",
    "he",
    "hi",
    "ho",
    "ka",
    "ke",
    "ki",
    "ko",
    "la",
    "le",
    "li",
    "lo",
    "lu",
    "ma",
    "me",
    "mi",
    "mo",
    "mu",
    "na",
    "ne",
    "ni",
    "no",
    "nu",
    "pa",
    "pe",
    "pi",
    "po",
    "ra",
    "re",
    "ri",
    "ro",
    "ru",
    "sa",
    "se",
    "si",
    "so",
    "su",
    "ta",
    "te",
    "ti",
    "to",
    "tu",
    "va",
    "ve",
    "vi",
    "vo",
    "wa",
    "we",
    "za",
    "ze",
    "an",
    "en",
    "in",
    "on",
    "ar",
    "er",
    "ir",
    "or",
    "al",
    "el",
    "il",
    "ol",
    "har",
    "bour",
    "wal",
    "clo",
    "str",
    "tra",
    "pla",
    "gre",
    "bla",
    "cro",
    "fri",
    "spe",
]
#: Latin letters to Cyrillic and Greek, so those pages' words follow the same curve.
CYRILLIC = str.maketrans("abcdefghijklmnopqrstuvwxyz", "абцдефгхийклмнопярстувшхыз")
GREEK = str.maketrans("abcdefghijklmnopqrstuvwxyz", "αβψδεφγηιξκλμνοπθρστυωςχυζ")
#: A few hundred Han characters, and Arabic letters: one token a character, or words.
HAN = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 600))
ARABIC = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ابتثجحخدذرزسشصضطظعغفقكلمنه")
SCRIPTS = ("ru", "el", "ar", "zh")


def latin_words(count: int, seed: int = 1) -> list[str]:
    """``count`` distinct words, the common English ones first, then made of syllables."""
    rng = random.Random(seed)
    words = list(dict.fromkeys(COMMON))
    seen = set(words)
    while len(words) < count:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3, 3, 3, 4))))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def zipf_cdf(count: int, exponent: float = 1.07) -> np.ndarray:
    weights = 1.0 / np.arange(1, count + 1) ** exponent
    return np.cumsum(weights / weights.sum())


class Draws:
    """Word ranks drawn in large blocks (numpy's per-call cost would dominate otherwise)."""

    def __init__(self, cdf: np.ndarray, rng: np.random.Generator, block: int = 1 << 18):
        self._cdf, self._rng, self._block = cdf, rng, block
        self._ranks: list[int] = []
        self._at = 0

    def take(self, count: int) -> list[int]:
        if self._at + count > len(self._ranks):
            fresh = np.searchsorted(self._cdf, self._rng.random(max(self._block, count)))
            self._ranks = np.minimum(fresh, len(self._cdf) - 1).tolist()
            self._at = 0
        out = self._ranks[self._at : self._at + count]
        self._at += count
        return out


@dataclass
class Language:
    name: str
    words: list[str]
    draws: Draws
    joiner: str = " "

    def sentence(self, rng: random.Random) -> str:
        if self.name == "zh":
            text = "".join(self.words[r] for r in self.draws.take(rng.randint(12, 40)))
            return text + "。"
        ranks = self.draws.take(rng.randint(6, 18))
        text = " ".join(self.words[r] for r in ranks)
        return text[:1].upper() + text[1:] + "."


_WORDS: dict[tuple[int, int], list[str]] = {}


def languages(vocabulary: int, seed: int, draws_seed: int | None = None) -> dict[str, Language]:
    """The five languages' words (made once a process) and draws (``draws_seed``: a
    stream of their own, so that chunks of pages made in several processes differ)."""
    rng = np.random.default_rng(seed if draws_seed is None else draws_seed)
    if (vocabulary, seed) not in _WORDS:
        _WORDS[(vocabulary, seed)] = latin_words(vocabulary, seed)
    latin = _WORDS[(vocabulary, seed)]
    cdf = zipf_cdf(len(latin))
    small = latin[: vocabulary // 4]
    small_cdf = zipf_cdf(len(small))
    return {
        "en": Language("en", latin, Draws(cdf, rng)),
        "ru": Language("ru", [w.translate(CYRILLIC) for w in small], Draws(small_cdf, rng)),
        "el": Language("el", [w.translate(GREEK) for w in small], Draws(small_cdf, rng)),
        "ar": Language("ar", [w.translate(ARABIC) for w in small], Draws(small_cdf, rng)),
        "zh": Language("zh", list(HAN), Draws(zipf_cdf(len(HAN)), rng), joiner=""),
    }


@dataclass
class PageText:
    """One version of a page's text: its title and paragraphs of sentences."""

    title: str
    paragraphs: list[list[str]]

    def text(self) -> str:
        return "\n".join(" ".join(p) for p in self.paragraphs)


def first_version(language: Language, rng: random.Random) -> PageText:
    title = language.sentence(rng).rstrip(".。")
    title = " ".join(title.split()[:8]) if language.name != "zh" else title[:12]
    paragraphs = [
        [language.sentence(rng) for _ in range(rng.randint(2, 6))] for _ in range(rng.randint(3, 6))
    ]
    return PageText(title, paragraphs)


def next_version(page: PageText, language: Language, rng: random.Random) -> PageText:
    """The page's next version: one to three sentences added, removed or edited."""
    paragraphs = [list(p) for p in page.paragraphs]
    for _ in range(rng.randint(1, 3)):
        paragraph = rng.choice(paragraphs)
        at = rng.randrange(len(paragraph))
        what = rng.random()
        if what < 0.4:
            paragraph.insert(at, language.sentence(rng))
        elif what < 0.65 and len(paragraph) > 1:
            del paragraph[at]
        else:  # a few words replaced, as an edit does
            words = paragraph[at].split(" ") if language.name != "zh" else list(paragraph[at])
            fresh = (
                language.sentence(rng).split(" ")
                if language.name != "zh"
                else list(language.sentence(rng))
            )
            for _ in range(rng.randint(1, 3)):
                words[rng.randrange(len(words))] = rng.choice(fresh).strip(".。").lower()
            edited = language.joiner.join(words).rstrip(".。")
            end = "。" if language.name == "zh" else "."
            paragraph[at] = edited[:1].upper() + edited[1:] + end
    return PageText(page.title, paragraphs)


def versions(language: Language, rng: random.Random, count: int) -> Iterator[PageText]:
    page = first_version(language, rng)
    yield page
    for _ in range(count - 1):
        page = next_version(page, language, rng)
        yield page


def language_of(index: int) -> str:
    """One page in twenty is not English: Russian, Greek, Arabic, Chinese in turn."""
    return SCRIPTS[(index // 20) % 4] if index % 20 == 7 else "en"
