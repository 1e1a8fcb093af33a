#!/usr/bin/env bash
# Step 2 of 2 on the same accelerator after stage1.sh (its sets and stage 1 in $W; .accelerator/stage2 carried
# along): unpack the real photos' windows, stage 2 of both members at once (train.sh ONLY=networks, E2 epochs) and,
# beside them, stage 2 for the CPU recipe's 3 epochs (stage2a3, stage2b3), so that the calibration photos can tell
# whether the longer one helps. Models and logs in $OUT (stage2.tgz). Then, where the photos are:
# vision.training.ensemble and vision.training.choose_threshold (train.sh's last steps).
source "$(dirname "$0")/common.sh"
if [ ! -f "$W/stage1a.onnx" ] || [ ! -f "$W/stage1b.onnx" ] || [ ! -f "$W/train1.npz" ]; then
    echo "stage1.sh has not run on this machine: its sets and models are not in $W"; exit 3
fi
unpack_all "${PACKS:-.accelerator/stage2}"
DEVICE=$DEV EPOCHS2=${E2:-8} PARALLEL=1 ONLY=networks PY=python3 THREADS=4 WORK=$W \
    timeout "${T2:-240}" bash vision/training/train.sh 2>&1 | grep -v -i "warn\|torch.onnx.export" | tee "$OUT/stage2.log"
echo "train.sh rc=${PIPESTATUS[0]} after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/stage2.log"
v() {  # v MEMBER SETS...: stage 2 for the CPU recipe's 3 epochs from this run's stage 1
    local m=$1; shift
    timeout "${TV:-100}" python3 -m vision.training.train_net "$@" --real "$W/real_train.npz" --real-repeat 2 \
        --calibration "$W/real_cal.npz" --epochs 3 --lr 5e-4 --colour-only HR --init "$W/stage1$m.onnx" \
        --held "$W/held.npz" \
        --held-dark "$W/held_dark.npz" --threads 4 --device "$DEV" --out "$W/stage2${m}3.onnx" 2>&1 \
        | grep -v -i "warn\|torch.onnx.export" >> "$OUT/variant.log"
}
read -r SEED2A SEED2B <<< "${SEEDS2:-4 6}"
v a "$W/train2.npz" "$W/dark.npz" "$W/jokers.npz" --seed "$SEED2A" &
v b "$W/train1.npz" "$W/dark.npz" "$W/jokers.npz" --seed "$SEED2B"
wait
echo "variants done after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/stage2.log"
cd "$W" && tar czf "$OUT/stage2.tgz" stage2*.onnx stage2*.json
ls -la "$OUT"
