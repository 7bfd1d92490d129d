#!/bin/bash
# Boot one kernel variant in QEMU and run one guest test (guest/tests.list).
#   scripts/run-guest.sh [--mem MiB] [--cpus N] [--numa N] [--thp MODE]
#                        [--timeout S] [--expect WORD] [--icount [--seed N]]
#                        [--mttcg] VARIANT TEST
# Machine shape: --mem MiB of RAM (default 512), --cpus N vCPUs (1-8,
# default 2), --numa N nodes (1-4; memory and vCPUs split evenly, so N
# divides the vCPUs, through QEMU's ACPI SRAT), --thp always|madvise|never
# on the kernel command line (transparent_hugepage=; default the kernel's,
# madvise). Below 512 MiB of RAM the kernel turns THP off whatever the
# command line says (hugepage_init()), and the 512 MiB guest has 485 MiB:
# --thp needs --mem 576 or more, or a test that sets it through sysfs.
# Prints the test's output (between init's @@@ markers) and exits 0 only if
# the test passed and the kernel log has no BUG/WARNING/KASAN/lockdep/Call
# Trace line. Exit: 1 test failed, 2 bad usage, 3 kernel splat, 4 timeout.
# The whole serial log is kept in build/runs/VARIANT/TEST.log.
# --icount: guest time follows executed instructions, and the RTC starts
# at a fixed date and follows guest time, so that the host's clock does not
# reach the guest (it seeds the kernel's random pool), and no disk is
# attached, because a virtio disk's I/O completes in host time: /data is
# then the initramfs's copy (guest/init.c) and there is no swap. Runs
# repeat exactly as a rule, not always: QEMU syncs its main loop's work to
# the instruction count only under record/replay (docs/devel/replay.rst),
# and one 2-vCPU run has left its path. --seed N starts the RTC N seconds
# later: another path of the same kernel on the same workload.
# Under TCG the vCPUs take turns on one host thread unless --mttcg gives
# each its own: QEMU 7.2's multi-threaded TCG runs stale code after the
# kernel patches its text (a jump label or static key flip), and the guest
# oopses on an int3 that is no longer there ("Oops: int3" in
# folio_add_lru(), on the shipped kernel too, 2026-12-05). Only a test
# that needs its vCPUs to run at once (knobflip) asks for --mttcg.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

mem=512 cpus=2 numa=1 thp= timeout=300 expect=none icount= seed=0 tcg_thread=,thread=single
disks="-drive file=build/disks/data.img,if=virtio,format=raw,snapshot=on
	-drive file=build/disks/swap.img,if=virtio,format=raw,snapshot=on"
while [ $# -gt 0 ]; do
	case "$1" in
	--mem) mem=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--numa) numa=$2; shift 2 ;;
	--thp) thp=$2; shift 2 ;;
	--mttcg) tcg_thread=; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--expect) expect=$2; shift 2 ;;
	--icount) icount=yes disks=; shift ;;
	--seed) seed=$2; shift 2 ;;
	-*) echo "run-guest: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
# bad_value OPTION VALUE VALID: the message and exit 2.
bad_value() {
	echo "run-guest: bad $1 '$2'; valid: $3" >&2
	exit 2
}
is_int() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
is_int "$mem" 128 8192 || bad_value --mem "$mem" "MiB, 128 to 8192"
is_int "$cpus" 1 8 || bad_value --cpus "$cpus" "1 to 8 (CONFIG_NR_CPUS=8)"
is_int "$numa" 1 4 || bad_value --numa "$numa" "1 to 4 nodes"
[ $((cpus % numa)) = 0 ] && [ $((mem % numa)) = 0 ] ||
	bad_value --numa "$numa" "a number of nodes that divides --cpus ($cpus) and --mem ($mem)"
case "$thp" in ''|always|madvise|never) ;; *) bad_value --thp "$thp" "always, madvise, never" ;; esac
is_int "$timeout" 1 86400 || bad_value --timeout "$timeout" "seconds, 1 to 86400"
# One socket a node: with QEMU's default topology the vCPUs of two nodes
# share a last-level cache, and the kernel warns at boot (topology_sane()).
shape= smp=$cpus
if [ "$numa" -gt 1 ]; then
	per_mem=$((mem / numa)) per_cpu=$((cpus / numa))
	smp=$cpus,sockets=$numa,cores=$per_cpu,threads=1
	for ((n = 0; n < numa; n++)); do
		shape+=" -object memory-backend-ram,id=m$n,size=${per_mem}M"
		shape+=" -numa node,nodeid=$n,memdev=m$n,cpus=$((n * per_cpu))-$(((n + 1) * per_cpu - 1))"
	done
fi
cmdline_thp=${thp:+ transparent_hugepage=$thp}
if [ "$icount" = yes ]; then
	base=$(date -u -d "2026-01-01 00:00:00 UTC + $seed seconds" +%Y-%m-%dT%H:%M:%S) ||
		{ echo "run-guest: bad --seed $seed" >&2; exit 2; }
	icount="-icount shift=0,align=off,sleep=off -rtc base=$base,clock=vm"
