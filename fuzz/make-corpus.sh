#!/usr/bin/env bash
# Regenerates the seed corpora in fuzz/corpus/ (they are committed; run this only to
# refresh them, e.g. for another PoCL build):
#   poclbinary_fuzz/  real poclbinaries that PoCL returns for a few kernels of kernels/ and
#                 fuzz/seed-src/ (generic variants only, plus one program with specialized
#                 variants), and "-small" copies whose files are cut to 64 bytes. The
#                 "-v11" seeds come from PoCL 6.0 (format 11): fuzz/tools/make_poclbinary
#                 and shrink_poclbinary.py run by hand in the root of
#                 scripts/debian-root.sh trixie; trivial-v12-small.bin is trivial-v11-small.bin with version field 12
#                 (without a required sub-group size the two formats are the same bytes);
#   spirv_fuzz/, spirv_structure_fuzz/   small SPIR-V modules made with clang-15 and
#                 llvm-spirv-15 from the same kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/hk-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT

cc -O1 -o "$work/make_poclbinary" fuzz/tools/make_poclbinary.c -lOpenCL
pb=fuzz/corpus/poclbinary_fuzz
mkdir -p "$pb"
export POCL_CACHE_DIR=$work/kcache  # a fresh cache: only the variants asked for
for k in trivial axpy local_mixed struct_arg reqd_wg_size many_args; do
  "$work/make_poclbinary" "kernels/$k.cl" "$work/$k.bin" >/dev/null
done
"$work/make_poclbinary" kernels/denormals.cl "$work/denormals-ftz.bin" -cl-denorms-are-zero >/dev/null
"$work/make_poclbinary" fuzz/seed-src/images_and_many_kernels.cl \
  "$work/images_and_many_kernels.bin" -cl-kernel-arg-info >/dev/null
POCL_CACHE_DIR=$work/kcache2 POCL_BINARY_SPECIALIZE_WG=64-1-1-goffs0,16-16-1-goffs0-smallgrid \
  "$work/make_poclbinary" kernels/index_2d.cl "$work/index_2d-specialized.bin" >/dev/null
for k in trivial local_mixed images_and_many_kernels index_2d-specialized; do
  cp "$work/$k.bin" "$pb/$k.bin"
done
for f in "$work"/*.bin; do
  python3 fuzz/tools/shrink_poclbinary.py "$f" "$pb/$(basename "$f" .bin)-small.bin" >/dev/null
done
python3 fuzz/tools/shrink_poclbinary.py "$work/images_and_many_kernels.bin" \
  "$pb/images_and_many_kernels-tiny.bin" 0 >/dev/null

for target in spirv_fuzz spirv_structure_fuzz; do mkdir -p "fuzz/corpus/$target"; done
for src in kernels/trivial.cl kernels/axpy.cl kernels/local_mixed.cl kernels/struct_arg.cl \
           kernels/reduce_local_arg.cl kernels/reqd_wg_size.cl kernels/workitem_builtins.cl kernels/scan_local.cl; do
  name=$(basename "$src" .cl)
  clang-15 -c -target spir64 -cl-std=CL1.2 -O0 -cl-kernel-arg-info -emit-llvm "$src" -o "$work/$name.bc"
  llvm-spirv-15 "$work/$name.bc" -o "$work/$name.spv"
  for target in spirv_fuzz spirv_structure_fuzz; do cp "$work/$name.spv" "fuzz/corpus/$target/$name.spv"; done
done
ls -l fuzz/corpus/*/
