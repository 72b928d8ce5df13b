#!/bin/sh
# install.sh installs EdgeChat from this folder into PREFIX (default ~/.local): the program and
# its ONNX Runtime in PREFIX/lib/edgechat, a link PREFIX/bin/edgechat, the menu entry and icon.
set -eu
PREFIX="${PREFIX:-$HOME/.local}"
here="$(cd "$(dirname "$0")" && pwd)"
lib="$PREFIX/lib/edgechat"
mkdir -p "$lib" "$PREFIX/bin" "$PREFIX/share/applications" "$PREFIX/share/icons/hicolor/512x512/apps"
cp "$here/edgechat" "$here/libonnxruntime.so.1" "$here/README.txt" "$here/THIRD_PARTY_NOTICES.txt" "$lib/"
ln -sf "$lib/edgechat" "$PREFIX/bin/edgechat"
cp "$here/io.edgechat.app.png" "$PREFIX/share/icons/hicolor/512x512/apps/io.edgechat.app.png"
sed "s|^Exec=.*|Exec=$lib/edgechat|" "$here/io.edgechat.app.desktop" >"$PREFIX/share/applications/io.edgechat.app.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$PREFIX/share/applications" || true
echo "EdgeChat installed in $lib (run: $PREFIX/bin/edgechat)"
