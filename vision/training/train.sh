#!/usr/bin/env bash
# Reproduce the committed card index network (vision/data/index_net.onnx + .json) on this machine's CPU, from
# nothing but the Debian card-art and font packages (vision/README.md) and the shared real photos:
#   PARALLEL=1 vision/training/train.sh   (51 min on two cores, 2026-12-05: 22 min rendering the sets, 16 for
#                              stage 1, the two members at once, 8 for stage 2; every set and model is kept in $WORK
#                              and not made again; without PARALLEL=1 about 20 min longer)
# The committed model is an ensemble of two networks trained alike from different seeds (ensemble.py).
# Stage 1: rendered designs only (Debian decks, one generated design per training font, vision.render's styles;
# light and dark paper, jokers, printed pages), from scratch; member A's is committed as index_net_rendered.onnx.
# Stage 2: stage 1 fine-tuned on windows cut from the real photos of the split's train part (with every "no index"
# window stage 1 took for a card) beside rendered ones; the temperature is fitted on the calibration part, then
# the accept thresholds of the joined model are chosen on the calibration photos read whole. Which real photos are trained on,
# calibrated on and kept for figures is fixed by vision/data/real_split.json (vision/training/real_split.py).
# Needs the train extra (pip install -e '.[train]').
# On an accelerator: DEVICE=cuda PARALLEL=1 vision/training/train.sh (the two members train at once; EPOCHS1 and
# EPOCHS2 lengthen the stages, but two longer stage 1s on this CPU were surer of their wrong real readings). A
# machine without the font and card-art packages trains from sets made elsewhere: put them in $WORK (window_pack.py
# carries them packed) and set ONLY=networks to stop before the steps that read the real photos
# (ONLY=stage1: after stage 1). ONLY=data makes every set and stops, the real photos' windows labelled by the
# committed stage 1 (vision/data/index_net_rendered.onnx) instead of this run's: what accelerator/pack.sh packs.
# Another draw of the same recipe (members A and B from other seeds; the sets are the same): SEEDS1="13 15"
# SEEDS2="14 16" WORK=<a fresh folder holding links to the sets> ONLY=networks, then compare the joined draws with
# bench/choice_sets.py. The defaults are the committed model's seeds.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
WORK=${WORK:-/tmp/guandan-index}
THREADS=${THREADS:-2}
DEVICE=${DEVICE:-cpu}
EPOCHS1=${EPOCHS1:-8}
EPOCHS2=${EPOCHS2:-3}
PARALLEL=${PARALLEL:-0}
ONLY=${ONLY:-all}
# stage 1's seeds of members A and B, then stage 2's
read -r SEED1A SEED1B <<< "${SEEDS1:-3 5}"
read -r SEED2A SEED2B <<< "${SEEDS2:-4 6}"
RUN="nice -n 5 $PY -m"
STAGE1=vision/data/index_net_rendered.onnx
# two members training at once on the CPU share its cores (each with half the threads)
TRAIN_THREADS=$THREADS
if [ "$PARALLEL" = 1 ] && [ "$DEVICE" = cpu ]; then
    TRAIN_THREADS=$((THREADS > 1 ? THREADS / 2 : 1))
fi
mkdir -p "$WORK"
data() {  # data OUT ARGS...: one rendered set (index_data.py), made once
    local out=$1
    shift
    [ -f "$WORK/$out" ] && return
    [ -d "$WORK/decks" ] || $RUN vision.training.render_decks "$WORK/decks" --four-colour
    $RUN vision.training.index_data "$WORK/$out" --decks "$WORK/decks" --workers "$THREADS" "$@"
}
# the held-out designs (type faces and Debian decks never trained on), light and dark: reported on, never trained on
data held.npz --held-out --scenes-per-deck 4 --seed 99
data held_dark.npz --held-out --dark --scenes-per-deck 2 --seed 98
data train1.npz --scenes-per-deck 10 --seed 1
data train2.npz --scenes-per-deck 10 --seed 2 --text-share 0.3
data dark.npz --dark --scenes-per-deck 3 --seed 11
data jokers.npz --cards SB,HR --scenes-per-deck 3 --seed 7 --text-share 0.3
real() {  # real PART OUT TEACHER: the real photos' windows of one part of the split, made once
    [ -f "$WORK/$2" ] || $RUN vision.training.real_data "$WORK/$2" --part "$1" --teacher "$3"
}
if [ "$ONLY" = data ]; then
    real train real_train.npz "$STAGE1"
    real calibration real_cal.npz "$STAGE1"
    exit 0
