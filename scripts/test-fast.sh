#!/usr/bin/env bash
# `npm test`: the type check and the fast lane of the tests side by side (tsc is single-threaded,
# so on two cores it costs the tests little). Exit status 1 when either fails.
set -u
tsc --noEmit &
tsc_pid=$!
ava "$@"
ava_status=$?
wait "$tsc_pid"
tsc_status=$?
if [ "$tsc_status" -ne 0 ]; then echo "npm test: the type check (tsc --noEmit) failed: see its errors above" >&2; fi
exit $(( ava_status != 0 || tsc_status != 0 ))
