# `cpack -G DEB` in the build directory: hostkernel_<version>_amd64.deb with everything
# cmake/HkInstall.cmake installs, under /usr. The library's own dependencies (libOpenCL,
# hwloc, LLVM, libstdc++, ...) come from dpkg-shlibdeps; what it loads without linking
# (PoCL's ICD) and what building against the headers needs are listed here.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hostkernel)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "hostkernel maintainers <hostkernel@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "direct OpenCL kernel launches on PoCL's CPU device (library, layer, hostkernel-run)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "pocl-opencl-icd, bash")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ocl-icd-opencl-dev, opencl-c-headers, pkg-config")
# A shlibs file, so that packages built against libhostkernel depend on this one (the
# layer module has no SONAME: CPack warns that it stays out of the file).
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
include(CPack)
