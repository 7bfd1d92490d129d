#!/bin/bash
# The guest's disks, made once: build/disks/data.img, an ext2 filesystem
# with the sparse files the scenarios read (holes read back as zero pages,
# which are ordinary clean page cache), and build/disks/swap.img.
# build/disks/data-ram.img holds the same files in 2 MiB, for the
# initramfs: run-guest.sh --icount boots attach no disk (guest/init.c).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
need mke2fs e2fsprogs
need mkswap util-linux

d=build/disks
mkdir -p "$d"
# ext2 image $1 of size $2 holding the data files.
make_data_image() {
	log "making $1 (ext2, $2, sparse data files)"
	rm -rf "$d/data"
	mkdir -p "$d/data"
	truncate -s 400M "$d/data/big0" "$d/data/big1"
	for i in 0 1 2 3 4 5 6 7; do truncate -s 200M "$d/data/small$i"; done
	rm -f "$1.tmp"
	truncate -s "$2" "$1.tmp"
	# The same bytes every time (the initramfs carries data-ram.img, see
	# make-initramfs.sh): fixed UUID, hash seed and times. mke2fs -d
	# copies each file's ctime, which only debugfs can set.
	touch -d @0 "$d/data" "$d"/data/*
	E2FSPROGS_FAKE_TIME=1767225600 mke2fs -q -F -t ext2 \
		-U 6d656d63-6700-4000-8000-000000000001 \
		-E hash_seed=6d656d63-6700-4000-8000-000000000002 \
		-d "$d/data" "$1.tmp"
	for f in "$d"/data/*; do
		echo "set_inode_field /${f##*/} ctime 19700101000000"
	done | E2FSPROGS_FAKE_TIME=1767225600 debugfs -w -f - "$1.tmp" >/dev/null 2>&1
	# debugfs exits 0 whatever its commands did: check that the last took.
	debugfs -R "stat /small7" "$1.tmp" 2>/dev/null | grep -q ' ctime: 0x00000000:' ||
		die "$1: debugfs did not reset the data files' ctime"
	rm -rf "$d/data"
	mv "$1.tmp" "$1"
}

[ -f "$d/data.img" ] || make_data_image "$d/data.img" 4G
[ -f "$d/data-ram.img" ] || make_data_image "$d/data-ram.img" 2M
if [ ! -f "$d/swap.img" ]; then
	log "making $d/swap.img (512 MiB swap, fixed UUID: the same bytes too)"
	truncate -s 512M "$d/swap.img.tmp"
	mkswap -q -U 6d656d63-6700-4000-8000-000000000003 "$d/swap.img.tmp" >/dev/null
	mv "$d/swap.img.tmp" "$d/swap.img"
fi
