"""Demo-like synthetic FEVEROUS world for the verifier tests (claims, units, one provider)."""


NAMES = ["Alba", "Borin", "Cato", "Dara", "Eno", "Fira", "Galt", "Hesk", "Ivo", "Juna", "Kel", "Lorn"]
COLOURS = ["red", "blue", "green", "yellow", "black", "white"]


def demo_like_world(n, offset, rng):
    """Claims about the colour someone painted a house; REFUTES claims name another colour.
    The provider lists a distractor sentence first, then the gold sentence."""
    claims, units, evidence = [], [], []
    for i in range(n):
        cid, page = str(offset + i), f"Page{offset + i}"
        name, colour = rng.choice(NAMES), rng.choice(COLOURS)
        label = rng.choice(["SUPPORTS", "REFUTES"])
        said = colour if label == "SUPPORTS" else rng.choice([c for c in COLOURS if c != colour])
        gold, other = f"{page}_sentence_0", f"{page}_sentence_1"
        units += [
            {"dataset": "feverous", "unit_id": gold, "doc_id": page, "kind": "sentence", "position": 0,
             "text": f"{name} painted the house {colour} in spring.", "context": page},
            {"dataset": "feverous", "unit_id": other, "doc_id": page, "kind": "sentence", "position": 1,
             "text": f"{name} lives near the river.", "context": page},
        ]
        claims.append({"dataset": "feverous", "claim_id": cid, "claim": f"{name} painted the house {said}.",
                       "label": label, "evidence_groups": [[gold]], "gold_abstracts": [], "cited_doc_ids": [],
                       "source_file": "demo", "source_line": i + 1, "unresolved_ids": []})
        evidence.append({"dataset": "feverous", "claim_id": cid, "doc_id": "", "source": "provider_a",
                         "budget": "full", "visible_unit_ids": [other, gold], "visible_text": "",
                         "tokens_by_tokenizer": [], "scored_unit_ids": [other, gold], "unresolved": 0,
                         "fits_budget": True, "submitted_unit_ids": [other, gold]})
    return claims, units, evidence
