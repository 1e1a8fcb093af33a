#!/usr/bin/env bash
# Step 1 of 2 on an accelerator (CUDA PyTorch, onnx and OpenCV there; .accelerator/stage1 made by pack.sh carried
# along): unpack the rendered sets, time an epoch, then stage 1 of both members at once (train.sh ONLY=stage1) with
# as many epochs as fit B1 seconds (at most MAXE1, by default the recipe's 8: two longer stage 1s on the CPU, 14 and
# 16 epochs, were surer of their wrong readings of the real calibration photos; vision/README.md, "Tried and not kept
# (seventeenth session)"). Models and logs in $OUT (stage1.tgz); the sets stay in $W for stage2.sh.
source "$(dirname "$0")/common.sh"
nvidia-smi -L
python3 -c "import torch, onnx, cv2; print(torch.__version__, torch.cuda.is_available(), onnx.__version__, cv2.__version__)"
unpack_all "${PACKS:-.accelerator/stage1}"
ls -la "$W"
python3 -m vision.training.train_net "$W/dark.npz" --held "$W/held.npz" --epochs 3 --device "$DEV" \
    --out /tmp/probe.onnx 2>&1 | grep -v -i "warn\|torch.onnx.export" | tee "$W/probe.log"
E1=$(python3 - "$W/probe.log" "${B1:-270}" "${MAXE1:-8}" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
n = int(re.search(r"(\d+) rendered", text).group(1))
t = [float(x) for x in re.findall(r"epoch \d+/3: .*?([\d.]+) s", text)]
per_window = (t[2] - t[1]) / n  # an epoch after the warm-up, with its evaluation
epoch1 = per_window * 150_000 * 1.4  # stage 1's windows, two runs sharing the device
print(max(4, min(int(sys.argv[3]), int(float(sys.argv[2]) / epoch1))))
print(f"{per_window * 1e6:.1f} us a window, stage-1 epoch about {epoch1:.1f} s", file=sys.stderr)
PY
)
echo "stage 1: $E1 epochs"
echo "$E1" > "$W/epochs1"
DEVICE=$DEV EPOCHS1=$E1 PARALLEL=1 ONLY=stage1 PY=python3 THREADS=4 WORK=$W \
    timeout "${T1:-420}" bash vision/training/train.sh 2>&1 | grep -v -i "warn\|torch.onnx.export" | tee "$OUT/stage1.log"
echo "train.sh rc=${PIPESTATUS[0]} after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/stage1.log"
cp "$W/probe.log" "$OUT/"
cd "$W" && tar czf "$OUT/stage1.tgz" stage1*.onnx stage1*.json
ls -la "$OUT"
