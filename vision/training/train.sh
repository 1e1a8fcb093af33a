#!/usr/bin/env bash
# Reproduce the committed card index network (vision/data/index_net.onnx + .json) on this machine's CPU.
# Needs the train extra and the Debian card-art and font packages listed in vision/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
WORK=${WORK:-/tmp/guandan-index}
mkdir -p "$WORK"
"$PY" -m vision.training.render_decks "$WORK/decks" --four-colour
"$PY" -m vision.training.index_data "$WORK/train.npz" --decks "$WORK/decks" --scenes-per-deck 16 --seed 1
"$PY" -m vision.training.index_data "$WORK/train2.npz" --decks "$WORK/decks" --scenes-per-deck 16 --seed 2
"$PY" -m vision.training.index_data "$WORK/held.npz" --decks "$WORK/decks" --held-out --scenes-per-deck 12 --seed 99 --workers 1
"$PY" -m vision.training.train_net "$WORK/train.npz" "$WORK/train2.npz" --held "$WORK/held.npz" --epochs 5 "$@"
