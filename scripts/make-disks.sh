#!/bin/bash
# The guest's disks, made once: build/disks/data.img, an ext2 filesystem
# with the sparse files the scenarios read (holes read back as zero pages,
# which are ordinary clean page cache), and build/disks/swap.img.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
need mke2fs e2fsprogs
need mkswap util-linux

d=build/disks
mkdir -p "$d"
if [ ! -f "$d/data.img" ]; then
	log "making $d/data.img (ext2, sparse data files)"
	rm -rf "$d/data"
	mkdir -p "$d/data"
	truncate -s 400M "$d/data/big0" "$d/data/big1"
	for i in 0 1 2 3 4 5 6 7; do truncate -s 200M "$d/data/small$i"; done
	truncate -s 4G "$d/data.img.tmp"
	mke2fs -q -F -t ext2 -d "$d/data" "$d/data.img.tmp"
	rm -rf "$d/data"
	mv "$d/data.img.tmp" "$d/data.img"
fi
if [ ! -f "$d/swap.img" ]; then
	log "making $d/swap.img (512 MiB swap)"
	truncate -s 512M "$d/swap.img.tmp"
	mkswap -q "$d/swap.img.tmp" >/dev/null
	mv "$d/swap.img.tmp" "$d/swap.img"
fi
