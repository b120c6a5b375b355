#!/usr/bin/env python3
"""Generate entries.jsonl of the BANKING77 FAQ pack (python3, stdlib only).

Inputs:
  <dataset>/train.csv        columns text,category (quoted fields may contain line breaks)
  <dataset>/categories.json  the 77 intent labels (defines the entry order)
  answers.json               hand-written: id -> {question, answer, keywords, category}
Output:
  entries.jsonl              one entry per intent: id, question, answer, phrasings, keywords, category

Usage (from anywhere):
  python3 faq-index/packs/banking77/build_pack.py [--dataset DIR] [--out FILE]
DIR defaults to faq-index/datasets/banking77 (committed, with its licence).
The output is deterministic: phrasings keep the order of train.csv, whitespace is collapsed
and exact duplicates (after collapsing) are dropped.
"""
import argparse
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATASET = os.path.normpath(os.path.join(HERE, "..", "..", "datasets", "banking77"))


def normalise(text):
    return " ".join(text.split())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default=DEFAULT_DATASET, help="folder with train.csv and categories.json")
    ap.add_argument("--answers", default=os.path.join(HERE, "answers.json"))
    ap.add_argument("--out", default=os.path.join(HERE, "entries.jsonl"))
    args = ap.parse_args()

    with open(os.path.join(args.dataset, "categories.json"), encoding="utf-8") as f:
        categories = json.load(f)
    with open(args.answers, encoding="utf-8") as f:
        answers = json.load(f)

    missing = [c for c in categories if c not in answers]
    extra = [a for a in answers if a not in categories]
    if missing or extra:
        sys.exit(f"answers.json does not match categories.json: missing={missing} extra={extra}")

    phrasings = {c: [] for c in categories}
    seen = {c: set() for c in categories}
    with open(os.path.join(args.dataset, "train.csv"), encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        for row_no, row in enumerate(reader, start=2):
            label = row["category"]
            if label not in phrasings:
                sys.exit(f"train.csv record {row_no}: unknown category {label!r}")
            text = normalise(row["text"])
            if text and text not in seen[label]:
                seen[label].add(text)
                phrasings[label].append(text)

    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        for c in categories:
            a = answers[c]
            for field in ("question", "answer"):
                if not a.get(field, "").strip():
                    sys.exit(f"answers.json: {c} has no {field}")
            entry = {
                "id": c,
                "question": a["question"],
                "answer": a["answer"],
                "phrasings": phrasings[c],
                "keywords": a.get("keywords", []),
                "category": a.get("category"),
            }
            out.write(json.dumps(entry, ensure_ascii=False) + "\n")
    total = sum(len(p) for p in phrasings.values())
    print(f"wrote {len(categories)} entries, {total} phrasings -> {args.out}")


if __name__ == "__main__":
    main()
