# Install rules (docs/build.md, "Installing"): `cmake --install build
# [--prefix P] [--component C]` with the components
#   runtime  libsluicert.so, its C headers, a CMake package (find_package(
#            Sluice) -> the imported target Sluice::sluicert) and a
#            pkg-config file (sluice.pc);
#   tools    sluicec, sluice-opt, sluice-plan-offload, sluice-flow-exec;
#   python   the Python package sluice, into lib/python3.X/dist-packages
#            (SLUICE_PYTHON_INSTALL_DIR; with the prefix /usr/local that is on
#            Debian python3's path, so `import sluice` works without
#            PYTHONPATH; elsewhere PYTHONPATH=P/lib/python3.X/dist-packages).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# SLUICE_VERSION: set by the top-level CMakeLists.txt from runtime.h.

install(TARGETS sluicert_shared EXPORT SluiceTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The imported target carries the installed include directory instead of
# the source tree's.
set_target_properties(sluicert_shared PROPERTIES EXPORT_NAME sluicert)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/sluice
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT runtime
  FILES_MATCHING PATTERN "*.h")
install(EXPORT SluiceTargets NAMESPACE Sluice::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sluice COMPONENT runtime)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/SluiceConfig.cmake.in
  ${CMAKE_BINARY_DIR}/SluiceConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sluice)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/SluiceConfigVersion.cmake
  VERSION ${SLUICE_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/SluiceConfig.cmake
              ${CMAKE_BINARY_DIR}/SluiceConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Sluice COMPONENT runtime)
configure_file(${PROJECT_SOURCE_DIR}/cmake/sluice.pc.in
  ${CMAKE_BINARY_DIR}/sluice.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/sluice.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT runtime)

foreach(tool sluicec sluice-opt sluice-plan-offload sluice-flow-exec
             sluice-import-topo)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
      COMPONENT tools)
  endif()
endforeach()

if(TARGET _sluice)
  set(SLUICE_PYTHON_INSTALL_DIR
      "lib/python${SLUICE_PYTHON_VERSION}/dist-packages" CACHE STRING
      "Where cmake --install puts the Python package, under the prefix")
  install(DIRECTORY ${CMAKE_BINARY_DIR}/python/sluice
    DESTINATION ${SLUICE_PYTHON_INSTALL_DIR}
    COMPONENT python
    PATTERN "__pycache__" EXCLUDE)
endif()
