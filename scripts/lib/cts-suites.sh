# The OpenCL-CTS suites that exercise what hostkernel intercepts: the default of
# scripts/build-cts.sh (what it builds) and scripts/conformance.sh (what it compares).
# shellcheck shell=bash
hk_cts_suites="test_basic test_api test_buffers test_events test_compiler test_printf
test_commonfns test_relationals test_vectors test_workgroups test_atomics
test_non_uniform_work_group"
