#!/bin/sh
# Install the peers make bench measures (Debian's packages; idempotent, quick when all are present).
PKGS="python3 python3-numpy python3-scipy python3-sparse python3-torch python3-matplotlib"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "bench: installing the peers:$missing"
if [ "$(id -u)" != 0 ]; then
  echo "bench: not root; please install:$missing (the missing peers are reported as unavailable)" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null || \
  echo "bench: could not install:$missing (the missing peers are reported as unavailable)" >&2
exit 0
