# What `cmake --install` puts under the prefix, and the .deb CPack makes of it:
#   bin/ckpt, lib/<multiarch>/libckpt.so.0 (+ the development symlink), the SQLite extension
#   lib/<multiarch>/libckpt_sqlite.so(.0) (its unversioned name is what `.load` looks for), include/ckpt/*.h,
#   lib/<multiarch>/cmake/ckpt/ (find_package(ckpt) -> ckpt::ckpt), .../pkgconfig/ckpt.pc,
#   share/man/man1/*.1.gz (man/CMakeLists.txt), shell completion for bash, zsh and fish, and
#   share/doc/ckpt/ (copyright, changelog.Debian.gz).
include(CMakePackageConfigHelpers)

install(TARGETS ckpt EXPORT ckptTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS ckpt_bin RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS ckpt_sqlite LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT runtime)
# Under /usr (and in the .deb, staged under .../usr) ld.so finds libckpt in the multiarch
# directory by itself, and a RUNPATH is what Debian forbids (lintian: custom-library-search-path);
# elsewhere ($ORIGIN/../lib/...) the program needs it to find the library beside it.
install(CODE "set(ckpt_installed_program \"${CMAKE_INSTALL_BINDIR}/$<TARGET_FILE_NAME:ckpt_bin>\")" COMPONENT runtime)
install(CODE "set(ckpt_installed_extension \"${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:ckpt_sqlite>\")"
  COMPONENT runtime)
install(CODE [[
  if(CMAKE_INSTALL_PREFIX MATCHES "/usr$")
    file(RPATH_REMOVE FILE "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${ckpt_installed_program}")
    file(RPATH_REMOVE FILE "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/${ckpt_installed_extension}")
  endif()
]] COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/ckpt DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT development FILES_MATCHING PATTERN "*.h")

set(CKPT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ckpt)
install(EXPORT ckptTargets NAMESPACE ckpt:: DESTINATION ${CKPT_CMAKE_DIR} COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ckptConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ckptConfig.cmake INSTALL_DESTINATION ${CKPT_CMAKE_DIR})
# 0.x: a minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ckptConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ckptConfig.cmake ${PROJECT_BINARY_DIR}/ckptConfigVersion.cmake
  DESTINATION ${CKPT_CMAKE_DIR} COMPONENT development)

# pkg-config: the prefix found from the file's own place (pkg-config's ${pcfiledir}), so the
# file holds for any --prefix given at install time.
file(RELATIVE_PATH CKPT_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/ckpt.pc.in ${PROJECT_BINARY_DIR}/ckpt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ckpt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT development)

# Completion scripts, written by the program itself from its command table.
set(CKPT_COMPLETION_DIR ${PROJECT_BINARY_DIR}/completion)
add_custom_command(
  OUTPUT ${CKPT_COMPLETION_DIR}/ckpt.bash ${CKPT_COMPLETION_DIR}/_ckpt ${CKPT_COMPLETION_DIR}/ckpt.fish
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CKPT_COMPLETION_DIR}
  COMMAND ckpt_bin completion bash > ${CKPT_COMPLETION_DIR}/ckpt.bash
  COMMAND ckpt_bin completion zsh > ${CKPT_COMPLETION_DIR}/_ckpt
  COMMAND ckpt_bin completion fish > ${CKPT_COMPLETION_DIR}/ckpt.fish
  DEPENDS ckpt_bin VERBATIM)
add_custom_target(ckpt_completion ALL
  DEPENDS ${CKPT_COMPLETION_DIR}/ckpt.bash ${CKPT_COMPLETION_DIR}/_ckpt ${CKPT_COMPLETION_DIR}/ckpt.fish)
install(FILES ${CKPT_COMPLETION_DIR}/ckpt.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
  RENAME ckpt COMPONENT runtime)
install(FILES ${CKPT_COMPLETION_DIR}/_ckpt DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions
  COMPONENT runtime)
install(FILES ${CKPT_COMPLETION_DIR}/ckpt.fish DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d
  COMPONENT runtime)

# Debian's documentation of the package, under every prefix (share/doc/ckpt): the copyright
# file and a changelog, compressed with no name or time in its header.
set(CPACK_PACKAGE_CONTACT "ckpt developers <maintainers@users.noreply.github.com>")
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)  # 0.1.0-1: ckpt is packaged, not a Debian-native source
set(CKPT_DEB_VERSION ${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE})
ckpt_source_date(CKPT_SOURCE_DATE_RFC2822 "%a, %d %b %Y %H:%M:%S +0000")
configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/changelog.in ${PROJECT_BINARY_DIR}/debian/changelog.Debian @ONLY)
find_program(CKPT_GZIP gzip)
if(CKPT_GZIP)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz
    COMMAND ${CKPT_GZIP} -9 -n -f -k ${PROJECT_BINARY_DIR}/debian/changelog.Debian
    DEPENDS ${PROJECT_BINARY_DIR}/debian/changelog.Debian VERBATIM)
  add_custom_target(ckpt_deb_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz)
  install(FILES ${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/cmake/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)

# `cpack -G DEB` in the build directory: one package with the program, library, headers and pages.
set(CPACK_PACKAGE_NAME ckpt)
set(CPACK_PACKAGE_VENDOR "ckpt developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Read and write Apache Flink checkpoints and savepoints without a JVM")
set(CPACK_PACKAGE_DESCRIPTION "ckpt reads and writes the checkpoints and savepoints of
Apache Flink (_metadata of Flink 1.2 to 2.x, keyed and operator state of the
heap and RocksDB backends) without a JVM: inspect, dump, verify, convert,
edit, diff, compact, report. This package holds the ckpt program, the libckpt
library and its headers, and the Python module ckpt.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Depends: the libraries' packages, computed by dpkg-shlibdeps; libcurl4, which libckpt loads
# (dlopen) on its first object-store request, so dpkg-shlibdeps does not see it; and Chart.js,
# which `ckpt report` reads at run time (it exits 2 without it). rocksdb-tools has the `ldb` that restore's output
# is for; sqlite3 is the shell `ckpt query --shell` runs.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The Python module is an extension of the interpreter it was built for (python/CMakeLists.txt).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4, libjs-chart.js")
if(CKPT_PYTHON)
  math(EXPR ckpt_python_next "${Python3_VERSION_MINOR} + 1")
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}~),"
         " python3 (<< ${Python3_VERSION_MAJOR}.${ckpt_python_next})")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "rocksdb-tools, sqlite3")
# libckpt.so.0's shlibs file, for packages built against it, and the ldconfig trigger a package
# with a shared library in the linker's path needs.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/cmake/debian/triggers)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)  # the debug info of a RelWithDebInfo build would make it 300 MB
include(CPack)
