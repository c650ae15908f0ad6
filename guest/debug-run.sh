#!/bin/sh
# make test-debug, inside the guest of the debug kernel: the reliability
# tests, then a kmemleak scan after everything is detached.
set -u
KMEMLEAK=/sys/kernel/debug/kmemleak
# Objects from boot are not ours to judge: report only what comes after.
echo clear >$KMEMLEAK
"$BUILD/tests/runner" -T 1200 -t dispatcher_no_cap -t 'dispatcher_churn*' \
	-t dispatcher_fault_injection -t dispatcher_policy \
	-t 'xdp_test_run_*' -t 'tc_dispatcher_*' -t 'devmap_redirect_*' -t 'sk_lookup_dispatcher_*' \
	-t netkit_dispatcher -t mprog_images -t flow_dissector_dispatcher -t dispatcher_mode \
	-t dispatcher_calls_in_place -t 'xdp_mprog_counts_*' -t xdp_mprog_fault_injection \
	-t 'xsk_redirect_*'
rc=$?
# Freed objects wait for RCU and the image trim (a second): let them go.
sleep 5
echo scan >$KMEMLEAK
echo scan >$KMEMLEAK
leaks=$(grep -c '^unreferenced object' $KMEMLEAK)
if [ "$leaks" -gt 0 ]; then
	echo "# kmemleak: $leaks unreferenced objects after the tests:"
	sed 's/^/# /' $KMEMLEAK | head -n 60
	rc=1
else
	echo "# kmemleak: no leak after the tests"
fi
exit $rc
