#!/bin/bash
# Everything a guest run needs for the given variants: packages, the tree,
# the kernels, their initramfs, the disks, and the KVM probe.
#   scripts/prepare.sh VARIANT...
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

bash scripts/install-deps.sh
[ -d build/linux/.git ] || bash scripts/tree.sh
for v in "$@"; do
	bash scripts/build-kernel.sh "$v"
	bash scripts/make-initramfs.sh "$v"
done
bash scripts/make-disks.sh

# KVM only if a probe boot really finishes: on these machines /dev/kvm
# opens but the guest hangs, so the answer is kept once found.
if [ ! -f build/kvm-works ]; then
	echo no > build/kvm-works
	if [ -w /dev/kvm ]; then
		log "probing KVM with a 30 s boot"
		if timeout 40 qemu-system-x86_64 -accel kvm -m 256 -nographic -no-reboot \
			-nodefaults -serial stdio -monitor none \
			-kernel "build/out/$1/arch/x86/boot/bzImage" \
			-initrd "build/out/$1/initramfs.cpio.gz" \
			-append "console=ttyS0 panic=-1 run=probe" </dev/null 2>&1 |
			tr -d '\r' | grep -q '^@@@ END probe rc=0'; then
			echo yes > build/kvm-works
		fi
	fi
	log "KVM usable: $(cat build/kvm-works)"
fi
