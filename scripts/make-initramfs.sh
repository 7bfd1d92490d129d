#!/bin/bash
# Build the guest initramfs for one kernel variant:
# build/out/VARIANT/initramfs.cpio.gz with busybox, our static guest
# programs (guest/), guest/tests.list, the cgroup kselftests built
# statically from that variant's own tree, and /data.img (make-disks.sh);
# and build/out/VARIANT/initramfs-containers.cpio.gz, the same followed by
# a second archive with Debian's runc, crun and libcgroup tools and a
# container root filesystem, for the tests on the v1all layout
# (run-guest.sh picks it): the kernel unpacks both into one root. Apart,
# so that the 15 MiB of runtimes, which stay in RAM, take no memory from
# every other test and leave the other tests' archive as it was.
set -euo pipefail
cd "$(dirname "$0")/.."
TOP=$PWD
. scripts/lib.sh
need busybox busybox-static
need cpio cpio

variant=${1:-}
src=$(variant_src "$variant") || exit 2
out=build/out/$variant
root=$out/initramfs
sel=$src/tools/testing/selftests/cgroup

make -s -C guest OUT="$TOP/build/guest"

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,data,selftests}
cp build/guest/init "$root/init"
cp build/guest/* "$root/bin/"
rm "$root/bin/init"
cp /bin/busybox "$root/bin/busybox"
# busybox applets, except where one of our programs has the name.
for a in $(/bin/busybox --list); do
	[ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"
done
cp guest/tests.list "$root/etc/tests.list"

bash scripts/make-disks.sh
cp build/disks/data-ram.img "$root/data.img"
printf '127.0.0.1 localhost\n::1 localhost\n' > "$root/etc/hosts"

# Every cgroup selftest we run that exists in this tree; new ones come
# with the series, so the patched tree has more than vanilla.
for t in $CGROUP_SELFTESTS; do
	[ -f "$sel/$t.c" ] || continue
	# No -O, as upstream's lib.mk: at -O2 gcc drops alloc_anon()'s malloc,
	# touch and free, and every "allocate and expect OOM" test is void.
	gcc -static -Wall -pthread -I"$src/tools/testing/selftests" \
		-o "$root/selftests/$t" "$sel/$t.c" "$sel/cgroup_util.c" 2>"$out/selftest-$t.log" ||
		{ cat "$out/selftest-$t.log" >&2; die "building selftest $t from $src failed"; }
done

# The same inputs give the same bytes: under run-guest.sh --icount the
# guest's path starts with unpacking this archive, and a different mtime
# or file order moved the first printk times and, from there, every
# figure of make bench. So fixed mtimes and owners, sorted names.
find "$root" -exec touch -h -d @0 {} +
(cd "$root" && find . | LC_ALL=C sort |
	cpio -o -H newc --quiet --reproducible -R 0:0) | gzip -1 -n > "$out/initramfs.cpio.gz.tmp"

# The real clients of the knob (guest/containers.c): Debian's runc, crun
# and libcgroup tools at their Debian paths, each with its shared-library
# closure (ldd) at the paths ldd names, the dynamic loader included.
croot=$out/initramfs-containers
rm -rf "$croot"
mkdir -p "$croot"
for b in /usr/sbin/runc /usr/bin/crun /usr/bin/cgcreate /usr/bin/cgset \
	/usr/bin/cgget /usr/bin/cgexec /usr/bin/cgdelete; do
	[ -x "$b" ] || die "$b not found: install runc, crun, cgroup-tools (scripts/install-deps.sh)"
	libs=$(ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }') ||
		die "ldd $b failed"
	for f in "$b" $libs; do
		[ -e "$croot$f" ] && continue
		mkdir -p "$croot$(dirname "$f")"
		cp -L "$f" "$croot$f"
	done
done
# The containers' root filesystem: busybox and a few applets;
# guest/containers.c writes each bundle's config.json.
cr=$croot/containers/rootfs
mkdir -p "$cr"/{bin,dev,proc,sys,tmp,data,gate,etc}
cp /bin/busybox "$cr/bin/busybox"
for a in sh cat dd echo sleep ls true; do
	ln -s busybox "$cr/bin/$a"
done
echo 'root:x:0:0:root:/:/bin/sh' > "$cr/etc/passwd"
echo 'root:x:0:' > "$cr/etc/group"
find "$croot" -exec touch -h -d @0 {} +
# Directories the main archive has too (/, /bin) come again: the kernel
# keeps what exists and adds the files.
{
	cat "$out/initramfs.cpio.gz.tmp"
	(cd "$croot" && find . | LC_ALL=C sort |
		cpio -o -H newc --quiet --reproducible -R 0:0) | gzip -1 -n
} > "$out/initramfs-containers.cpio.gz.tmp"
# renamed into place: a guest booting meanwhile reads the old or the new
# archive, never half of one
mv "$out/initramfs.cpio.gz.tmp" "$out/initramfs.cpio.gz"
mv "$out/initramfs-containers.cpio.gz.tmp" "$out/initramfs-containers.cpio.gz"
log "initramfs for $variant: $out/initramfs.cpio.gz ($(ls "$root/selftests" | wc -l) selftests), $out/initramfs-containers.cpio.gz"
