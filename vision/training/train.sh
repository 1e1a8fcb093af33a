#!/usr/bin/env bash
# Reproduce the committed card index network (vision/data/index_net.onnx + .json) on this machine's CPU:
#   vision/training/train.sh            fine-tune the rendered-only model (vision/data/index_net_rendered.onnx)
#                                       on real photos (about an hour on 2 busy cores)
#   vision/training/train.sh --scratch  first train that rendered-only model again (about an hour more)
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
# held-out designs (reported on, never trained on) and a small rendered set that keeps stage 2 reading them
[ -f "$WORK/held.npz" ] || $RUN vision.training.index_data "$WORK/held.npz" --decks "$WORK/decks" --held-out \
    --scenes-per-deck 4 --seed 99 --workers "$THREADS"
[ -f "$WORK/rendered.npz" ] || $RUN vision.training.index_data "$WORK/rendered.npz" --decks "$WORK/decks" \
    --scenes-per-deck 5 --seed 1 --workers "$THREADS"
if [ "${1:-}" = "--scratch" ]; then
    # stage 1: rendered designs only (no real photo), as the committed index_net_rendered.onnx was made
    for seed in 1 2; do
        [ -f "$WORK/train$seed.npz" ] || $RUN vision.training.index_data "$WORK/train$seed.npz" \
            --decks "$WORK/decks" --scenes-per-deck 16 --seed $seed --workers "$THREADS"
    done
    $RUN vision.training.train_net "$WORK/train1.npz" "$WORK/train2.npz" --held "$WORK/held.npz" --epochs 5 \
        --threads "$THREADS" --out "$STAGE1"
fi
# stage 2: windows cut from the split's train part of the real photos (the rendered-only model says which way is
# up where a card's second corner is out of sight), with random "no index" windows; fine-tune on rendered + real
$RUN vision.training.real_data "$WORK/real_train.npz" --part train --teacher "$STAGE1" --hard-above 2
$RUN vision.training.real_data "$WORK/real_cal.npz" --part calibration --teacher "$STAGE1" --hard-above 2
$RUN vision.training.train_net "$WORK/rendered.npz" --real "$WORK/real_train.npz" --real-repeat 4 \
    --calibration "$WORK/real_cal.npz" --held "$WORK/held.npz" --init "$STAGE1" --epochs 4 --lr 2e-3 \
    --threads "$THREADS" --seed 4 --out "$WORK/stage2.onnx"
# stage 3: the same photos' windows with every "no index" window the rendered-only model took for a card (hard
# negatives: pips, court pictures, backs); fine-tune stage 2 on them, temperature on the calibration windows
$RUN vision.training.real_data "$WORK/real_train_hard.npz" --part train --teacher "$STAGE1"
$RUN vision.training.real_data "$WORK/real_cal_hard.npz" --part calibration --teacher "$STAGE1"
$RUN vision.training.train_net "$WORK/rendered.npz" --real "$WORK/real_train_hard.npz" --real-repeat 1 \
    --calibration "$WORK/real_cal_hard.npz" --held "$WORK/held.npz" --init "$WORK/stage2.onnx" --epochs 2 \
    --lr 1e-3 --threads "$THREADS" --seed 5 --out "$WORK/stage3.onnx"
# stage 4: telling the two jokers apart by their index's ink (many real decks give both jokers the same colourful
# picture): scenes of jokers alone from every training design, then a short fine-tune on them and stage 3's data
[ -f "$WORK/jokers.npz" ] || $RUN vision.training.index_data "$WORK/jokers.npz" --decks "$WORK/decks" \
    --cards SB,HR --scenes-per-deck 4 --seed 7 --workers "$THREADS"
$RUN vision.training.train_net "$WORK/rendered.npz" "$WORK/jokers.npz" --real "$WORK/real_train_hard.npz" \
    --real-repeat 1 --calibration "$WORK/real_cal_hard.npz" --held "$WORK/held.npz" --init "$WORK/stage3.onnx" \
    --epochs 2 --lr 2e-4 --threads "$THREADS" --seed 6 --out "$WORK/stage4.onnx"
# stage 5: cards printed light on dark (read turned over, vision/polarity.py: every design turned dark, and the real
# windows of stage 3, whose photos' dark cards are now found as dark paper) and cards laid on printed pages (text
# read as the black joker's letters): a short fine-tune of stage 4 on these and on stage 4's own sets
[ -f "$WORK/dark.npz" ] || $RUN vision.training.index_data "$WORK/dark.npz" --decks "$WORK/decks" --dark \
    --scenes-per-deck 4 --seed 11 --workers "$THREADS"
[ -f "$WORK/held_dark.npz" ] || $RUN vision.training.index_data "$WORK/held_dark.npz" --decks "$WORK/decks" --dark \
    --held-out --scenes-per-deck 4 --seed 98 --workers "$THREADS"
[ -f "$WORK/rendered_text.npz" ] || $RUN vision.training.index_data "$WORK/rendered_text.npz" --decks "$WORK/decks" \
    --scenes-per-deck 5 --seed 21 --text-share 0.3 --workers "$THREADS"
[ -f "$WORK/jokers_text.npz" ] || $RUN vision.training.index_data "$WORK/jokers_text.npz" --decks "$WORK/decks" \
    --cards SB,HR --scenes-per-deck 3 --seed 27 --text-share 0.4 --workers "$THREADS"
[ -f "$WORK/rendered2.npz" ] || $RUN vision.training.index_data "$WORK/rendered2.npz" --decks "$WORK/decks" \
    --scenes-per-deck 8 --seed 31 --workers "$THREADS"
$RUN vision.training.train_net "$WORK/rendered.npz" "$WORK/rendered2.npz" "$WORK/jokers.npz" "$WORK/dark.npz" \
    "$WORK/rendered_text.npz" "$WORK/jokers_text.npz" --real "$WORK/real_train_hard.npz" --real-repeat 1 \
    --calibration "$WORK/real_cal_hard.npz" --held "$WORK/held.npz" --held-dark "$WORK/held_dark.npz" \
    --init "$WORK/stage4.onnx" --epochs 2 --lr 2e-4 --threads "$THREADS" --seed 8
# the accept threshold, on the calibration photos read by the whole reader
$RUN vision.training.choose_threshold
