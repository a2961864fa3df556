#!/usr/bin/env bash
# Set up kkvision on a fresh Debian machine: the tesseract binary and fonts
# (apt, only when missing), then a virtualenv in .venv with kkvision and its
# Python dependencies.  Safe to run again: it skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v python3 >/dev/null 2>&1 || need+=(python3 python3-venv)
command -v tesseract >/dev/null 2>&1 || need+=(tesseract-ocr)
# Fonts: DejaVu draws the solution digits; the others render the training and
# benchmark images (devtools/synth.py TRAIN_FONTS and HELDOUT_FONTS).  The second
# group widens the label reader's training faces (devtools/train_labels.py uses every
# installed design but its HELDOUT ones): app and web sans, geometric and rounded
# faces (Inter, Sora, Quicksand...), monospaced and terminal faces, many with a
# flat-topped 3 (B612, Go, Jura, JetBrains Mono, League Mono, M+, Manrope, Monoid,
# PT Sans, Quicksand, IBM 3270), humanist, condensed, display and slab faces, and
# a few handwriting ones; devtools/scenes.py draws its app, web and filled-in
# scenes with some of them (Comic Neue, Humor Sans, dkg and Breip write answers).
# Chromium: the browser the web page's test drives (tests/test_serve_browser.py, through Playwright,
# whose own browser download is not used).
for pkg in fonts-dejavu-core fonts-liberation2 fonts-freefont-ttf fonts-urw-base35 fonts-roboto \
           fonts-open-sans fonts-lato fonts-crosextra-carlito fonts-crosextra-caladea fonts-cantarell \
           fonts-noto-mono \
           fonts-b612 fonts-cabin fonts-comfortaa fonts-comic-neue fonts-dosis fonts-inter \
           fonts-jetbrains-mono fonts-karla fonts-league-spartan fonts-manrope fonts-oxygen fonts-quicksand \
           fonts-mplus fonts-paratype fonts-go fonts-jura fonts-league-mono fonts-3270 fonts-monoid \
           fonts-play fonts-firacode fonts-hack fonts-clear-sans fonts-bebas-neue fonts-yanone-kaffeesatz \
           fonts-averia-sans-gwf fonts-opendyslexic fonts-sil-andika fonts-roboto-slab fonts-croscore \
           fonts-sora fonts-adf-gillius fonts-tuffy fonts-humor-sans fonts-dkg-handwriting fonts-breip \
           chromium; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]} with apt" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv 2>/dev/null || {
    echo "setup: python3 -m venv failed; installing python3-venv with apt" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get install -y -qq python3-venv python3-pip >/dev/null
    python3 -m venv .venv
  }
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,serve]' 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c "import kkvision, cv2, ortools" || { echo "setup: install failed" >&2; exit 1; }
echo "setup: ready (.venv/bin/kkvision)" >&2
