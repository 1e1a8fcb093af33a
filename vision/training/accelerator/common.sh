# Sourced by stage1.sh and stage2.sh: the repository root as working folder, where results go ($OUT), where the
# unpacked sets and models stay between the two steps ($W), the device ($DEV), and unpack_all.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
OUT=${OUT:-/tmp/accelerator-out}
W=${W:-/tmp/guandan-accelerator}
DEV=${DEV:-cuda}
mkdir -p "$OUT" "$W"
export PYTHONUNBUFFERED=1
t0=$(date +%s)

unpack_all() {  # unpack_all DIR: every DIR/SET.pack.npz to $W/SET.npz, at once
    local f
    for f in "$1"/*.pack.npz; do
        python3 -m vision.training.window_pack unpack "$f" "$W/$(basename "$f" .pack.npz).npz" &
    done
    wait
    echo "unpacked $1 after $(( $(date +%s) - t0 )) s"
}
