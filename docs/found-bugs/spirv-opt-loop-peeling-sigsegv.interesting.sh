#!/bin/sh
# spirv-reduce's interestingness test, and a repro: spirv-opt --target-env=vulkan1.1 --loop-peeling on the module
# "$1" (the last argument) fails as it did on the original module: it crashed with status 139 (128 + the signal).
# The status alone is checked: spirv-opt's message names ids the reducer renumbers.
for f; do spv="$f"; done
timeout 20 spirv-opt --target-env=vulkan1.1 --loop-peeling "$spv" -o /dev/null 2>/dev/null
test $? -eq 139
