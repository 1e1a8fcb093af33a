#!/usr/bin/env bash
# Reproduce the committed card index network (vision/data/index_net.onnx + .json) on this machine's CPU:
#   vision/training/train.sh            fine-tune the rendered-only model (vision/data/index_net_rendered.onnx)
#                                       on real photos (about 40 minutes on 2 busy cores)
#   vision/training/train.sh --scratch  first train that rendered-only model again (about 25 minutes more)
# Needs the train extra (pip install -e '.[train]'), the Debian card-art and font packages listed in
# vision/README.md, and the shared real photos (../shared/data/cards). Which real photos are trained on, used for
# calibration, and kept for figures is fixed by vision/data/real_split.json (vision/training/real_split.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
WORK=${WORK:-/tmp/guandan-index}
THREADS=${THREADS:-2}
RUN="nice -n 5 $PY -m"
mkdir -p "$WORK"
STAGE1=vision/data/index_net_rendered.onnx
[ -d "$WORK/decks" ] || $RUN vision.training.render_decks "$WORK/decks" --four-colour
[ -f "$WORK/train.npz" ] || $RUN vision.training.index_data "$WORK/train.npz" --decks "$WORK/decks" \
    --scenes-per-deck 16 --seed 1 --workers "$THREADS"
[ -f "$WORK/held.npz" ] || $RUN vision.training.index_data "$WORK/held.npz" --decks "$WORK/decks" --held-out \
    --scenes-per-deck 12 --seed 99 --workers 1
if [ "${1:-}" = "--scratch" ]; then
    # stage 1: rendered designs only (no real photo)
    [ -f "$WORK/train2.npz" ] || $RUN vision.training.index_data "$WORK/train2.npz" --decks "$WORK/decks" \
        --scenes-per-deck 16 --seed 2 --workers "$THREADS"
    $RUN vision.training.train_net "$WORK/train.npz" "$WORK/train2.npz" --held "$WORK/held.npz" --epochs 5 \
        --threads "$THREADS" --out "$STAGE1"
fi
# stage 2: windows cut from the split's train part of the real photos (the rendered-only model says which way is
# up where a card's second corner is out of sight) and its calibration part; fine-tune on rendered + real
$RUN vision.training.real_data "$WORK/real_train.npz" --part train --teacher "$STAGE1"
$RUN vision.training.real_data "$WORK/real_cal.npz" --part calibration --teacher "$STAGE1"
$RUN vision.training.train_net "$WORK/train.npz" --real "$WORK/real_train.npz" --real-repeat 4 \
    --calibration "$WORK/real_cal.npz" --held "$WORK/held.npz" --init "$STAGE1" --epochs 4 --lr 1e-3 \
    --threads "$THREADS" --seed 4
# the accept threshold, on the calibration photos read by the whole reader
$RUN vision.training.choose_threshold
