#!/bin/sh
# Makes this folder's test files (see make.py for what each holds): make.py writes them
# byte by byte; qpdf (11.3) packs annots-objstm.pdf's annotations into an object stream and
# encrypts ../encrypted/plain.pdf for owner-empty-r6.pdf (kept when there: its salts are
# random). Run it here.
set -e
python3 make.py
qpdf --object-streams=generate annots.pdf annots-objstm.pdf
[ -f owner-empty-r6.pdf ] || qpdf --encrypt secret "" 256 --allow-insecure -- ../encrypted/plain.pdf owner-empty-r6.pdf