fi
# stage 1, twice from different seeds (the two members of the ensemble); member A's is the teacher below
train() {  # train OUT ARGS...: one train_net.py run, kept
    local out=$1
    shift
    [ -f "$out" ] || $RUN vision.training.train_net "$@" --held "$WORK/held.npz" --held-dark "$WORK/held_dark.npz" \
        --threads "$TRAIN_THREADS" --device "$DEVICE" --out "$out"
}
both() {  # both A B: the train runs whose arguments are the arrays named A and B, at once when PARALLEL=1
    local -n one=$1 two=$2
    if [ "$PARALLEL" = 1 ]; then
        train "${one[@]}" &
        local first=$!
        # the second run failing stops the first too (set -e would leave it training on the accelerator): the
        # background subshell and the training under it, which killing the subshell alone leaves running
        train "${two[@]}" || { pkill -P "$first" 2>/dev/null; kill "$first" 2>/dev/null; wait "$first" 2>/dev/null
                               return 1; }
        wait "$first"
    else
        train "${one[@]}"
        train "${two[@]}"
    fi
}
# the red joker is never turned grey by the augmentation: turned grey it is a black joker's index, and trained on as
# HR it taught the network to doubt every black joker (2026-12-05; vision/README.md, "A red joker never grey")
COLOUR_ONLY=(--colour-only HR)
STAGE1_SETS=("$WORK/train1.npz" "$WORK/train2.npz" "$WORK/dark.npz" "$WORK/jokers.npz" --epochs "$EPOCHS1" --lr 3e-3
             "${COLOUR_ONLY[@]}")
S1A=("$WORK/stage1a.onnx" "${STAGE1_SETS[@]}" --seed "$SEED1A")
S1B=("$WORK/stage1b.onnx" "${STAGE1_SETS[@]}" --seed "$SEED1B")
both S1A S1B
[ "$ONLY" = stage1 ] && exit 0
# the real photos' windows, labelled from their boxes; stage 1 says which way is up where a card's second corner
# is out of sight, and every "no index" window it reads as a card is kept (hard negatives)
real train real_train.npz "$WORK/stage1a.onnx"
real calibration real_cal.npz "$WORK/stage1a.onnx"
# stage 2: each member fine-tuned on the real windows beside rendered ones, its temperature fitted on the
# calibration windows
REAL=(--real "$WORK/real_train.npz" --real-repeat 2 --calibration "$WORK/real_cal.npz" --epochs "$EPOCHS2" --lr 5e-4
      "${COLOUR_ONLY[@]}")
S2A=("$WORK/stage2a.onnx" "$WORK/train2.npz" "$WORK/dark.npz" "$WORK/jokers.npz" "${REAL[@]}" --init "$WORK/stage1a.onnx"
     --seed "$SEED2A")
S2B=("$WORK/stage2b.onnx" "$WORK/train1.npz" "$WORK/dark.npz" "$WORK/jokers.npz" "${REAL[@]}" --init "$WORK/stage1b.onnx"
     --seed "$SEED2B")
both S2A S2B
[ "$ONLY" = networks ] && exit 0
# the two joined into one model (vision/training/ensemble.py), then its accept thresholds chosen on the
# calibration photos read by the whole reader
$RUN vision.training.ensemble vision/data/index_net.onnx "$WORK/stage2a.onnx" "$WORK/stage2b.onnx" \
    --held "$WORK/held.npz" --held-dark "$WORK/held_dark.npz"
$RUN vision.training.choose_threshold
# what a reported card's confidence means, fitted on real photos not trained on (vision/net/card_calibration.py)
$RUN vision.training.calibrate_cards
cp "$WORK/stage1a.onnx" "$STAGE1"
cp "$WORK/stage1a.json" "${STAGE1%.onnx}.json"
