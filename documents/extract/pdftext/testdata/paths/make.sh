#!/bin/sh
# Makes this folder's test files (see make.py for what each holds): make.py writes them
# byte by byte; qpdf (11.3) encrypts ../encrypted/plain.pdf for owner-empty-r6.pdf. Run it here.
set -e
python3 make.py
qpdf --encrypt secret "" 256 --allow-insecure -- ../encrypted/plain.pdf owner-empty-r6.pdf
