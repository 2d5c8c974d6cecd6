"""ROUGE-L F as KILT computes it: the ``rouge`` package's (pltrdy, 1.0.1) summary-level ROUGE-L.

In:  a hypothesis and a reference text (plain strings). Out: the F value KILT's
``_rougel_score`` returns, ``Rouge().get_scores(hyp, ref, avg=True)["rouge-l"]["f"]`` with the
package's "empty" ``ValueError`` scored 0.0.

The package's definition, reproduced here (and shown equal to it in the tests):
* sentences: the text split on ``"."``; every non-empty piece becomes a sentence with its
  whitespace runs collapsed to one space (a piece of only spaces becomes the empty sentence
  ``""``); a text without any piece (``""``, ``"..."``) is *empty*: the package raises
  ``ValueError`` and KILT scores 0.0;
* words: each sentence split on ``" "`` (the empty sentence is the one word ``""``);
  ``m`` / ``n`` = the number of *distinct* words of the reference / hypothesis (the
  package's default ``exclusive=True`` counts sets, not tokens);
* for every (reference sentence, hypothesis sentence) pair one longest common subsequence is
  reconstructed from the dynamic-programming table by the package's traceback (match: go
  diagonal; else up when ``T[i-1][j] > T[i][j-1]``, otherwise left; reference = rows); the
  distinct words of all reconstructed subsequences form one union, and ``LCS_u = |union|``;
* ``R = LCS_u / m``, ``P = LCS_u / n``, ``F = 2 * ((P * R) / (P + R + 1e-8))``, so identical
  texts score 0.999999995, not 1.

Speed: the table rows are bit vectors (Hyyrö's bit-parallel LCS over Python integers), the
traceback reads table values from them (a popcount per row change, a bit per column step) and
stops where no word is left to share, and a sentence pair whose shared words are already
all in the union is skipped (its subsequence cannot add a word). The package's recursive
traceback raises ``RecursionError`` on sentences of about 1,000 words; this one has no such
limit.
"""
from __future__ import annotations

F_DENOMINATOR_EPSILON = 1e-8  # the package's term in the denominator of F


def rouge_sentences(text: str) -> list[list[str]]:
    """The package's sentences of ``text``, each as its list of words (``[]`` = empty text)."""
    return [" ".join(piece.split()).split(" ") for piece in text.split(".") if len(piece) > 0]


def match_masks(words: list[str]) -> dict[str, int]:
    """Per distinct word, the bit mask of its positions in ``words`` (bit j = position j)."""
    masks: dict[str, int] = {}
    for position, word in enumerate(words):
        masks[word] = masks.get(word, 0) | (1 << position)
    return masks


def lcs_rows(reference: list[str], masks: dict[str, int], width: int) -> list[int]:
    """Bit-vector rows of the LCS table of ``reference`` (rows) against a hypothesis sentence
    of ``width`` words given by its :func:`match_masks`: in row ``i``, bit ``j`` is 0 where
    ``T[i][j+1] = T[i][j] + 1``. Row 0 is all ones."""
    full = (1 << width) - 1
    row = full
    rows = [row]
    for word in reference:
        matches = row & masks.get(word, 0)
        row = ((row + matches) | (row - matches)) & full
        rows.append(row)
    return rows


def column_value(row: int, j: int) -> int:
    """``T[i][j]`` from the bit-vector row ``i`` (see :func:`lcs_rows`)."""
    return j - (row & ((1 << j) - 1)).bit_count()


def traceback_words(reference: list[str], hypothesis: list[str], rows: list[int]) -> set[str]:
    """The distinct words of the one LCS the package's traceback reconstructs (see module doc).

    ``here`` = ``T[i][j]`` and ``above`` = ``T[i-1][j]`` are carried along the path (a step left
    changes each by one bit of its row); the walk stops where ``T[i][j] = 0``, past which no
    word is shared."""
    words: set[str] = set()
    i, j = len(reference), len(hypothesis)
    if i == 0 or j == 0:
        return words
    here, above = column_value(rows[i], j), column_value(rows[i - 1], j)
    low = (1 << j) - 1  # the bits below column j (column_value inlined: this loop is the hot path)
    while here > 0:
        if reference[i - 1] == hypothesis[j - 1]:
            words.add(reference[i - 1])
            i -= 1
            j -= 1
            low >>= 1
            here = above - 1 + ((rows[i] >> j) & 1)
            above = j - (rows[i - 1] & low).bit_count() if i > 0 else 0
            continue
        left = here - 1 + ((rows[i] >> (j - 1)) & 1)  # T[i][j-1]
        if above > left:
            i -= 1
            here = above
            above = j - (rows[i - 1] & low).bit_count() if i > 0 else 0
        else:
            j -= 1
            low >>= 1
            here = left
            above = above - 1 + ((rows[i - 1] >> j) & 1)
    return words


def union_lcs_size(reference: list[list[str]], hypothesis: list[list[str]],
                   hypothesis_masks: list[dict[str, int]]) -> int:
    """``LCS_u``: the number of distinct words in the union of the reconstructed LCS of every
    (reference sentence, hypothesis sentence) pair. The union does not depend on the order of
    the pairs (the package's per-sentence increments add up to its size), so pairs sharing the
    most words go first: later pairs are then more often skipped."""
    hypothesis_sets = [set(masks) for masks in hypothesis_masks]
    pairs = []
    for ref_sentence in reference:
        ref_set = set(ref_sentence)
        for hyp_sentence, masks, hyp_set in zip(hypothesis, hypothesis_masks, hypothesis_sets):
            shared = ref_set & hyp_set
            if shared:
                pairs.append((len(shared), ref_sentence, hyp_sentence, masks, shared))
    pairs.sort(key=lambda pair: -pair[0])
    union: set[str] = set()
    for _, ref_sentence, hyp_sentence, masks, shared in pairs:
        if shared <= union:
            continue
        rows = lcs_rows(ref_sentence, masks, len(hyp_sentence))
        union |= traceback_words(ref_sentence, hyp_sentence, rows)
    return len(union)


def distinct_words(sentences: list[list[str]]) -> int:
    """The package's ``m`` / ``n``: distinct words over all sentences."""
    return len({word for sentence in sentences for word in sentence})


class RougeHypothesis:
    """A hypothesis prepared once (sentences, word masks) for scoring against several references."""

    __slots__ = ("sentences", "masks", "size")

    def __init__(self, text: str):
        self.sentences = rouge_sentences(text)
        self.masks = [match_masks(sentence) for sentence in self.sentences]
        self.size = distinct_words(self.sentences)

    @property
    def empty(self) -> bool:
        """True where the package raises "Hypothesis is empty" (KILT scores 0.0)."""
        return not self.sentences

    def f_against(self, reference_text: str) -> float:
        """ROUGE-L F of this hypothesis against ``reference_text`` (0.0 for an empty side)."""
        reference = rouge_sentences(reference_text)
        if self.empty or not reference:
            return 0.0
        lcs_u = union_lcs_size(reference, self.sentences, self.masks)
        recall = lcs_u / distinct_words(reference)
        precision = lcs_u / self.size
        return 2.0 * ((precision * recall) / (precision + recall + F_DENOMINATOR_EPSILON))
