# What `cmake --install` and `cpack -G DEB` put where (docs/install.md), all under
# GNUInstallDirs paths:
#   lib/libhostkernel.so*                      the library (SONAME libhostkernel.so.<soversion>)
#   lib/hostkernel/libhostkernel-layer.so      the OpenCL layer (a module, not linked against)
#   include/hostkernel/                        the public headers
#   lib/cmake/hostkernel/                      find_package(hostkernel CONFIG): hostkernel::hostkernel
#   lib/pkgconfig/hostkernel.pc                pkg-config --cflags --libs hostkernel
#   bin/hostkernel-run                         runs any OpenCL program with the layer
#   share/doc/hostkernel/examples/             the programs of examples/, built by the tests
include(CMakePackageConfigHelpers)

set(HK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/hostkernel)
set(HK_INSTALL_LAYERDIR ${CMAKE_INSTALL_LIBDIR}/hostkernel)

install(TARGETS hostkernel EXPORT hostkernelTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS hostkernel-layer LIBRARY DESTINATION ${HK_INSTALL_LAYERDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/hostkernel
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT hostkernelTargets NAMESPACE hostkernel:: DESTINATION ${HK_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/install/hostkernelConfig.cmake.in
  ${CMAKE_BINARY_DIR}/install/hostkernelConfig.cmake INSTALL_DESTINATION ${HK_INSTALL_CMAKEDIR}
  PATH_VARS HK_INSTALL_LAYERDIR CMAKE_INSTALL_BINDIR)
# 0.x: a minor release may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/hostkernelConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/hostkernelConfig.cmake
              ${CMAKE_BINARY_DIR}/install/hostkernelConfigVersion.cmake
        DESTINATION ${HK_INSTALL_CMAKEDIR})

# hostkernel.pc and hostkernel-run find the rest of the tree relative to where they are
# installed, so one tree works under any prefix (cmake --install --prefix, DESTDIR, cpack).
file(RELATIVE_PATH HK_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
string(REGEX REPLACE "/$" "" HK_PC_TO_PREFIX "${HK_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/install/hostkernel.pc.in
               ${CMAKE_BINARY_DIR}/install/hostkernel.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/install/hostkernel.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

file(RELATIVE_PATH HK_RUN_TO_LAYER /root/${CMAKE_INSTALL_BINDIR}
     /root/${HK_INSTALL_LAYERDIR}/libhostkernel-layer.so)
configure_file(${CMAKE_CURRENT_LIST_DIR}/install/hostkernel-run.in
               ${CMAKE_BINARY_DIR}/install/hostkernel-run @ONLY)
install(PROGRAMS ${CMAKE_BINARY_DIR}/install/hostkernel-run DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

include(HkPackage)
