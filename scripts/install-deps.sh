#!/bin/bash
# Install, with apt-get, exactly what the workbench needs; skip what is there.
# 'docs' adds what make check-series needs for its htmldocs step.
# The kernel source is pinned; if Debian no longer offers the pinned build,
# the newest 6.12 is installed instead and we say so loudly.
set -euo pipefail

PIN_VERSION=6.12.118-1~deb12u1
PACKAGES=(
	build-essential bc bison flex libelf-dev libssl-dev dwarves
	cpio xz-utils rsync git kmod
	qemu-system-x86 busybox-static e2fsprogs
	gnuplot-nox ccache
	runc crun cgroup-tools
)
# 'install-deps.sh docs': also Sphinx, for check-series.sh's htmldocs step
[ "${1:-}" = docs ] && PACKAGES+=(python3-sphinx python3-yaml)

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: must run as root (apt-get)" >&2
	exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done

src_have=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
if [ ${#missing[@]} -eq 0 ] && [ "$src_have" = "$PIN_VERSION" ]; then
	echo "install-deps: all packages present (linux-source-6.12 $src_have)"
	exit 0
fi

echo "install-deps: apt-get update"
apt-get update -qq
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "$src_have" != "$PIN_VERSION" ]; then
	offered=$(apt-cache madison linux-source-6.12)
	if grep -qF " $PIN_VERSION " <<<"$offered"; then
		echo "install-deps: installing linux-source-6.12=$PIN_VERSION"
		apt-get install -y -qq --no-install-recommends --allow-downgrades \
			"linux-source-6.12=$PIN_VERSION" >/dev/null
	else
		cat >&2 <<-MSG
		**********************************************************************
		install-deps: linux-source-6.12=$PIN_VERSION is NO LONGER OFFERED.
		Installing the newest 6.12 instead. The series was made against
		$PIN_VERSION and may not apply; check 'make tree'.
		**********************************************************************
		MSG
		apt-get install -y -qq --no-install-recommends linux-source-6.12 >/dev/null
	fi
fi
echo "install-deps: done (linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12))"