fi
if [ $# -ne 2 ]; then
	echo "usage: $0 [--mem MiB] [--cpus N] [--numa N] [--thp MODE] [--timeout S] [--expect WORD] [--icount [--seed N]] [--mttcg] VARIANT TEST" >&2
	exit 2
fi
variant=$1 test=$2
# QEMU's PCI interrupt routing method (\_SB.PCI0._PRT) builds its table
# in an AML loop; the debug kernel (KASAN, lockdep) interprets it under TCG close
# to ACPICA's 30 s loop timeout (ACPI_MAX_LOOP_TIMEOUT), and past it on a
# busy host: the virtio devices then get no interrupt and the boot hangs.
# Route PCI interrupts by the BIOS's $PIR table there instead.
cmdline_irq=
[ "$variant" != debug ] || cmdline_irq=" acpi=noirq"
variant_src "$variant" >/dev/null || exit 2
tests=$(grep -v '^#' guest/tests.list | awk 'NF { print $1 }')
if ! grep -qx -- "$test" <<<"$tests"; then
	echo "run-guest: unknown test '$test'; valid tests:" >&2
	echo "$tests" | sed 's/^/  /' >&2
	exit 2
fi
need qemu-system-x86_64 qemu-system-x86
need timeout coreutils

out=build/out/$variant
kernel=$out/arch/x86/boot/bzImage
initrd=$out/initramfs.cpio.gz
# Tests on the v1all layout run container runtimes: their initramfs
# carries them too (make-initramfs.sh).
layout=$(awk -v t="$test" '!/^#/ && $1 == t { print $2 }' guest/tests.list)
[ "$layout" != v1all ] || initrd=$out/initramfs-containers.cpio.gz
[ -f "$kernel" ] || die "no $variant kernel: run scripts/build-kernel.sh $variant"
[ -f "$initrd" ] || die "no $variant initramfs: run scripts/make-initramfs.sh $variant"
[ -z "$disks" ] || [ -f build/disks/data.img ] || die "no disks: run scripts/make-disks.sh"

# KVM only where a probe boot really finished; TCG otherwise.
accel=tcg
if [ -z "$icount" ] && [ -w /dev/kvm ] && [ "$(cat build/kvm-works 2>/dev/null)" = yes ]; then
	accel=kvm
fi

accel_opt=$accel
[ "$accel" = tcg ] && accel_opt+=$tcg_thread
logdir=build/runs/$variant
mkdir -p "$logdir"
logf=$logdir/$test.log
log "booting $variant ($accel, ${mem} MiB, $cpus vCPUs, $numa node(s)${thp:+, THP $thp}) for $test, timeout ${timeout}s"
start=$(date +%s)
set +e
timeout --kill-after=5 "$timeout" qemu-system-x86_64 \
	-accel "$accel_opt" $icount -m "$mem" -smp "$smp" $shape \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=5 run=$test expect=$expect$cmdline_thp$cmdline_irq" \
	$disks \
	-nographic -no-reboot -nodefaults -serial stdio -monitor none \
	</dev/null >"$logf" 2>&1
qrc=$?
set -e
secs=$(( $(date +%s) - start ))

# The test's own output, between init's markers.
tr -d '\r' < "$logf" | sed -n "/^@@@ BEGIN $test\$/,/^@@@ END $test /p"

if [ $qrc = 124 ] || [ $qrc = 137 ]; then
	echo "run-guest: TIMEOUT: $variant/$test hung, QEMU killed after ${timeout}s (log: $logf)" >&2
	exit 4
fi
# An OOM kill is no splat, but its report dumps a stack: drop the report
# from "invoked oom-killer" to the end of its trace before looking.
# A page allocation failure report (zram's GFP_NOIO fallback under heavy
# swap-out, say) is an allocation the caller handles, not a bug: it is
# skipped the same way, and counted.
allocfail=$(tr -d '\r' < "$logf" | grep -c 'page allocation failure' || true)
[ "$allocfail" = 0 ] || echo "run-guest: note: $allocfail page allocation failure report(s) in $logf" >&2
splats=$(tr -d '\r' < "$logf" |
	awk '/invoked oom-killer|page allocation failure/ { skip = 1 } !skip { print } /<\/TASK>/ { skip = 0 }' |
	grep -E 'BUG:|WARNING:|KASAN|possible (recursive |circular )?locking|lockdep|Call Trace|Kernel panic|Oops' || true)
if [ -n "$splats" ]; then
	echo "run-guest: KERNEL SPLAT in $variant/$test (log: $logf):" >&2
	echo "$splats" | head -20 >&2
	exit 3
fi
end=$(grep -a "^@@@ END $test " "$logf" | tr -d '\r' | tail -1)
if [ -z "$end" ]; then
	echo "run-guest: $variant/$test ended without a result (QEMU rc $qrc, log: $logf)" >&2
	exit 1
fi
rc=${end##*rc=}
rc=${rc%% *}
log "$variant/$test finished in ${secs}s, rc=$rc"
[ "$rc" = 0 ]
