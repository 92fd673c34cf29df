# Installation: headers, liblance (static and shared, versioned soname), the CLI, a CMake
# package (find_package(Lance) -> Lance::lance, the shared library, and Lance::lance_static)
# and lance.pc for pkg-config. Installed headers include nothing but the standard library and
# each other (no protobuf, fmt or other third-party headers).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The static library's third-party dependencies as plain library names for the installed
# package, so that consumers need no CMake packages of them (only the -dev libraries).
set(LANCE_STATIC_LINK_NAMES protobuf zstd lz4 roaring fmt stemmer divsufsort divsufsort64)
target_link_libraries(lance_static INTERFACE
  $<INSTALL_INTERFACE:${LANCE_STATIC_LINK_NAMES};Threads::Threads>)

install(TARGETS lance_static lance_shared EXPORT LanceTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS lance_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/lance DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(LANCE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Lance)
install(EXPORT LanceTargets NAMESPACE Lance:: DESTINATION ${LANCE_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/LanceConfig.cmake.in
  ${CMAKE_BINARY_DIR}/LanceConfig.cmake INSTALL_DESTINATION ${LANCE_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/LanceConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/LanceConfig.cmake ${CMAKE_BINARY_DIR}/LanceConfigVersion.cmake
  DESTINATION ${LANCE_CMAKE_DIR})

list(TRANSFORM LANCE_STATIC_LINK_NAMES PREPEND "-l" OUTPUT_VARIABLE LANCE_PC_PRIVATE_LIBS)
string(JOIN " " LANCE_PC_PRIVATE_LIBS ${LANCE_PC_PRIVATE_LIBS})
# lance.pc finds the prefix from its own place (relocatable: `cmake --install --prefix P`).
file(RELATIVE_PATH LANCE_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
configure_file(${CMAKE_SOURCE_DIR}/cmake/lance.pc.in ${CMAKE_BINARY_DIR}/lance.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/lance.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
