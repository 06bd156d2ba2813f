#!/bin/sh
# Installs the Debian packages a make target needs, if they are missing.
# Idempotent; needs root (or sudo) only when something is missing.
#   sh tests/deps.sh test|demo|proofs|acsl|bench
set -eu
group=${1:-test}
case $group in
  test)   pkgs="gcc make libcmocka-dev coq ocaml-nox ocaml-findlib frama-c-base why3 z3 cvc4" ;;
  demo)   pkgs="gcc make" ;;
  proofs) pkgs="coq ocaml-nox ocaml-findlib" ;;
  acsl)   pkgs="frama-c-base why3 z3 cvc4" ;;
  bench)  pkgs="gcc make python3-numpy libopenblas-dev gnuplot-nox" ;;
  *) echo "deps.sh: unknown group '$group'" >&2; exit 2 ;;
esac
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps.sh: installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
