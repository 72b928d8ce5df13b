#!/bin/sh
# Makes the encrypted test files from source.pdf with qpdf (11.3): plain.pdf is the same
# file unencrypted, the reference the tests compare the text with. Run it here.
set -e
qpdf source.pdf plain.pdf || [ $? -eq 3 ] # 3: warnings (source.pdf has no xref on purpose)
enc() { out=$1; shift; qpdf --allow-weak-crypto "$@" plain.pdf "$out"; }
enc rc4-40.pdf --encrypt "" owner 40 --
enc rc4-40-objstm.pdf --object-streams=generate --encrypt "" owner 40 --
enc rc4-128.pdf --encrypt "" owner 128 --use-aes=n --
enc rc4-128-objstm.pdf --object-streams=generate --encrypt "" owner 128 --use-aes=n --
enc aes-128.pdf --encrypt "" owner 128 --use-aes=y --
enc aes-128-cleartext-metadata.pdf --encrypt "" owner 128 --use-aes=y --cleartext-metadata --
enc aes-256.pdf --encrypt "" owner 256 --
enc aes-256-objstm.pdf --object-streams=generate --encrypt "" owner 256 --
enc aes-256-cleartext-metadata.pdf --encrypt "" owner 256 --cleartext-metadata --
enc aes-256-r5.pdf --encrypt "" owner 256 --force-R5 --
enc rc4-40-linearized.pdf --linearize --encrypt "" owner 40 --
enc aes-256-linearized.pdf --linearize --encrypt "" owner 256 --
enc user-password-40.pdf --encrypt user owner 40 --
enc user-password-256.pdf --encrypt user owner 256 --
